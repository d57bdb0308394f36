"""The ``hmodel check`` and ``hmodel spread`` subcommands: arguments in, exit status out."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from hmodel.backend.base import Backend
from hmodel.errors import CheckConfigError, InputError, MonotonicKeyWarning
from hmodel.ops.advisor import RULES, check
from hmodel.ops.config import CheckConfig, TableVolume, load_config, parse_size, volume_of
from hmodel.ops.diff_command import configure as configure_diff
from hmodel.ops.finding import Severity
from hmodel.ops.inventory import Inventory
from hmodel.ops.report import FORMATS, render, use_colour
from hmodel.ops.spread_command import configure
from hmodel.schema import SchemaWarning

__all__ = ["add_check", "add_diff", "add_spread", "resolve_codes", "run_check"]


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
    if args.max_regions is not None:
        if args.max_regions < 1:
            raise CheckConfigError("--max-regions must be at least 1")
        changes["max_regions"] = args.max_regions
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
    for table, text in _pairs(args.volume, "volume").items():
        size = volume_of(text, table, "--volume")
        volumes[table] = attrs.evolve(volumes.get(table, TableVolume()), volume=size)
    changes["volumes"] = volumes
    if args.sample_rows is not None:
        if args.sample_rows < 1:
            raise CheckConfigError("--sample-rows must be at least 1", value=args.sample_rows)
        changes["sample_rows"] = args.sample_rows
    return attrs.evolve(config, **changes)


#: The code prefixes ``--select`` and ``--ignore`` take besides whole codes, as ruff's.
PREFIXES = ("ALL", "HM-K", "HM-F", "HM-S")


def _selectors(values: Iterable[str] | None) -> list[str]:
    """The codes and prefixes of repeated, comma-separated options (``HM-K8,HM-F2``)."""
    return [part.strip().upper() for value in values or () for part in value.split(",")]


def resolve_codes(select: Iterable[str] | None, ignore: Iterable[str] | None) -> list[str]:
    """Return the codes to run: those ``select`` names (all by default) less ``ignore``'s.

    Each option may be repeated and each value may list codes separated by commas; a
    value is a whole code (``HM-K8``), a family prefix (``HM-K``, ``HM-F``, ``HM-S``) or
    ``ALL``, in any case, as ruff's ``--select``/``--ignore``. The codes come back in
    catalogue order.

    >>> resolve_codes(["HM-K", "HM-F2"], ["HM-K10"])
    ['HM-K8', 'HM-K11', 'HM-F2']

    Raises:
        CheckConfigError: A value that is neither a code nor a prefix.
    """
    codes = [rule.code for rule, _ in RULES]

    def matching(selectors: list[str]) -> set[str]:
        found: set[str] = set()
        for selector in selectors:
            if selector in codes:
                found.add(selector)
            elif selector in PREFIXES:
                found.update(c for c in codes if selector == "ALL" or c.startswith(selector))
            elif selector:
                raise CheckConfigError(
                    f"unknown code {selector!r}: give one of {', '.join(codes)}, "
                    f"or a prefix {', '.join(PREFIXES)}"
                )
        return found

    chosen = _selectors(select)
    wanted = matching(chosen) if chosen else set(codes)
    wanted -= matching(_selectors(ignore))
    return [code for code in codes if code in wanted]


def _live_backend(args: argparse.Namespace) -> Backend | None:
    """The Thrift1 (``--hbase``) or Thrift2 (``--hbase2``) backend to sample, or ``None``.

    Raises:
        InputError: Both options, or an address that is not ``HOST:PORT``.
    """
    from hmodel.ops.live import parse_address

    if args.hbase is not None and args.hbase2 is not None:
        raise InputError("give one of --hbase and --hbase2")
    if args.hbase is not None:
        from hmodel.backend.thrift import ThriftBackend  # a live cluster is read only here

        return ThriftBackend(*parse_address(args.hbase))
    if args.hbase2 is not None:
        from hmodel.backend.thrift2 import Thrift2Backend

        return Thrift2Backend(*parse_address(args.hbase2))
    return None


def run_check(args: argparse.Namespace) -> int:
    """Run ``hmodel check``; return 0, or 1 when a finding reaches ``--fail-on``.

    The modules are imported without the declaration warnings a selected rule reports
    too (:class:`~hmodel.errors.MonotonicKeyWarning` under ``HM-K8``, MIN_VERSIONS
    without a TTL under ``HM-F7``): the finding says the same, with its line and fix.

    With ``--hbase``/``--hbase2`` the tables whose key layout does not tell their split
    points are sampled on that cluster (keys only).

    Raises:
        OperationsError: A module cannot be imported, a setting is invalid.
        BackendError: The live cluster cannot be reached or a table scanned.
    """
    config = _config(args)
    codes = resolve_codes(args.select, args.ignore)
    with warnings.catch_warnings():
        if "HM-K8" in codes:
            warnings.simplefilter("ignore", MonotonicKeyWarning)
        if "HM-F7" in codes:
            warnings.filterwarnings(
                "ignore", "family .*: MIN_VERSIONS without a TTL", SchemaWarning
            )
        inventory = Inventory.from_modules(args.modules)
    backend = _live_backend(args)
    if backend is None:
        report = check(inventory, config, select=codes)
    else:
        with backend:
            report = check(inventory, config, select=codes, backend=backend)
    colour = use_colour(sys.stdout, os.environ)
    print(render(report, args.output_format, verbose=args.verbose, colour=colour))
    return 1 if report.fails(config.fail_on) else 0


_CHECK_EPILOG = """\
codes: {codes}

Numbers and silences may also come from [tool.hmodel.check] in pyproject.toml:
  [tool.hmodel.check]
  region-servers = 5
  heap = "32GiB"
  [tool.hmodel.check.volume]
  order = "2 TB"
  [tool.hmodel.check.tables.customer]
  rows = 50_000_000
  row-bytes = 300
  [tool.hmodel.check.ignore]
  "model:Event" = {{ "HM-K8" = "a 100-row audit table, never hot" }}

--select and --ignore take codes or prefixes (HM-K, HM-F, HM-S, ALL), repeated or
separated by commas: --select HM-K,HM-F2 --ignore HM-K10.

Sizes take decimal units (B, KB, MB, GB, TB, PB: powers of 1000) or binary ones (KiB,
MiB, GiB, TiB, PiB: powers of 1024). With a volume, the sizing plan lists each table's
regions (10-50 GB each, at most --max-regions), the split points of its key layout as
Table(splits=...) and as SPLITS => [...], and the MemStore budget (S2).

exit status: 0 no finding at or above --fail-on, 1 findings, 2 the check could not run
(a module that does not import or has a syntax error, an unknown code, a bad setting).
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
        "against expected volume (S1, S3) and MemStore demand (S2). With an expected\n"
        "volume (--volume TABLE=SIZE) it prints a sizing plan: regions, the split points\n"
        "of the declared key layout to paste, and whether the MemStore budget holds.",
        epilog=_CHECK_EPILOG.format(codes=", ".join(rule.code for rule, _ in RULES)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("modules", nargs="+", metavar="MODULE", help="dotted module names")
    parser.add_argument(
        "--output-format",
        "--format",
        dest="output_format",
        choices=tuple(FORMATS),
        default="text",
        help="text (file:line: CODE ...), json, github (workflow annotations), sarif "
        "(SARIF 2.1.0) or junit (JUnit XML) (default: text; --format is an alias)",
    )
    parser.add_argument(
        "--fail-on",
        choices=("info", "warning", "error", "never"),
        help="lowest severity that makes the exit status 1 (default: warning)",
    )
    parser.add_argument(
        "--select",
        action="append",
        metavar="CODES",
        help="run only these codes or prefixes (comma-separated, repeatable)",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        metavar="CODES",
        help="do not run these codes or prefixes (comma-separated, repeatable)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show each rule's reason")
    parser.add_argument(
        "--config", type=Path, help="TOML file with [tool.hmodel.check] (default: ./pyproject.toml)"
    )
    parser.add_argument(
        "--region-servers",
        type=int,
        metavar="N",
        help="region servers in the cluster, for the MemStore budget (S2)",
    )
    parser.add_argument(
        "--max-regions",
        type=int,
        metavar="N",
        help="regions per table above which S1 warns (default 100)",
    )
    parser.add_argument("--heap", metavar="SIZE", help="heap of one region server, e.g. 32GiB")
    parser.add_argument("--memstore-fraction", type=float, metavar="F", help="default 0.4")
    parser.add_argument("--flush-size", metavar="SIZE", help="default 128MiB")
    parser.add_argument(
        "--volume",
        action="append",
        default=[],
        metavar="TABLE=SIZE",
        help="expected data of TABLE, e.g. order=2TB (repeatable; wins over --rows)",
    )
    parser.add_argument(
        "--hbase",
        metavar="HOST:PORT",
        help="sample live rowkeys over HBase's Thrift1 API for split points a key layout "
        "does not tell (text, numeric or reversed keys); keys only, nothing written",
    )
    parser.add_argument("--hbase2", metavar="HOST:PORT", help="the same over Thrift2")
    parser.add_argument(
        "--sample-rows",
        type=int,
        metavar="N",
        help="rowkeys read per live table, at most (default 100000)",
    )
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
