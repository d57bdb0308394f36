"""Advisor rules about rowkeys: monotonic leads (K8), long keys (K10), empty regions (K11)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hmodel.keys import (
    Const,
    DerivedComponent,
    Descending,
    Hashed,
    Int,
    ReverseTimestamp,
    Salt,
    Timestamp,
    ValueComponent,
)
from hmodel.model import ModelInfo
from hmodel.ops.context import Context
from hmodel.ops.finding import Finding, Rule, Severity
from hmodel.ops.keyspace import lead_intervals, region_shares
from hmodel.schema import Table

__all__ = ["K8", "K10", "K11", "check_k8", "check_k10", "check_k11"]

K8 = Rule(
    "HM-K8",
    "K8",
    (
        "Monotonically Increasing Row Keys/Timeseries Data",
        "Case Study - Log Data and Timeseries Data",
    ),
    "monotonic key lead",
    "Rows are stored sorted by key, so keys that grow with time all land at the end of the "
    "table: one region, on one region server, takes every write while the others idle, and "
    "it keeps splitting. Time-series keys lead with a metric/host/device id or a salt "
    "bucket, never with the timestamp or a sequence.",
)
K10 = Rule(
    "HM-K10",
    "K10",
    ("Immutability of Rowkeys", "Try to minimize row and column sizes"),
    "long rowkey",
    "The rowkey is stored again in every cell of the row and in the block indexes; keys "
    "should stay short (about 10-100 bytes): replace long ids by a fixed-width hash or a "
    "numeric id (K9).",
)
K11 = Rule(
    "HM-K11",
    "K11",
    ("Relationship Between RowKeys and Region Splits",),
    "split points that miss the key space",
    "Pre-split a table from the key space its keys really use: uniform byte splits of a "
    "hex or salted key space leave most regions empty while a few take all rows; a salted "
    "table is split at its bucket prefixes (SaltSplits), a hex key space with HexSplits.",
)

#: The longest rowkey K10 accepts without a warning, in bytes.
MAX_KEY_BYTES = 100


def _leading_value(info: ModelInfo) -> tuple[ValueComponent[Any] | None, bool]:
    """The first value component of the key, and whether a salt or hash precedes it."""
    for component in info.key.components:
        if isinstance(component, (Salt, Hashed)):
            return None, True
        if isinstance(component, (Const, DerivedComponent)):
            continue
        return component, False
    return None, False


def _monotonic(component: ValueComponent[Any], fields: frozenset[str]) -> str | None:
    inner = component.component if isinstance(component, Descending) else component
    if isinstance(inner, ReverseTimestamp):
        return "a reverse timestamp (newest first, still one moving end of the table)"
    if isinstance(inner, Timestamp):
        return "a timestamp"
    if component.name in fields:
        kind = "a sequence number" if isinstance(inner, Int) else "a monotonic value"
        return f"{kind} (declared in monotonic-fields)"
    return None


def check_k8(ctx: Context) -> Iterator[Finding]:
    """A key whose first component (after constant tags) is a timestamp or a sequence."""
    for info in ctx.inventory.models:
        lead, spread = _leading_value(info)
        if lead is None or spread:
            continue
        what = _monotonic(lead, ctx.config.monotonic_fields)
        if what is None:
            continue
        others = [f for f in info.key.fields if f != lead.name]
        better = others[0] if others else "an id"
        yield ctx.for_model(
            K8,
            Severity.ERROR,
            info,
            f"the key leads with {lead.name!r}, {what}, and is not salted: every new row "
            "goes to the last region",
            f"lead with {better!r} (e.g. Key(Str({better!r}), ...)), or put "
            f"Salt({lead.name!r}, buckets=N) first and pre-split with SaltSplits(N)",
        )


def _minimum_width(info: ModelInfo) -> int:
    """Bytes the key takes at least: fixed widths, plus a 2-byte terminator per open string."""
    total = 0
    for component in info.key.components:
        width = component.fixed_width
        total += 2 if width is None else width
    return total


def check_k10(ctx: Context) -> Iterator[Finding]:
    """A key that is more than ``MAX_KEY_BYTES`` long, or at least that long."""
    for info in ctx.inventory.models:
        fixed = info.key.fixed_width
        width = fixed if fixed is not None else _minimum_width(info)
        if width <= MAX_KEY_BYTES:
            continue
        size = f"{width} bytes" if fixed is not None else f"at least {width} bytes"
        wide = max(
            (c for c in info.key.components if c.fixed_width is not None),
            key=lambda c: c.fixed_width or 0,
        )
        yield ctx.for_model(
            K10,
            Severity.WARNING,
            info,
            f"the key is {size} (over {MAX_KEY_BYTES}); its widest part is {wide.name!r} "
            f"({wide.fixed_width} bytes)",
            f"shorten {wide.name!r}: a Hashed(...) of 8-16 bytes or a numeric id (K9)",
        )


def _spread_findings(ctx: Context, table: Table, infos: list[ModelInfo]) -> Iterator[Finding]:
    names = ", ".join(i.name for i in infos)
    info = infos[0]
    regions = ctx.regions(table)
    buckets = info.key.buckets
    if regions == 1:
        if buckets and buckets > 1:
            yield ctx.for_table(
                K11,
                Severity.WARNING,
                table,
                f"{names}: the key is salted into {buckets} buckets but the table is not "
                "pre-split, so every bucket starts in one region",
                f"declare splits=SaltSplits({buckets})",
            )
        return
    intervals = lead_intervals(info.key, ctx.config.key_spaces.get(info.name))
    if intervals is None:
        return
    shares = region_shares(intervals, table.splits)
    empty = sum(1 for share in shares if share < 1e-9)
    mean = 1 / regions
    peak = max(shares)
    policy = type(table.split_policy).__name__
    fix = (
        f"split at the bucket prefixes: splits=SaltSplits({buckets})"
        if buckets
        else "split the key space the keys use: HexSplits for hex text, UniformSplits for "
        "hashed bytes, or explicit points from a sample (hmodel spread)"
    )
    if empty:
        yield ctx.for_table(
            K11,
            Severity.ERROR if empty * 2 >= regions else Severity.WARNING,
            table,
            f"{names}: {empty} of {regions} regions of the {policy} split points get no "
            f"rows of this key layout; the busiest region takes {peak:.0%}",
            fix,
        )
    elif peak > 2 * mean:
        yield ctx.for_table(
            K11,
            Severity.WARNING,
            table,
            f"{names}: the busiest of {regions} regions takes {peak:.0%} of the rows "
            f"({peak / mean:.1f}x the mean) under the {policy} split points",
            fix,
        )


def check_k11(ctx: Context) -> Iterator[Finding]:
    """Split points that leave regions empty or skewed for the key layouts of a table."""
    for table in ctx.inventory.tables:
        layouts: dict[object, list[ModelInfo]] = {}
        for info in ctx.inventory.models_on(table):
            layouts.setdefault(info.key, []).append(info)
        for infos in layouts.values():
            yield from _spread_findings(ctx, table, infos)
