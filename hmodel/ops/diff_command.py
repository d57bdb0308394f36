"""The ``hmodel diff`` subcommand: two declarations in, differences and statements out."""

from __future__ import annotations

import argparse
import json
from typing import Any

from hmodel.errors import InputError
from hmodel.ops.diff import TableDiff, diff_tables
from hmodel.ops.inventory import import_module, tables_of

__all__ = ["configure", "render_diff", "run_diff"]


def _tables(name: str) -> list[Any]:
    tables = tables_of(import_module(name))
    if not tables:
        raise InputError(f"{name} declares no hmodel Table", value=name)
    return tables


def render_diff(diffs: list[TableDiff]) -> str:
    """Return the differences and statements as text, one block per table."""
    if not diffs:
        return "no differences"
    blocks = []
    for diff in diffs:
        lines = [f"table {diff.table}:"]
        lines += [f"  {d}" for d in diff.differences]
        lines += [f"  note: {note}" for note in diff.notes]
        if diff.statements:
            lines.append("  statements:")
            lines += [f"    {statement}" for statement in diff.statements]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def run_diff(args: argparse.Namespace) -> int:
    """Run ``hmodel diff``; return 0 when the declarations agree, 1 when they differ.

    Raises:
        InputError: A module cannot be imported or declares no table.
    """
    diffs = diff_tables(_tables(args.against), _tables(args.module))
    if args.format == "json":
        document = [
            {
                "table": d.table,
                "destructive": d.destructive,
                "differences": [
                    {
                        "what": x.what,
                        "name": x.name,
                        "before": x.before,
                        "after": x.after,
                        "destructive": x.destructive,
                    }
                    for x in d.differences
                ],
                "statements": list(d.statements),
                "notes": list(d.notes),
            }
            for d in diffs
        ]
        print(json.dumps(document, indent=2))
    else:
        print(render_diff(diffs))
    return 1 if diffs else 0


def configure(commands: Any) -> None:
    """Add the ``diff`` subcommand to ``commands`` (an argparse subparsers object)."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "diff",
        help="compare a module's tables with another declaration and print the statements",
        description="Compare the tables declared in MODULE (wanted) with those declared in\n"
        "the --against module (as they are now, e.g. the released schema) by table name:\n"
        "families, every family and table option, split points. Prints the differences\n"
        "and the HBase shell statements that reconcile them (create; disable, alter,\n"
        "enable; split). Dropping a family is marked as dropping data; a table only the\n"
        "current side has is never dropped. Nothing is applied.",
        epilog="exit status: 0 no differences, 1 differences, 2 bad input.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("module", metavar="MODULE", help="the wanted declaration")
    parser.add_argument(
        "--against", required=True, metavar="MODULE", help="the current declaration"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=run_diff)
