"""Puts and deletes to Thrift2 ``TPut`` / ``TDelete`` structs, and results back to rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmodel.backend.argument import (
    LONG_MAX,
    require_bytes,
    require_int,
    require_row,
    require_timestamp,
)
from hmodel.backend.base import Cell, Delete, Mutation, Put, RowResult, split_column
from hmodel.backend.thrift2.idl import (
    TTL_ATTRIBUTE,
    TColumn,
    TColumnValue,
    TDelete,
    TDeleteType,
    TMutation,
    TPut,
)
from hmodel.errors import ColumnFamilyNotFoundError, IllegalArgumentError

__all__ = [
    "check_mutation",
    "column_order",
    "require_cell_column",
    "row_result",
    "tcolumns",
    "to_tdeletes",
    "to_tmutations",
    "to_tputs",
    "ttl_attribute",
]


def ttl_attribute(ttl: int) -> dict[bytes, bytes]:
    """The ``attributes`` map carrying a per-cell TTL of ``ttl`` ms (F8, ``Mutation.setTTL``)."""
    return {TTL_ATTRIBUTE: ttl.to_bytes(8, "big", signed=True)}


def require_cell_column(
    column: object, *, table: str | None, row: bytes | None, what: str
) -> tuple[bytes, bytes]:
    """Return ``(family, qualifier)`` of ``column`` if it is ``b"family:qualifier"``.

    Raises:
        IllegalArgumentError: Not bytes, or a bare family, naming ``what``.
        ColumnFamilyNotFoundError: The family part is empty (no family has that name).
    """
    checked = require_bytes("column", column, table=table, row=row)
    family, qualifier = split_column(checked)
    if qualifier is None:
        raise IllegalArgumentError(
            f"{what} needs a column b'family:qualifier'", table=table, row=row, column=checked
        )
    if not family:
        raise ColumnFamilyNotFoundError(
            "no column family b'' in this table", table=table, row=row, column=checked
        )
    return family, qualifier


def check_mutation(mutation: object, *, table: str, index: int) -> Mutation:
    """Check one mutation's fields before anything is sent; return it.

    Raises:
        IllegalArgumentError: Not a ``Put``/``Delete``, a malformed row, column, value,
            timestamp or ttl (negative).
    """
    if isinstance(mutation, Put):
        row = require_row(mutation.row, table=table)
        require_cell_column(mutation.column, table=table, row=row, what="a put")
        require_bytes("value", mutation.value, table=table, row=row)
        require_timestamp("timestamp", mutation.timestamp, table=table, row=row)
        if mutation.ttl is not None:
            require_int("ttl", mutation.ttl, table=table, row=row, minimum=0, maximum=LONG_MAX)
        return mutation
    if isinstance(mutation, Delete):
        row = require_row(mutation.row, table=table)
        require_timestamp("timestamp", mutation.timestamp, table=table, row=row)
        if mutation.column is not None:
            column = require_bytes("column", mutation.column, table=table, row=row)
            if not column.partition(b":")[0]:
                raise ColumnFamilyNotFoundError(
                    "a delete's column names no family", table=table, row=row, column=column
                )
        return mutation
    raise IllegalArgumentError(
        f"mutation {index} is neither a Put nor a Delete", table=table, value=mutation
    )


def to_tputs(puts: Sequence[Put]) -> list[Any]:
    """One ``TPut`` per ``(row, ttl)``, in order of first appearance.

    Each cell carries its own timestamp (unset: the server's time at the call); a ttl
    travels as the put's ``"_ttl"`` attribute, so puts of one row with different ttls need
    a ``TPut`` each.
    """
    grouped: dict[tuple[bytes, int | None], list[Any]] = {}
    for put in puts:
        family, qualifier = split_column(put.column)
        grouped.setdefault((put.row, put.ttl), []).append(
            TColumnValue(
                family=family, qualifier=qualifier or b"", value=put.value, timestamp=put.timestamp
            )
        )
    return [
        TPut(
            row=row,
            columnValues=values,
            attributes=None if ttl is None else ttl_attribute(ttl),
        )
        for (row, ttl), values in grouped.items()
    ]


def to_tdeletes(deletes: Sequence[Delete]) -> list[Any]:
    """``TDelete`` s for ``deletes``: one per row and kind, each column with its timestamp.

    ``b"f:q"`` is ``DELETE_COLUMNS`` (every version ``<= timestamp``), a bare family
    ``DELETE_FAMILY``, and a whole-row delete a ``TDelete`` without columns whose own
    timestamp bounds the versions deleted (HBase ignores ``TDelete.timestamp`` when columns
    are given, so a column's timestamp travels in its ``TColumn``).
    """
    grouped: dict[tuple[bytes, int], list[Any]] = {}
    whole_rows: list[Any] = []
    for delete in deletes:
        if delete.column is None:
            whole_rows.append(TDelete(row=delete.row, timestamp=delete.timestamp))
            continue
        family, qualifier = split_column(delete.column)
        if qualifier is None:
            kind = TDeleteType.DELETE_FAMILY
            tcolumn = TColumn(family=family, timestamp=delete.timestamp)
        else:
            kind = TDeleteType.DELETE_COLUMNS
            tcolumn = TColumn(family=family, qualifier=qualifier, timestamp=delete.timestamp)
        grouped.setdefault((delete.row, kind), []).append(tcolumn)
    return [
        TDelete(row=row, columns=columns, deleteType=kind)
        for (row, kind), columns in grouped.items()
    ] + whole_rows


def to_tmutations(mutations: Sequence[Mutation]) -> list[Any]:
    """The ``TMutation`` union list of one row's ``TRowMutations``: puts, then deletes."""
    puts = [m for m in mutations if isinstance(m, Put)]
    deletes = [m for m in mutations if isinstance(m, Delete)]
    return [TMutation(put=p) for p in to_tputs(puts)] + [
        TMutation(deleteSingle=d) for d in to_tdeletes(deletes)
    ]


def tcolumns(columns: Sequence[bytes]) -> list[Any] | None:
    """``TColumn`` s for a read's ``b"f:q"`` columns and ``b"f"`` families; ``None`` for all.

    HBase's gets are order-dependent (``[f, f:q]`` reads only ``f:q``), so whole families
    are listed after the single columns: a family then always means the whole family.
    """
    if not columns:
        return None
    singles, families = [], []
    for column in columns:
        family, qualifier = split_column(column)
        if qualifier is None:
            families.append(TColumn(family=family))
        else:
            singles.append(TColumn(family=family, qualifier=qualifier))
    return singles + families


def column_order(column: bytes) -> tuple[bytes, bytes]:
    """Sort key of ``b"f:q"``: family, then qualifier, as unsigned bytes (HBase's order)."""
    family, _, qualifier = column.partition(b":")
    return family, qualifier


def row_result(tresult: Any) -> RowResult | None:
    """The :class:`RowResult` of a ``TResult``: the newest cell per column; ``None`` if empty.

    A result may hold several versions of a column (newest first); only the first is kept.
    """
    values = tresult.columnValues or []
    if not values or tresult.row is None:
        return None
    cells: dict[bytes, Cell] = {}
    for value in values:
        name = value.family + b":" + value.qualifier
        if name not in cells:
            cells[name] = Cell(value=value.value or b"", timestamp=value.timestamp)
    ordered = sorted(cells, key=column_order)
    return RowResult(row=tresult.row, cells={name: cells[name] for name in ordered})
