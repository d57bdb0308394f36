"""The Thrift1 handler's table administration: create, delete, enable, describe, compact."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmodel.errors import TableExistsError, TableNotFoundError
from hmodel.schema.table import Table
from hmodel.testing.fake.thrift1_base import (
    _DELETE_TRACE,
    HandlerBase,
    _descriptor,
    _family,
    _region_id,
    _region_name,
    _table,
)
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT

__all__ = ["AdminCalls"]


class AdminCalls(HandlerBase):
    """The Thrift1 handler's table administration: create, delete, enable, describe, compact."""

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
        """Checks the table or region exists; nothing else is visible, as on HBase 2.

        HBase 2's Thrift1 ``majorCompact`` runs a minor compaction (2.2.5), and a
        compaction never sees what is still in the memstore, which Thrift cannot flush:
        a delete marker stays and keeps hiding a later put at an older timestamp
        (2.6.1 measured). HBase 1.x purged; the engine's ``major_compact`` still does.
        """
        self._compaction_target(table_name_or_region_name)

    def get_table_names(self) -> list[bytes]:
        """Names of all tables, sorted."""
        return [name.encode() for name in self.backend.list_tables()]

    def get_column_descriptors(self, table_name: bytes) -> dict[bytes, Any]:
        """The families as ``ColumnDescriptor`` structs keyed by ``b"family:"``."""
        families = self.backend.describe_families(_table(table_name))
        return {family.name_bytes + b":": _descriptor(family) for family in families.values()}

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
