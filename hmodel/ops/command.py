"""The ``hmodel check`` and ``hmodel spread`` subcommands: arguments in, exit status out."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import attrs

from hmodel.errors import CheckConfigError
from hmodel.ops.advisor import RULES, check
from hmodel.ops.config import CheckConfig, TableVolume, load_config, parse_size
from hmodel.ops.diff_command import configure as configure_diff
from hmodel.ops.finding import Severity
from hmodel.ops.inventory import Inventory
from hmodel.ops.report import render_json, render_text
from hmodel.ops.spread_command import configure

__all__ = ["add_check", "add_diff", "add_spread", "run_check"]


def _pairs(values: list[str], label: str) -> dict[str, str]:
    result = {}
    for value in values:
        name, sep, number = value.partition("=")
        if not sep or not name or not number:
            raise CheckConfigError(f"--{label} takes TABLE=VALUE", value=value)
        result[name] = number
    return result


def _config(args: argparse.Namespace) -> CheckConfig:
    path = args.config
    if path is None and Path("pyproject.toml").is_file():
        path = Path("pyproject.toml")
    config = load_config(path)
    changes: dict[str, Any] = {}
    if args.region_servers is not None:
        changes["region_servers"] = args.region_servers
    if args.heap is not None:
        changes["heap"] = parse_size(args.heap, "--heap")
    if args.memstore_fraction is not None:
        if not 0 < args.memstore_fraction <= 1:
            raise CheckConfigError("--memstore-fraction must be in (0, 1]")
        changes["memstore_fraction"] = args.memstore_fraction
    if args.flush_size is not None:
        changes["flush_size"] = max(1, parse_size(args.flush_size, "--flush-size"))
    if args.fail_on is not None:
        changes["fail_on"] = None if args.fail_on == "never" else Severity(args.fail_on)
    volumes = dict(config.volumes)
    for option in ("rows", "row_bytes", "cell_bytes"):
        for table, text in _pairs(getattr(args, option), option.replace("_", "-")).items():
            number = parse_size(text, f"--{option.replace('_', '-')} {table}")
            volumes[table] = attrs.evolve(volumes.get(table, TableVolume()), **{option: number})
    changes["volumes"] = volumes
    return attrs.evolve(config, **changes)


def run_check(args: argparse.Namespace) -> int:
    """Run ``hmodel check``; return 0, or 1 when a finding reaches ``--fail-on``.

    Raises:
        OperationsError: A module cannot be imported, a setting is invalid.
    """
    config = _config(args)
    codes = {rule.code for rule, _ in RULES}
    unknown = sorted(set(args.select or ()) - codes)
    if unknown:
        raise CheckConfigError(f"unknown code {unknown[0]}", value=sorted(codes))
    report = check(Inventory.from_modules(args.modules), config, select=args.select)
    if args.format == "json":
        print(render_json(report))
    else:
        print(render_text(report, verbose=args.verbose))
    return 1 if report.fails(config.fail_on) else 0


_CHECK_EPILOG = """\
codes: {codes}

Numbers and silences may also come from [tool.hmodel.check] in pyproject.toml:
  [tool.hmodel.check]
  region-servers = 5
  heap = "32GiB"
  [tool.hmodel.check.tables.order]
  rows = 2_000_000_000
  row-bytes = 600
  [tool.hmodel.check.ignore]
  "model:Event" = {{ "HM-K8" = "a 100-row audit table, never hot" }}

exit status: 0 no finding at or above --fail-on, 1 findings, 2 bad input.
"""


def add_check(commands: Any) -> None:
    """Add the ``check`` subcommand to ``commands`` (an argparse subparsers object)."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "check",
        help="check the schema design of a module's tables and models against the catalogue",
        description="Import each MODULE, collect its hmodel tables and models (and the\n"
        "models declared on those tables), and check them against the pattern catalogue:\n"
        "monotonic key leads (K8), long keys (K10), split points that miss the key space\n"
        "(K11), family count and names (F1, F2), versions (F7), cell size (F11), regions\n"
        "against expected volume (S1, S3) and MemStore demand (S2).",
        epilog=_CHECK_EPILOG.format(codes=", ".join(rule.code for rule, _ in RULES)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("modules", nargs="+", metavar="MODULE", help="dotted module names")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--fail-on",
        choices=("info", "warning", "error", "never"),
        help="lowest severity that makes the exit status 1 (default: warning)",
    )
    parser.add_argument("--select", action="append", metavar="CODE", help="run only CODE")
    parser.add_argument("-v", "--verbose", action="store_true", help="show each rule's reason")
    parser.add_argument(
        "--config", type=Path, help="TOML file with [tool.hmodel.check] (default: ./pyproject.toml)"
    )
    parser.add_argument("--region-servers", type=int, metavar="N")
    parser.add_argument("--heap", metavar="SIZE", help="heap of one region server, e.g. 32GiB")
    parser.add_argument("--memstore-fraction", type=float, metavar="F", help="default 0.4")
    parser.add_argument("--flush-size", metavar="SIZE", help="default 128MiB")
    for option, text in (
        ("--rows", "expected rows of TABLE"),
        ("--row-bytes", "average row size of TABLE (default 1KiB)"),
        ("--cell-bytes", "largest cell of TABLE"),
    ):
        parser.add_argument(option, action="append", default=[], metavar="TABLE=N", help=text)
    parser.set_defaults(run=run_check)


def add_diff(commands: Any) -> None:
    """Add the ``diff`` subcommand to ``commands`` (an argparse subparsers object)."""
    configure_diff(commands)


def add_spread(commands: Any) -> None:
    """Add the ``spread`` subcommand to ``commands`` (an argparse subparsers object)."""
    configure(commands)
