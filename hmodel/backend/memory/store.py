"""One row as the engine stores it: cell versions and delete markers, and their raw view."""

from __future__ import annotations

import bisect
import enum
from collections.abc import Callable, Mapping, Sequence, Set

import attrs

from hmodel.backend.base import Cell, RowResult
from hmodel.backend.memory.selection import ColumnKey, Selection
from hmodel.backend.memory.version import (
    Stored,
    as_cell,
    deletion_horizon,
    honoured_versions,
    insert_version,
    ttl_of,
    visible_versions,
)
from hmodel.schema.family import Family

__all__ = [
    "CellKind",
    "Entry",
    "History",
    "RawCell",
    "RowMarkers",
    "Shapes",
    "StoredRow",
    "new_row_result",
    "plain_form",
    "row_result",
    "set_cells",
    "set_row",
]

#: What a row keeps per column: its one version directly (the common case, and always so
#: with ``VERSIONS`` 1), or a list of versions newest first once a second one arrives.
Entry = Stored | list[Stored]

#: No single-version marker (shared, never changed).
_NONE: Set[int] = frozenset()

#: The visible columns of a row as filters see them: ``(b"f:q", versions newest first)``.
History = list[tuple[bytes, list[Cell]]]


class CellKind(str, enum.Enum):
    """What a raw cell is, named as HBase's RAW scan prints its ``type=``."""

    PUT = "Put"
    DELETE = "Delete"
    DELETE_FAMILY_VERSION = "DeleteFamilyVersion"
    DELETE_COLUMN = "DeleteColumn"
    DELETE_FAMILY = "DeleteFamily"


#: HBase's ``KeyValue.Type`` codes: at one key and timestamp, a higher code sorts first.
_TYPE_CODES = {
    CellKind.PUT: 4,
    CellKind.DELETE: 8,
    CellKind.DELETE_FAMILY_VERSION: 10,
    CellKind.DELETE_COLUMN: 12,
    CellKind.DELETE_FAMILY: 14,
}


@attrs.frozen
class RawCell:
    """A stored cell or delete marker, as ``scan 't', {RAW => true, VERSIONS => ...}`` shows it.

    Args:
        column: ``b"f:q"``; for a ``DeleteFamily`` or ``DeleteFamilyVersion`` marker, the
            bare family ``b"f"``.
        timestamp: Epoch milliseconds.
        kind: A put or one of the four delete markers.
        value: The value of a put; ``b""`` for markers.
        ttl: The per-cell TTL of a put in milliseconds, or ``None``.
    """

    column: bytes
    timestamp: int
    kind: CellKind
    value: bytes = b""
    ttl: int | None = None


#: ``object.__new__`` and the slot setters of ``RowResult``, for :func:`row_result`.
new_row_result = object.__new__
set_row = RowResult.__dict__["row"].__set__
set_cells = RowResult.__dict__["cells"].__set__


def row_result(row: bytes, cells: dict[bytes, Cell]) -> RowResult:
    """``RowResult(row, cells)``, built without the frozen class's ``__setattr__`` detour.

    ``RowResult`` is an attrs frozen slotted class with neither converters nor
    validators, so setting its two slots directly makes the same object in about half
    the time of its generated ``__init__``; reads build one per row returned.
    """
    result = new_row_result(RowResult)
    set_row(result, row)
    set_cells(result, cells)
    return result


def plain_form(row: StoredRow) -> tuple[tuple[bytes, ...], Sequence[Cell]] | None:
    """``row``'s names and cells if it can be stored plain (see ``MemoryTable``).

    Returns ``None`` if it cannot. A row is plain when it holds at least one column, at
    most ``Shapes.WIDE`` of them (so ``names`` is a tuple), no delete marker, and exactly
    one version of each column, a :class:`Cell` (no per-cell TTL).
    """
    names = row.names
    if (
        row.markers is not None
        or row.irregular
        or type(names) is not tuple
        or not 0 < len(names) <= Shapes.WIDE
    ):
        return None
    cells: list[Cell] = row  # type: ignore[assignment]  # no irregular entry: all Cells
    return names, cells


def _add_marker(markers: list[int], timestamp: int) -> None:
    """Insert ``timestamp`` into a newest-first list of marker timestamps, once."""
    if timestamp in markers:
        return
    markers.append(timestamp)
    markers.sort(reverse=True)


def _irregular(entry: Entry) -> int:
    """1 unless ``entry`` is a single plain ``Cell`` (what the fast read path hands out)."""
    return 0 if type(entry) is Cell else 1


def _versions(entry: Entry) -> list[Stored]:
    return entry if type(entry) is list else [entry]  # type: ignore[list-item]


class RowMarkers:
    """The delete markers of one row, made on its first delete (most rows have none).

    Attributes:
        columns: ``DeleteColumn`` marker timestamps per column ``b"f:q"``, newest first.
        families: ``DeleteFamily`` marker timestamps per family, newest first.
        versions: ``Delete`` (single-version) marker timestamps per column ``b"f:q"``.
        family_versions: ``DeleteFamilyVersion`` marker timestamps per family.
    """

    __slots__ = ("columns", "families", "family_versions", "versions")

    def __init__(self) -> None:
        self.columns: dict[bytes, list[int]] = {}
        self.families: dict[bytes, list[int]] = {}
        self.versions: dict[bytes, set[int]] = {}
        self.family_versions: dict[bytes, set[int]] = {}

    def of(self, name: bytes, family: bytes) -> list[int]:
        """Every range marker timestamp (``<=`` masks) that covers ``name`` of ``family``."""
        return [*self.columns.get(name, ()), *self.families.get(family, ())]

    def exact(self, name: bytes, family: bytes) -> set[int]:
        """Every single-version marker timestamp (``==`` masks) covering ``name``."""
        found = self.versions.get(name)
        family_found = self.family_versions.get(family)
        if family_found is None:
            return set() if found is None else found
        return family_found if found is None else found | family_found

    def without(self, dropped: Callable[[bytes, int], bool]) -> RowMarkers | None:
        """A copy without the markers ``dropped(family, timestamp)`` says; ``None`` if empty."""
        kept = RowMarkers()
        for name, stamps in self.columns.items():
            if left := [t for t in stamps if not dropped(_family(name), t)]:
                kept.columns[name] = left
        for family, stamps in self.families.items():
            if left := [t for t in stamps if not dropped(family, t)]:
                kept.families[family] = left
        for name, exact in self.versions.items():
            if remaining := {t for t in exact if not dropped(_family(name), t)}:
                kept.versions[name] = remaining
        for family, exact in self.family_versions.items():
            if remaining := {t for t in exact if not dropped(family, t)}:
                kept.family_versions[family] = remaining
        return None if kept.empty else kept

    @property
    def empty(self) -> bool:
        """Whether no marker is left."""
        return not (self.columns or self.families or self.versions or self.family_versions)


def _family(name: bytes) -> bytes:
    return name.partition(b":")[0]


def _purged_markers(family: Family, now: int) -> Callable[[int], bool]:
    """Which marker timestamps of ``family`` a major compaction applies and drops at ``now``.

    Every one without ``KEEP_DELETED_CELLS``, none with it, and with ``TTL`` those older
    than the family TTL (``timestamp < now - ttl``; none without a TTL).
    """
    keep = family.keep_deleted_cells
    if not keep:
        return lambda _stamp: True
    if keep == "TTL" and family.has_ttl:
        oldest = now - family.ttl * 1000
        return lambda stamp: stamp < oldest
    return lambda _stamp: False


class Shapes:
    """The column-name sequences rows share: rows with the same columns hold one tuple.

    Most tables hold many rows with the same few columns; sharing their ``names`` saves a
    list per row (and the garbage collector a container to track). A row of more than
    :attr:`WIDE` columns keeps a list of its own instead (adding a column to a shared
    tuple copies it). At most :attr:`LIMIT` sequences are remembered; past that the
    memory starts afresh, and rows keep the tuples they hold.
    """

    __slots__ = ("_known",)

    WIDE = 32
    LIMIT = 4096

    def __init__(self) -> None:
        self._known: dict[tuple[bytes, ...], tuple[bytes, ...]] = {}

    def shared(self, names: tuple[bytes, ...]) -> tuple[bytes, ...]:
        """The shared tuple equal to ``names``, which has at most :attr:`WIDE` names."""
        known = self._known.get(names)
        if known is None:
            if len(self._known) >= self.LIMIT:
                self._known.clear()
            known = self._known[names] = names
        return known

    def of(self, names: tuple[bytes, ...]) -> Sequence[bytes]:
        """The shared tuple equal to ``names``, or a list of them for a wide row."""
        if len(names) > self.WIDE:
            return list(names)
        return self.shared(names)


class StoredRow(list[Entry]):
    """The cells of one row: versions per column and delete markers, not yet compacted.

    Columns are two parallel sequences in HBase's column order (family, then qualifier):
    ``names`` holds each column's ``b"f:q"`` (one shared object per column of the table,
    see ``MemoryTable.register``), as a tuple shared by the rows with the same
    columns (:class:`Shapes`) or a list of its own for a wide row; the row itself is the
    list of each column's entry (a list subclass, which saves an object per row): its
    versions, newest first and never more than the family's ``VERSIONS``, a single
    version stored as itself and a list made only when a second one is kept. A version
    without a per-cell TTL is the immutable :class:`~hmodel.backend.base.Cell` a read
    returns, so a row without markers, TTLs or older versions is read by pairing the two
    sequences (:meth:`latest`). Being a list, an empty row is falsy: test for ``None``.

    Delete markers are kept until a major compaction: ``DeleteColumn`` markers per column
    and ``DeleteFamily`` markers per family (a whole-row delete places one per family, as
    HBase does) mask every version ``<= t`` of what they cover; ``Delete`` markers per
    column and ``DeleteFamilyVersion`` markers per family mask only the versions at exactly
    ``t`` (HBase's ``ScanDeleteTracker``). Markers mask versions written after them too.
    The caller holds the table lock.
    """

    __slots__ = ("irregular", "markers", "names")

    def __init__(self) -> None:
        super().__init__()
        self.names: Sequence[bytes] = ()
        self.markers: RowMarkers | None = None
        #: How many entries are not a single plain ``Cell``.
        self.irregular = 0

    @classmethod
    def of(cls, names: tuple[bytes, ...], versions: list[Stored], shapes: Shapes) -> StoredRow:
        """A new row holding one version of each of ``names``, distinct and in column order."""
        row = cls.__new__(cls)  # no __init__: every slot is set here
        row.extend(versions)
        row.names = shapes.of(names)
        row.markers = None
        row.irregular = sum(1 for version in versions if type(version) is not Cell)
        return row

    @classmethod
    def plain(cls, names: tuple[bytes, ...], cells: Sequence[Cell]) -> StoredRow:
        """A new row holding ``cells``, one per name of ``names`` (kept as it is, shared)."""
        row = cls.__new__(cls)  # no __init__: every slot is set here
        row.extend(cells)
        row.names = names
        row.markers = None
        row.irregular = 0
        return row

    def _find(self, name: bytes, orders: Mapping[bytes, ColumnKey]) -> int:
        """Index of ``name`` in :attr:`names`, or ``-1``."""
        names = self.names
        index = bisect.bisect_left(names, orders[name], key=orders.__getitem__)
        return index if index < len(names) and names[index] == name else -1

    # --- writes ---------------------------------------------------------------------

    def put(
        self,
        name: bytes,
        version: Stored,
        keep: int,
        orders: Mapping[bytes, ColumnKey],
        shapes: Shapes,
    ) -> None:
        """Store ``version`` of column ``name``, keeping at most ``keep`` versions.

        ``orders`` maps every registered column name to its ``(family, qualifier)``.
        """
        names = self.names
        if names and names[-1] is name:  # the last column again, e.g. a row rewritten
            index = len(names) - 1
        elif not names or orders[names[-1]] < orders[name]:
            index = len(names)  # columns written in order: the common case
        else:
            index = bisect.bisect_left(names, orders[name], key=orders.__getitem__)
        if index == len(names) or names[index] != name:
            if type(names) is list:
                names.insert(index, name)
            else:  # a shared tuple: concatenation is the quickest copy (RUF005's form is not)
                tail = names[index:]
                self.names = shapes.of(names[:index] + (name,) + tail)  # type: ignore[operator]  # noqa: RUF005
            self.insert(index, version)
            if type(version) is not Cell:
                self.irregular += 1
            return
        entry = self[index]
        if type(entry) is list:
            insert_version(entry, version, keep)
            return
        stored: Stored = entry  # type: ignore[assignment]  # not a list: one version
        if version.timestamp == stored.timestamp or (
            keep == 1 and version.timestamp > stored.timestamp
        ):
            replacement: Entry = version
        elif keep == 1:
            return  # older than the one version kept: discarded, as at a flush
        elif version.timestamp > stored.timestamp:
            replacement = [version, stored]
        else:
            replacement = [stored, version]
        self[index] = replacement
        self.irregular += _irregular(replacement) - _irregular(stored)

    def delete_column(self, name: bytes, timestamp: int) -> None:
        """Place a ``DeleteColumn`` marker: every version of ``name`` ``<= timestamp`` is gone."""
        if self.markers is None:
            self.markers = RowMarkers()
        _add_marker(self.markers.columns.setdefault(name, []), timestamp)

    def delete_family(self, family: bytes, timestamp: int) -> None:
        """Place a ``DeleteFamily`` marker: every version in ``family`` ``<= timestamp`` is gone."""
        if self.markers is None:
            self.markers = RowMarkers()
        _add_marker(self.markers.families.setdefault(family, []), timestamp)

    def delete_version(self, name: bytes, timestamp: int) -> None:
        """Place a ``Delete`` marker: the version of ``name`` at exactly ``timestamp`` is gone."""
        if self.markers is None:
            self.markers = RowMarkers()
        self.markers.versions.setdefault(name, set()).add(timestamp)

    def delete_family_version(self, family: bytes, timestamp: int) -> None:
        """Place a ``DeleteFamilyVersion`` marker: ``family``'s versions at ``timestamp`` go."""
        if self.markers is None:
            self.markers = RowMarkers()
        self.markers.family_versions.setdefault(family, set()).add(timestamp)

    # --- reads ----------------------------------------------------------------------

    def column_versions(
        self,
        name: bytes,
        families: Mapping[bytes, Family],
        orders: Mapping[bytes, ColumnKey],
        *,
        before: int | None,
        now: int,
    ) -> list[Stored]:
        """The visible versions of one column asked for by name, newest first.

        See :mod:`.version` (``explicit``: HBase's ``ExplicitColumnTracker``).
        """
        if name not in orders:
            return []
        index = self._find(name, orders)
        if index < 0:
            return []
        return self._visible(index, families, orders, before=before, now=now, explicit=True)

    def _visible(
        self,
        index: int,
        families: Mapping[bytes, Family],
        orders: Mapping[bytes, ColumnKey],
        *,
        before: int | None,
        now: int,
        explicit: bool = False,
    ) -> list[Stored]:
        name = self.names[index]
        family_name = orders[name][0]
        family = families[family_name]
        markers = self.markers
        if markers is None:
            horizon, masked = -1, _NONE
        else:
            horizon = deletion_horizon(markers.of(name, family_name), family=family, before=before)
            masked = honoured_versions(markers.exact(name, family_name), family, before=before)
        return visible_versions(
            _versions(self[index]),
            family,
            horizon=horizon,
            before=before,
            now=now,
            explicit=explicit,
            masked=masked,
        )

    def _selected(self, selection: Selection, orders: Mapping[bytes, ColumnKey]) -> list[int]:
        """Indexes of the selected columns, in column order."""
        names = self.names
        if selection.everything:
            return list(range(len(names)))
        if not selection.families and len(selection.names) * 8 < len(names):
            # A few columns of a wide row: look each up instead of walking the row.
            found = [self._find(name, orders) for name in selection.names if name in orders]
            return sorted(index for index in found if index >= 0)
        chosen, families = selection.names, selection.families
        return [
            index
            for index, name in enumerate(names)
            if name in chosen or orders[name][0] in families
        ]

    def latest(
        self,
        selection: Selection,
        families: Mapping[bytes, Family],
        orders: Mapping[bytes, ColumnKey],
        *,
        before: int | None,
        now: int,
        timeless: bool,
    ) -> dict[bytes, Cell]:
        """The newest visible cell of each selected column, in column order.

        ``timeless`` says no family of the table has a TTL: time then matters only to
        per-cell TTLs, which make an entry irregular, so a row without irregular entries,
        markers or a time range is read by pairing its two lists.
        """
        if self.markers is None and not self.irregular and before is None and timeless:
            if selection.everything:
                return dict(zip(self.names, self, strict=True))  # type: ignore[arg-type]
            chosen, fams = selection.names, selection.families
            return {
                name: entry  # type: ignore[misc]
                for name, entry in zip(self.names, self, strict=True)
                if name in chosen or orders[name][0] in fams
            }
        found: dict[bytes, Cell] = {}
        for index in self._selected(selection, orders):
            versions = self._visible(index, families, orders, before=before, now=now)
            if versions:
                found[self.names[index]] = as_cell(versions[0])
        return found

    def history(
        self,
        selection: Selection,
        families: Mapping[bytes, Family],
        orders: Mapping[bytes, ColumnKey],
        *,
        before: int | None,
        now: int,
    ) -> History:
        """Every selected column with all its visible versions, in column order.

        A column asked for by name (its family not asked for whole) is read as HBase's
        ``ExplicitColumnTracker`` reads it, the others as its wildcard tracker (which
        differ in the expired versions ``MIN_VERSIONS`` shows, see :mod:`.version`).
        """
        found: History = []
        everything, names, whole = selection.everything, selection.names, selection.families
        for index in self._selected(selection, orders):
            name = self.names[index]
            explicit = not everything and name in names and orders[name][0] not in whole
            versions = self._visible(
                index, families, orders, before=before, now=now, explicit=explicit
            )
            if versions:
                found.append((self.names[index], [as_cell(v) for v in versions]))
        return found

    # --- maintenance ----------------------------------------------------------------

    def compact(
        self,
        families: Mapping[bytes, Family],
        orders: Mapping[bytes, ColumnKey],
        shapes: Shapes,
        now: int,
    ) -> None:
        """Rewrite the row as a major compaction does.

        Expired versions go (the family TTL spares ``MIN_VERSIONS`` of them). Without
        ``KEEP_DELETED_CELLS`` the deleted versions and the delete markers go too, so a put
        arriving later with an old timestamp is visible again (the HBase reference guide's
        "Keeping Deleted Cells"); with it, both stay so time-travel reads keep working;
        with ``KEEP_DELETED_CELLS => TTL`` the markers older than the family TTL go, with
        what they mask, and the younger ones stay (HBase's ``tryDropDelete``).
        """
        markers = self.markers
        names: list[bytes] = []
        entries: list[Entry] = []
        purges = {name: _purged_markers(family, now) for name, family in families.items()}
        for name, entry in zip(self.names, self, strict=True):
            family_name = orders[name][0]
            family = families[family_name]
            horizon, masked = -1, _NONE
            if markers is not None:
                purged = purges[family_name]
                horizon = deletion_horizon(
                    [t for t in markers.of(name, family_name) if purged(t)],
                    family=family,
                    before=None,
                )
                masked = {t for t in markers.exact(name, family_name) if purged(t)}
            kept = visible_versions(
                _versions(entry), family, horizon=horizon, before=None, now=now, masked=masked
            )
            if kept:
                names.append(name)
                entries.append(kept[0] if len(kept) == 1 else kept)
        self.names = shapes.of(tuple(names))
        self[:] = entries
        self.irregular = sum(_irregular(entry) for entry in entries)
        if markers is not None:
            self.markers = markers.without(lambda family, stamp: purges[family](stamp))

    @property
    def empty(self) -> bool:
        """Whether the row holds neither versions nor markers."""
        return not self.names and self.markers is None

    def families(self) -> set[bytes]:
        """The families holding any version or delete marker in this row."""
        found = {name.partition(b":")[0] for name in self.names}
        markers = self.markers
        if markers is not None:
            found.update(_family(column) for column in markers.columns)
            found.update(markers.families)
            found.update(_family(column) for column in markers.versions)
            found.update(markers.family_versions)
        return found

    def raw(self, orders: Mapping[bytes, ColumnKey]) -> list[RawCell]:
        """Every version and marker, in HBase's raw order.

        Families in byte order; in each, its family markers (``DeleteFamily``,
        ``DeleteFamilyVersion``) first, then each column's markers and versions, newest
        first; at one timestamp in HBase's type order (``DeleteFamily``,
        ``DeleteFamilyVersion``, ``DeleteColumn``, ``Delete``, then the put).
        """
        cells: list[tuple[tuple[bytes, int, bytes, int, int], RawCell]] = []

        def add(family: bytes, group: int, qualifier: bytes, cell: RawCell) -> None:
            key = (family, group, qualifier, -cell.timestamp, -_TYPE_CODES[cell.kind])
            cells.append((key, cell))

        markers = self.markers
        if markers is not None:
            for family, stamps in markers.families.items():
                for stamp in stamps:
                    add(family, 0, b"", RawCell(family, stamp, CellKind.DELETE_FAMILY))
            for family, exact in markers.family_versions.items():
                for stamp in exact:
                    add(family, 0, b"", RawCell(family, stamp, CellKind.DELETE_FAMILY_VERSION))
            for name, stamps in markers.columns.items():
                family, qualifier = orders[name]
                for stamp in stamps:
                    add(family, 1, qualifier, RawCell(name, stamp, CellKind.DELETE_COLUMN))
            for name, exact in markers.versions.items():
                family, qualifier = orders[name]
                for stamp in exact:
                    add(family, 1, qualifier, RawCell(name, stamp, CellKind.DELETE))
        for name, entry in zip(self.names, self, strict=True):
            family, qualifier = orders[name]
            for version in _versions(entry):
                cell = RawCell(
                    name, version.timestamp, CellKind.PUT, version.value, ttl_of(version)
                )
                add(family, 1, qualifier, cell)
        return [cell for _, cell in sorted(cells, key=lambda pair: pair[0])]
