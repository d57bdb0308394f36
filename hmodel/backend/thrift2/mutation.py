"""Puts and deletes to Thrift2 ``TPut`` / ``TDelete`` structs, and results back to rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmodel.backend.argument import (
    LONG_MAX,
    MAX_ROW_LENGTH,
    require_bytes,
    require_int,
    require_row,
    require_timestamp,
)
from hmodel.backend.base import (
    Delete,
    ListCells,
    Mutation,
    Put,
    RowBatch,
    RowResult,
    WireCells,
    column_order,
    in_column_order,
    split_column,
)
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
    "Thrift2RowBatch",
    "check_mutation",
    "check_mutations",
    "column_order",
    "in_column_order",
    "require_cell_column",
    "row_result",
    "row_results",
    "tcolumns",
    "to_tdeletes",
    "to_tmutations",
    "to_tputs",
    "ttl_attribute",
]


#: No put seen yet (``None`` is a ttl).
_UNSET = object()


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


def check_mutations(mutations: Sequence[object], *, table: str) -> list[Mutation]:
    """:func:`check_mutation` of each of ``mutations``, in order; return them as a list.

    A plain :class:`Put` is checked inline on exact types (a ``bool`` is not an ``int``,
    a ``bytes`` subclass takes the full checks); anything else, and anything off, goes
    through :func:`check_mutation`, which raises its error.
    """
    checked: list[Mutation] = []
    append = checked.append
    for index, mutation in enumerate(mutations):
        if type(mutation) is Put:
            row = mutation.row
            column = mutation.column
            timestamp = mutation.timestamp
            ttl = mutation.ttl
            if (
                type(row) is bytes
                and 0 < len(row) <= MAX_ROW_LENGTH
                and type(column) is bytes
                and column.find(b":") > 0  # a colon, after a non-empty family
                and type(mutation.value) is bytes
                and (timestamp is None or (type(timestamp) is int and 0 <= timestamp < LONG_MAX))
                and (ttl is None or (type(ttl) is int and 0 <= ttl <= LONG_MAX))
            ):
                append(mutation)
                continue
        append(check_mutation(mutation, table=table, index=index))
    return checked


def _without_overwritten(puts: Sequence[Put]) -> Sequence[Put]:
    """``puts`` without those a later put of the same cell and timestamp overwrites.

    Only a later put with another ttl matters: it travels in another ``TPut``, which may
    be applied first (the server applies a row's ``TPut`` s in order; two puts of one cell
    and timestamp are one version, the one applied last). With the same ttl both travel in
    one ``TPut``, whose last cell wins.
    """
    if len({put.ttl for put in puts}) < 2:
        return puts
    last_ttl: dict[tuple[bytes, bytes, int | None], int | None] = {}
    kept: list[Put] = []
    for put in reversed(puts):
        if last_ttl.setdefault((put.row, put.column, put.timestamp), put.ttl) == put.ttl:
            kept.append(put)
    kept.reverse()
    return kept


def to_tputs(puts: Sequence[Put]) -> list[Any]:
    """One ``TPut`` per ``(row, ttl)``, in order of first appearance.

    Each cell carries its own timestamp (unset: the server's time at the call); a ttl
    travels as the put's ``"_ttl"`` attribute, so puts of one row with different ttls need
    a ``TPut`` each. Of several puts of one cell and timestamp the last one is sent (the
    ``TPut`` s are applied in their order, not the puts').
    """
    puts = _without_overwritten(puts)
    grouped: dict[tuple[bytes, int | None], list[Any]] = {}
    # The values of the previous put's (row, ttl): consecutive puts of one row (the cells
    # of one record) skip building and hashing the key. Compared by identity: equal
    # objects that are not identical just take the dictionary.
    last_row: object = _UNSET
    last_ttl: object = _UNSET
    values: list[Any] = []
    for put in puts:
        row = put.row
        ttl = put.ttl
        if row is not last_row or ttl is not last_ttl:
            values = grouped.setdefault((row, ttl), [])
            last_row, last_ttl = row, ttl
        family, _, qualifier = put.column.partition(b":")
        # family, qualifier, value, timestamp (a bare family: the empty qualifier)
        values.append(TColumnValue(family, qualifier, put.value, put.timestamp))
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
    are given, so a column's timestamp travels in its ``TColumn``). A second delete of a
    family already in a row's ``TDelete`` goes in another one: HBase's
    ``Delete.addFamily`` would replace the first.
    """
    grouped: dict[tuple[bytes, int, int], list[Any]] = {}
    whole_rows: list[Any] = []
    # Per (row, family): how many family deletes of it were grouped so far.
    seen: dict[tuple[bytes, bytes], int] = {}
    for delete in deletes:
        if delete.column is None:
            whole_rows.append(TDelete(row=delete.row, timestamp=delete.timestamp))
            continue
        family, qualifier = split_column(delete.column)
        if qualifier is None:
            kind = TDeleteType.DELETE_FAMILY
            tcolumn = TColumn(family=family, timestamp=delete.timestamp)
            apart = seen.get((delete.row, family), 0)
            seen[(delete.row, family)] = apart + 1
        else:
            kind = TDeleteType.DELETE_COLUMNS
            tcolumn = TColumn(family=family, qualifier=qualifier, timestamp=delete.timestamp)
            apart = 0
        grouped.setdefault((delete.row, kind, apart), []).append(tcolumn)
    return [
        TDelete(row=row, columns=columns, deleteType=kind)
        for (row, kind, _), columns in grouped.items()
    ] + whole_rows


class Thrift2RowBatch(RowBatch):
    """A :class:`~hmodel.backend.base.RowBatch` kept as Thrift2 calls' cells, row by row.

    Each added put is kept as ``(family, qualifier, value)`` in its row's list and each
    delete as ``(family, qualifier)`` (``DELETE_COLUMNS``, at the batch's timestamp) in
    its row's deletes, rows in order of first appearance: what :func:`to_tputs` and
    :func:`to_tdeletes` build for ``batch.mutations()`` (one ttl for all, so one ``TPut``
    per row), without a ``Put`` per cell or a check of each. A column's split into family
    and qualifier is made once per batch. A call is sent either as its whole binary
    message written from the cells (:mod:`hmodel.backend.thrift2.request`) or as structs
    (:meth:`tputs`, :meth:`tdeletes`, :meth:`tmutations`): the same bytes on the binary
    protocol.
    """

    __slots__ = ("_split", "deletes", "puts")

    def __init__(self, timestamp: int, ttl: int | None, families: frozenset[bytes]) -> None:
        super().__init__(timestamp, ttl, families)
        #: Per row, its puts' ``(family, qualifier, value)``.
        self.puts: dict[bytes, list[tuple[bytes, bytes, bytes]]] = {}
        #: Per row, its deletes' ``(family, qualifier)``.
        self.deletes: dict[bytes, list[tuple[bytes, bytes]]] = {}
        self._split: dict[bytes, tuple[bytes, bytes]] = {}

    def add_row(self, row: bytes, cells: list[tuple[bytes, bytes | None]]) -> None:
        """Add a row's cells (see the class docstring)."""
        split = self._split
        values: list[tuple[bytes, bytes, bytes]] | None = None
        for column, value in cells:
            parts = split.get(column)
            if parts is None:
                family, _, qualifier = column.partition(b":")
                parts = split[column] = (family, qualifier)
            if value is None:
                self.deletes.setdefault(row, []).append(parts)
                continue
            if values is None:
                values = self.puts.get(row)
                if values is None:
                    values = self.puts[row] = []
            values.append((parts[0], parts[1], value))

    def mutations(self) -> list[Mutation]:
        """The batch's puts, then its deletes, row by row."""
        timestamp, ttl = self.timestamp, self.ttl
        puts: list[Mutation] = [
            Put(row, family + b":" + qualifier, value, timestamp, ttl)
            for row, values in self.puts.items()
            for family, qualifier, value in values
        ]
        return puts + [
            Delete(row, family + b":" + qualifier, timestamp)
            for row, columns in self.deletes.items()
            for family, qualifier in columns
        ]

    @property
    def attributes(self) -> dict[bytes, bytes] | None:
        """The ``TPut`` attributes: the TTL attribute with a ttl, else ``None``."""
        return None if self.ttl is None else ttl_attribute(self.ttl)

    @property
    def row_count(self) -> int:
        """How many distinct rows the batch writes."""
        if not self.deletes:
            return len(self.puts)
        return len(self.puts.keys() | self.deletes.keys())

    def tputs(self) -> list[Any]:
        """One ``TPut`` per row with puts, in order of first appearance."""
        attributes, timestamp = self.attributes, self.timestamp
        return [
            TPut(
                row=row,
                columnValues=[TColumnValue(f, q, v, timestamp) for f, q, v in values],
                attributes=attributes,
            )
            for row, values in self.puts.items()
        ]

    def tdeletes(self) -> list[Any]:
        """One ``TDelete`` (``DELETE_COLUMNS``) per row with deletes."""
        kind, timestamp = TDeleteType.DELETE_COLUMNS, self.timestamp
        return [
            TDelete(
                row=row,
                columns=[TColumn(family=f, qualifier=q, timestamp=timestamp) for f, q in columns],
                deleteType=kind,
            )
            for row, columns in self.deletes.items()
        ]

    def tmutations(self) -> list[Any]:
        """The ``TMutation`` list of a one-row batch's ``TRowMutations``: puts, then deletes."""
        return [TMutation(put=p) for p in self.tputs()] + [
            TMutation(deleteSingle=d) for d in self.tdeletes()
        ]

    def only_row(self) -> bytes:
        """The row of a one-row batch."""
        return next(iter(self.puts or self.deletes))


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


# ``RowResult`` (a frozen attrs class) and ``ListCells`` are slotted classes without
# converters or validators: allocating one and setting its slots makes the same object as
# its ``__init__`` (for attrs, a detour through the frozen ``__setattr__``) in about half
# the time.
_new = object.__new__
_set_row = RowResult.__dict__["row"].__set__
_set_cells = RowResult.__dict__["cells"].__set__
_set_listed = ListCells.__dict__["listed"].__set__
_set_order = WireCells.__dict__["_order"].__set__


def row_result(tresult: Any) -> RowResult | None:
    """The :class:`RowResult` of a ``TResult``: the newest cell per column; ``None`` if empty.

    A result may hold several versions of a column (newest first); only the first is kept.
    The cells stay the ``TColumnValue`` structs the server sent, in a
    :class:`~hmodel.backend.base.ListCells` mapping that makes each ``Cell`` when it is
    read (a missing value as ``b""``), iterates in column order and maps the columns
    only when asked: a read that walks the list once in column order (the mapper's
    reader) builds neither a ``Cell`` nor the mapping.
    """
    values = tresult.columnValues
    if not values or tresult.row is None:
        return None
    cells = _new(ListCells)
    _set_listed(cells, values)
    _set_order(cells, None)
    result = _new(RowResult)
    _set_row(result, tresult.row)
    _set_cells(result, cells)
    return result


def row_results(tresults: list[Any]) -> list[RowResult]:
    """The :class:`RowResult` of each ``TResult`` of a batch, leaving out empty ones.

    ``[r for r in map(row_result, tresults) if r is not None]``, skipping a ``None`` in
    the list as well (``getMultiple`` may answer one): a scan's batch, or a multi-row
    get's answer, in one call (``tests/backend/thrift2/test_thrift2_mutation.py`` holds it
    to that with hypothesis).
    """
    return [
        result
        for tresult in tresults
        if tresult is not None and (result := row_result(tresult)) is not None
    ]
