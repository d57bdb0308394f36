"""One table of the engine: its declaration, its sorted rows, its lock and its regions."""

from __future__ import annotations

import bisect
import itertools
import threading
from collections.abc import Callable, Iterator, Sequence

from hmodel.backend.base import Cell, Region
from hmodel.backend.memory.rows import Names, RowIndex
from hmodel.backend.memory.selection import ColumnKey, Selection
from hmodel.backend.memory.store import History, Shapes, StoredRow, plain_form
from hmodel.backend.memory.version import Stored, visible_versions
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

    * **plain**: the row's column names are a tuple in column order shared by the rows
      with the same columns (:class:`Shapes`, at most ``Shapes.WIDE`` of them), and each
      column's one version is the :class:`Cell` a read returns. For a one-column row,
      ``data`` is that ``Cell`` (which :class:`RowIndex` keeps as its value and timestamp
      alone, and hands out as a new ``Cell``) and ``names`` the names tuple; for a wider
      one, ``data`` is the tuple ``(cell, ..., cell, names)`` (the names last, so that zipping the
      names with ``data`` pairs each name with its cell) and ``names`` is ``None``.
      A plain row has no delete marker, no second version of a column and no per-cell
      TTL, so without a family TTL or a time range a read pairs the two fields and
      nothing else (:meth:`latest_of`). Rows are written this way whenever they can be.
    * **rich**: ``data`` is a :class:`StoredRow`, which holds everything (versions,
      markers, TTLs, its own column names); its ``names`` are ``None`` when written and
      ignored when read. Used by every row that cannot be plain.

    The form is told by the type of ``data`` alone.

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

    def _plain(self, row: bytes, names: tuple[bytes, ...], cells: Sequence[Cell]) -> None:
        """Store ``row`` plain: ``cells`` (one per name, at most ``Shapes.WIDE``)."""
        if len(cells) == 1:
            self.rows.set(row, self.shapes.shared(names), cells[0])
        else:
            self.rows.set(row, None, (*cells, self.shapes.shared(names)))

    def plain_parts(self, row: bytes, data: object) -> tuple[tuple[bytes, ...], Sequence[Cell]]:
        """The names and the cells of the plain row ``row`` whose data is ``data``."""
        if type(data) is tuple:
            return data[-1], data[:-1]
        return self.rows.names_of(row), (data,)  # type: ignore[return-value]  # one Cell

    def expanded(self, names: Names, data: object) -> StoredRow:
        """The :class:`StoredRow` of a row payload as :attr:`rows` gives it.

        A rich row's is the stored object itself; a plain row's is a new one, for reading
        or for :meth:`open_row` to store.
        """
        if type(data) is StoredRow:
            return data
        if type(data) is tuple:
            return StoredRow.plain(data[-1], data[:-1])
        return StoredRow.plain(names, (data,))  # type: ignore[arg-type]

    def row(self, row: bytes) -> StoredRow | None:
        """``row`` as a :class:`StoredRow` to read (a plain row's is a copy), or ``None``."""
        data = self.rows.get(row)
        if data is None:
            return None
        if type(data) is StoredRow:
            return data
        return StoredRow.plain(*self.plain_parts(row, data))

    def open_row(self, row: bytes) -> StoredRow:
        """``row`` as a :class:`StoredRow` to change in place, created empty if absent.

        A plain row is stored rich from here on; call :meth:`settle` when done with it.
        """
        data = self.rows.get(row)
        if type(data) is StoredRow:
            return data
        stored = StoredRow() if data is None else StoredRow.plain(*self.plain_parts(row, data))
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
            self._plain(row, *plain)

    def add_row(
        self,
        row: bytes,
        names: tuple[bytes, ...],
        versions: list[Stored],
        *,
        cells: bool | None = None,
    ) -> None:
        """Store the new row ``row``: one version of each of ``names``, in column order.

        ``cells`` says whether every version is a plain :class:`Cell`, when the caller
        knows (``None``: looked at here).
        """
        if cells is None:
            cells = all(type(version) is Cell for version in versions)
        if cells and len(names) <= Shapes.WIDE:
            self._plain(row, names, versions)  # type: ignore[arg-type]  # all Cells
        else:
            self.rows.set(row, None, StoredRow.of(names, versions, self.shapes))

    def put_plain(self, row: bytes, data: object, name: bytes, version: Cell) -> bool:
        """Store ``version`` of column ``name`` in the plain row ``row`` (data ``data``).

        The rules of :meth:`StoredRow.put` for a column holding at most one version;
        returns ``False``, changing nothing, when the row cannot stay plain (a second
        version to keep, or more than ``Shapes.WIDE`` columns).
        """
        several = type(data) is tuple
        names: tuple[bytes, ...] = data[-1] if several else self.rows.names_of(row)  # type: ignore[index, assignment]
        if name in names:
            index = names.index(name)
            old: Cell = data[index] if several else data  # type: ignore[index, assignment]
            if version.timestamp != old.timestamp:
                if self.keeps[name] > 1:
                    return False  # two versions to keep
                if version.timestamp < old.timestamp:
                    return True  # older than the one version kept: discarded
            # The names stay (and stay last in a tuple): only the data changes.
            self.rows.replace(
                row,
                (*data[:index], version, *data[index + 1 :]) if several else version,  # type: ignore[index]
            )
            return True
        if len(names) >= Shapes.WIDE:
            return False
        orders = self.orders
        index = bisect.bisect_left(names, orders[name], key=orders.__getitem__)
        cells = data[:-1] if several else (data,)  # type: ignore[index]
        self._plain(
            row,
            (*names[:index], name, *names[index:]),
            (*cells[:index], version, *cells[index:]),
        )
        return True

    def put(self, row: bytes, name: bytes, version: Stored) -> None:
        """Store one version of the registered column ``name`` in ``row``."""
        data = self.rows.get(row)
        if data is None:
            self.add_row(row, (name,), [version])
            return
        if (
            type(data) is not StoredRow
            and type(version) is Cell
            and self.put_plain(row, data, name, version)
        ):
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
        ``names`` is read only for a plain one-column row (see :attr:`rows`).
        """
        if type(data) is not StoredRow and self.timeless and before is None:
            # A tuple's names are its last item: zip stops at the shorter, the names.
            # (zip's strict= would cost 0.3 us a call.)
            columns: tuple[bytes, ...] = (
                data[-1] if type(data) is tuple else names  # type: ignore[assignment]
            )
            if selection.everything:
                if type(data) is tuple:
                    return dict(zip(columns, data))  # noqa: B905
                return {columns[0]: data}  # type: ignore[dict-item]
            cells = data if type(data) is tuple else (data,)
            chosen, families, orders = selection.names, selection.families, self.orders
            return {
                name: cell
                for name, cell in zip(columns, cells)  # noqa: B905
                if name in chosen or orders[name][0] in families
            }
        return self.expanded(names, data).latest(
            selection, self.families, self.orders, before=before, now=now, timeless=self.timeless
        )

    def plain_history(
        self, names: Names, data: object, selection: Selection
    ) -> tuple[History, set[bytes]]:
        """A plain row's selected columns as :meth:`history_of` gives them, and its families.

        Only for a table without family TTLs and a read without a time range, where a
        plain row's every cell is visible.
        """
        columns: tuple[bytes, ...] = data[-1] if type(data) is tuple else names  # type: ignore[assignment]
        cells = data if type(data) is tuple else (data,)
        orders = self.orders
        everything, chosen, families = selection.everything, selection.names, selection.families
        history: History = [
            (name, [cell])
            for name, cell in zip(columns, cells)  # noqa: B905  # stops at the names' end
            if everything or name in chosen or orders[name][0] in families
        ]
        return history, {orders[name][0] for name in columns}

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
        data = self.rows.get(row)
        if data is None:
            return None
        if type(data) is not StoredRow:  # a plain row: its one version, unless expired
            several = type(data) is tuple
            names: tuple[bytes, ...] = data[-1] if several else self.rows.names_of(row)  # type: ignore[index, assignment]
            if name not in names:
                return None
            cell: Cell = data[names.index(name)] if several else data  # type: ignore[index, assignment]
            if self.timeless:
                return cell
            family = self.families[self.orders[name][0]]
            return next(
                iter(visible_versions([cell], family, horizon=-1, before=None, now=now)), None
            )
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
