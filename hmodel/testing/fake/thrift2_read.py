"""The Thrift2 handler's reads: ``get`` and ``getMultiple``."""

from __future__ import annotations

from typing import Any

from hmodel.backend.base import Cell, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift2.idl import TIOError
from hmodel.testing.fake.thrift2_convert import (
    empty_result,
    read_columns,
    require_row,
    result_of,
    time_range,
)
from hmodel.testing.fake.thrift2_error import internal_error

__all__ = ["ReadHandler"]


class ReadHandler:
    """``get`` and ``getMultiple`` over the engine (a filter string runs as a one-row scan).

    With ``maxVersions`` above 1 that scan reads several versions, the filter judging each.

    HBase 2.2's answers: an empty row, ``existence_only`` or an inverted time range is a
    ``TApplicationException``; ``maxVersions <= 0`` is a ``TIOError``. A time range with
    a minimum keeps the cells at or above it (the newest version below the maximum, when
    it is older than the minimum, means no version lies in the range).
    """

    backend: MemoryBackend

    def _read(self, table: bytes, tget: Any, api: str) -> Any:
        row = require_row(tget.row, api)
        if tget.existence_only:
            raise internal_error(api)
        versions = 1 if tget.maxVersions is None else tget.maxVersions
        if versions <= 0:
            raise TIOError(message="versions must be positive")  # no class name on HBase
        minimum, before = time_range(tget.timestamp, tget.timeRange, api)
        name = table.decode("utf-8", "replace")
        columns = read_columns(tget.columns)
        if tget.filterString is not None:
            scan = Scan(
                start=row, stop=row + b"\x00", columns=columns, filter=tget.filterString,
                before=before,
            )  # fmt: skip
            # The filter judges every version in the range, none outside it (HBase's
            # matcher drops those first), and keeps the newest ``versions`` it includes.
            found = list(
                self.backend.scan_versions(name, scan, max_versions=versions, minimum=minimum)
            )
            columns_found = found[0][1] if found else []
            return result_of(row, [(c, v) for c, cells in columns_found for v in cells])
        got = self.backend.get(name, [row], columns=columns, before=before)
        if not got:
            return empty_result()
        latest = got[0]
        pairs: list[tuple[bytes, Cell]] = []
        if versions > 1:  # one multi-version read: HBase's column trackers, family-wide
            history = self.backend.get_history(
                name, row, columns, max_versions=versions, before=before
            )
            kept = {column for column in latest.cells}
            for column, cells in history:
                if column in kept:
                    pairs.extend((column, c) for c in cells if c.timestamp >= minimum)
        else:
            pairs = [(c, cell) for c, cell in latest.cells.items() if cell.timestamp >= minimum]
        return result_of(row, pairs)

    def get(self, table: bytes, tget: Any) -> Any:
        """One row's cells (empty ``TResult`` for a missing row)."""
        return self._read(table, tget, "get")

    def get_multiple(self, table: bytes, tgets: list[Any]) -> list[Any]:
        """Each ``TGet``'s ``TResult``, in order (empty ones for missing rows)."""
        return [self._read(table, tget, "getMultiple") for tget in tgets or []]

    def exists(self, table: bytes, tget: Any) -> bool:
        """Whether the ``TGet`` finds a cell (its columns, time range and filter applied)."""
        return bool(self._read(table, tget, "exists").columnValues)

    def exists_all(self, table: bytes, tgets: list[Any]) -> list[bool]:
        """:meth:`exists` of each ``TGet``, in order.

        Errors read as a batch's (``Failed 1 action: ...``).
        """
        return [bool(self._read(table, t, "existsAll").columnValues) for t in tgets or []]
