"""One table of the engine: its declaration, its sorted rows, its lock and its regions."""

from __future__ import annotations

import bisect
import itertools
import threading
from collections.abc import Iterator

from sortedcontainers import SortedDict

from hmodel.backend.base import Cell, Region
from hmodel.backend.memory.selection import ColumnKey, Selection
from hmodel.backend.memory.store import StoredRow
from hmodel.backend.memory.version import Version
from hmodel.schema.family import Family
from hmodel.schema.table import Table

__all__ = ["ColumnHistory", "MemoryTable", "column_name"]

#: The visible columns of a row as filters see them: ``(b"f:q", versions newest first)``.
ColumnHistory = list[tuple[bytes, list[Cell]]]


def column_name(key: ColumnKey) -> bytes:
    """Return the ``b"family:qualifier"`` name of a column key."""
    return key[0] + b":" + key[1]


class MemoryTable:
    """A table: rows in unsigned byte order (a ``SortedDict`` keyed by the rowkey).

    The table's re-entrant ``lock`` guards every read and write of its rows; the backend
    holds it for the whole of one call, which makes each call atomic on this table.

    Args:
        declaration: The table as created.
    """

    def __init__(self, declaration: Table) -> None:
        self.declaration = declaration
        self.families: dict[bytes, Family] = {f.name_bytes: f for f in declaration.families}
        self.rows: SortedDict[bytes, StoredRow] = SortedDict()
        self.lock = threading.RLock()
        self.enabled = True

    @property
    def name(self) -> str:
        """The table's full name, ``namespace:name`` outside the default namespace."""
        return self.declaration.full_name

    # --- regions --------------------------------------------------------------------

    def regions(self) -> list[Region]:
        """The regions cut by the declared split points, covering the whole key space."""
        bounds = [b"", *self.declaration.splits, b""]
        return [Region(start, end) for start, end in itertools.pairwise(bounds)]

    def region_of(self, row: bytes) -> Region:
        """The region holding ``row``: the one with ``start <= row < end``."""
        splits = self.declaration.splits
        index = bisect.bisect_right(splits, row)
        start = splits[index - 1] if index else b""
        end = splits[index] if index < len(splits) else b""
        return Region(start, end)

    # --- rows -----------------------------------------------------------------------

    def row_for_write(self, row: bytes) -> StoredRow:
        """Return the stored row ``row``, creating it empty if absent."""
        stored = self.rows.get(row)
        if stored is None:
            stored = self.rows[row] = StoredRow()
        return stored

    def read_row(
        self, row: bytes, selection: Selection, *, before: int | None, now: int
    ) -> list[tuple[ColumnKey, list[Version]]]:
        """The visible selected columns of ``row`` with all their visible versions."""
        stored = self.rows.get(row)
        if stored is None:
            return []
        return stored.read(self.families, selection, before=before, now=now)

    def history(
        self,
        row: bytes,
        selection: Selection,
        *,
        before: int | None,
        now: int,
        latest_only: bool = False,
    ) -> ColumnHistory:
        """Like :meth:`read_row`, as ``(b"f:q", [Cell, ...])`` pairs for filters and results.

        ``latest_only`` keeps just the newest visible version of each column, for reads
        that show no filter the older ones (a get, a scan without a filter).
        """
        return [
            (
                column_name(key),
                [Cell(v.value, v.timestamp) for v in (versions[:1] if latest_only else versions)],
            )
            for key, versions in self.read_row(row, selection, before=before, now=now)
        ]

    def row_versions(
        self, row: bytes, key: ColumnKey, *, before: int | None, now: int
    ) -> list[Version]:
        """The visible versions of one cell, newest first."""
        stored = self.rows.get(row)
        if stored is None:
            return []
        return stored.column_versions(key, self.families[key[0]], before=before, now=now)

    def latest(self, row: bytes, key: ColumnKey, *, now: int) -> Version | None:
        """The newest visible version of one cell, or ``None``."""
        versions = self.row_versions(row, key, before=None, now=now)
        return versions[0] if versions else None

    def keys(
        self, start: bytes, stop: bytes, *, after: bytes | None, reverse: bool
    ) -> Iterator[bytes]:
        """Rowkeys in ``[start, stop)`` (``stop == b""``: unbounded), resuming after ``after``.

        ``after`` is the last row already returned: forward scans continue above it,
        reverse scans below it. The caller holds the lock while iterating.
        """
        low, high = start, stop or None
        low_inclusive = True
        if after is not None:
            if reverse:
                high = after
            else:
                low, low_inclusive = after, False
        if high is not None and low >= high:
            return iter(())
        return self.rows.irange(low, high, (low_inclusive, False), reverse=reverse)

    def compact(self, now: int) -> None:
        """Major-compact every row (see :meth:`StoredRow.compact`); empty rows are dropped."""
        for row in list(self.rows):
            stored = self.rows[row]
            stored.compact(self.families, now)
            if stored.empty:
                del self.rows[row]
