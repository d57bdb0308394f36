"""What both example mains share: backend choice, table creation and round-trip metering."""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from hmodel.backend.base import Backend
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import HModelError
from hmodel.repository import QueryEvent
from hmodel.schema import Table

__all__ = ["RoundTripMeter", "create_fresh", "open_backend", "parser"]


class RoundTripMeter:
    """Counts what labelled steps cost: backend round trips and calls.

    Calls are repository calls and unit-of-work commits, as their events tell.

    Register it as a repository listener (it is told of every
    :class:`~hmodel.repository.QueryEvent`) and wrap each step in :meth:`step`. Steps with
    the same label are added up.

    Args:
        backend: The backend whose ``round_trips`` counter is read.
    """

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.events: list[QueryEvent] = []
        #: Per label, in first-seen order: ``[times, round trips, repository calls]``.
        self.steps: dict[str, list[int]] = {}

    def __call__(self, event: QueryEvent) -> None:
        """Record one repository call."""
        self.events.append(event)

    @contextmanager
    def step(self, label: str) -> Iterator[None]:
        """Add the round trips and repository calls of the block to ``label``'s totals."""
        round_trips, events = self.backend.round_trips, len(self.events)
        yield
        totals = self.steps.setdefault(label, [0, 0, 0])
        totals[0] += 1
        totals[1] += self.backend.round_trips - round_trips
        totals[2] += len(self.events) - events

    def table(self) -> str:
        """The steps as a text table: label, times run, round trips, repository calls."""
        width = max([len("operation"), *(len(label) for label in self.steps)])
        lines = [f"{'operation':<{width}}  times  round trips  repository calls"]
        lines += [
            f"{label:<{width}}  {times:>5}  {trips:>11}  {calls:>16}"
            for label, (times, trips, calls) in self.steps.items()
        ]
        return "\n".join(lines)


def create_fresh(
    backend: Backend, tables: Sequence[Table], create: Callable[[], None], *, replace: bool
) -> list[str]:
    """Create the example's tables with ``create``; return the backend's warnings as text.

    Over Thrift1 the backend creates what it can and warns about the rest (split points,
    DATA_BLOCK_ENCODING): those warnings are returned for the caller to show.

    Raises:
        HModelError: Some of ``tables`` exist and ``replace`` is false.
    """
    existing = [t.full_name for t in tables if backend.table_exists(t.full_name)]
    if existing and not replace:
        raise HModelError(
            f"the example's tables exist already ({', '.join(existing)}); "
            "pass --replace to drop and recreate them, or another --table-prefix"
        )
    for name in existing:
        backend.delete_table(name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        create()
    return [str(warning.message) for warning in caught]


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


def parser(prog: str, description: str) -> argparse.ArgumentParser:
    """An example's command line: ``[--thrift[2] HOST:PORT [--table-prefix P] [--replace]]``."""
    arguments = argparse.ArgumentParser(prog=prog, description=description)
    server = arguments.add_mutually_exclusive_group()
    server.add_argument(
        "--thrift",
        type=_address,
        metavar="HOST:PORT",
        help="run against an HBase Thrift1 server (e.g. `hmodel fake-hbase`) instead of the "
        "in-memory engine",
    )
    server.add_argument(
        "--thrift2",
        type=_address,
        metavar="HOST:PORT",
        help="run against an HBase Thrift2 server (e.g. `hmodel fake-hbase --thrift2-port "
        "9092`): the tables get their split points and every option",
    )
    arguments.add_argument(
        "--table-prefix",
        default="hmodel_example",
        help="with --thrift/--thrift2: prefix of the example's table names (default: %(default)s)",
    )
    arguments.add_argument(
        "--replace",
        action="store_true",
        help="with --thrift/--thrift2: drop the example's tables first if they exist",
    )
    return arguments


def open_backend(args: argparse.Namespace) -> tuple[Backend, str]:
    """The backend the parsed arguments ask for, and a phrase naming it.

    With ``--thrift``, a :class:`~hmodel.backend.thrift.ThriftBackend` with
    ``lenient_ddl=True``: Thrift1 cannot create pre-split tables, so the tables are created
    without their split points (with a warning) rather than refused. With ``--thrift2``, a
    :class:`~hmodel.backend.thrift2.Thrift2Backend`, which creates them whole.
    """
    thrift2 = getattr(args, "thrift2", None)
    if thrift2 is not None:
        host, port = thrift2
        backend2 = Thrift2Backend(host, port, table_prefix=args.table_prefix)
        return backend2, f"HBase Thrift2 at {host}:{port}"
    if args.thrift is None:
        return MemoryBackend(), "the in-memory engine"
    host, port = args.thrift
    backend = ThriftBackend(host, port, table_prefix=args.table_prefix, lenient_ddl=True)
    return backend, f"HBase Thrift1 at {host}:{port}"
