"""Memory the fake servers hold for abandoned scanners and oversized requests.

Prints, for the Thrift1 and the Thrift2 side, the Python memory (tracemalloc) that
10,000 scanners opened and never closed hold, and what is left once their lease is over
and the server's sweeper has run (no client call in between); then, for one connection
that declares a 1 GiB string in a buffered request and sends 64 MiB of it, the memory
the server took (tracemalloc's peak, and the process RSS) and whether it closed the
connection. The server runs in this process; the client work is done before each
reading. Not part of ``run.py``: it measures memory, not speed. Run it as
``python bench/fake_bounds.py [SCANNERS]``.
"""

from __future__ import annotations

import contextlib
import gc
import socket
import struct
import sys
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: import ``hmodel`` from the project root
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.thrift import TClient
from thriftpy2.transport import TBufferedTransportFactory, TSocket

from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift2.idl import HBASE2
from hmodel.clock import ManualClock
from hmodel.schema import Family, Table
from hmodel.testing.fake import FakeHBaseServer
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT

__all__ = ["main"]

_MB = 1_000_000


def _traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def _client(service: Any, port: int) -> tuple[Any, Any]:
    # thriftpy2 is untyped
    sock = TSocket("127.0.0.1", port, socket_timeout=None)  # type: ignore[no-untyped-call]
    transport: Any = TBufferedTransportFactory().get_transport(sock)  # type: ignore[no-untyped-call]
    transport.open()
    protocol = TBinaryProtocolFactory().get_protocol(transport)  # type: ignore[no-untyped-call]
    return TClient(service, protocol), transport


def scanners(side: str, count: int) -> str:
    """Open ``count`` scanners on one side and never close them; memory before/after expiry."""
    clock = ManualClock()
    backend = MemoryBackend(clock=clock)
    backend.create_table(Table("t", [Family("f")]))
    with FakeHBaseServer(backend, clock=clock, thrift2_port=0) as server:
        thrift2 = server.thrift2_server
        assert thrift2 is not None
        if side == "thrift2":
            client, transport = _client(HBASE2.THBaseService, thrift2.port)
            value = HBASE2.TColumnValue(b"f", b"q", b"v")
            client.put(b"t", HBASE2.TPut(row=b"r", columnValues=[value]))
            swept: FakeHBaseServer | Any = thrift2

            def open_one() -> object:
                return client.openScanner(b"t", HBASE2.TScan())
        else:
            client, transport = _client(HBASE_THRIFT.Hbase, server.port)
            client.mutateRow(b"t", b"r", [HBASE_THRIFT.Mutation(column=b"f:q", value=b"v")], {})
            swept = server

            def open_one() -> object:
                return client.scannerOpenWithScan(b"t", HBASE_THRIFT.TScan(), {})

        for _ in range(100):  # warm up (imports, caches)
            open_one()
        tracemalloc.start()
        try:
            base = _traced()
            for _ in range(count):
                open_one()
            opened = _traced() - base
            transport.close()
            clock.advance(seconds=3600)  # every lease long over, and no scanner call after
            wait_swept = getattr(swept, "wait_swept", None)  # None: a server without a sweeper
            if wait_swept is not None:
                wait_swept(10.0)
            later = _traced() - base
        finally:
            tracemalloc.stop()
    return (
        f"{side}: {count} scanners never closed hold +{opened / _MB:.1f} MB; "
        f"once their lease is over, with no call: +{later / _MB:.1f} MB"
    )


def declared_string(declared: int = 1 << 30, sent: int = 64 << 20) -> str:
    """One buffered binary request declaring ``declared`` bytes of string, ``sent`` of them sent."""
    piece = b"x" * (1 << 20)
    name = b"get"
    header = struct.pack("!ii", -2147418111, len(name)) + name + struct.pack("!i", 1)
    header += struct.pack("!bhi", 11, 1, declared)  # field 1 (tableName), binary
    with FakeHBaseServer() as server:
        tracemalloc.start()
        try:
            base, base_rss = _traced(), _rss()
            pushed = 0
            with socket.create_connection(server.address) as sock:
                with contextlib.suppress(OSError):  # the server may close the connection
                    sock.sendall(header)
                    while pushed < sent:
                        sock.sendall(piece)
                        pushed += len(piece)
                sock.settimeout(10.0)
                try:
                    closed = sock.recv(1) == b""
                except ConnectionResetError:
                    closed = True
                except TimeoutError:
                    closed = False
                peak = tracemalloc.get_traced_memory()[1] - base
                grown = _rss() - base_rss
        finally:
            tracemalloc.stop()
    return (
        f"a request declaring a {declared >> 20} MiB string, {pushed >> 20} MiB of it sent: "
        f"peak +{peak / _MB:.1f} MB traced, RSS +{grown / _MB:.1f} MB, "
        f"connection {'closed by the server' if closed else 'still open after 10 s'}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Print the three measurements; ``argv`` may give the scanner count (10,000)."""
    args = list(sys.argv[1:] if argv is None else argv)
    count = int(args[0]) if args else 10_000
    runs: list[Callable[[], str]] = [
        lambda: scanners("thrift1", count),
        lambda: scanners("thrift2", count),
        declared_string,
    ]
    for run in runs:
        print(run(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
