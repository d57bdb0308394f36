"""Cell versions and the rules that decide which of them a read sees (F7, F8, F9)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set

from hmodel.backend.base import Cell
from hmodel.schema.family import Family

__all__ = [
    "Stored",
    "Version",
    "as_cell",
    "deletion_horizon",
    "honoured_versions",
    "insert_version",
    "make_cell",
    "make_version",
    "ttl_of",
    "visible_versions",
]


class Version:
    """One stored version of a cell that carries a per-cell TTL (HBase's TTL tag, F8).

    A version without a per-cell TTL is stored as the protocol's own immutable
    :class:`~hmodel.backend.base.Cell`, so a read hands out the stored object instead of
    building one; only the rare versions with a TTL need this class (see :func:`as_cell`).

    Args:
        timestamp: The cell timestamp in epoch milliseconds.
        value: The cell value.
        ttl: The per-cell TTL in milliseconds.
    """

    __slots__ = ("timestamp", "ttl", "value")

    def __init__(self, timestamp: int, value: bytes, ttl: int) -> None:
        self.timestamp = timestamp
        self.value = value
        self.ttl = ttl

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return (self.timestamp, self.value, self.ttl) == (other.timestamp, other.value, other.ttl)

    def __hash__(self) -> int:
        return hash((self.timestamp, self.value, self.ttl))

    def __repr__(self) -> str:
        return f"Version(timestamp={self.timestamp!r}, value={self.value!r}, ttl={self.ttl!r})"


#: What the engine stores per version: a :class:`Cell`, or a :class:`Version` with a TTL.
Stored = Cell | Version


_new = object.__new__
_set_value = Cell.__dict__["value"].__set__
_set_timestamp = Cell.__dict__["timestamp"].__set__


def make_cell(value: bytes, timestamp: int) -> Cell:
    """``Cell(value, timestamp)``, built without the frozen class's ``__setattr__`` detour.

    ``Cell`` is an attrs frozen slotted class with neither converters nor validators, so
    setting its two slots directly makes the same object in less time than its generated
    ``__init__``; the engine builds one per version written.
    """
    cell = _new(Cell)
    _set_value(cell, value)
    _set_timestamp(cell, timestamp)
    return cell


def make_version(timestamp: int, value: bytes, ttl: int | None = None) -> Stored:
    """The object stored for one version: a ``Cell`` unless it carries a per-cell TTL."""
    return make_cell(value, timestamp) if ttl is None else Version(timestamp, value, ttl)


def ttl_of(version: Stored) -> int | None:
    """The per-cell TTL of a stored version in milliseconds, or ``None``."""
    return version.ttl if type(version) is Version else None


def as_cell(version: Stored) -> Cell:
    """The version as a read returns it (the stored object itself when it is a ``Cell``)."""
    if type(version) is Version:
        return make_cell(version.value, version.timestamp)
    return version  # type: ignore[return-value]  # the union's other member


def insert_version(versions: list[Stored], version: Stored, keep: int) -> None:
    """Insert ``version`` into ``versions`` (newest first) and keep only the newest ``keep``.

    A version with a timestamp already present replaces it: of two writes of the same
    ``(row, column, timestamp)`` the later one wins, as in HBase. Versions beyond ``keep``
    (the family's ``VERSIONS``) are discarded at once, as HBase discards them when it
    flushes the memstore, so reads never depend on when a flush happened.
    """
    timestamp = version.timestamp
    for index, stored in enumerate(versions):
        if stored.timestamp == timestamp:
            versions[index] = version
            return
        if stored.timestamp < timestamp:
            versions.insert(index, version)
            break
    else:
        versions.append(version)
    del versions[keep:]


def deletion_horizon(markers: Iterable[int], *, family: Family, before: int | None) -> int:
    """Return the newest timestamp masked by the delete markers a read honours, or ``-1``.

    Every marker here masks all versions with a timestamp ``<=`` its own (HBase
    ``DeleteColumn`` and ``DeleteFamily``), so the markers a read honours reduce to the
    newest of them. A read honours every marker, including markers newer than its time
    range, so deleted cells stay deleted "back to the beginning of time" (the HBase
    reference guide's "Keeping Deleted Cells").
    With ``KEEP_DELETED_CELLS`` (F9) a read with ``before`` honours only markers with a
    timestamp ``< before``: a time-travel read ending before a delete still sees the cells.
    """
    if family.keep_deleted_cells and before is not None:
        markers = (marker for marker in markers if marker < before)
    return max(markers, default=-1)


def honoured_versions(markers: Set[int], family: Family, *, before: int | None) -> Set[int]:
    """The single-version markers (``Delete``, ``DeleteFamilyVersion``) a read honours.

    Each masks only the version at exactly its timestamp (HBase's ``ScanDeleteTracker``
    answers ``VERSION_DELETED`` / ``FAMILY_VERSION_DELETED``). The same rule as
    :func:`deletion_horizon`: every marker, unless the family has ``KEEP_DELETED_CELLS``
    and the read has ``before``, which then honours only the markers ``< before``.
    """
    if family.keep_deleted_cells and before is not None and markers:
        return {marker for marker in markers if marker < before}
    return markers


def visible_versions(
    versions: Sequence[Stored],
    family: Family,
    *,
    horizon: int,
    before: int | None,
    now: int,
    explicit: bool = False,
    masked: Set[int] = frozenset(),
) -> list[Stored]:
    """Return the versions a read sees, newest first, following HBase's read path.

    In order, as HBase's ``UserScanQueryMatcher`` decides: versions with a timestamp
    ``>= before`` are skipped; versions ``<= horizon`` are deleted (and so is everything
    older); versions whose timestamp is in ``masked`` are deleted (and count as no
    version); versions past their per-cell TTL are skipped; then versions past the family TTL
    are cut off, except that the first ``MIN_VERSIONS`` of the versions still standing are
    kept however old they are (``ScanWildcardColumnTracker``: a column read with its whole
    family); a column asked for by name (``explicit``: ``ExplicitColumnTracker``) also
    keeps the first expired version at or past that count, which that tracker counts,
    returns and ends the column on (``INCLUDE_AND_SEEK_NEXT_COL``; both measured on
    2.6.1). The per-cell TTL is not softened by ``MIN_VERSIONS`` (HBase checks it before
    counting versions).

    Args:
        versions: Stored versions, newest first, at most ``VERSIONS`` of them.
        family: The column's family (TTL, MIN_VERSIONS).
        horizon: From :func:`deletion_horizon`.
        before: Exclusive upper bound of the timestamps read, or ``None``.
        now: The current time in epoch milliseconds, for TTLs.
        explicit: The column was asked for by name, not with its whole family.
        masked: From :func:`honoured_versions`: the exact timestamps deleted.
    """
    family_ttl = family.ttl * 1000 if family.has_ttl else None
    min_versions = family.min_versions
    seen: list[Stored] = []
    for version in versions:
        timestamp = version.timestamp
        if before is not None and timestamp >= before:
            continue
        if timestamp <= horizon:
            break
        if masked and timestamp in masked:
            continue
        if type(version) is Version and now > timestamp + version.ttl:
            continue  # the per-cell TTL has run out: now > timestamp + ttl (HBase's test)
        if family_ttl is not None and now > timestamp + family_ttl:
            if not explicit or not min_versions:
                if len(seen) >= min_versions:
                    break
            elif len(seen) + 1 >= min_versions:
                seen.append(version)  # the explicit tracker returns the version it ends on
                break
        seen.append(version)
    return seen
