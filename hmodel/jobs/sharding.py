"""Shards: a task's regions, each split further when large."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import attrs

from hmodel.backend.base import Backend, Scan
from hmodel.errors import ValidationError
from hmodel.jobs.model import Shard, Target

__all__ = ["Sharding", "plan_shards", "split_range"]

#: The filter of a key-sampling scan: one cell per row, no values.
_KEYS_ONLY = "FirstKeyOnlyFilter() AND KeyOnlyFilter()"


def _validate_parts(parts: int) -> None:
    if isinstance(parts, bool) or not isinstance(parts, int) or parts < 1:
        raise ValidationError("parts is an int >= 1", field="parts", value=parts)


def split_range(first: bytes, last: bytes, parts: int) -> list[bytes]:
    """Up to ``parts - 1`` split points strictly between ``first`` and ``last`` (bisection).

    The rows are read as big-endian numbers of ``n`` bytes, ``n`` the longer key's
    length (the shorter padded with ``0x00``), and the interval from ``first`` to
    ``last`` is cut into ``parts`` equal pieces: each split point is ``n`` bytes. Exact
    for keys spread evenly over the bytes (hashed or salted keys, K3/K4); skewed keys give
    uneven shards, never wrong ones: every row ``>= first`` and ``<= last`` falls in
    exactly one piece ``[point_i, point_i+1)``.

    Args:
        first: The lowest row of the range.
        last: The highest row of the range (``>= first``).
        parts: How many pieces, ``>= 1``.

    Returns:
        The split points, strictly increasing, each ``> first`` and ``<= last``.

    Raises:
        ValidationError: ``parts < 1`` or ``last < first``.
    """
    _validate_parts(parts)
    if last < first:
        raise ValidationError("last row before the first", row=last, value=first)
    width = max(len(first), len(last), 1)
    low = int.from_bytes(first.ljust(width, b"\x00"), "big")
    high = int.from_bytes(last.ljust(width, b"\x00"), "big")
    points: list[bytes] = []
    for i in range(1, parts):
        point = (low + (high - low) * i // parts).to_bytes(width, "big")
        if point > first and point <= last and (not points or point > points[-1]):
            points.append(point)
    return points


@attrs.frozen
class Sharding:
    """How a job's regions are cut into shards.

    Each region becomes one shard, unless one of these splits it:

    * ``parts``: every region is bisected by bytes into ``parts`` shards
      (:func:`split_range` between the region's first and last row, each read with one
      key-only scan of one row). Cheap: two small reads per region.
    * ``rows_per_shard``: a region is cut every ``rows_per_shard`` rows, at rows read by a
      key-only scan of the region (``FirstKeyOnlyFilter`` and ``KeyOnlyFilter``: one cell
      per row, no values). Exact shard sizes, at the cost of reading every rowkey once
      when planning.

    Shards of one region are contiguous: the first starts at the region's start, each
    next one at the previous one's stop, the last stops at the region's end (start
    inclusive, stop exclusive), so every row is in exactly one shard.

    Attributes:
        parts: Shards per region by byte bisection (``1``: no bisection).
        rows_per_shard: Cut by row count instead (``None``: do not).
    """

    parts: int = 1
    rows_per_shard: int | None = None

    def __attrs_post_init__(self) -> None:
        _validate_parts(self.parts)
        if self.rows_per_shard is not None:
            rows = self.rows_per_shard
            if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
                raise ValidationError(
                    "rows_per_shard is an int >= 1", field="rows_per_shard", value=rows
                )

    def points(self, backend: Backend, target: Target) -> list[bytes]:
        """Split points strictly inside ``target``'s range (empty: one shard)."""
        if self.rows_per_shard is not None:
            return self._by_rows(backend, target, self.rows_per_shard)
        if self.parts == 1:
            return []
        edge = Scan(start=target.start, stop=target.stop, filter=_KEYS_ONLY, limit=1)
        first = [r.row for r in backend.scan(target.table, edge)]
        last = [r.row for r in backend.scan(target.table, attrs.evolve(edge, reverse=True))]
        if not first or not last:
            return []
        return split_range(first[0], last[0], self.parts)

    @staticmethod
    def _by_rows(backend: Backend, target: Target, rows: int) -> list[bytes]:
        scan = Scan(start=target.start, stop=target.stop, filter=_KEYS_ONLY, batch_size=1000)
        points: list[bytes] = []
        for n, result in enumerate(backend.scan(target.table, scan)):
            if n and n % rows == 0:
                points.append(result.row)
        return points


def plan_shards(
    backend: Backend, job: str, targets: Sequence[Target], sharding: Sharding | None = None
) -> list[Shard]:
    """Number ``targets``' pieces as ``job``'s shards (by phase, then in target order)."""
    sharding = sharding or Sharding()
    shards: list[Shard] = []
    for target in sorted(targets, key=lambda t: t.phase):
        bounds = [target.start, *sharding.points(backend, target), target.stop]
        for start, stop in itertools.pairwise(bounds):
            shards.append(
                Shard(job, len(shards), target.table, start, stop, target.phase, target.part)
            )
    return shards
