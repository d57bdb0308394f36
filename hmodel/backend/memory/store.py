"""One row as the engine stores it: cell versions and delete markers, and their raw view."""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping

import attrs

from hmodel.backend.memory.selection import ColumnKey, Selection
from hmodel.backend.memory.version import (
    Version,
    deletion_horizon,
    insert_version,
    visible_versions,
)
from hmodel.schema.family import Family

__all__ = ["CellKind", "RawCell", "StoredRow"]


class CellKind(str, enum.Enum):
    """What a raw cell is, named as HBase's RAW scan prints its ``type=``."""

    PUT = "Put"
    DELETE_COLUMN = "DeleteColumn"
    DELETE_FAMILY = "DeleteFamily"


@attrs.frozen
class RawCell:
    """A stored cell or delete marker, as ``scan 't', {RAW => true, VERSIONS => ...}`` shows it.

    Args:
        column: ``b"f:q"``; for a ``DeleteFamily`` marker, the bare family ``b"f"``.
        timestamp: Epoch milliseconds.
        kind: A put or one of the two delete markers.
        value: The value of a put; ``b""`` for markers.
        ttl: The per-cell TTL of a put in milliseconds, or ``None``.
    """

    column: bytes
    timestamp: int
    kind: CellKind
    value: bytes = b""
    ttl: int | None = None


def _add_marker(markers: list[int], timestamp: int) -> None:
    """Insert ``timestamp`` into a newest-first list of marker timestamps, once."""
    if timestamp in markers:
        return
    markers.append(timestamp)
    markers.sort(reverse=True)


class StoredRow:
    """The cells of one row: versions per column and delete markers, not yet compacted.

    Versions are kept newest first and never more than the family's ``VERSIONS``.
    Delete markers are kept until a major compaction: a ``DeleteColumn`` marker per column
    and a ``DeleteFamily`` marker per family (a whole-row delete places one per family, as
    HBase does). A marker at ``t`` masks every version ``<= t`` of what it covers,
    including versions written after the marker. The caller holds the table lock.
    """

    __slots__ = ("_order", "column_markers", "columns", "family_markers")

    def __init__(self) -> None:
        # A plain dict plus a column order built on the first read after a column is
        # added or removed: a SortedDict per row cost ~1.6 KB of memory before any cell
        # (docs/performance.md), and most rows are narrow and read more than reshaped.
        self.columns: dict[ColumnKey, list[Version]] = {}
        self._order: list[ColumnKey] | None = None
        self.column_markers: dict[ColumnKey, list[int]] = {}
        self.family_markers: dict[bytes, list[int]] = {}

    def ordered_columns(self) -> list[ColumnKey]:
        """The row's columns in (family, qualifier) byte order."""
        if self._order is None:
            self._order = sorted(self.columns)
        return self._order

    # --- writes ---------------------------------------------------------------------

    def put(self, key: ColumnKey, version: Version, family: Family) -> None:
        """Store ``version`` of column ``key``, keeping at most ``VERSIONS`` versions."""
        versions = self.columns.get(key)
        if versions is None:
            versions = self.columns[key] = []
            self._order = None
        insert_version(versions, version, family.versions)

    def delete_column(self, key: ColumnKey, timestamp: int) -> None:
        """Place a ``DeleteColumn`` marker: every version of ``key`` ``<= timestamp`` is gone."""
        _add_marker(self.column_markers.setdefault(key, []), timestamp)

    def delete_family(self, family: bytes, timestamp: int) -> None:
        """Place a ``DeleteFamily`` marker: every version in ``family`` ``<= timestamp`` is gone."""
        _add_marker(self.family_markers.setdefault(family, []), timestamp)

    # --- reads ----------------------------------------------------------------------

    def column_versions(
        self,
        key: ColumnKey,
        family: Family,
        *,
        before: int | None,
        now: int,
    ) -> list[Version]:
        """The visible versions of one column, newest first (see :mod:`.version`)."""
        versions = self.columns.get(key)
        if not versions:
            return []
        markers = [*self.column_markers.get(key, ()), *self.family_markers.get(key[0], ())]
        horizon = deletion_horizon(markers, family=family, before=before)
        return visible_versions(versions, family, horizon=horizon, before=before, now=now)

    def read(
        self,
        families: Mapping[bytes, Family],
        selection: Selection,
        *,
        before: int | None,
        now: int,
    ) -> list[tuple[ColumnKey, list[Version]]]:
        """Every selected column with at least one visible version, in column order.

        Each column comes with all its visible versions, newest first.
        """
        found = []
        for key in self._candidates(selection):
            versions = self.column_versions(key, families[key[0]], before=before, now=now)
            if versions:
                found.append((key, versions))
        return found

    def _candidates(self, selection: Selection) -> Iterator[ColumnKey]:
        if selection.families or selection.everything:
            yield from (key for key in self.ordered_columns() if selection.includes(key))
        else:
            yield from (key for key in sorted(selection.columns) if key in self.columns)

    # --- maintenance ----------------------------------------------------------------

    def compact(self, families: Mapping[bytes, Family], now: int) -> None:
        """Rewrite the row as a major compaction does.

        Expired versions go (the family TTL spares ``MIN_VERSIONS`` of them). Without
        ``KEEP_DELETED_CELLS`` the deleted versions and the delete markers go too, so a put
        arriving later with an old timestamp is visible again (seed 001 §42); with it, both
        stay so time-travel reads keep working.
        """
        for key in list(self.columns):
            family = families[key[0]]
            markers = () if family.keep_deleted_cells else self._markers_of(key)
            horizon = deletion_horizon(markers, family=family, before=None)
            kept = visible_versions(
                self.columns[key], family, horizon=horizon, before=None, now=now
            )
            if kept:
                self.columns[key] = kept
            else:
                del self.columns[key]
                self._order = None
        for key in [k for k in self.column_markers if not families[k[0]].keep_deleted_cells]:
            del self.column_markers[key]
        for name in [f for f in self.family_markers if not families[f].keep_deleted_cells]:
            del self.family_markers[name]

    def _markers_of(self, key: ColumnKey) -> list[int]:
        return [*self.column_markers.get(key, ()), *self.family_markers.get(key[0], ())]

    @property
    def empty(self) -> bool:
        """Whether the row holds neither versions nor markers."""
        return not self.columns and not self.column_markers and not self.family_markers

    def families(self) -> set[bytes]:
        """The families holding any version or delete marker in this row."""
        found = {key[0] for key in self.columns}
        found.update(key[0] for key in self.column_markers)
        found.update(self.family_markers)
        return found

    def raw(self) -> list[RawCell]:
        """Every version and marker, in HBase's raw order.

        Families in byte order; in each, its ``DeleteFamily`` markers first, then each
        column's markers and versions, newest first, a marker before a put of the same
        timestamp.
        """
        cells: list[tuple[tuple[bytes, int, bytes, int, int], RawCell]] = []
        for family, stamps in self.family_markers.items():
            for stamp in stamps:
                cell = RawCell(family, stamp, CellKind.DELETE_FAMILY)
                cells.append(((family, 0, b"", -stamp, 0), cell))
        for (family, qualifier), stamps in self.column_markers.items():
            for stamp in stamps:
                cell = RawCell(family + b":" + qualifier, stamp, CellKind.DELETE_COLUMN)
                cells.append(((family, 1, qualifier, -stamp, 0), cell))
        for (family, qualifier), versions in self.columns.items():
            for version in versions:
                column = family + b":" + qualifier
                cell = RawCell(column, version.timestamp, CellKind.PUT, version.value, version.ttl)
                cells.append(((family, 1, qualifier, -version.timestamp, 1), cell))
        return [cell for _, cell in sorted(cells, key=lambda pair: pair[0])]
