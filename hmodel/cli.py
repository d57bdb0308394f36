"""The ``hmodel`` command line: one subcommand per tool, e.g. ``hmodel fake-hbase``."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence

from hmodel import __version__
from hmodel.errors import HModelError, OperationsError

__all__ = ["build_parser", "main"]


def _fake_hbase(args: argparse.Namespace) -> int:
    """Run the HBase-compatible Thrift1 (and Thrift2) server until SIGINT or SIGTERM."""
    from hmodel.testing.fake.thrift1_server import FakeHBaseServer

    stop = threading.Event()
    previous = {
        sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        server = FakeHBaseServer(
            host=args.host,
            port=args.port,
            transport=args.transport,
            protocol=args.protocol,
            scanner_lease_ms=args.scanner_lease_ms,
            thrift2_port=args.thrift2_port,
        ).start()
        print(
            f"fake HBase Thrift1 server listening on {server.host}:{server.port} "
            f"(transport={server.transport}, protocol={server.protocol})",
            flush=True,
        )
        if server.thrift2_port is not None:
            print(
                f"fake HBase Thrift2 server listening on {server.host}:{server.thrift2_port}",
                flush=True,
            )
        stop.wait()
        server.stop()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


def _ddl(args: argparse.Namespace) -> int:
    """Print the HBase shell ``create`` statement of every table declared in a module."""
    import importlib

    from hmodel.schema import Table
    from hmodel.schema.ddl import create_statement

    try:
        module = importlib.import_module(args.module)
    except ImportError as exc:
        print(f"hmodel ddl: cannot import {args.module!r}: {exc}", file=sys.stderr)
        return 2
    tables = [value for value in vars(module).values() if isinstance(value, Table)]
    if not tables:
        print(f"hmodel ddl: module {args.module!r} declares no Table", file=sys.stderr)
        return 2
    for table in sorted(tables, key=lambda t: t.full_name):
        print(create_statement(table))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``hmodel`` with its subcommands."""
    parser = argparse.ArgumentParser(
        prog="hmodel", description="hmodel: HBase schema-design patterns, declared once."
    )
    parser.add_argument("--version", action="version", version=f"hmodel {__version__}")
    commands = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    commands.required = True

    fake = commands.add_parser(
        "fake-hbase",
        help="run an HBase-compatible Thrift1 server over the in-memory engine",
        description="Serve HBase's Thrift1 API (what happybase speaks) from an in-memory "
        "engine, in the foreground, until SIGINT or SIGTERM. Data is lost when it stops.",
    )
    fake.add_argument("--host", default="127.0.0.1", help="interface (default: %(default)s)")
    fake.add_argument("--port", type=int, default=9090, help="TCP port, 0 = any (default: 9090)")
    fake.add_argument("--transport", choices=("buffered", "framed"), default="buffered")
    fake.add_argument("--protocol", choices=("binary", "compact"), default="binary")
    fake.add_argument(
        "--scanner-lease-ms",
        type=int,
        default=120_000,
        help="a scanner unused this long expires, as HBase 2.2's Thrift1 server drops scanners "
        "unused for 2 x hbase.client.scanner.timeout.period (default: %(default)s)",
    )
    fake.add_argument(
        "--thrift2-port",
        type=int,
        default=None,
        help="also serve HBase 2's Thrift2 API on this TCP port over the same engine "
        "(e.g. 9092; 0 = any; default: Thrift1 only)",
    )
    fake.set_defaults(run=_fake_hbase)

    ddl = commands.add_parser(
        "ddl",
        help="print the HBase shell create statements of a module's tables",
        description="Import MODULE and print, for every hmodel Table declared at its top "
        "level, the HBase shell create statement (families with options, split points), "
        "so an operator can create the tables by hand (K11, F3, F4).",
    )
    ddl.add_argument("module", help="a dotted module name, e.g. examples.ecommerce.schema")
    ddl.set_defaults(run=_ddl)

    from hmodel.ops.command import add_check, add_diff, add_spread

    add_check(commands)
    add_spread(commands)
    add_diff(commands)

    from hmodel.testing.hbase_command import configure as add_hbase

    add_hbase(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``hmodel`` with ``argv`` (default: the process arguments); return the exit code."""
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except OperationsError as exc:  # bad input to an operator tool: 2, as ruff does
        print(f"hmodel {args.command}: {exc}", file=sys.stderr)
        return 2
    except HModelError as exc:
        print(f"hmodel {args.command}: {exc}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
