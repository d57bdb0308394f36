"""Tools for the people who run hmodel: schema advisor, region spread, schema diff, tracing."""

from hmodel.ops.advisor import RULES, Ignored, Report, check
from hmodel.ops.config import CheckConfig, TableVolume, load_config, parse_size
from hmodel.ops.diff import Difference, TableDiff, diff_table, diff_tables
from hmodel.ops.finding import Finding, Rule, Severity, Subject
from hmodel.ops.inventory import Inventory
from hmodel.ops.report import render_json, render_text
from hmodel.ops.sample import spread_of
from hmodel.ops.sizing import MemstorePlan, SizingPlan, SplitPlan, quantile_points
from hmodel.ops.spread import RegionLoad, Spread, measure, render_spread

__all__ = [
    "RULES",
    "CheckConfig",
    "Difference",
    "Finding",
    "Ignored",
    "Inventory",
    "MemstorePlan",
    "RegionLoad",
    "Report",
    "Rule",
    "Severity",
    "SizingPlan",
    "SplitPlan",
    "Spread",
    "Subject",
    "TableDiff",
    "TableVolume",
    "check",
    "diff_table",
    "diff_tables",
    "load_config",
    "measure",
    "parse_size",
    "quantile_points",
    "render_json",
    "render_spread",
    "render_text",
    "spread_of",
]
