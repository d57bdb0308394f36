"""The ``hmodel`` command line: one subcommand per tool, e.g. ``hmodel fake-hbase``.

Exit status, for every command: 0 when the command found nothing to report, 1 when it
did (findings at or above ``--fail-on``, differences, a hotspot), 2 when it could not
do its work (a usage error, a module that does not import or has a syntax error, a
server it cannot reach, a bad setting), as ruff does.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Any

from hmodel import __version__
from hmodel.errors import HModelError

__all__ = ["OPTIONAL_MODULES", "build_parser", "describe", "main", "missing_extra", "quiet_stdout"]

#: The exit status of a command that could not do its work (ruff's, argparse's).
EXIT_ERROR = 2

#: The optional packages a command may need, by top-level module, and the extra that
#: installs each (``pip install 'hmodel[extra]'``); ``None``: a package of its own.
OPTIONAL_MODULES: dict[str, tuple[str, str | None]] = {
    "dask": ("Dask", "dask"),
    "distributed": ("Dask", "dask"),
    "pyspark": ("Spark", "spark"),
    "tqdm": ("tqdm", "progress"),
    "opentelemetry": ("OpenTelemetry", "otel"),
    "gssapi": ("gssapi", "kerberos"),
    "pytest": ("pytest", "test"),
    "hypothesis": ("hypothesis", "test"),
    "testcontainers": ("testcontainers", "test"),
    "matplotlib": ("matplotlib", None),
}


def missing_extra(exc: ModuleNotFoundError) -> str | None:
    """What to install for the optional package ``exc`` did not find, or ``None``.

    ``None`` for a module that is not one of :data:`OPTIONAL_MODULES` (a user's module
    that does not import is reported as such by the command itself).
    """
    top = (exc.name or "").partition(".")[0]
    found = OPTIONAL_MODULES.get(top)
    if found is None:
        return None
    label, extra = found
    install = f"pip install 'hmodel[{extra}]'" if extra is not None else f"pip install {top}"
    return f"needs {label}: {install}"


def _fake_hbase(args: argparse.Namespace) -> int:
    """Run the HBase-compatible Thrift1 (and Thrift2) server until SIGINT or SIGTERM."""
    from hmodel.errors import InputError
    from hmodel.testing.fake import FakeHBaseServer
    from hmodel.testing.fake.http_server import HTTPServing

    tls = _server_tls(args)
    http: bool | HTTPServing = args.http
    if not args.http and (args.http_path is not None or args.http_basic is not None):
        raise InputError("--http-path and --http-basic need --http", field="http")
    if args.http_path is not None or args.http_basic is not None:
        user, _, password = (args.http_basic or "").partition(":")
        http = HTTPServing(
            path=args.http_path,
            username=user if args.http_basic else None,
            password=password if args.http_basic else None,
        )
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
            read_timeout_ms=args.read_timeout_ms,
            max_workers=args.max_workers,
            max_queued=args.max_queued,
            max_frame_bytes=args.max_frame_bytes,
            max_message_bytes=args.max_message_bytes,
            min_latency_ms=args.min_latency_ms,
            scanner_lease_ms=args.scanner_lease_ms,
            thrift2_port=args.thrift2_port,
            thrift2_scanner_lease_ms=args.thrift2_scanner_lease_ms,
            tls=tls,
            http=http,
        ).start()
        print(
            f"fake HBase Thrift1 server listening on {server.host}:{server.port} "
            f"(transport={server.transport}, protocol={server.protocol}; {server.url})",
            flush=True,
        )
        if server.thrift2_server is not None:
            print(
                f"fake HBase Thrift2 server listening on {server.host}:{server.thrift2_port} "
                f"({server.thrift2_server.url})",
                flush=True,
            )
        stop.wait()
        server.stop()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


def _server_tls(args: argparse.Namespace) -> Any:
    """The server-side TLS context of ``--tls-cert``/``--tls-key``, or ``None``."""
    import ssl

    from hmodel.errors import InputError

    if args.tls_cert is None:
        if args.tls_key is not None:
            raise InputError("--tls-key needs --tls-cert", field="tls_key")
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(args.tls_cert, args.tls_key)
    except (OSError, ssl.SSLError) as exc:
        raise InputError(
            f"cannot load the TLS certificate/key: {exc}", field="tls_cert", value=args.tls_cert
        ) from exc
    return context


def _ddl(args: argparse.Namespace) -> int:
    """Print the HBase shell ``create`` statement of every table declared in a module."""
    from hmodel.errors import InputError
    from hmodel.ops.inventory import import_module, tables_of
    from hmodel.schema.ddl import create_statement

    tables = tables_of(import_module(args.module))
    if not tables:
        raise InputError(f"module {args.module!r} declares no Table")
    for table in sorted(tables, key=lambda t: t.full_name):
        print(create_statement(table))
    return 0


class _Parser(argparse.ArgumentParser):
    """A subcommand's parser: options are never abbreviated (``--hbase`` is not ``--hbase2``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``hmodel`` with its subcommands."""
    parser = argparse.ArgumentParser(
        prog="hmodel",
        description="hmodel: HBase schema-design patterns, declared once.",
        epilog="MODULE arguments are imported with the working directory first on the path, "
        "as alembic and uvicorn do. exit status: 0 nothing to report, 1 findings (or "
        "differences, a hotspot), 2 could not run (usage, import, connection, settings).",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"hmodel {__version__}")
    commands = parser.add_subparsers(
        title="commands", dest="command", metavar="COMMAND", parser_class=_Parser
    )
    commands.required = True

    fake = commands.add_parser(
        "fake-hbase",
        help="run an HBase-compatible Thrift1 server over the in-memory engine",
        description="Serve HBase's Thrift1 API (what happybase speaks) from an in-memory "
        "engine, in the foreground, until SIGINT or SIGTERM. Data is lost when it stops.",
    )
    fake.add_argument("--host", default="127.0.0.1", help="interface (default: %(default)s)")
    fake.add_argument("--port", type=int, default=9090, help="TCP port, 0 = any (default: 9090)")
    fake.add_argument(
        "--transport",
        choices=("buffered", "framed"),
        default="buffered",
        help="the Thrift1 server's transport, as hbase thrift -f sets it (default: %(default)s)",
    )
    fake.add_argument(
        "--protocol",
        choices=("binary", "compact"),
        default="binary",
        help="the Thrift1 server's protocol, as hbase thrift -c sets it (default: %(default)s)",
    )
    fake.add_argument(
        "--read-timeout-ms",
        type=int,
        default=60_000,
        help="close a connection idle this long, 0 = never, as HBase's "
        "hbase.thrift.server.socket.read.timeout (default: %(default)s)",
    )
    fake.add_argument(
        "--max-workers",
        type=int,
        default=1000,
        help="connections served at once, as hbase.thrift.maxWorkerThreads (default: %(default)s)",
    )
    fake.add_argument(
        "--max-queued",
        type=int,
        default=1000,
        help="connections waiting for a worker beyond those; one more is closed at once, "
        "as hbase.thrift.maxQueuedRequests (default: %(default)s)",
    )
    fake.add_argument(
        "--max-frame-bytes",
        type=int,
        default=2 * 1024 * 1024,
        help="framed transport: refuse a longer frame, as "
        "hbase.regionserver.thrift.framed.max_frame_size_in_mb (default: %(default)s)",
    )
    fake.add_argument(
        "--max-message-bytes",
        type=int,
        default=100 * 1024 * 1024,
        help="refuse a request declaring a longer string or binary, as libthrift's max "
        "message size in HBase's servers (default: %(default)s)",
    )
    fake.add_argument(
        "--min-latency-ms",
        type=int,
        default=0,
        help="hold each call this many ms before serving it, so one client's server-stamped "
        "writes never share a millisecond, as on a remote HBase (default: "
        "%(default)s: answer at once)",
    )
    fake.add_argument(
        "--scanner-lease-ms",
        type=int,
        default=120_000,
        help="a Thrift1 scanner unused this long expires, as HBase 2's Thrift1 server drops "
        "scanners unused for 2 x hbase.client.scanner.timeout.period (default: %(default)s)",
    )
    fake.add_argument(
        "--thrift2-port",
        type=int,
        default=None,
        help="also serve HBase 2's Thrift2 API on this TCP port over the same engine "
        "(e.g. 9092; 0 = any; default: Thrift1 only)",
    )
    fake.add_argument(
        "--thrift2-scanner-lease-ms",
        type=int,
        default=60_000,
        help="a Thrift2 scanner unused this long expires, as HBase 2's Thrift2 server "
        "drops scanners after hbase.client.scanner.timeout.period (default: %(default)s)",
    )
    fake.add_argument(
        "--http",
        action="store_true",
        help="serve Thrift over HTTP (one POST per call, binary protocol), as HBase does with "
        "hbase.regionserver.thrift.http=true",
    )
    fake.add_argument(
        "--http-path",
        default=None,
        help="with --http: serve this path only (a gateway's route; default: any path, as HBase)",
    )
    fake.add_argument(
        "--http-basic",
        metavar="USER:PASSWORD",
        default=None,
        help="with --http: require these HTTP basic credentials (as a gateway such as Knox)",
    )
    fake.add_argument(
        "--tls-cert",
        metavar="PEM",
        default=None,
        help="serve TLS with this certificate (chain) file: HTTPS with --http, else Thrift in "
        "TLS as a TLS proxy in front of HBase serves it",
    )
    fake.add_argument(
        "--tls-key", metavar="PEM", default=None, help="the private key (default: in --tls-cert)"
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

    from hmodel.ops.inspect_command import configure as add_inspect

    add_inspect(commands)

    from hmodel.ops.job_command import configure as add_job

    add_job(commands)

    from hmodel.testing.hbase_command import configure as add_hbase

    add_hbase(commands)
    return parser


def describe(exc: HModelError) -> str:
    """Return ``exc`` as a command prints it: its message, then only the context it lacks.

    The context attributes (``table``, ``row``, ``column``, ``field``, ``value``) are left
    out when the message already names them, so a line never reads
    ``cannot import module 'x': No module named 'x' (value='x')``.
    """
    context = []
    for name in ("table", "row", "column", "field", "value"):
        value = getattr(exc, name)
        if value is None:
            continue
        shown = repr(value)
        if shown in exc.message or (isinstance(value, str) and value in exc.message):
            continue
        context.append(f"{name} {shown if len(shown) <= 80 else shown[:77] + '...'}")
    return f"{exc.message} ({', '.join(context)})" if context else exc.message


class _QuietStdout:
    """Standard output that stops writing, without a traceback, once its reader has gone.

    ``hmodel check ... | head`` closes the pipe early: writes then fail with
    ``BrokenPipeError``. Like ruff and git, the command ends quietly; unlike a crash, it
    still runs to the end and returns its own exit status.
    """

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                self.stream.write(text)
            except BrokenPipeError:
                self.broken = True
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self.broken = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextmanager
def quiet_stdout() -> Iterator[_QuietStdout]:
    """Standard output that a closed pipe (``| head -2``) silences instead of failing.

    Output after the reader went away is dropped and the program ends normally, without
    a ``BrokenPipeError`` traceback; what it returns is its exit status as usual.
    """
    quiet = _QuietStdout(sys.stdout)
    sys.stdout = quiet
    try:
        yield quiet
    finally:
        sys.stdout = quiet.stream
        quiet.flush()
        if quiet.broken and quiet.stream is sys.__stdout__:
            # What is left in the buffer can never be written: point the descriptor at
            # /dev/null so the interpreter's final flush does not report the broken pipe
            # (the recipe of the Python documentation, "Note on SIGPIPE").
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, quiet.stream.fileno())
            os.close(devnull)


@contextmanager
def _working_directory_on_path() -> Iterator[None]:
    """Put the working directory first on ``sys.path`` while a command runs.

    A console script's path starts with the script's folder, not the working directory
    (``python -m`` puts it there): user modules named on the command line are found the
    way alembic and uvicorn (``--app-dir .``) find them.
    """
    cwd = os.getcwd()
    added = cwd not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        yield
    finally:
        if added and cwd in sys.path:
            sys.path.remove(cwd)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``hmodel`` with ``argv`` (default: the process arguments); return the exit code.

    0: nothing to report; 1: findings, differences or a hotspot; 2: the command could
    not run (argparse's usage errors, a module that does not import, a server that
    cannot be reached, a bad setting; any :class:`~hmodel.errors.HModelError`; an
    optional package that is not installed, with the extra that installs it).
    """
    args = build_parser().parse_args(argv)
    with quiet_stdout(), _working_directory_on_path():
        try:
            code: int = args.run(args)
        except HModelError as exc:
            print(f"hmodel {args.command}: {describe(exc)}", file=sys.stderr)
            return EXIT_ERROR
        except ModuleNotFoundError as exc:
            needed = missing_extra(exc)
            if needed is None:
                raise
            print(f"hmodel {args.command}: {needed}", file=sys.stderr)
            return EXIT_ERROR
    return code


if __name__ == "__main__":
    sys.exit(main())
