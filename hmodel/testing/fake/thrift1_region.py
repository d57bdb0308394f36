"""The Thrift1 handler's regions: ``getTableRegions``, ``getRowOrBefore`` and ``getRegionInfo``."""

from __future__ import annotations

from typing import Any

from hmodel.backend.base import Region, Scan, family_of
from hmodel.errors import BackendError, TableNotFoundError
from hmodel.testing.fake.thrift1_base import (
    _META_TABLE,
    _REGION_VERSION,
    HandlerBase,
    _meta_key,
    _region_id,
    _region_name,
    _table,
    _tcells,
)
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT

__all__ = ["RegionCalls"]


class RegionCalls(HandlerBase):
    """Region lookups: ``getTableRegions``, ``getRowOrBefore`` and ``getRegionInfo``."""

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
