"""Thrift benchmarks: the repository through ThriftBackend against FakeHBaseServer on loopback."""

from __future__ import annotations

from bench.harness import Result, Scale, rate
from bench.repository import Sizes, measure
from hmodel.backend.thrift import ThriftBackend
from hmodel.testing import FakeHBaseServer

__all__ = ["run"]


def run(scale: Scale) -> list[Result]:
    """Measure the repository over buffered binary Thrift1 to a server in this process.

    The server runs in a thread of this process, so its work (decoding, the engine,
    encoding) competes with the client's for the GIL: the numbers are the cost of client
    and server together, which is what the protocol adds over the memory engine.
    """
    sizes = Sizes(
        saves=scale.count(1000, multiple=100),
        groups=scale.count(10, multiple=1),
        pages=scale.count(10, multiple=1),
    )
    with FakeHBaseServer(transport="buffered", protocol="binary") as server:
        backend = ThriftBackend(server.host, server.port, transport="buffered", protocol="binary")
        try:
            results = measure("thrift", backend, server.backend.create_table, scale, sizes)
            calls = sizes.saves

            def ping(_: int) -> None:
                for _ in range(calls):
                    backend.table_exists("bench_purchase")

            results.insert(
                0,
                Result(
                    "thrift.rpc",
                    rate(ping, ops=calls, scale=scale),
                    "calls/s",
                    "higher",
                    "table_exists: one bare RPC, the floor of every call",
                ),
            )
            return results
        finally:
            backend.close()
