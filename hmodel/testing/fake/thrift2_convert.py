"""Thrift2 request structs to the engine's bytes-level values, and cells back to ``TResult``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hmodel.backend.base import Cell, Delete, Put
from hmodel.backend.memory import VersionDelete
from hmodel.backend.thrift2.idl import (
    HBASE2,
    LATEST_TIMESTAMP,
    TTL_ATTRIBUTE,
    TColumnValue,
    TIOError,
    TResult,
)
from hmodel.testing.fake.thrift2_error import internal_error

__all__ = [
    "deletes_of",
    "empty_result",
    "engine_name",
    "puts_of",
    "read_columns",
    "require_row",
    "result_of",
    "time_range",
]


def engine_name(tname: Any) -> str:
    """The engine's table name of a ``TTableName``: ``ns:t``, or ``t`` in ``default``."""
    namespace = (tname.ns or b"default").decode("utf-8", "replace")
    qualifier = (tname.qualifier or b"").decode("utf-8", "replace")
    return qualifier if namespace == "default" else f"{namespace}:{qualifier}"


def require_row(row: bytes | None, api: str) -> bytes:
    """HBase refuses an empty row outside any declared exception (``TApplicationException``)."""
    if not row:
        raise internal_error(api)
    return row


def read_columns(tcolumns: Iterable[Any] | None) -> list[bytes]:
    """The engine's columns of a read, applying HBase's ``Get``/``Scan`` column rules in order.

    ``addFamily`` selects the whole family; a later ``addColumn`` of that family narrows
    it to the qualifiers named (``[f, f:q]`` reads only ``f:q``); an ``addFamily`` after
    them widens it again (``[f:q, f]`` reads the whole family).
    """
    chosen: dict[bytes, set[bytes] | None] = {}
    for tcolumn in tcolumns or ():
        family = tcolumn.family
        if tcolumn.qualifier is None:
            chosen[family] = None
        else:
            current = chosen.get(family)
            if current is None:
                current = chosen[family] = set()
            current.add(tcolumn.qualifier)
    columns: list[bytes] = []
    for family, qualifiers in chosen.items():
        if qualifiers is None:
            columns.append(family)
        else:
            columns.extend(family + b":" + q for q in sorted(qualifiers))
    return columns


def time_range(timestamp: int | None, trange: Any, api: str) -> tuple[int, int | None]:
    """``[minimum, before)`` of a read: an exact ``timestamp`` wins over a ``timeRange``.

    Raises:
        TApplicationException: An inverted range (HBase's ``TimeRange`` refuses it).
    """
    if timestamp is not None:
        return timestamp, timestamp + 1
    if trange is None:
        return 0, None
    if trange.maxStamp < trange.minStamp or trange.minStamp < 0:
        raise internal_error(api)
    return trange.minStamp, trange.maxStamp


def ttl_of(attributes: dict[bytes, bytes] | None) -> int | None:
    """The per-cell TTL in ms of a mutation's ``"_ttl"`` attribute (<= 0: already expired)."""
    raw = (attributes or {}).get(TTL_ATTRIBUTE)
    if raw is None:
        return None
    return max(0, int.from_bytes(raw[:8].rjust(8, b"\x00"), "big", signed=True))


def puts_of(tput: Any, api: str) -> list[Put]:
    """The engine puts of a ``TPut``: a cell's own timestamp wins over the put's.

    Raises:
        TApplicationException: An empty row or no columns (what HBase answers).
    """
    row = require_row(tput.row, api)
    if not tput.columnValues:
        raise internal_error(api)
    ttl = ttl_of(tput.attributes)
    puts = []
    for value in tput.columnValues:
        stamp = value.timestamp if value.timestamp is not None else tput.timestamp
        puts.append(
            Put(
                row,
                value.family + b":" + (value.qualifier or b""),
                value.value or b"",
                timestamp=None if stamp == LATEST_TIMESTAMP else stamp,
                ttl=ttl,
            )
        )
    return puts


def deletes_of(tdelete: Any, api: str) -> list[Delete | VersionDelete]:
    """The engine deletes of a ``TDelete``, with HBase 2.2's reading of its fields.

    No columns: the whole row (up to ``TDelete.timestamp``). ``DELETE_COLUMNS`` (also
    when unset): each column's versions up to its timestamp; a family-only column means
    its empty qualifier. ``DELETE_FAMILY``: the family, the qualifier ignored; of two
    columns of one family the later one counts (HBase's ``Delete.addFamily`` replaces the
    family's earlier delete). ``DELETE_COLUMN``: each column's version at its timestamp,
    or its newest visible one without (:class:`~hmodel.backend.memory.VersionDelete`).
    ``DELETE_FAMILY_VERSION``: every column's version of the family at the timestamp, the
    qualifier ignored. ``TDelete.timestamp`` is ignored when columns are given.

    Raises:
        TApplicationException: An empty row, or ``DELETE_FAMILY_VERSION`` without a
            timestamp (HBase's answers).
        TIOError: A delete type outside the IDL's.
    """
    row = require_row(tdelete.row, api)
    if not tdelete.columns:
        return [Delete(row, None, timestamp=tdelete.timestamp)]
    kind = tdelete.deleteType
    kinds = HBASE2.TDeleteType
    deletes: list[Delete | VersionDelete] = []
    families: dict[bytes, Delete] = {}
    for tcolumn in tdelete.columns:
        column = tcolumn.family + b":" + (tcolumn.qualifier or b"")
        if kind == kinds.DELETE_FAMILY:
            families[tcolumn.family] = Delete(row, tcolumn.family, timestamp=tcolumn.timestamp)
        elif kind is None or kind == kinds.DELETE_COLUMNS:
            deletes.append(Delete(row, column, timestamp=tcolumn.timestamp))
        elif kind == kinds.DELETE_COLUMN:
            deletes.append(VersionDelete(row, column, timestamp=tcolumn.timestamp))
        elif kind == kinds.DELETE_FAMILY_VERSION:
            if tcolumn.timestamp is None:
                raise internal_error(api)
            deletes.append(VersionDelete(row, tcolumn.family, timestamp=tcolumn.timestamp))
        else:
            raise TIOError(message=f"java.io.IOException: unknown delete type {kind}")
    return deletes or list(families.values())


def result_of(row: bytes, cells: Iterable[tuple[bytes, Cell]]) -> Any:
    """A ``TResult`` of ``(b"f:q", cell)`` pairs (several versions of a column: newest first)."""
    values = []
    for column, cell in cells:
        family, _, qualifier = column.partition(b":")
        values.append(
            TColumnValue(
                family=family,
                qualifier=qualifier,
                value=cell.value,
                timestamp=cell.timestamp,
                type=4,  # KeyValue.Type.Put
            )
        )
    return TResult(row=row, columnValues=values) if values else empty_result()


def empty_result() -> Any:
    """HBase's answer for a row with nothing to return: no row, no cells."""
    return TResult(columnValues=[])
