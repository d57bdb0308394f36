"""The sizing plan of ``hmodel check``: regions, split points and MemStore budget (S1-S3, K11).

For every table with an expected volume the plan says how many regions it needs (S1:
10-50 GB regions, at most about 100 a table), which split points fit the key layout its
models declare (K3 salt buckets, K4 hash prefixes, hex text, or quantiles of a sample of
live rowkeys for text and numeric keys, K11), and prints them ready to paste: as a
``Table(splits=...)`` argument and as the HBase shell's ``SPLITS => [...]`` (S3). With the
region servers' heap and count it also says whether the MemStores of those regions fit
the cluster's budget (S2), and what to change when they do not.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from hmodel.backend.base import Backend, Scan
from hmodel.keys import DerivedComponent, Hashed, Key, Salt
from hmodel.keys.component import Component
from hmodel.ops.config import CheckConfig
from hmodel.ops.context import Context
from hmodel.ops.locate import Location, table_location
from hmodel.schema import HexSplits, Table, regions_for
from hmodel.schema.ddl import binary_literal

__all__ = [
    "MemstorePlan",
    "MemstoreShare",
    "SizingPlan",
    "SplitPlan",
    "format_bytes",
    "memstore_advice",
    "memstore_demand",
    "plan_for",
    "plan_sizing",
    "quantile_points",
]

#: Return one cell per row and no values: only the rowkeys travel.
_KEYS_ONLY = "FirstKeyOnlyFilter() AND KeyOnlyFilter()"

#: Bytes of a byte-uniform split point (UniformSplits' default width).
_UNIFORM_WIDTH = 8

_NO_LAYOUT = (
    "cannot be derived from the layout, sample a live table (--hbase or --hbase2 HOST:PORT)"
)


def format_bytes(size: float) -> str:
    """Return ``size`` with a binary unit: ``1.5 GiB``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


@attrs.frozen
class MemstoreShare:
    """One table's MemStore demand (S2).

    Attributes:
        table: The table's full name.
        flush_size: Its ``MEMSTORE_FLUSHSIZE``, or the cluster's flush size, in bytes.
        regions: The larger of its declared regions and those its volume needs.
        families: Its column families.
    """

    table: str
    flush_size: int
    regions: int
    families: int

    @property
    def demand(self) -> int:
        """``flush_size * regions * families`` bytes."""
        return self.flush_size * self.regions * self.families


def memstore_demand(ctx: Context) -> list[MemstoreShare]:
    """Per table: flush size, regions and families (S2).

    Regions are the larger of those at creation and those the expected volume needs
    (for a salted key, at least one per bucket).
    """
    shares = []
    for table in ctx.inventory.tables:
        plan = plan_for(ctx, table)
        needed = 1 if plan is None else plan.needed
        shares.append(
            MemstoreShare(
                table.full_name,
                table.memstore_flushsize or ctx.config.flush_size,
                max(ctx.regions(table), needed),
                len(table.families),
            )
        )
    return shares


def memstore_advice(config: CheckConfig, shares: Iterable[MemstoreShare]) -> str:
    """Say whether the MemStore demand of ``shares`` fits the budget, and what would (S2).

    Needs ``config.heap`` and ``config.region_servers``. When the demand is over the
    budget the advice names the region servers, the heap per server, and the largest
    flush size that would each make it fit, one change at a time.
    """
    assert config.heap is not None and config.region_servers is not None
    shares = list(shares)
    demand = sum(share.demand for share in shares)
    per_server = int(config.heap * config.memstore_fraction)
    supply = per_server * config.region_servers
    budget = (
        f"budget {format_bytes(supply)} ({config.region_servers} region servers x "
        f"{format_bytes(config.heap)} heap x {config.memstore_fraction})"
    )
    if demand <= supply:
        return f"MemStore demand {format_bytes(demand)} fits the {budget}"
    servers = math.ceil(demand / per_server)
    heap = math.ceil(demand / (config.region_servers * config.memstore_fraction) / 1024**3)
    stores = sum(share.regions * share.families for share in shares)
    flush = supply // stores // 1024**2
    flush_text = (
        f"a MEMSTORE_FLUSHSIZE of at most {flush} MiB"
        if flush >= 1
        else "far fewer regions or families"
    )
    return (
        f"MemStore demand {format_bytes(demand)} exceeds the {budget}: use "
        f"{servers} region servers, or {heap} GiB of heap each, or {flush_text} "
        f"({stores} MemStores), or fewer regions or families"
    )


@attrs.frozen
class SplitPlan:
    """The regions and split points one table needs for its expected volume (S1, S3, K11).

    Attributes:
        table: The table's full name.
        data_bytes: The expected data, in bytes.
        needed: The regions the volume needs: ``ceil(data_bytes / region_size)``, at
            least 1 and at most ``max_regions`` (S1); for a salted key at least its bucket
            count, one region per bucket (K3).
        declared: The regions the table is declared with (its split points plus one).
        layout: How the points were derived: ``"salt"``, ``"hashed"``, ``"hex"``,
            ``"uniform"``, ``"sample"`` (quantiles of live rowkeys), ``"none"`` (one region
            is enough) or ``"unknown"`` (the key layout does not tell, no sample).
        points: The split points (bytes, strictly increasing), or ``None`` when they cannot
            be derived. They make ``len(points) + 1`` regions, fewer than ``needed`` when
            ``note`` says why.
        declaration: The ``splits=...`` argument of ``Table`` to paste, or ``None``.
        shell: The HBase shell's ``SPLITS => [...]`` text, or ``None``.
        note: What the plan could not do, and how to complete it, or ``None``.
        location: Where the table is declared, if known.
    """

    table: str
    data_bytes: int
    needed: int
    declared: int
    layout: str
    points: tuple[bytes, ...] | None
    declaration: str | None
    shell: str | None
    note: str | None
    location: Location | None = None

    @property
    def region_bytes(self) -> float:
        """The expected data of one region once the table has ``needed`` regions."""
        return self.data_bytes / self.needed

    def as_dict(self) -> dict[str, Any]:
        """Return the plan as JSON-ready data (points as ``Bytes.toStringBinary`` text)."""
        return {
            "table": self.table,
            "data_bytes": self.data_bytes,
            "needed_regions": self.needed,
            "declared_regions": self.declared,
            "region_bytes": int(self.region_bytes),
            "layout": self.layout,
            "points": None if self.points is None else [binary_literal(p) for p in self.points],
            "declaration": self.declaration,
            "shell": self.shell,
            "note": self.note,
            "filename": None if self.location is None else self.location.file,
            "line": None if self.location is None else self.location.line,
        }


@attrs.frozen
class MemstorePlan:
    """MemStore demand of the planned regions against the cluster's budget (S2).

    Attributes:
        shares: Per table: flush size, regions (declared or needed, the larger), families.
        demand: Flush size x regions x families, summed over the tables, in bytes.
        supply: ``heap x memstore_fraction x region_servers`` in bytes, or ``None`` when
            the heap or the region server count is not given.
        holds: Whether ``demand <= supply``, or ``None`` without a supply.
        advice: What the numbers mean and what to change.
    """

    shares: tuple[MemstoreShare, ...]
    demand: int
    supply: int | None
    holds: bool | None
    advice: str

    def as_dict(self) -> dict[str, Any]:
        """Return the plan as JSON-ready data."""
        return {
            "tables": [attrs.asdict(share) for share in self.shares],
            "demand_bytes": self.demand,
            "supply_bytes": self.supply,
            "holds": self.holds,
            "advice": self.advice,
        }


@attrs.frozen
class SizingPlan:
    """The sizing section of a check: one split plan per table with a volume, and S2's sums."""

    tables: tuple[SplitPlan, ...]
    memstore: MemstorePlan | None

    def as_dict(self) -> dict[str, Any]:
        """Return the plan as JSON-ready data."""
        return {
            "tables": [plan.as_dict() for plan in self.tables],
            "memstore": None if self.memstore is None else self.memstore.as_dict(),
        }


def quantile_points(keys: Sequence[bytes], regions: int) -> list[bytes]:
    r"""Return up to ``regions - 1`` split points that cut sorted ``keys`` into even shares.

    Point *i* is the shortest prefix of the key at position ``i * n // regions`` that sorts
    after the key before it, so it separates the sample exactly as the full key would,
    in fewer bytes. Fewer distinct keys than ``regions`` give fewer points.

    >>> quantile_points([b"apple", b"banana", b"cherry", b"date"], 2)
    [b'c']

    Args:
        keys: Rowkeys, sorted as unsigned bytes (duplicates are dropped).
        regions: How many regions to cut them into (>= 1).
    """
    unique = sorted(set(keys))
    count = len(unique)
    parts = min(regions, count)
    points: list[bytes] = []
    for i in range(1, parts):
        index = i * count // parts
        key, before = unique[index], unique[index - 1]
        length = next(n for n in range(1, len(key) + 1) if key[:n] > before)
        points.append(key[:length])
    return points


def _uniform(lead: bytes, regions: int, width: int) -> list[bytes]:
    """``regions - 1`` byte-uniform points of ``width`` bytes after ``lead`` (UniformSplits)."""
    step = 256**width // regions
    return [lead + (step * i).to_bytes(width, "big") for i in range(1, regions)]


def _lead(key: Key) -> tuple[bytes, int]:
    """The bytes of the leading constant tags (R1) and the index of the first other component."""
    lead = b""
    for index, component in enumerate(key.components):
        if isinstance(component, DerivedComponent) and not component.sources:
            lead += component.encode(component.derive({}))
            continue
        return lead, index
    return lead, len(key.components)


def _python_list(points: Sequence[bytes]) -> str:
    return "[" + ", ".join(repr(p) for p in points) + "]"


def _shell(points: Sequence[bytes]) -> str:
    return "SPLITS => [" + ", ".join(binary_literal(p) for p in points) + "]"


def _scan_keys(backend: Backend, table: str, start: bytes, stop: bytes, limit: int) -> list[bytes]:
    scan = Scan(start=start, stop=stop, filter=_KEYS_ONLY, limit=limit)
    return [row.row for row in backend.scan(table, scan)]


@attrs.define
class _Sample:
    """Rowkeys of a live table, read once and only when a layout needs them.

    The first ``limit`` rows of a table are only its lowest keys, so a table holding more
    than ``limit`` rows is read region by region instead: the first ``limit / regions``
    keys of each live region. HBase splits a region at its middle when it outgrows
    ``MAX_FILESIZE``, so the live regions of a grown table hold comparable shares; that
    sample is an approximation, and the plan says so.
    """

    backend: Backend | None
    table: Table
    limit: int
    _keys: list[bytes] | None = None
    complete: bool = True
    regions: int = 1

    def keys(self) -> list[bytes] | None:
        """The sampled rowkeys, or ``None`` without a live backend."""
        if self.backend is None:
            return None
        if self._keys is None:
            name = self.table.full_name
            keys = _scan_keys(self.backend, name, b"", b"", self.limit + 1)
            if len(keys) > self.limit:
                self.complete = False
                regions = self.backend.regions(name)
                self.regions = len(regions)
                per = max(1, self.limit // len(regions))
                keys = [
                    key
                    for region in regions
                    for key in _scan_keys(self.backend, name, region.start, region.end, per)
                ]
            self._keys = keys
        return self._keys

    def caveat(self) -> str | None:
        """What to know about an incomplete sample, or ``None``."""
        if self.complete:
            return None
        where = (
            "the first rows of each of its live regions, an approximation"
            if self.regions > 1
            else f"its first {self.limit:,} rows only (one live region): they cover the "
            "lowest keys, not the whole table"
        )
        return (
            f"the live table holds more than {self.limit:,} rows: the points come from "
            f"{where}; raise --sample-rows (sample-rows) to its row count for exact points"
        )


@attrs.define
class _Derivation:
    layout: str
    points: list[bytes] | None
    declaration: str | None = None
    note: str | None = None


def _describe(component: Component) -> str:
    return f"{type(component).__name__}({component.name!r})"


def _salted(
    salt: Salt,
    lead: bytes,
    after: Component | None,
    needed: int,
    sample: _Sample,
) -> _Derivation:
    """Bucket boundaries, and points inside each bucket when more regions than buckets."""
    buckets = salt.buckets
    prefixes = [lead + salt.encode(b) for b in range(buckets)]
    if needed <= buckets:
        points = prefixes[1:]
        plain = not lead and salt.nbytes == 1
        declaration = (
            f"splits=SaltSplits({buckets})"
            if plain
            else f"splits=SaltSplits({buckets}, nbytes={salt.nbytes})"
            if not lead
            else f"splits={_python_list(points)}"
        )
        return _Derivation("salt", points, declaration)
    per_bucket = [needed // buckets + (b < needed % buckets) for b in range(buckets)]
    inner: list[list[bytes]] = []
    if isinstance(after, Hashed):
        width = min(after.nbytes, _UNIFORM_WIDTH)
        inner = [_uniform(prefixes[b], per_bucket[b], width) for b in range(buckets)]
        layout = "salt"
    elif keys := sample.keys():
        inner = [
            quantile_points([k for k in keys if k.startswith(prefixes[b])], per_bucket[b])
            for b in range(buckets)
        ]
        layout = "sample"
    else:
        what = "nothing" if after is None else _describe(after)
        return _Derivation(
            "salt",
            prefixes[1:],
            f"splits=SaltSplits({buckets})" if not lead and salt.nbytes == 1 else None,
            f"the key has {buckets} salt buckets, so SaltSplits({buckets}) makes {buckets} "
            f"regions; the points inside a bucket (after {what}) {_NO_LAYOUT}, or salt into "
            f"{needed} buckets "
            "(a new key layout: a data migration)",
        )
    points = []
    for b in range(buckets):
        if b:
            points.append(prefixes[b])
        points.extend(inner[b])
    note = None
    if len(points) + 1 < needed:
        note = (
            f"the sample gave {len(points) + 1} of the {needed} regions: some buckets hold "
            "too few distinct live keys to split further"
        )
    if layout == "sample":
        note = _joined(note, sample.caveat())
    return _Derivation(layout, points, f"splits={_python_list(points)}", note)


def _joined(*notes: str | None) -> str | None:
    return "; ".join(n for n in notes if n) or None


def _spread_evenly(
    first: Component | None, lead: bytes, space: str | None, needed: int
) -> _Derivation | None:
    """Points for a hash prefix (K4) or a declared key space (K11), or ``None``."""
    if isinstance(first, Hashed) or space == "uniform":
        hashed = isinstance(first, Hashed) and space != "uniform"
        width = _UNIFORM_WIDTH
        if isinstance(first, Hashed) and hashed:
            width = min(first.nbytes, _UNIFORM_WIDTH)
        points = _uniform(lead, needed, width)
        if lead:
            declaration = f"splits={_python_list(points)}"
        elif width == _UNIFORM_WIDTH:
            declaration = f"splits=UniformSplits({needed})"
        else:
            declaration = f'splits=UniformSplits({needed}, end=b"\\xff" * {width})'
        return _Derivation("hashed" if hashed else "uniform", points, declaration)
    if space == "hex":
        points = [lead + p for p in HexSplits(needed).points()]
        declaration = f"splits={_python_list(points)}" if lead else f"splits=HexSplits({needed})"
        return _Derivation("hex", points, declaration)
    return None


def _derive(ctx: Context, table: Table, needed: int, sample: _Sample) -> _Derivation:
    """The split points of ``table``'s key layout for ``needed`` regions."""
    models = ctx.inventory.models_on(table)
    layouts = {info.key for info in models}
    if len(layouts) == 1:
        key = models[0].key
        lead, index = _lead(key)
        first = key.components[index] if index < len(key.components) else None
        after = key.components[index + 1] if index + 1 < len(key.components) else None
        if isinstance(first, Salt):
            return _salted(first, lead, after, needed, sample)
        if needed == 1:
            return _Derivation("none", [], None)
        space = ctx.config.key_spaces.get(models[0].name)
        derived = _spread_evenly(first, lead, space, needed)
        if derived is not None:
            return derived
        why = "a key starting with " + (_describe(first) if first is not None else "constants")
    elif not models:
        why = "no model declares this table's key"
    else:
        why = f"{len(layouts)} key layouts share the table"
    if needed == 1:
        return _Derivation("none", [], None)
    keys = sample.keys()
    if keys is None:
        return _Derivation("unknown", None, None, f"split points for {why} {_NO_LAYOUT}")
    if not keys:
        return _Derivation(
            "unknown",
            None,
            None,
            f"split points for {why} cannot be derived from the layout, and the live table "
            "holds no rows to sample",
        )
    points = quantile_points(keys, needed)
    note = None
    if len(points) + 1 < needed:
        note = f"the live table has too few distinct rows for {needed} regions"
    note = _joined(note, sample.caveat())
    return _Derivation("sample", points, f"splits={_python_list(points)}", note)


def plan_for(ctx: Context, table: Table) -> SplitPlan | None:
    """Return the split plan of ``table``, or ``None`` without an expected volume.

    Computed once per context (a live table is sampled once).

    Raises:
        BackendError: A live table cannot be scanned.
    """
    data = ctx.config.volume(table.full_name).data_bytes
    if data is None:
        return None
    plans: dict[str, SplitPlan] = ctx.memo.setdefault("split-plans", {})
    if table.full_name not in plans:
        plans[table.full_name] = _plan(ctx, table, data)
    return plans[table.full_name]


def _plan(ctx: Context, table: Table, data: int) -> SplitPlan:
    config = ctx.config
    needed = regions_for(data, region_size=config.region_size, max_regions=config.max_regions)
    buckets = max(
        (b for info in ctx.inventory.models_on(table) if (b := info.key.buckets)), default=1
    )
    needed = max(needed, buckets)
    sample = _Sample(ctx.backend, table, config.sample_rows)
    derived = _derive(ctx, table, needed, sample)
    points = derived.points
    return SplitPlan(
        table=table.full_name,
        data_bytes=data,
        needed=needed,
        declared=ctx.regions(table),
        layout=derived.layout,
        points=None if points is None else tuple(points),
        declaration=derived.declaration if points else None,
        shell=_shell(points) if points else None,
        note=derived.note,
        location=table_location(table),
    )


def _memstore(ctx: Context) -> MemstorePlan:
    config: CheckConfig = ctx.config
    shares = memstore_demand(ctx)
    demand = sum(share.demand for share in shares)
    if config.heap is None or config.region_servers is None:
        return MemstorePlan(
            tuple(shares),
            demand,
            None,
            None,
            f"MemStore demand {format_bytes(demand)}; give --heap and --region-servers to "
            "compare it with the cluster's budget",
        )
    supply = int(config.heap * config.memstore_fraction) * config.region_servers
    holds = demand <= supply
    return MemstorePlan(tuple(shares), demand, supply, holds, memstore_advice(config, shares))


def plan_sizing(ctx: Context) -> SizingPlan | None:
    """Return the sizing plan of the tables with an expected volume, or ``None`` without one.

    With ``ctx.backend``, tables whose key layout does not tell their split points (text
    or numeric keys, K5 reversed keys, several layouts in one table) are sampled: up to
    ``config.sample_rows`` rowkeys are scanned (keys only) and cut into even shares.

    Raises:
        BackendError: A live table cannot be scanned.
    """
    plans = [plan for table in ctx.inventory.tables if (plan := plan_for(ctx, table))]
    if not plans:
        return None
    return SizingPlan(tuple(plans), _memstore(ctx))
