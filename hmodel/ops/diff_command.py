"""The ``hmodel diff`` subcommand: two declarations in, differences and statements out."""

from __future__ import annotations

import argparse
import json
from typing import Any

from hmodel.errors import InputError
from hmodel.ops.diff import TableDiff, diff_tables
from hmodel.ops.inventory import import_module, tables_of
from hmodel.ops.live import parse_address
from hmodel.ops.migrate import Migration, current_tables, migrate
from hmodel.ops.options import add_output_format
from hmodel.ops.progress import progress
from hmodel.ops.revisions import pending_revisions, render_pending

__all__ = ["configure", "render_diff", "run_diff", "run_migrate"]


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


def _json(diff: TableDiff) -> dict[str, Any]:
    return {
        "table": diff.table,
        "destructive": diff.destructive,
        "differences": [
            {
                "what": x.what,
                "name": x.name,
                "before": x.before,
                "after": x.after,
                "destructive": x.destructive,
            }
            for x in diff.differences
        ],
        "statements": list(diff.statements),
        "notes": list(diff.notes),
    }


def _live(address: str) -> Any:
    """A Thrift2 backend to ``HOST:PORT``: the live cluster whose tables are compared."""
    from hmodel.backend.thrift2 import Thrift2Backend  # a live cluster is reached only here

    host, port = parse_address(address)
    return Thrift2Backend(host, port)


def run_diff(args: argparse.Namespace) -> int:
    """Run ``hmodel diff``; return 0 when the declarations agree, 1 when they differ.

    Raises:
        InputError: A module cannot be imported or declares no table, or neither or both
            of ``--against`` and ``--hbase2`` are given.
    """
    wanted = _tables(args.module)
    if (args.against is None) == (args.hbase2 is None):
        raise InputError("give the current schema as --against MODULE or --hbase2 HOST:PORT")
    if args.against is not None:
        diffs = diff_tables(_tables(args.against), wanted)
    else:
        with _live(args.hbase2) as backend:
            stored = current_tables(backend, wanted)
        declared = {t.full_name for t in wanted}
        diffs = [d for d in diff_tables(stored, wanted) if d.table in declared and d.differences]
    if args.output_format == "json":
        print(json.dumps([_json(d) for d in diffs], indent=2))
    else:
        print(render_diff(diffs))
    return 1 if diffs else 0


def _outcome(done: list[Migration], apply: bool) -> str:
    """The last line of ``hmodel migrate``: what was applied and what was not."""
    if not apply:
        return "dry run: nothing applied (pass --apply)"
    split_only = [m.diff.table for m in done if m.left]
    if not split_only:
        return "applied"
    tables = ", ".join(repr(t) for t in split_only)
    applied = sum(m.applied for m in done)
    head = f"applied to {applied} of {len(done)} tables" if applied else "nothing applied"
    return (
        f"{head}; split points NOT changed for {tables}: migrate never splits or merges "
        "regions (run the split statements above in the HBase shell, or merge regions)"
    )


def run_migrate(args: argparse.Namespace) -> int:
    """Run ``hmodel migrate``: 0 when nothing differs or everything was applied, else 1.

    With ``--apply``, differing split points are listed, not changed: the exit status
    is then 1 and the last line says which tables keep their split points.

    Data revisions (:class:`~hmodel.patterns.DataMigration`) declared in the module or
    in ``--migrations`` modules that the cluster's revision table does not record as
    contracted are listed first (text output), oldest first, with their phase; they do
    not change the exit status: their jobs move the data.

    Raises:
        InputError: The module cannot be imported or declares no table, or the data
            revisions do not form one chain.
        MigrationRefusedError: ``--apply`` would drop a family holding cells without
            ``--allow-drop``.
    """
    wanted = _tables(args.module)
    with _live(args.hbase2) as backend:
        done = migrate(
            backend,
            wanted,
            apply=args.apply,
            allow_drop=args.allow_drop,
            step=lambda tables: progress(tables, label="migrate", total=len(wanted)),
        )
        pending = pending_revisions(backend, [args.module, *args.migrations])
    if args.output_format == "json":
        document = [
            {
                **_json(m.diff),
                "applied": m.applied,
                "dropped_with_data": list(m.dropped_with_data),
                "left": [str(d) for d in m.left],
            }
            for m in done
        ]
        print(json.dumps(document, indent=2))
    else:
        if pending or args.migrations:
            print(render_pending(pending))
        print(render_diff([m.diff for m in done]))
        for m in done:
            if m.dropped_with_data:
                print(f"table {m.diff.table}: drops families holding cells: "
                      f"{', '.join(m.dropped_with_data)}")  # fmt: skip
        if done:
            print(_outcome(done, args.apply))
    return 1 if any(m.left for m in done) else 0


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
        epilog="exit status: 0 no differences, 1 differences, 2 bad input or a cluster that\n"
        "cannot be reached.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("module", metavar="MODULE", help="the wanted declaration")
    parser.add_argument("--against", metavar="MODULE", help="the current declaration")
    parser.add_argument(
        "--hbase2",
        metavar="HOST:PORT",
        help="compare with the tables a live cluster stores, over HBase's Thrift2 API",
    )
    add_output_format(parser)
    parser.set_defaults(run=run_diff)

    migration: argparse.ArgumentParser = commands.add_parser(
        "migrate",
        help="bring a live cluster's tables to a module's declarations (dry run by default)",
        description="Compare the tables declared in MODULE with those a live cluster stores\n"
        "(over HBase's Thrift2 API) and print the differences and statements. With\n"
        "--apply, create missing tables and alter the others one call per change (add,\n"
        "modify or delete a family, table options; online, as HBase 2 does). Split points\n"
        "are never changed. Dropping a family that holds cells is refused unless\n"
        "--allow-drop is given; tables not declared are left alone.",
        epilog="exit status: 0 nothing to do or all applied; 1 differences left: a dry run,\n"
        "or split points that --apply lists but never changes (the last line names the\n"
        "tables); 2 bad input, a cluster that cannot be reached, or a refused drop.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    migration.add_argument("module", metavar="MODULE", help="the wanted declaration")
    migration.add_argument(
        "--hbase2", required=True, metavar="HOST:PORT", help="the cluster's Thrift2 server"
    )
    migration.add_argument("--apply", action="store_true", help="make the changes")
    migration.add_argument(
        "--migrations",
        metavar="MODULE",
        action="append",
        default=[],
        help="a module declaring data revisions (DataMigration) to list with their phase "
        "(repeatable; MODULE's own are listed too)",
    )
    migration.add_argument(
        "--allow-drop", action="store_true", help="let a change drop families holding cells"
    )
    add_output_format(migration)
    migration.set_defaults(run=run_migrate)
