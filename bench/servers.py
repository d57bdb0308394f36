"""The HBase a benchmark talks to: a real one when Java is present, else the fake server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["SERVER_VARIABLE", "Servers", "drop_tables", "fake_servers", "servers"]

#: ``HMODEL_BENCH_SERVER=fake`` runs on the fake server even where a real HBase is at hand;
#: ``real`` refuses to fall back to the fake (an error without Java or a kit address).
SERVER_VARIABLE = "HMODEL_BENCH_SERVER"


@dataclass(frozen=True)
class Servers:
    """Where the Thrift1 and Thrift2 servers of one HBase (real or fake) listen.

    Attributes:
        thrift1: ``(host, port)`` of the Thrift1 server.
        thrift2: ``(host, port)`` of the Thrift2 server (the same data as ``thrift1``).
        real: Whether it is a real HBase (a JVM), not ``hmodel fake-hbase``.
        what: Which server it is, in a few words, for the benchmark's output.
        prefix: The table name prefix the benchmark's tables get (``HMODEL_TEST_PREFIX``
            on a real HBase, which may be shared, so each user keeps to its own tables;
            ``None`` on the fake, which is this run's alone).
    """

    thrift1: tuple[str, int]
    thrift2: tuple[str, int]
    real: bool
    what: str
    prefix: str | None


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


@contextmanager
def fake_servers() -> Iterator[Servers]:
    """``hmodel fake-hbase`` serving Thrift1 and Thrift2 over one engine, in a child process.

    The server runs in its own process, so this process's CPU time is the client's
    alone; it is terminated (then killed after 10 s) when the block exits.
    """
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "hmodel.cli", "fake-hbase"),
            *("--host", "127.0.0.1", "--port", "0", "--thrift2-port", "0"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        ports: dict[str, tuple[str, int]] = {}
        for _ in range(2):
            line = process.stdout.readline()
            for api in ("Thrift1", "Thrift2"):
                if f"{api} server listening on" in line:
                    ports[api] = _address(line.split("listening on ", 1)[1].split()[0])
        if len(ports) != 2:
            raise RuntimeError("hmodel fake-hbase did not report its Thrift1 and Thrift2 ports")
        yield Servers(
            ports["Thrift1"],
            ports["Thrift2"],
            real=False,
            what="the fake server (hmodel fake-hbase, its own process)",
            prefix=None,
        )
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def servers() -> Iterator[Servers]:
    """The real HBase at hand, else one started for the run, else the fake server.

    In order: the kit's running HBase named by ``HMODEL_TEST_HBASE`` and
    ``HMODEL_TEST_HBASE2`` (``host:port``, both needed; left running); a standalone HBase
    started with :class:`hmodel.testing.hbase_process.HBaseProcess` when ``java`` is
    found (as the pytest plugin does; stopped when the block exits; a minute or more to
    start); the fake server (:func:`fake_servers`). ``HMODEL_BENCH_SERVER=fake`` skips
    the real ones; ``=real`` raises :class:`RuntimeError` instead of using the fake.
    """
    wanted = os.environ.get(SERVER_VARIABLE, "")
    prefix = os.environ.get("HMODEL_TEST_PREFIX") or "hmodel_bench"
    if wanted != "fake":
        thrift1, thrift2 = os.environ.get("HMODEL_TEST_HBASE"), os.environ.get("HMODEL_TEST_HBASE2")
        if thrift1 and thrift2:
            yield Servers(
                _address(thrift1),
                _address(thrift2),
                real=True,
                what=f"real HBase (running; HMODEL_TEST_HBASE={thrift1}, "
                f"HMODEL_TEST_HBASE2={thrift2})",
                prefix=prefix,
            )
            return
        from hmodel.testing.hbase_process import HBaseProcess, find_java

        if find_java() is not None:
            with HBaseProcess() as process:
                yield Servers(
                    process.thrift_address,
                    process.thrift2_address,
                    real=True,
                    what=f"real HBase {process.version} (started for this run)",
                    prefix=prefix,
                )
            return
        if wanted == "real":
            raise RuntimeError(
                f"{SERVER_VARIABLE}=real, but no java and HMODEL_TEST_HBASE(2) unset"
            )
    with fake_servers() as fake:
        yield fake


def drop_tables(server: Servers, names: Iterable[str]) -> None:
    """Drop those of ``names`` (under ``server.prefix``) that exist, over a fresh connection.

    A real HBase keeps a benchmark's tables after the run (and after a crashed one): a
    benchmark drops its own before it starts and after it ends. The connection is its
    own because a server closes one left idle for 60 s (HBase's socket read timeout).
    """
    import happybase

    connection = happybase.Connection(*server.thrift1, timeout=10_000, table_prefix=server.prefix)
    try:
        existing = {name.decode() for name in connection.tables()}
        for name in names:
            if name in existing:
                connection.delete_table(name, disable=True)
    finally:
        connection.close()
