"""The Thrift1 ``Hbase`` service handler: every call of HBase's IDL, served by the memory engine."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hmodel.backend.base import (
    Cell,
    Delete,
    Increment,
    Put,
    Region,
    RowResult,
    Scan,
    family_of,
    split_column,
)
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import Clock
from hmodel.errors import (
    BackendError,
    IllegalArgumentError,
    TableExistsError,
    TableNotFoundError,
)
from hmodel.schema.family import FOREVER, BloomFilter, Compression, Family
from hmodel.schema.table import Table
from hmodel.testing.fake.thrift1_error import internal_error
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT, LATEST_TIMESTAMP
from hmodel.testing.fake.thrift1_scanner import (
    DEFAULT_SCANNER_LEASE_MS,
    RowChunk,
    Scanner,
    ScannerRegistry,
)

__all__ = ["HBaseHandler"]

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
    return tuple(columns or ())


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


class HBaseHandler:
    """Serves every call of HBase's Thrift1 ``Hbase`` service from a :class:`MemoryBackend`.

    Methods are the IDL's calls in snake case (``getRowsTs`` -> :meth:`get_rows_ts`), take
    the IDL's arguments in order and follow ``ThriftHBaseServiceHandler`` (HBase 2.x):

    * ``*Ts`` reads use ``setTimeRange(0, ts)``: only cells with a timestamp **strictly
      less** than ``ts``; ``*Ts`` deletes delete versions ``<= ts``; ``*Ts`` puts write
      at ``ts``. ``Long.MAX_VALUE`` (``LATEST_TIMESTAMP``) means no timestamp.
    * ``mutateRow(Ts)`` applies the row's deletes, then its put (two engine calls);
      ``mutateRows(Ts)`` applies all puts, then all deletes, in one engine call whose
      per-row part is atomic.
    * The ``_ttl`` attribute (8-byte big-endian long, ms; ``Mutation.setTTL``) is honoured
      on puts; other attributes are accepted and ignored.
    * Errors are :mod:`hmodel.errors` exceptions; the processor turns them into the
      ``IOError`` / ``IllegalArgument`` / ``AlreadyExists`` replies HBase sends.

    Args:
        backend: The engine that stores the data.
        server_host: Host name reported as ``serverName`` in region infos.
        server_port: Port reported in region infos.
        scanner_lease_ms: A scanner unused for this long expires (see
            :class:`~hmodel.testing.fake.thrift1_scanner.ScannerRegistry`).
        clock: The time scanner leases are measured with; the engine's clock if ``None``.
    """

    def __init__(
        self,
        backend: MemoryBackend,
        *,
        server_host: str = "127.0.0.1",
        server_port: int = 0,
        scanner_lease_ms: int = DEFAULT_SCANNER_LEASE_MS,
        clock: Clock | None = None,
    ) -> None:
        self.backend = backend
        self.scanners = ScannerRegistry(
            lease_ms=scanner_lease_ms, clock=clock if clock is not None else backend.clock
        )
        self.server_host = server_host
        self.server_port = server_port

    # --- admin ----------------------------------------------------------------------

    def enable_table(self, table_name: bytes) -> None:
        """Enable a disabled table (``TableNotDisabledException`` if it is enabled)."""
        name = _table(table_name)
        if self.backend.is_table_enabled(name):
            raise HBASE_THRIFT.IOError(
                message=f"org.apache.hadoop.hbase.TableNotDisabledException: {name}"
            )
        self.backend.enable_table(name)

    def disable_table(self, table_name: bytes) -> None:
        """Disable an enabled table (``TableNotEnabledException`` if it is disabled)."""
        name = _table(table_name)
        if not self.backend.is_table_enabled(name):
            raise HBASE_THRIFT.IOError(
                message=f"org.apache.hadoop.hbase.TableNotEnabledException: {name}"
            )
        self.backend.disable_table(name)

    def is_table_enabled(self, table_name: bytes) -> bool:
        """Whether the table is enabled."""
        return self.backend.is_table_enabled(_table(table_name))

    def _compaction_target(self, table_name_or_region_name: bytes) -> str:
        """Resolve a region name (``table,start,id.hash.``) or a table name to a table."""
        raw = table_name_or_region_name
        head = raw.partition(b",")[0]
        if head != raw:
            table = _table(head)
            if self.backend.table_exists(table):
                for index, region in enumerate(self.backend.regions(table)):
                    if _region_name(table, region, _region_id(index)) == raw:
                        return table
        table = _table(raw)
        if not self.backend.table_exists(table):
            raise TableNotFoundError(table, table=table)
        return table

    def compact(self, table_name_or_region_name: bytes) -> None:
        """Minor compaction: checks the table or region exists; nothing else is visible."""
        self._compaction_target(table_name_or_region_name)

    def major_compact(self, table_name_or_region_name: bytes) -> None:
        """Major compaction of the whole table (a region name compacts its table)."""
        self.backend.major_compact(self._compaction_target(table_name_or_region_name))

    def get_table_names(self) -> list[bytes]:
        """Names of all tables, sorted."""
        return [name.encode() for name in self.backend.list_tables()]

    def get_column_descriptors(self, table_name: bytes) -> dict[bytes, Any]:
        """The families as ``ColumnDescriptor`` structs keyed by ``b"family:"``."""
        families = self.backend.describe_families(_table(table_name))
        return {family.name_bytes + b":": _descriptor(family) for family in families.values()}

    def _region_info(self, table: str, index: int, region: Region) -> Any:
        region_id = _region_id(index)
        return HBASE_THRIFT.TRegionInfo(
            startKey=region.start,
            endKey=region.end,
            id=region_id,
            name=_region_name(table, region, region_id),
            version=_REGION_VERSION,
            serverName=self.server_host.encode(),
            port=self.server_port,
        )

    def get_table_regions(self, table_name: bytes) -> list[Any]:
        """The table's regions; an empty list for a table that does not exist (as HBase)."""
        table = _table(table_name)
        try:
            regions = self.backend.regions(table)
        except TableNotFoundError:
            return []
        return [self._region_info(table, index, region) for index, region in enumerate(regions)]

    def create_table(self, table_name: bytes, column_families: Sequence[Any] | None) -> None:
        """Create a table from ``ColumnDescriptor`` structs (no split points over Thrift1).

        Only the options Thrift1 carries are set: ``maxVersions``, ``compression``,
        ``inMemory``, ``bloomFilterType``, ``blockCacheEnabled`` and ``timeToLive``.
        """
        name = _table(table_name)
        if self.backend.table_exists(name):
            raise TableExistsError("table name already in use", table=name)
        namespace, _, short = name.rpartition(":")
        families = [_family(descriptor) for descriptor in column_families or ()]
        table = Table(short, families, namespace=namespace or None, allow_many_families=True)
        self.backend.create_table(table)

    def delete_table(self, table_name: bytes) -> None:
        """Delete a table; like HBase it must be disabled first."""
        name = _table(table_name)
        if not self.backend.table_exists(name):
            # HBase 2.2's answer, stack trace included: a frame of it names checkTableExists.
            raise HBASE_THRIFT.IOError(
                message=f"org.apache.hadoop.hbase.TableNotFoundException: {name}{_DELETE_TRACE}"
            )
        if self.backend.is_table_enabled(name):
            raise HBASE_THRIFT.IOError(
                message=f"org.apache.hadoop.hbase.TableNotDisabledException: {name}"
            )
        self.backend.delete_table(name)

    # --- reads ----------------------------------------------------------------------

    def _latest(
        self, table: str, row: bytes, column: bytes, before: int | None = None
    ) -> list[Any]:
        results = self.backend.get(table, [row], columns=[column], before=before)
        return _tcells(results[0].cells.values()) if results else []

    def get(
        self, table_name: bytes, row: bytes, column: bytes, attributes: Attributes
    ) -> list[Any]:
        """The latest cell of ``b"f:q"``, or of every column of a bare family ``b"f"``."""
        return self._latest(_table(table_name), row, column)

    def _versions(
        self, table: str, row: bytes, column: bytes, versions: int, before: int | None
    ) -> list[Any]:
        if versions < 1:
            raise BackendError("maxVersions must be positive", table=table, value=versions)
        if split_column(column)[1] is None:
            found = self.backend.get(table, [row], columns=[column], before=before)
            columns = list(found[0].cells) if found else []
        else:
            columns = [column]
        cells: list[Cell] = []
        for name in columns:
            cells.extend(
                self.backend.get_versions(table, row, name, max_versions=versions, before=before)
            )
        return _tcells(cells)

    def get_ver(
        self,
        table_name: bytes,
        row: bytes,
        column: bytes,
        num_versions: int,
        attributes: Attributes,
    ) -> list[Any]:
        """Up to ``num_versions`` versions, newest first, of a column or of a family's columns.

        For a bare family the columns are listed, then each column's versions read: two
        engine reads, not one atomic snapshot.
        """
        return self._versions(_table(table_name), row, column, num_versions, None)

    def get_ver_ts(  # noqa: PLR0917 -- the IDL fixes the arguments
        self,
        table_name: bytes,
        row: bytes,
        column: bytes,
        timestamp: int,
        num_versions: int,
        attributes: Attributes,
    ) -> list[Any]:
        """:meth:`get_ver` of the versions strictly older than ``timestamp``."""
        return self._versions(_table(table_name), row, column, num_versions, _before(timestamp))

    def get_row(self, table_name: bytes, row: bytes, attributes: Attributes) -> list[Any]:
        """The row's latest cells as ``[TRowResult]``, or ``[]`` if it has none."""
        return self.get_rows_with_columns_ts(table_name, [row], None, LATEST_TIMESTAMP, attributes)

    def get_row_with_columns(
        self,
        table_name: bytes,
        row: bytes,
        columns: Sequence[bytes] | None,
        attributes: Attributes,
    ) -> list[Any]:
        """:meth:`get_row` of some columns (``b"f:q"``) and families (``b"f"``)."""
        return self.get_rows_with_columns_ts(
            table_name, [row], columns, LATEST_TIMESTAMP, attributes
        )

    def get_row_ts(
        self, table_name: bytes, row: bytes, timestamp: int, attributes: Attributes
    ) -> list[Any]:
        """:meth:`get_row` of the cells strictly older than ``timestamp``."""
        return self.get_rows_with_columns_ts(table_name, [row], None, timestamp, attributes)

    def get_row_with_columns_ts(
        self,
        table_name: bytes,
        row: bytes,
        columns: Sequence[bytes] | None,
        timestamp: int,
        attributes: Attributes,
    ) -> list[Any]:
        """:meth:`get_row_with_columns` of the cells strictly older than ``timestamp``."""
        return self.get_rows_with_columns_ts(table_name, [row], columns, timestamp, attributes)

    def get_rows(
        self, table_name: bytes, rows: Sequence[bytes] | None, attributes: Attributes
    ) -> list[Any]:
        """Several rows in one call; rows without cells are left out."""
        return self.get_rows_with_columns_ts(table_name, rows, None, LATEST_TIMESTAMP, attributes)

    def get_rows_with_columns(
        self,
        table_name: bytes,
        rows: Sequence[bytes] | None,
        columns: Sequence[bytes] | None,
        attributes: Attributes,
    ) -> list[Any]:
        """:meth:`get_rows` of some columns and families."""
        return self.get_rows_with_columns_ts(
            table_name, rows, columns, LATEST_TIMESTAMP, attributes
        )

    def get_rows_ts(
        self,
        table_name: bytes,
        rows: Sequence[bytes] | None,
        timestamp: int,
        attributes: Attributes,
    ) -> list[Any]:
        """:meth:`get_rows` of the cells strictly older than ``timestamp``."""
        return self.get_rows_with_columns_ts(table_name, rows, None, timestamp, attributes)

    def get_rows_with_columns_ts(
        self,
        table_name: bytes,
        rows: Sequence[bytes] | None,
        columns: Sequence[bytes] | None,
        timestamp: int,
        attributes: Attributes,
    ) -> list[Any]:
        """The general read: rows in the order asked, columns, cells older than ``timestamp``."""
        results = self.backend.get(
            _table(table_name),
            list(rows or ()),
            columns=_columns(columns),
            before=_before(timestamp),
        )
        return _row_results(results)

    # --- writes ---------------------------------------------------------------------

    def mutate_row(
        self, table_name: bytes, row: bytes, mutations: Sequence[Any], attributes: Attributes
    ) -> None:
        """Apply one row's mutations with the server's time (see :meth:`mutate_row_ts`)."""
        self.mutate_row_ts(table_name, row, mutations, LATEST_TIMESTAMP, attributes)

    def mutate_row_ts(
        self,
        table_name: bytes,
        row: bytes,
        mutations: Sequence[Any],
        timestamp: int,
        attributes: Attributes,
    ) -> None:
        """Apply one row's deletes, then its puts, all at ``timestamp``.

        A put of a bare family is skipped (HBase logs a warning and writes the rest).
        """
        table = _table(table_name)
        puts, deletes = _mutations(
            row, mutations, _write_timestamp(timestamp), _ttl(attributes), strict=False
        )
        if deletes:
            self.backend.mutate(table, deletes)
        if puts:
            if not self.backend.table_exists(table):
                raise _missing_table_put(table, 1)
            self.backend.mutate(table, puts)

    def mutate_rows(
        self, table_name: bytes, row_batches: Sequence[Any], attributes: Attributes
    ) -> None:
        """Apply ``BatchMutation`` structs with the server's time (see :meth:`mutate_rows_ts`)."""
        self.mutate_rows_ts(table_name, row_batches, LATEST_TIMESTAMP, attributes)

    def mutate_rows_ts(
        self,
        table_name: bytes,
        row_batches: Sequence[Any],
        timestamp: int,
        attributes: Attributes,
    ) -> None:
        """Apply the puts of every row, then the deletes, at ``timestamp``.

        Every mutation is checked before anything is written: a put of a bare family is an
        ``IllegalArgument`` and nothing of the call is applied. Each row's part is atomic.
        """
        table = _table(table_name)
        write_ts, ttl = _write_timestamp(timestamp), _ttl(attributes)
        puts: list[Put] = []
        deletes: list[Delete] = []
        put_actions = 0
        for batch in row_batches or ():
            row_puts, row_deletes = _mutations(
                batch.row or b"", batch.mutations, write_ts, ttl, strict=True
            )
            puts.extend(row_puts)
            deletes.extend(row_deletes)
            put_actions += bool(row_puts)  # HBase makes one Put of each batch's puts
        if puts and not self.backend.table_exists(table):
            raise _missing_table_put(table, put_actions)
        if puts or deletes:
            self.backend.mutate(table, [*puts, *deletes])

    def atomic_increment(self, table_name: bytes, row: bytes, column: bytes, value: int) -> int:
        """Add ``value`` to an 8-byte counter (F10) and return the new value.

        A bare family ``b"f"`` means the column with the empty qualifier, ``b"f:"``.
        """
        if split_column(column)[1] is None:
            column += b":"
        return self.backend.increment(_table(table_name), row, column, value)

    def delete_all(
        self, table_name: bytes, row: bytes, column: bytes, attributes: Attributes
    ) -> None:
        """Delete every version of a column (``b"f:q"``) or family (``b"f"``) of a row."""
        self.delete_all_ts(table_name, row, column, LATEST_TIMESTAMP, attributes)

    def delete_all_ts(
        self,
        table_name: bytes,
        row: bytes,
        column: bytes,
        timestamp: int,
        attributes: Attributes,
    ) -> None:
        """Delete the versions ``<= timestamp`` of a column or family of a row."""
        delete = Delete(row, column, _write_timestamp(timestamp))
        self.backend.mutate(_table(table_name), [delete])

    def delete_all_row(self, table_name: bytes, row: bytes, attributes: Attributes) -> None:
        """Delete a whole row."""
        self.delete_all_row_ts(table_name, row, LATEST_TIMESTAMP, attributes)

    def delete_all_row_ts(
        self, table_name: bytes, row: bytes, timestamp: int, attributes: Attributes
    ) -> None:
        """Delete every cell of a row with a timestamp ``<= timestamp``."""
        delete = Delete(row, None, _write_timestamp(timestamp))
        self.backend.mutate(_table(table_name), [delete])

    def increment(self, increment: Any) -> None:
        """Apply one ``TIncrement`` (its ``ammount``, sic, is added to ``family:qualifier``)."""
        if not increment.row or not increment.table:
            raise internal_error("Must supply a table and a row key; can't increment")
        column = increment.column or b""
        if split_column(column)[1] is None:
            raise internal_error(f"an increment needs a family:qualifier column, not {column!r}")
        self.backend.increment_many(
            _table(increment.table),
            [Increment(increment.row, column, increment.ammount or 0)],
        )

    def increment_rows(self, increments: Sequence[Any] | None) -> None:
        """Apply ``TIncrement`` structs one after the other; stops at the first failure."""
        for increment in increments or ():
            self.increment(increment)

    def append(self, append: Any) -> list[Any]:
        """Append bytes to cells of one row; returns the new cells in column order.

        A column named twice gets both values appended, in order. The returned timestamps
        are read back after the append (the engine's append returns values only).
        """
        if not append.row or not append.table:
            raise internal_error("Must supply a table and a row key; can't append")
        columns, values = list(append.columns or ()), list(append.values or ())
        if len(columns) != len(values):
            raise internal_error(
                "java.lang.IllegalArgumentException: Sizes of columns and values in tappend "
                "object are not matching"
            )
        merged: dict[bytes, bytes] = {}
        for column, value in zip(columns, values, strict=True):
            if split_column(column)[1] is None:
                raise internal_error(f"an append needs family:qualifier columns, not {column!r}")
            merged[column] = merged.get(column, b"") + (value or b"")
        table = _table(append.table)
        new_values = self.backend.append(table, append.row, merged)
        found = self.backend.get(table, [append.row], columns=sorted(new_values))
        stamps = (
            {column: cell.timestamp for column, cell in found[0].cells.items()} if found else {}
        )
        return _tcells(
            Cell(new_values[column], stamps.get(column, 0)) for column in sorted(new_values)
        )

    def check_and_put(  # noqa: PLR0917 -- the IDL fixes the arguments
        self,
        table_name: bytes,
        row: bytes,
        column: bytes,
        value: bytes | None,
        mput: Any,
        attributes: Attributes,
    ) -> bool:
        """Apply the put ``mput`` if ``column`` holds ``value`` (``None``: is absent).

        Both columns must be ``family:qualifier``. As in HBase, ``mput.isDelete`` is
        ignored: the mutation is always a put, at the server's time.
        """
        if mput is None or mput.column is None or split_column(mput.column)[1] is None:
            raise IllegalArgumentError(
                "checkAndPut needs a put of a family:qualifier column", row=row
            )
        if split_column(column)[1] is None:
            raise IllegalArgumentError(
                "checkAndPut checks a family:qualifier column", row=row, column=column
            )
        put = Put(row, mput.column, mput.value or b"", None, _ttl(attributes))
        return self.backend.check_and_put(_table(table_name), row, column, value, put)

    # --- scanners -------------------------------------------------------------------

    def _open(
        self, table_name: bytes, scan: Scan, *, batch: int | None = None, sort: bool = False
    ) -> int:
        scanner = Scanner(
            self.backend.scan(_table(table_name), scan), batch=batch, sort_columns=sort
        )
        return self.scanners.add(scanner)

    def scanner_open_with_scan(self, table_name: bytes, scan: Any, attributes: Attributes) -> int:
        r"""Open a scanner from a ``TScan``; returns its id.

        Forward: ``startRow`` inclusive, ``stopRow`` exclusive. ``reversed``: ``startRow``
        is the **inclusive upper** bound and ``stopRow`` the **exclusive lower** bound, as
        HBase's reversed scans define them; both are translated to the engine's forward
        range ``[stopRow + b"\x00", startRow + b"\x00")`` (an empty bound stays open).
        A ``startRow`` equal to a non-empty ``stopRow`` reads that one row, in either
        direction: the handler sets the bounds with the deprecated ``Scan.setStopRow``,
        which turns such a scan into a get (measured on HBase 2.2.5).
        ``timestamp``: cells strictly older; ``caching``: engine fetch size; ``batchSize``:
        at most that many cells per result; ``sortColumns``: ``sortedColumns`` replies.
        """
        start, stop = scan.startRow or b"", scan.stopRow or b""
        reverse = bool(scan.reversed)
        if _get_scan(start, stop):
            stop = start + b"\x00"
        elif reverse:
            start, stop = (stop + b"\x00" if stop else b""), (start + b"\x00" if start else b"")
        options: dict[str, Any] = {}
        if scan.caching is not None and scan.caching > 0:
            options["batch_size"] = scan.caching
        engine_scan = Scan(
            start=start,
            stop=stop,
            columns=_columns(scan.columns),
            filter=scan.filterString,
            before=_before(scan.timestamp),
            reverse=reverse,
            **options,
        )
        return self._open(
            table_name, engine_scan, batch=scan.batchSize, sort=bool(scan.sortColumns)
        )

    def scanner_open(
        self,
        table_name: bytes,
        start_row: bytes,
        columns: Sequence[bytes] | None,
        attributes: Attributes,
    ) -> int:
        """Open a scanner from ``start_row`` (inclusive) to the end of the table."""
        return self._open(table_name, Scan(start=start_row or b"", columns=_columns(columns)))

    def scanner_open_with_stop(
        self,
        table_name: bytes,
        start_row: bytes,
        stop_row: bytes,
        columns: Sequence[bytes] | None,
        attributes: Attributes,
    ) -> int:
        """Open a scanner over ``[start_row, stop_row)``; equal bounds read that one row.

        HBase builds it with the deprecated ``new Scan(startRow, stopRow)``, which turns
        equal non-empty bounds into a get.
        """
        start, stop = _stop_range(start_row, stop_row)
        scan = Scan(start=start, stop=stop, columns=_columns(columns))
        return self._open(table_name, scan)

    def scanner_open_with_prefix(
        self,
        table_name: bytes,
        start_and_prefix: bytes,
        columns: Sequence[bytes] | None,
        attributes: Attributes,
    ) -> int:
        """Open a scanner over exactly the rows starting with ``start_and_prefix``."""
        scan = Scan.prefix(start_and_prefix or b"", columns=_columns(columns))
        return self._open(table_name, scan)

    def scanner_open_ts(
        self,
        table_name: bytes,
        start_row: bytes,
        columns: Sequence[bytes] | None,
        timestamp: int,
        attributes: Attributes,
    ) -> int:
        """:meth:`scanner_open` of the cells strictly older than ``timestamp``."""
        scan = Scan(start=start_row or b"", columns=_columns(columns), before=_before(timestamp))
        return self._open(table_name, scan)

    def scanner_open_with_stop_ts(  # noqa: PLR0917 -- the IDL fixes the arguments
        self,
        table_name: bytes,
        start_row: bytes,
        stop_row: bytes,
        columns: Sequence[bytes] | None,
        timestamp: int,
        attributes: Attributes,
    ) -> int:
        """:meth:`scanner_open_with_stop` of the cells strictly older than ``timestamp``."""
        start, stop = _stop_range(start_row, stop_row)
        scan = Scan(
            start=start,
            stop=stop,
            columns=_columns(columns),
            before=_before(timestamp),
        )
        return self._open(table_name, scan)

    def scanner_get(self, scanner_id: int) -> list[Any]:
        """The next result of a scanner (``[]`` when exhausted)."""
        return self.scanner_get_list(scanner_id, 1)

    def scanner_get_list(self, scanner_id: int, nb_rows: int) -> list[Any]:
        """Up to ``nb_rows`` further results (``[]`` when exhausted; the id stays open)."""
        scanner = self.scanners.get(scanner_id)
        return [
            _row_result(chunk, sort_columns=scanner.sort_columns) for chunk in scanner.next(nb_rows)
        ]

    def scanner_close(self, scanner_id: int) -> None:
        """Close a scanner; its id becomes invalid."""
        self.scanners.close(scanner_id)

    # --- region lookups -------------------------------------------------------------

    def get_row_or_before(self, table_name: bytes, row: bytes, family: bytes) -> list[Any]:
        """The latest cells of ``family`` in ``row``, or in the greatest row before it.

        Deprecated in HBase (removed from its 2.x IDL); served here as the 0.9x servers did.
        """
        column = family_of(family or b"")
        scan = Scan(stop=row + b"\x00", columns=(column,), reverse=True, limit=1)
        rows = self.backend.scan(_table(table_name), scan)
        try:
            found = next(rows, None)
        finally:
            close = getattr(rows, "close", None)
            if close is not None:
                close()
        return _tcells(found.cells.values()) if found is not None else []

    def get_region_info(self, row: bytes) -> Any:
        """The region holding an ``hbase:meta`` key ``table,row,regionId``."""
        table, key = _meta_key(row or b"")
        if not self.backend.table_exists(table):
            raise BackendError(f"Cannot find row in {_META_TABLE}, row={row!r}", table=table)
        region = self.backend.region_of(table, key)
        index = self.backend.regions(table).index(region)
        return self._region_info(table, index, region)
