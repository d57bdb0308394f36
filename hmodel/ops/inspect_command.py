"""The ``hmodel inspect`` subcommand: a live table in, a model module and its check out."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hmodel.backend.base import Backend
from hmodel.errors import InputError
from hmodel.ops.inspection import Inspection, inspect_table
from hmodel.ops.options import add_output_format

__all__ = ["configure", "run_inspect"]

#: Mismatching rows listed in the text report, at most (JSON lists all).
SHOWN = 20


def _backend(args: argparse.Namespace) -> Backend:
    """The Thrift1 (``--hbase``) or Thrift2 (``--hbase2``) backend of the table."""
    from hmodel.ops.command import _live_backend  # check's: the same two options

    backend = _live_backend(args)
    if backend is None:
        raise InputError("give the table's server: one of --hbase HOST:PORT and --hbase2")
    return backend


def _prefix(text: str | None) -> bytes | None:
    if text is None:
        return None
    if text.startswith("0x"):
        try:
            return bytes.fromhex(text[2:])
        except ValueError as exc:
            raise InputError("--prefix 0x... takes hex digits", value=text) from exc
    return text.encode()


def report_json(inspection: Inspection) -> str:
    """The JSON document of ``--format json``: the module, the counts, every mismatch."""
    check = inspection.verification
    return json.dumps(
        {
            "table": inspection.guess.sample.table,
            "model": inspection.guess.class_name,
            "rows": check.rows,
            "round_trip": check.rows - len(check.mismatches),
            "mismatches": [{"row": m.row.hex(), "reason": m.reason} for m in check.mismatches],
            "module": inspection.source,
        },
        indent=2,
    )


def report_text(inspection: Inspection) -> str:
    """The summary written to standard error after the module (text format)."""
    check = inspection.verification
    lines = [
        f"hmodel inspect: {check.rows - len(check.mismatches)} of {check.rows} sampled rows "
        f"of {inspection.guess.sample.table!r} decode and re-encode byte for byte"
    ]
    lines += [f"  row {m.row!r}: {m.reason}" for m in check.mismatches[:SHOWN]]
    if len(check.mismatches) > SHOWN:
        lines.append(f"  ... and {len(check.mismatches) - SHOWN} more (--format json lists all)")
    return "\n".join(lines)


def run_inspect(args: argparse.Namespace) -> int:
    """Run ``hmodel inspect``; return 0 when every sampled row round-trips, else 1.

    Raises:
        OperationsError: Bad arguments, an empty sample, no key layout that fits.
        BackendError: The server cannot be reached or the table read.
    """
    prefix = _prefix(args.prefix)
    with _backend(args) as backend:
        inspection = inspect_table(backend, args.table, limit=args.sample, prefix=prefix)
    if args.output_format == "json":
        print(report_json(inspection))
    else:
        if args.output is None:
            print(inspection.source, end="")
        else:
            args.output.write_text(inspection.source, encoding="utf-8")
        print(report_text(inspection), file=sys.stderr)
    return 0 if inspection.verification.ok else 1


def configure(commands: Any) -> None:
    """Add the ``inspect`` subcommand to ``commands`` (an argparse subparsers object)."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "inspect",
        help="write a model module for an existing table from a sample of its rows",
        description="Read TABLE's descriptor and its first N rows over Thrift, infer its "
        "families, qualifiers, value codecs and key layout, and print a model module "
        "(as Django's inspectdb does). The module is then imported and every sampled row "
        "decoded and re-encoded with it: rows that do not come back byte for byte are "
        "listed. Comments in the module say where a guess is uncertain. Nothing is "
        "written to the table.",
        epilog="exit status: 0 every sampled row round-trips, 1 some do not (listed), 2 "
        "the inspection could not run (no server, no table, no rows, a bad argument).",
    )
    parser.add_argument("table", help="the table name, [namespace:]name")
    parser.add_argument(
        "--hbase",
        "--thrift",
        dest="hbase",
        metavar="HOST:PORT",
        help="read over HBase's Thrift1 API (--thrift is an alias)",
    )
    parser.add_argument(
        "--hbase2",
        "--thrift2",
        dest="hbase2",
        metavar="HOST:PORT",
        help="read over HBase's Thrift2 API (--thrift2 is an alias)",
    )
    parser.add_argument(
        "--sample", type=int, default=1000, metavar="N", help="rows read (default: %(default)s)"
    )
    parser.add_argument(
        "--prefix",
        help="read only rows starting with this text (or 0x followed by hex digits)",
    )
    parser.add_argument(
        "--output", "-o", type=Path, help="write the module to this file (text format)"
    )
    add_output_format(
        parser,
        help_text="text: the module on stdout, the check on stderr; json: one document with "
        "both (default: text)",
    )
    parser.set_defaults(run=run_inspect)
