"""One table of the engine: its declaration, its sorted rows, its lock and its regions."""

from __future__ import annotations

import bisect
import itertools
import threading
from collections.abc import Callable, Iterator

from hmodel.backend.base import Cell, Region
from hmodel.backend.memory.rows import Names, RowIndex
from hmodel.backend.memory.selection import ColumnKey, Selection
from hmodel.backend.memory.store import History, Shapes, StoredRow, plain_form
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
    """A table: rows in unsigned byte order, and their columns' registry.

    :attr:`rows` maps each rowkey to a payload of two fields, ``(names, data)``, in one of
    two forms:

    * **plain**: ``names`` is the row's column names, a tuple in column order shared by
      the rows with the same columns (:class:`Shapes`, at most ``Shapes.WIDE`` of them);
      ``data`` is each column's one version as the :class:`Cell` a read returns: the
      ``Cell`` itself for a one-column row, a tuple of them in column order otherwise.
      A plain row has no delete marker, no second version of a column and no per-cell
      TTL, so without a family TTL or a time range a read pairs the two fields and
      nothing else (:meth:`latest_of`). Rows are written this way whenever they can be.
    * **rich**: ``names`` is ``None`` and ``data`` a :class:`StoredRow`, which holds
      everything (versions, markers, TTLs); used by every row that cannot be plain.

    Writes to a stored row go through :meth:`open_row` (the row becomes rich) and
    :meth:`settle` (plain again if it can be, dropped if empty); reads that need HBase's
    full rules work on :meth:`expanded`, a ``StoredRow`` made from a plain payload.

    The table's re-entrant ``lock`` guards every read and write of its rows; the backend
    holds it for the whole of one call, which makes each call atomic on this table.

    Every column written (or deleted) is registered once: :attr:`orders` maps its
    ``b"f:q"`` name to ``(family, qualifier)``, which orders columns and names the family
    without parsing, and rows share the one registered name object per column.

    Args:
        declaration: The table as created.
    """

    def __init__(self, declaration: Table) -> None:
        self.rows = RowIndex()
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

    def expanded(self, names: Names, data: object) -> StoredRow:
        """The :class:`StoredRow` of a row payload (see :attr:`rows`).

        A rich row's is the stored object itself; a plain row's is a new one, for reading
        or for :meth:`open_row` to store.
        """
        if names is None:
            return data  # type: ignore[return-value]  # a rich row: the StoredRow
        return StoredRow.plain(names, data)  # type: ignore[arg-type]

    def row(self, row: bytes) -> StoredRow | None:
        """``row`` as a :class:`StoredRow` to read (a plain row's is a copy), or ``None``."""
        found = self.rows.get(row)
        return None if found is None else self.expanded(*found)

    def open_row(self, row: bytes) -> StoredRow:
        """``row`` as a :class:`StoredRow` to change in place, created empty if absent.

        A plain row is stored rich from here on; call :meth:`settle` when done with it.
        """
        found = self.rows.get(row)
        if found is not None and found[0] is None:
            return found[1]  # type: ignore[return-value]  # already rich
        stored = StoredRow() if found is None else self.expanded(*found)
        self.rows.set(row, None, stored)
        return stored

    def settle(self, row: bytes, stored: StoredRow) -> None:
        """Store ``stored`` (the row ``row``) plain if it can be; drop it if it is empty."""
        if stored.empty:
            self.rows.delete(row)
            return
        plain = plain_form(stored)
        if plain is None:
            self.rows.set(row, None, stored)
        else:
            names, data = plain
            self.rows.set(row, self.shapes.shared(names), data)

    def add_row(self, row: bytes, names: tuple[bytes, ...], versions: list[Stored]) -> None:
        """Store the new row ``row``: one version of each of ``names``, in column order."""
        if len(names) <= Shapes.WIDE and all(type(version) is Cell for version in versions):
            self.rows.set(
                row,
                self.shapes.shared(names),
                versions[0] if len(versions) == 1 else tuple(versions),
            )
        else:
            self.rows.set(row, None, StoredRow.of(names, versions, self.shapes))

    def put(self, row: bytes, name: bytes, version: Stored) -> None:
        """Store one version of the registered column ``name`` in ``row``."""
        if self.rows.locate(row)[0] < 0:
            self.add_row(row, (name,), [version])
            return
        stored = self.open_row(row)
        stored.put(name, version, self.keeps[name], self.orders, self.shapes)
        self.settle(row, stored)

    def latest_of(
        self,
        names: Names,
        data: object,
        selection: Selection,
        *,
        before: int | None,
        now: int,
    ) -> dict[bytes, Cell]:
        """The newest visible cell of each selected column of a row payload, in column order.

        A plain row holds nothing that can hide a cell but a family TTL or a time range.
        """
        if names is not None and self.timeless and before is None:
            # ``names`` and the cells have one length (zip's strict= costs 0.3 us a call).
            if selection.everything:
                if type(data) is tuple:
                    return dict(zip(names, data))  # noqa: B905
                return {names[0]: data}  # type: ignore[dict-item]
            cells = data if type(data) is tuple else (data,)
            chosen, families, orders = selection.names, selection.families, self.orders
            return {
                name: cell
                for name, cell in zip(names, cells)  # noqa: B905
                if name in chosen or orders[name][0] in families
            }
        return self.expanded(names, data).latest(
            selection, self.families, self.orders, before=before, now=now, timeless=self.timeless
        )

    def history_of(
        self, stored: StoredRow, selection: Selection, *, before: int | None, now: int
    ) -> History:
        """The visible selected columns of ``stored`` with all their visible versions.

        As ``(b"f:q", [Cell, ...])`` pairs in column order, for filters.
        """
        return stored.history(selection, self.families, self.orders, before=before, now=now)

    def row_versions(
        self, row: bytes, name: bytes, *, before: int | None, now: int
    ) -> list[Stored]:
        """The visible versions of one cell ``b"f:q"``, newest first."""
        stored = self.row(row)
        if stored is None:
            return []
        return stored.column_versions(name, self.families, self.orders, before=before, now=now)

    def latest(self, row: bytes, name: bytes, *, now: int) -> Stored | None:
        """The newest visible version of one cell ``b"f:q"``, or ``None``."""
        versions = self.row_versions(row, name, before=None, now=now)
        return versions[0] if versions else None

    def entries(
        self, start: bytes, stop: bytes, *, after: bytes | None, reverse: bool
    ) -> Iterator[tuple[bytes, Names, object]]:
        """``(rowkey, names, data)`` of the rows in ``[start, stop)``, resuming after ``after``.

        ``stop == b""`` leaves the range unbounded above.
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
        return self.rows.range(low, high, low_inclusive=low_inclusive, reverse=reverse)

    def rewrite(self, change: Callable[[StoredRow], StoredRow]) -> None:
        """Replace every row by ``change`` of it; rows left empty are dropped."""
        for row, names, data in list(self.rows.range(b"", None, low_inclusive=True, reverse=False)):
            self.settle(row, change(self.expanded(names, data)))

    def compact(self, now: int) -> None:
        """Major-compact every row (see :meth:`StoredRow.compact`); empty rows are dropped."""

        def compacted(stored: StoredRow) -> StoredRow:
            stored.compact(self.families, self.orders, self.shapes, now)
            return stored

        self.rewrite(compacted)
