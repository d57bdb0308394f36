"""How a sample of rowkeys lands on a table's regions: counts, a bar chart, a hotspot verdict."""

from __future__ import annotations

import bisect
import importlib.util
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from hmodel.errors import OperationsError
from hmodel.schema.ddl import binary_literal

__all__ = ["RegionLoad", "Spread", "check_image", "measure", "render_spread", "save_image"]

#: max/mean at or above which a spread is a hotspot.
HOTSPOT_RATIO = 2.0
#: max/mean up to which a spread is even.
EVEN_RATIO = 1.5
_BAR = 40
#: Keys longer than this get a K10 note.
LONG_KEY = 100


@attrs.frozen
class RegionLoad:
    """One region and the sample keys it received.

    Attributes:
        start: The region's start key (inclusive; ``b""`` for the first region).
        stop: Its end key (exclusive; ``b""`` for the last region).
        rows: Sample keys that fall in it.
    """

    start: bytes
    stop: bytes
    rows: int


@attrs.frozen
class Spread:
    """The sample keys of one model counted per region of its table.

    Attributes:
        model: The model's name.
        table: The table's full name.
        regions: Every region in key order.
        key_min: The shortest sample key in bytes (0 without keys).
        key_max: The longest sample key in bytes.
    """

    model: str
    table: str
    regions: tuple[RegionLoad, ...]
    key_min: int = 0
    key_max: int = 0

    @property
    def total(self) -> int:
        """Sample keys counted."""
        return sum(r.rows for r in self.regions)

    @property
    def empty(self) -> int:
        """Regions that received no key."""
        return sum(1 for r in self.regions if not r.rows)

    @property
    def ratio(self) -> float:
        """The busiest region's keys over the mean per region (1.0 is perfectly even)."""
        total = self.total
        if not total:
            return 0.0
        return max(r.rows for r in self.regions) * len(self.regions) / total

    @property
    def verdict(self) -> str:
        """``"even"``, ``"uneven"``, ``"hotspot"``, ``"single region"`` or ``"no keys"``.

        One region takes every write until HBase splits it (S3); ``hotspot`` means the
        busiest region gets at least twice the mean, or a region gets nothing.
        """
        if not self.total:
            return "no keys"
        if len(self.regions) == 1:
            return "single region"
        if self.empty or self.ratio >= HOTSPOT_RATIO:
            return "hotspot"
        return "even" if self.ratio <= EVEN_RATIO else "uneven"

    def as_dict(self) -> dict[str, Any]:
        """The spread as JSON-ready data (keys as HBase shell binary literals)."""
        return {
            "model": self.model,
            "table": self.table,
            "keys": self.total,
            "key_bytes": {"min": self.key_min, "max": self.key_max},
            "regions": [
                {"start": _literal(r.start), "stop": _literal(r.stop), "rows": r.rows}
                for r in self.regions
            ],
            "max_over_mean": round(self.ratio, 3),
            "empty_regions": self.empty,
            "verdict": self.verdict,
        }


def _literal(key: bytes) -> str:
    return binary_literal(key)[1:-1]


def measure(model: str, table: str, keys: Iterable[bytes], splits: Sequence[bytes]) -> Spread:
    """Count ``keys`` per region of ``splits`` (region *i* is ``[splits[i-1], splits[i])``).

    >>> s = measure("M", "t", [b"a", b"b", b"x"], [b"m"])
    >>> [r.rows for r in s.regions], s.verdict
    ([2, 1], 'even')
    """
    points = list(splits)
    counts = [0] * (len(points) + 1)
    shortest, longest = None, 0
    for key in keys:
        counts[bisect.bisect_right(points, key)] += 1
        shortest = len(key) if shortest is None else min(shortest, len(key))
        longest = max(longest, len(key))
    bounds = [b"", *points, b""]
    regions = tuple(RegionLoad(bounds[i], bounds[i + 1], count) for i, count in enumerate(counts))
    return Spread(model, table, regions, shortest or 0, longest)


def render_spread(spread: Spread) -> str:
    """Return the spread as a text table with a bar per region and the verdict."""
    count = len(spread.regions)
    lines = [
        f"{spread.table} (model {spread.model}): {spread.total} keys of "
        f"{spread.key_min}-{spread.key_max} bytes over {count} region{'s' * (count != 1)}"
    ]
    starts = [_literal(r.start) or "(first)" for r in spread.regions]
    width = max(len("start"), *(len(s) for s in starts))
    busiest = max((r.rows for r in spread.regions), default=0) or 1
    lines.append(f"  {'region':>6}  {'start':<{width}}  {'keys':>6}  {'share':>6}")
    for number, (region, start) in enumerate(zip(spread.regions, starts, strict=True), start=1):
        share = region.rows / spread.total if spread.total else 0.0
        bar = "#" * round(_BAR * region.rows / busiest)
        lines.append(
            f"  {number:>6}  {start:<{width}}  {region.rows:>6}  {share:>6.1%}  {bar}".rstrip()
        )
    lines.append(
        f"  verdict: {spread.verdict} (max/mean {spread.ratio:.2f}, {spread.empty} empty regions)"
    )
    if spread.key_max > LONG_KEY:
        lines.append(
            f"  note: keys of up to {spread.key_max} bytes; K10 keeps keys to 10-{LONG_KEY} "
            "bytes (each cell repeats its rowkey)"
        )
    return "\n".join(lines)


def check_image(path: Path) -> None:
    """Check that an image can be drawn to ``path``, before any work is done.

    Raises:
        OperationsError: The suffix is not ``.png``/``.svg``, or matplotlib is not installed.
    """
    if path.suffix.lower() not in (".png", ".svg"):
        raise OperationsError("the image is a .png or .svg file", value=str(path))
    if importlib.util.find_spec("matplotlib") is None:
        raise OperationsError(
            "drawing an image needs matplotlib: pip install matplotlib "
            "(the text chart needs nothing)"
        )


def save_image(spreads: Sequence[Spread], path: Path) -> None:
    """Draw one bar chart per spread into ``path`` (``.png`` or ``.svg``) with matplotlib.

    Raises:
        OperationsError: matplotlib is not installed, or the suffix is not png/svg.
    """
    check_image(path)
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(len(spreads), 1, figsize=(8, 2.5 * len(spreads)), squeeze=False)
    for axis, spread in zip(axes[:, 0], spreads, strict=True):
        axis.bar(range(1, len(spread.regions) + 1), [r.rows for r in spread.regions])
        axis.set_title(f"{spread.table} ({spread.model}): {spread.verdict}")
        axis.set_xlabel("region")
        axis.set_ylabel("keys")
    figure.tight_layout()
    figure.savefig(path)
    pyplot.close(figure)
