"""One table of the engine: its declaration, its sorted rows, its lock and its regions."""

from __future__ import annotations

import bisect
import itertools
import threading
from collections.abc import Iterator

from sortedcontainers import SortedDict

from hmodel.backend.base import Cell, Region
from hmodel.backend.memory.selection import ColumnKey, Selection
from hmodel.backend.memory.store import History, Shapes, StoredRow
from hmodel.backend.memory.version import Stored
from hmodel.schema.family import Family
from hmodel.schema.table import Table

__all__ = ["ColumnHistory", "MemoryTable", "column_name"]

#: The visible columns of a row as filters see them: ``(b"f:q", versions newest first)``.
ColumnHistory = History

#: Distinct ``columns`` arguments whose parsed selection a table remembers.
SELECTION_CACHE = 256


def column_name(key: ColumnKey) -> bytes:
    """Return the ``b"family:qualifier"`` name of a column key."""
    return key[0] + b":" + key[1]


class MemoryTable:
    """A table: rows in unsigned byte order (a ``SortedDict`` keyed by the rowkey).

    The table's re-entrant ``lock`` guards every read and write of its rows; the backend
    holds it for the whole of one call, which makes each call atomic on this table.

    Every column written (or deleted) is registered once: :attr:`orders` maps its
    ``b"f:q"`` name to ``(family, qualifier)``, which orders columns and names the family
    without parsing, and rows share the one registered name object per column.

    Args:
        declaration: The table as created.
    """

    def __init__(self, declaration: Table) -> None:
        self.rows: SortedDict[bytes, StoredRow] = SortedDict()
        self.lock = threading.RLock()
        self.enabled = True
        self.orders: dict[bytes, ColumnKey] = {}
        #: ``VERSIONS`` of each registered column's family.
        self.keeps: dict[bytes, int] = {}
        #: Each registered ``b"f:q"`` mapped to the one name object rows share.
        self.registered_names: dict[bytes, bytes] = {}
        self._by_key: dict[ColumnKey, bytes] = {}
        self.selections: dict[object, Selection] = {}
        self.shapes = Shapes()
        self.redeclare(declaration)

    def redeclare(self, declaration: Table) -> None:
        """Take ``declaration`` as the table's new declaration (families, options, splits).

        Everything derived from the families is recomputed: which families exist, the
        ``VERSIONS`` of each registered column, whether any family has a TTL, the parsed
        column lists. Columns of a family that no longer exists are unregistered, so writes
        to them fail again (their cells are the caller's to drop). The stored versions
        are left as they are. The caller holds the lock.
        """
        self.declaration = declaration
        self.families: dict[bytes, Family] = {f.name_bytes: f for f in declaration.families}
        #: No family has a TTL, so reads need the clock only for per-cell TTLs.
        self.timeless = not any(f.has_ttl for f in declaration.families)
        for name, (family, qualifier) in list(self.orders.items()):
            if family in self.families:
                self.keeps[name] = self.families[family].versions
            else:  # a dropped family's columns are unknown again (its cells are dropped)
                del self.orders[name], self.keeps[name], self.registered_names[name]
                del self._by_key[(family, qualifier)]
        self.selections.clear()

    @property
    def name(self) -> str:
        """The table's full name, ``namespace:name`` outside the default namespace."""
        return self.declaration.full_name

    # --- columns --------------------------------------------------------------------

    def registered(self, name: bytes) -> bytes | None:
        """The shared object of the registered column ``name`` (``b"f:q"``), or ``None``."""
        return self.registered_names.get(name)

    def register(self, family: bytes, qualifier: bytes) -> bytes:
        """Register the column ``family:qualifier`` (a known family); return its name object."""
        key = (family, qualifier)
        name = self._by_key.get(key)
        if name is None:
            with self.lock:
                name = self._by_key.get(key)
                if name is None:
                    name = family + b":" + qualifier
                    self.keeps[name] = self.families[family].versions
                    self.orders[name] = key
                    self.registered_names[name] = name
                    self._by_key[key] = name
        return name

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

    def put(self, row: bytes, name: bytes, version: Stored) -> None:
        """Store one version of the registered column ``name`` in ``row``."""
        stored = self.rows.get(row)
        if stored is None:
            self.rows[row] = StoredRow.of((name,), [version], self.shapes)
        else:
            stored.put(name, version, self.keeps[name], self.orders, self.shapes)

    def latest_cells(
        self, row: bytes, selection: Selection, *, before: int | None, now: int
    ) -> dict[bytes, Cell]:
        """The newest visible cell of each selected column of ``row``, in column order."""
        stored = self.rows.get(row)
        if stored is None:
            return {}
        return stored.latest(
            selection, self.families, self.orders, before=before, now=now, timeless=self.timeless
        )

    def history(self, row: bytes, selection: Selection, *, before: int | None, now: int) -> History:
        """The visible selected columns of ``row`` with all their visible versions.

        As ``(b"f:q", [Cell, ...])`` pairs in column order, for filters.
        """
        stored = self.rows.get(row)
        if stored is None:
            return []
        return stored.history(selection, self.families, self.orders, before=before, now=now)

    def row_versions(
        self, row: bytes, name: bytes, *, before: int | None, now: int
    ) -> list[Stored]:
        """The visible versions of one cell ``b"f:q"``, newest first."""
        stored = self.rows.get(row)
        if stored is None:
            return []
        return stored.column_versions(name, self.families, self.orders, before=before, now=now)

    def latest(self, row: bytes, name: bytes, *, now: int) -> Stored | None:
        """The newest visible version of one cell ``b"f:q"``, or ``None``."""
        versions = self.row_versions(row, name, before=None, now=now)
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
            stored.compact(self.families, self.orders, self.shapes, now)
            if stored.empty:
                del self.rows[row]
