"""The Thrift2 handler's admin calls: tables, families, regions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift2.descriptor import (
    from_family_descriptor,
    from_table_descriptor,
    table_name,
    to_table_descriptor,
)
from hmodel.backend.thrift2.idl import HBASE2
from hmodel.errors import TableNotFoundError
from hmodel.schema.family import Family
from hmodel.schema.table import Table
from hmodel.testing.fake.thrift2_convert import engine_name
from hmodel.testing.fake.thrift2_error import io_error

__all__ = ["AdminHandler"]

_FAMILY_OPERATION = "org.apache.hadoop.hbase.InvalidFamilyOperationException"
_NOT_DISABLED = "org.apache.hadoop.hbase.TableNotDisabledException"
_NOT_ENABLED = "org.apache.hadoop.hbase.TableNotEnabledException"


def _enum_name(enum: Any, value: int | None, default: str = "NONE") -> bytes:
    return str(enum._VALUES_TO_NAMES.get(value, default)).encode()


def _family_attributes(column: Any) -> dict[bytes, bytes]:
    """The ``attributes`` HBase 2.6 reports of a family: every option as its text."""
    return {
        b"INDEX_BLOCK_ENCODING": b"NONE",
        b"VERSIONS": str(column.maxVersions).encode(),
        b"KEEP_DELETED_CELLS": _enum_name(
            HBASE2.TKeepDeletedCells, column.keepDeletedCells, "FALSE"
        ),
        b"BLOOMFILTER": _enum_name(HBASE2.TBloomFilterType, column.bloomnFilterType),
        b"BLOCKSIZE": str(column.blockSize).encode(),
        b"BLOCKCACHE": b"true" if column.blockCacheEnabled else b"false",
        b"DATA_BLOCK_ENCODING": _enum_name(HBASE2.TDataBlockEncoding, column.dataBlockEncoding),
        b"MIN_VERSIONS": str(column.minVersions).encode(),
        b"TTL": str(column.timeToLive).encode(),
        b"REPLICATION_SCOPE": str(column.scope).encode(),
        b"IN_MEMORY": b"true" if column.inMemory else b"false",
        b"COMPRESSION": _enum_name(HBASE2.TCompressionAlgorithm, column.compressionType),
        **(column.attributes or {}),
    }


def _as_served(descriptor: Any) -> Any:
    """A ``TTableDescriptor`` completed as HBase 2.6.1's ``getTableDescriptor`` answers it.

    The namespace is always named (``default``); each family carries its options again as
    ``attributes`` text (``VERSIONS``, ``TTL``, ...) and ``dfsReplication`` 0; the table's
    ``attributes`` hold ``IS_META``, ``DURABILITY`` and the store file tracker beside the
    options set (``READONLY``, ...).
    """
    descriptor.tableName.ns = descriptor.tableName.ns or b"default"
    for column in descriptor.columns or []:
        column.attributes = _family_attributes(column)
        column.dfsReplication = column.dfsReplication or 0
    descriptor.attributes = {
        b"IS_META": b"false",
        b"DURABILITY": _enum_name(HBASE2.TDurability, descriptor.durability, "USE_DEFAULT"),
        b"hbase.store.file-tracker.impl": b"DEFAULT",
        **(descriptor.attributes or {}),
    }
    return descriptor


def _with_families(table: Table, families: Sequence[Family]) -> Table:
    return Table(
        table.name,
        families,
        namespace=table.namespace,
        splits=table.split_policy,
        read_only=table.read_only,
        durability=table.durability,
        max_filesize=table.max_filesize,
        memstore_flushsize=table.memstore_flushsize,
        allow_many_families=table.allow_many_families or len(families) > 3,
    )


class AdminHandler:
    """Table and family administration over the engine, as HBase 2.2's master answers it.

    ``deleteTable`` and ``truncateTable`` need a disabled table; enabling an enabled table
    (or disabling a disabled one) is refused; a truncated table comes back enabled.
    Family changes are applied at once and keep the stored cells (a dropped family's go).
    """

    backend: MemoryBackend
    server_host: str
    server_port: int

    def get_table_descriptor(self, table: Any) -> Any:
        """The full descriptor of a table, as HBase 2.6 fills it (see :func:`_as_served`)."""
        name = engine_name(table)
        return _as_served(to_table_descriptor(self.backend.describe_table(name), name))

    def table_exists(self, table_name_: Any) -> bool:
        """Whether the table exists."""
        return self.backend.table_exists(engine_name(table_name_))

    def get_table_names_by_pattern(self, regex: str | None, include_sys_tables: bool) -> list[Any]:
        """Names of the tables whose ``ns:name`` (or ``name``) matches ``regex`` wholly."""
        pattern = re.compile(regex) if regex else None
        return [
            table_name(name)
            for name in self.backend.list_tables()
            if pattern is None or pattern.fullmatch(name)
        ]

    def create_table(self, desc: Any, split_keys: list[bytes] | None) -> None:
        """Create a table from its descriptor and split keys (sorted, as HBase does)."""
        name = engine_name(desc.tableName)
        splits = tuple(sorted(split_keys or ()))
        self.backend.create_table(from_table_descriptor(desc, name=name, splits=splits))

    def _require_disabled(self, name: str, api: str) -> None:
        if self.backend.is_table_enabled(name):
            raise io_error(_NOT_DISABLED, name, api=api)

    def delete_table(self, table_name_: Any) -> None:
        """Delete a disabled table."""
        name = engine_name(table_name_)
        self._require_disabled(name, "deleteTable")
        self.backend.delete_table(name)

    def truncate_table(self, table_name_: Any, preserve_splits: bool) -> None:
        """Empty a disabled table; it comes back enabled."""
        name = engine_name(table_name_)
        self._require_disabled(name, "truncateTable")
        self.backend.truncate_table(name, preserve_splits=bool(preserve_splits))

    def enable_table(self, table_name_: Any) -> None:
        """Enable a disabled table."""
        name = engine_name(table_name_)
        self._require_disabled(name, "enableTable")
        self.backend.enable_table(name)

    def disable_table(self, table_name_: Any) -> None:
        """Disable an enabled table."""
        name = engine_name(table_name_)
        if not self.backend.is_table_enabled(name):
            raise io_error(_NOT_ENABLED, name, api="disableTable")
        self.backend.disable_table(name)

    def is_table_enabled(self, table_name_: Any) -> bool:
        """Whether the table is enabled."""
        return self.backend.is_table_enabled(engine_name(table_name_))

    def add_column_family(self, table_name_: Any, column: Any) -> None:
        """Add a family; one of that name must not exist."""
        name = engine_name(table_name_)
        table = self.backend.describe_table(name)
        family = from_family_descriptor(column, table=name)
        if any(f.name == family.name for f in table.families):
            raise io_error(
                _FAMILY_OPERATION,
                f"Column family '{family.name}' in table '{name}' already exists so cannot "
                "be added",
                api="addColumnFamily",
            )
        self.backend.alter_table(name, _with_families(table, [*table.families, family]))

    def modify_column_family(self, table_name_: Any, column: Any) -> None:
        """Replace a family's whole descriptor (unset options: defaults)."""
        name = engine_name(table_name_)
        table = self.backend.describe_table(name)
        family = from_family_descriptor(column, table=name)
        if all(f.name != family.name for f in table.families):
            raise io_error(
                _FAMILY_OPERATION,
                f"Column family '{family.name}' does not exist, so it cannot be modified",
                api="modifyColumnFamily",
            )
        families = [family if f.name == family.name else f for f in table.families]
        self.backend.alter_table(name, _with_families(table, families))

    def delete_column_family(self, table_name_: Any, column: bytes) -> None:
        """Delete a family and its cells; not the table's last one."""
        name = engine_name(table_name_)
        table = self.backend.describe_table(name)
        family = column.decode("utf-8", "replace")
        if all(f.name != family for f in table.families):
            raise io_error(
                _FAMILY_OPERATION,
                f"Family '{family}' does not exist, so it cannot be deleted",
                api="deleteColumnFamily",
            )
        if len(table.families) == 1:
            raise io_error(
                _FAMILY_OPERATION,
                f"Family '{family}' is the only column family in the table, so it cannot "
                "be deleted",
                api="deleteColumnFamily",
            )
        self.backend.alter_table(
            name, _with_families(table, [f for f in table.families if f.name != family])
        )

    def modify_table(self, desc: Any) -> None:
        """Replace the table's families and options (not its split points)."""
        name = engine_name(desc.tableName)
        if not self.backend.table_exists(name):
            raise TableNotFoundError(name, table=name)
        self.backend.alter_table(name, from_table_descriptor(desc, name=name))

    def get_all_region_locations(self, table: bytes) -> list[Any]:
        """Every region with this server as its location (a missing table: ``[]``)."""
        name = table.decode("utf-8", "replace")
        try:
            regions = self.backend.regions(name)
        except TableNotFoundError:
            return []
        server = HBASE2.TServerName(hostName=self.server_host, port=self.server_port, startCode=0)
        return [
            HBASE2.THRegionLocation(
                serverName=server,
                regionInfo=HBASE2.THRegionInfo(
                    regionId=0,
                    tableName=table,
                    startKey=region.start,
                    endKey=region.end,
                    offline=False,
                    split=False,
                    replicaId=0,
                ),
            )
            for region in regions
        ]
