"""Advisor rules about sizing: regions per table (S1), MemStore demand (S2), pre-splitting (S3)."""

from __future__ import annotations

from collections.abc import Iterator

from hmodel.ops.context import Context
from hmodel.ops.finding import Finding, Rule, Severity, Subject

__all__ = ["S1", "S2", "S3", "check_s1", "check_s2", "check_s3", "format_bytes"]

S1 = Rule(
    "HM-S1",
    "S1",
    ("Regionserver Sizing Rules of Thumb",),
    "region count and size",
    "Regions work best at 10-50 GB each and at most about 100 per table (50-100 for a "
    "table of one or two families): many small regions waste MemStores and flushes, "
    "huge ones make splits and compactions slow.",
)
S2 = Rule(
    "HM-S2",
    "S2",
    ("Regionserver Sizing Rules of Thumb",),
    "MemStore demand over the cluster's budget",
    "The MemStores of a cluster can ask for up to flush size x regions x families per "
    "region; the supply is hbase.regionserver.global.memstore.size x heap x region "
    "servers. When demand is far above supply, MemStores flush early and often and write "
    "performance suffers.",
)
S3 = Rule(
    "HM-S3",
    "S3",
    ("Relationship Between RowKeys and Region Splits",),
    "not pre-split for the expected volume",
    "Estimate the data volume when the table is created and pre-split into enough "
    "regions for it, so the table does not have to split (and move regions) under load.",
)

_GB = 1024**3
_S1_MAX_REGION = 50 * _GB


def format_bytes(size: float) -> str:
    """Return ``size`` with a binary unit: ``1.5 GiB``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def check_s1(ctx: Context) -> Iterator[Finding]:
    """More than ``max-regions`` regions; regions that will outgrow 50 GB or stay tiny."""
    for table in ctx.inventory.tables:
        regions = ctx.regions(table)
        limit = ctx.config.max_regions
        if regions > limit:
            yield ctx.for_table(
                S1,
                Severity.WARNING,
                table,
                f"{regions} regions at creation (more than {limit} per table)",
                "pre-split into fewer regions, or spread the data over more tables",
            )
        data = ctx.config.volume(table.full_name).data_bytes
        if data is None:
            continue
        size = data / regions
        if size > _S1_MAX_REGION and regions >= limit:
            yield ctx.for_table(
                S1,
                Severity.WARNING,
                table,
                f"{format_bytes(data)} over {regions} regions is {format_bytes(size)} a "
                "region, over 50 GB even at the region limit",
                "split the data over several tables (e.g. one per time period)",
            )
        elif regions > 1 and size < _GB:
            yield ctx.for_table(
                S1,
                Severity.INFO,
                table,
                f"{format_bytes(data)} over {regions} regions is only {format_bytes(size)} "
                "a region (10-50 GB is the aim)",
                "fewer regions are enough for this volume; keep them if the splits "
                "spread writes (salt buckets)",
            )


def check_s3(ctx: Context) -> Iterator[Finding]:
    """Fewer regions at creation than the expected volume needs."""
    for table in ctx.inventory.tables:
        needed = ctx.needed_regions(table)
        regions = ctx.regions(table)
        if needed is None or needed <= regions:
            continue
        data = ctx.config.volume(table.full_name).data_bytes or 0
        state = "is not pre-split" if regions == 1 else f"starts with {regions} regions"
        yield ctx.for_table(
            S3,
            Severity.WARNING,
            table,
            f"{format_bytes(data)} expected needs about {needed} regions of "
            f"{format_bytes(ctx.config.region_size)}, and the table {state}",
            f"pre-split into {needed} regions from the key space (e.g. SaltSplits({needed}) "
            f"with a Salt of {needed} buckets, or HexSplits({needed}))",
        )


def memstore_demand(ctx: Context) -> list[tuple[str, int, int, int, int]]:
    """Per table: name, flush size, regions, families and their product (S2).

    Regions are the larger of those at creation and those the expected volume needs.
    """
    rows = []
    for table in ctx.inventory.tables:
        flush = table.memstore_flushsize or ctx.config.flush_size
        regions = max(ctx.regions(table), ctx.needed_regions(table) or 1)
        families = len(table.families)
        rows.append((table.full_name, flush, regions, families, flush * regions * families))
    return rows


def check_s2(ctx: Context) -> Iterator[Finding]:
    """Flush size x regions x families over all tables, against the MemStore budget."""
    config = ctx.config
    if config.heap is None or config.region_servers is None:
        return
    rows = memstore_demand(ctx)
    demand = sum(row[-1] for row in rows)
    supply = int(config.heap * config.memstore_fraction) * config.region_servers
    if demand <= supply:
        return
    top = max(rows, key=lambda row: row[-1])
    yield Finding(
        S2,
        Severity.WARNING,
        Subject("cluster", "cluster"),
        f"MemStore demand {format_bytes(demand)} exceeds the budget {format_bytes(supply)} "
        f"({config.region_servers} region servers x {format_bytes(config.heap)} heap x "
        f"{config.memstore_fraction}); the largest share is table {top[0]!r}: "
        f"{format_bytes(top[1])} x {top[2]} regions x {top[3]} families",
        "use fewer regions or families, a smaller MEMSTORE_FLUSHSIZE, or more region "
        "servers / heap",
    )
