"""Advisor rules about sizing: regions per table (S1), MemStore demand (S2), pre-splitting (S3)."""

from __future__ import annotations

from collections.abc import Iterator

from hmodel.ops.context import Context
from hmodel.ops.finding import Finding, Rule, Severity, Subject
from hmodel.ops.sizing import SplitPlan, format_bytes, memstore_advice, memstore_demand, plan_for

__all__ = ["S1", "S2", "S3", "check_s1", "check_s2", "check_s3", "format_bytes"]

S1 = Rule(
    "HM-S1",
    "S1",
    (
        "https://hbase.apache.org/book.html#table_schema_rules_of_thumb",
        "https://hbase.apache.org/book.html#ops.capacity.regions",
    ),
    "region count and size",
    "Regions work best at 10-50 GB each and at most about 100 per table (50-100 for a "
    "table of one or two families): many small regions waste MemStores and flushes, "
    "huge ones make splits and compactions slow.",
)
S2 = Rule(
    "HM-S2",
    "S2",
    ("https://hbase.apache.org/book.html#ops.capacity.regions",),
    "MemStore demand over the cluster's budget",
    "The MemStores of a cluster can ask for up to flush size x regions x families per "
    "region; the supply is hbase.regionserver.global.memstore.size x heap x region "
    "servers. When demand is far above supply, MemStores flush early and often and write "
    "performance suffers.",
)
S3 = Rule(
    "HM-S3",
    "S3",
    (
        "https://hbase.apache.org/book.html#precreate.regions",
        "https://hbase.apache.org/book.html#rowkey.regionsplits",
    ),
    "not pre-split for the expected volume",
    "Estimate the data volume when the table is created and pre-split into enough "
    "regions for it, so the table does not have to split (and move regions) under load.",
)

_GB = 1024**3
_S1_MAX_REGION = 50 * _GB

#: A ``splits=...`` declaration longer than this is left to the sizing plan, not the fix.
_SHORT_DECLARATION = 60


def check_s1(ctx: Context) -> Iterator[Finding]:
    """More than ``max-regions`` regions; regions that will outgrow 50 GB at that limit."""
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
        size = data / max(regions, limit)
        if size > _S1_MAX_REGION:
            yield ctx.for_table(
                S1,
                Severity.WARNING,
                table,
                f"{format_bytes(data)} over {max(regions, limit)} regions is "
                f"{format_bytes(size)} a region, over 50 GB even at the region limit",
                "split the data over several tables (e.g. one per time period)",
            )


def _pre_split(plan: SplitPlan) -> str:
    """What to declare: the short ``splits=...`` itself, or where the plan prints it."""
    complete = plan.points is not None and len(plan.points) + 1 >= plan.needed
    if complete and plan.declaration is not None and len(plan.declaration) <= _SHORT_DECLARATION:
        return f"declare {plan.declaration}"
    if complete and plan.points:
        return (
            f"declare the {len(plan.points)} split points of the sizing plan (printed as "
            "Table(splits=[...]) and SPLITS => [...])"
        )
    return f"pre-split into {plan.needed} regions: {plan.note}"


def check_s3(ctx: Context) -> Iterator[Finding]:
    """Fewer regions at creation than the expected volume needs, or many more."""
    for table in ctx.inventory.tables:
        plan = plan_for(ctx, table)
        if plan is None:
            continue
        regions = plan.declared
        data = format_bytes(plan.data_bytes)
        if plan.needed > regions:
            state = "is not pre-split" if regions == 1 else f"starts with {regions} regions"
            yield ctx.for_table(
                S3,
                Severity.WARNING,
                table,
                f"{data} expected needs about {plan.needed} regions of "
                f"{format_bytes(plan.region_bytes)}, and the table {state}",
                _pre_split(plan),
            )
        elif regions >= 2 * plan.needed:
            yield ctx.for_table(
                S3,
                Severity.INFO,
                table,
                f"the table starts with {regions} regions of "
                f"{format_bytes(plan.data_bytes / regions)} for the {data} expected; about "
                f"{plan.needed} would do (10-50 GB a region)",
                f"{_pre_split(plan)}: every region costs a MemStore per family and its "
                "own flushes and compactions (S1, S2)"
                if plan.needed > 1
                else "do not pre-split: every region costs a MemStore per family and its "
                "own flushes and compactions (S1, S2)",
            )


def check_s2(ctx: Context) -> Iterator[Finding]:
    """Flush size x regions x families over all tables, against the MemStore budget."""
    config = ctx.config
    if config.heap is None or config.region_servers is None:
        return
    shares = memstore_demand(ctx)
    demand = sum(share.demand for share in shares)
    supply = int(config.heap * config.memstore_fraction) * config.region_servers
    if demand <= supply:
        return
    top = max(shares, key=lambda share: share.demand)
    advice = memstore_advice(config, shares)
    yield Finding(
        S2,
        Severity.WARNING,
        Subject("cluster", "cluster"),
        f"{advice.partition(': use ')[0]}; the largest share is table {top.table!r}: "
        f"{format_bytes(top.flush_size)} x {top.regions} regions x {top.families} families",
        "use " + advice.partition(": use ")[2],
    )
