"""Cell versions and the rules that decide which of them a read sees (F7, F8, F9)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from hmodel.schema.family import Family

__all__ = ["Version", "deletion_horizon", "insert_version", "visible_versions"]


@attrs.frozen
class Version:
    """One stored version of a cell.

    Args:
        timestamp: The cell timestamp in epoch milliseconds.
        value: The cell value.
        ttl: The per-cell TTL in milliseconds (HBase's TTL tag, F8), or ``None``.
    """

    timestamp: int
    value: bytes
    ttl: int | None = None

    def cell_expired(self, now: int) -> bool:
        """Whether the per-cell TTL has run out: ``now > timestamp + ttl`` (HBase's test)."""
        return self.ttl is not None and now > self.timestamp + self.ttl

    def family_expired(self, family: Family, now: int) -> bool:
        """Whether the family TTL (seconds) has run out: ``now > timestamp + ttl * 1000``."""
        return family.has_ttl and now > self.timestamp + family.ttl * 1000


def insert_version(versions: list[Version], version: Version, keep: int) -> None:
    """Insert ``version`` into ``versions`` (newest first) and keep only the newest ``keep``.

    A version with a timestamp already present replaces it: of two writes of the same
    ``(row, column, timestamp)`` the later one wins, as in HBase. Versions beyond ``keep``
    (the family's ``VERSIONS``) are discarded at once, as HBase discards them when it
    flushes the memstore, so reads never depend on when a flush happened.
    """
    for index, stored in enumerate(versions):
        if stored.timestamp == version.timestamp:
            versions[index] = version
            return
        if stored.timestamp < version.timestamp:
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
    range, so deleted cells stay deleted "back to the beginning of time" (seed 001 §42).
    With ``KEEP_DELETED_CELLS`` (F9) a read with ``before`` honours only markers with a
    timestamp ``< before``: a time-travel read ending before a delete still sees the cells.
    """
    if family.keep_deleted_cells and before is not None:
        markers = (marker for marker in markers if marker < before)
    return max(markers, default=-1)


def visible_versions(
    versions: Sequence[Version],
    family: Family,
    *,
    horizon: int,
    before: int | None,
    now: int,
) -> list[Version]:
    """Return the versions a read sees, newest first, following HBase's read path.

    In order, as HBase's ``UserScanQueryMatcher`` decides: versions with a timestamp
    ``>= before`` are skipped; versions ``<= horizon`` are deleted (and so is everything
    older); versions past their per-cell TTL are skipped; then versions past the family TTL
    are cut off, except that the first ``MIN_VERSIONS`` of the versions still standing are
    kept however old they are. The per-cell TTL is not softened by ``MIN_VERSIONS``
    (HBase checks it before counting versions).

    Args:
        versions: Stored versions, newest first, at most ``VERSIONS`` of them.
        family: The column's family (TTL, MIN_VERSIONS).
        horizon: From :func:`deletion_horizon`.
        before: Exclusive upper bound of the timestamps read, or ``None``.
        now: The current time in epoch milliseconds, for TTLs.
    """
    seen: list[Version] = []
    for version in versions:
        if before is not None and version.timestamp >= before:
            continue
        if version.timestamp <= horizon:
            break
        if version.cell_expired(now):
            continue
        if len(seen) >= family.min_versions and version.family_expired(family, now):
            break
        seen.append(version)
    return seen
