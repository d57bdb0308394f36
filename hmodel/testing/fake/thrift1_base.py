"""The Thrift1 handler's shared state and the conversions its calls have in common."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from hmodel.backend.base import Cell, Delete, Put, Region, RowResult, family_of, split_column
from hmodel.backend.memory import MemoryBackend
from hmodel.errors import BackendError, IllegalArgumentError
from hmodel.schema.family import FOREVER, BloomFilter, Compression, Family
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT, LATEST_TIMESTAMP
from hmodel.testing.fake.thrift1_scanner import RowChunk, ScannerRegistry

__all__ = ["Attributes", "HandlerBase"]

logger = logging.getLogger(__name__)

_TTL_ATTRIBUTE = b"_ttl"  # HBase's Mutation.setTTL stores the TTL (ms) under this attribute
_REGION_VERSION = 1  # ThriftHBaseServiceHandler.HREGION_VERSION
_META_TABLE = "hbase:meta"

Attributes = Mapping[bytes, bytes] | None


# The first frames of the stack trace HBase 2.2 sends with deleteTable of a missing table.
_DELETE_TRACE = (
    "\n\tat org.apache.hadoop.hbase.client.HBaseAdmin.checkTableExists(HBaseAdmin.java:1559)"
    "\n\tat org.apache.hadoop.hbase.client.HBaseAdmin.deleteTable(HBaseAdmin.java:843)"
    "\n\tat org.apache.hadoop.hbase.thrift.ThriftHBaseServiceHandler.deleteTable("
    "ThriftHBaseServiceHandler.java:300)"
)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _missing_table_put(table: str, actions: int) -> Exception:
    """HBase 2.2's answer to puts into a missing table: the client's retries, exhausted.

    ``RetriesExhaustedWithDetailsException: Failed 1 action: <table>: 1 time, servers
    with issues: null``: the cause is described by the table name alone, and no region
    server was reached.
    """
    return HBASE_THRIFT.IOError(  # type: ignore[no-any-return]
        message=(
            "org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException: Failed "
            f"{_plural(actions, 'action')}: {table}: {_plural(actions, 'time')}, "
            "servers with issues: null"
        )
    )


def _get_scan(start: bytes, stop: bytes) -> bool:
    """Whether HBase's deprecated ``Scan.setStopRow`` makes these bounds a get of ``start``.

    ``setStopRow`` sets ``includeStopRow`` when the start row is non-empty and equal to
    the stop row, "for keeping the old behavior that a scan with the same start and stop
    row is a get scan".
    """
    return bool(start) and start == stop


def _stop_range(start_row: bytes | None, stop_row: bytes | None) -> tuple[bytes, bytes]:
    """The engine's ``[start, stop)`` for a forward scan opened with both bounds."""
    start, stop = start_row or b"", stop_row or b""
    return (start, start + b"\x00") if _get_scan(start, stop) else (start, stop)


def _table(name: bytes | str | None) -> str:
    """Decode a Thrift table name (``namespace:name`` allowed)."""
    if isinstance(name, str):
        return name
    try:
        return (name or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise IllegalArgumentError("a table name must be UTF-8", value=name) from None


def _text(value: bytes | str | None) -> str:
    """A Thrift ``string`` field: thriftpy2 hands out ``bytes`` when it is not UTF-8."""
    if value is None:
        return ""
    return value if isinstance(value, str) else value.decode("utf-8", "replace")


def _before(timestamp: int | None) -> int | None:
    """``setTimeRange(0, timestamp)``: cells strictly older than ``timestamp``; LATEST: all."""
    if timestamp is None or timestamp >= LATEST_TIMESTAMP:
        return None
    if timestamp < 0:
        raise IllegalArgumentError("maxStamp is smaller than minStamp", value=timestamp)
    return timestamp


def _write_timestamp(timestamp: int | None) -> int | None:
    """A mutation timestamp: ``LATEST_TIMESTAMP`` means "stamp with the server's time"."""
    if timestamp is None or timestamp == LATEST_TIMESTAMP:
        return None
    if timestamp < 0:
        raise IllegalArgumentError("Timestamp cannot be negative", value=timestamp)
    return timestamp


def _ttl(attributes: Attributes) -> int | None:
    """The per-cell TTL in ms of a mutation's ``_ttl`` attribute (8-byte big-endian long)."""
    raw = (attributes or {}).get(_TTL_ATTRIBUTE)
    if raw is None:
        return None
    if len(raw) != 8:
        raise IllegalArgumentError(
            "the _ttl attribute must be an 8-byte big-endian long (milliseconds)", value=raw
        )
    return int.from_bytes(raw, "big", signed=True)


def _columns(columns: Iterable[bytes] | None) -> tuple[bytes, ...]:
    """The engine's columns of a read, as HBase's Thrift1 server builds its ``Get``/``Scan``.

    The server adds each name in order: ``b"f"`` with ``addFamily`` (the whole family),
    ``b"f:q"`` with ``addColumn``, which narrows a family added before it to the columns
    named (``[f, f:q]`` reads only ``f:q``); a family added after them widens it again.
    """
    chosen: dict[bytes, list[bytes] | None] = {}
    for column in columns or ():
        family, qualifier = split_column(column)
        if qualifier is None:
            chosen[family] = None
        else:
            named = chosen.get(family)
            if named is None:
                named = chosen[family] = []
            if column not in named:
                named.append(column)
    found: list[bytes] = []
    for family, named in chosen.items():
        found.extend([family] if named is None else named)
    return tuple(found)


def _tcells(cells: Iterable[Cell]) -> list[Any]:
    return [HBASE_THRIFT.TCell(value=cell.value, timestamp=cell.timestamp) for cell in cells]


def _row_result(chunk: RowChunk, *, sort_columns: bool = False) -> Any:
    """A ``TRowResult``: a ``columns`` map, or a ``sortedColumns`` list in column order."""
    row, cells = chunk
    if sort_columns:
        return HBASE_THRIFT.TRowResult(
            row=row,
            sortedColumns=[
                HBASE_THRIFT.TColumn(columnName=column, cell=_tcells([cell])[0])
                for column, cell in cells
            ],
        )
    return HBASE_THRIFT.TRowResult(
        row=row, columns={column: _tcells([cell])[0] for column, cell in cells}
    )


def _row_results(results: Iterable[RowResult]) -> list[Any]:
    return [_row_result((result.row, list(result.cells.items()))) for result in results]


def _region_id(index: int) -> int:
    """Region ids are the region's position in the table, from 1 (HBase uses creation time)."""
    return index + 1


def _region_name(table: str, region: Region, region_id: int) -> bytes:
    """HBase's region name: ``table,startKey,regionId.<md5 of what precedes>.``."""
    head = table.encode() + b"," + region.start + b"," + str(region_id).encode() + b"."
    return head + hashlib.md5(head).hexdigest().encode() + b"."  # a name, not security


def _family(descriptor: Any) -> Family:
    """Turn a Thrift ``ColumnDescriptor`` into a :class:`Family`, as ``colDescFromThrift`` does.

    ``name`` may be ``b"f"`` or ``b"f:"``; ``compression`` is case-insensitive and
    ``bloomFilterType`` exact, as in HBase; ``timeToLive <= 0`` (the IDL default is ``-1``)
    means forever. Bloom filter vector size and hash count are ignored (HBase ignores them).
    """
    raw_name = descriptor.name
    if not raw_name:
        raise IllegalArgumentError("column name is empty")
    try:
        name = family_of(raw_name).decode("utf-8")
    except UnicodeDecodeError:
        raise IllegalArgumentError("a family name must be UTF-8", value=raw_name) from None
    compression = _text(descriptor.compression) or "NONE"
    if compression.upper() not in Compression.__members__:
        raise IllegalArgumentError(
            f"unsupported compression for family {name!r}", column=name, value=compression
        )
    bloom = _text(descriptor.bloomFilterType) or "NONE"
    if bloom not in BloomFilter.__members__:
        raise IllegalArgumentError(
            f"No enum constant BloomType.{bloom} (family {name!r})", column=name, value=bloom
        )
    ttl = descriptor.timeToLive
    return Family(
        name,
        versions=3 if descriptor.maxVersions is None else descriptor.maxVersions,
        compression=Compression[compression.upper()],
        in_memory=bool(descriptor.inMemory),
        bloom_filter=BloomFilter[bloom],
        block_cache=bool(descriptor.blockCacheEnabled),
        ttl=ttl if ttl is not None and ttl > 0 else FOREVER,
    )


def _descriptor(family: Family) -> Any:
    """A Thrift ``ColumnDescriptor`` as ``colDescFromHbase`` reports a family."""
    return HBASE_THRIFT.ColumnDescriptor(
        name=family.name_bytes + b":",
        maxVersions=family.versions,
        compression=family.compression.value,
        inMemory=family.in_memory,
        bloomFilterType=family.bloom_filter.value,
        bloomFilterVectorSize=0,
        bloomFilterNbHashes=0,
        blockCacheEnabled=family.block_cache,
        timeToLive=family.ttl,
    )


def _mutations(
    row: bytes,
    mutations: Iterable[Any] | None,
    timestamp: int | None,
    ttl: int | None,
    *,
    strict: bool,
) -> tuple[list[Put], list[Delete]]:
    """Split Thrift ``Mutation`` structs of one row into puts and deletes.

    A delete of ``b"f:q"`` deletes every version of the column up to ``timestamp``
    (``Delete.addColumns``), of a bare ``b"f"`` the whole family (``Delete.addFamily``). A
    put needs ``family:qualifier``: ``mutateRows`` rejects a bare family (``strict``) while
    ``mutateRow`` skips it with a warning, exactly as HBase's handler does. A missing value
    is the empty value. ``writeToWAL`` has no meaning here and is ignored.
    """
    puts: list[Put] = []
    deletes: list[Delete] = []
    for mutation in mutations or ():
        column = mutation.column
        if column is None:
            raise IllegalArgumentError("a mutation needs a column", row=row)
        qualifier = split_column(column)[1]
        if mutation.isDelete:
            deletes.append(Delete(row, column, timestamp))
        elif qualifier is not None:
            puts.append(Put(row, column, mutation.value or b"", timestamp, ttl))
        elif strict:
            raise IllegalArgumentError("Invalid famAndQf provided.", row=row, column=column)
        else:
            logger.warning(
                "No column qualifier specified. Delete is the only mutation supported "
                "over the whole column family (row=%r, column=%r)",
                row,
                column,
            )
    return puts, deletes


def _meta_key(search_row: bytes) -> tuple[str, bytes]:
    """Parse an ``hbase:meta`` key ``table,row,regionId`` (the region id part is optional)."""
    table, sep, rest = search_row.partition(b",")
    if not sep:
        raise BackendError(
            f"Cannot find row in {_META_TABLE}, row={search_row!r}", value=search_row
        )
    row, sep, _region_id_part = rest.rpartition(b",")
    return _table(table), (row if sep else rest)


class HandlerBase:
    """The state every group of Thrift1 calls uses.

    :class:`~hmodel.testing.fake.thrift1_handler.HBaseHandler` sets it in ``__init__``.
    """

    backend: MemoryBackend
    scanners: ScannerRegistry
    server_host: str
    server_port: int
