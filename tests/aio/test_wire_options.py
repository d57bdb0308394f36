"""The async Thrift backends on every transport and protocol they accept: buffered or framed, binary
or compact, against the fake Thrift1 and Thrift2 servers serving the same.

Replies of every size go through the asyncio wire: a one-cell get, a scan batch of 600
rows (many reads of the stream), a counter, and the server's errors, translated as the
synchronous backends translate them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from hmodel.aio import AsyncThrift2Backend, AsyncThriftBackend
from hmodel.backend.base import Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.errors import TableNotFoundError
from hmodel.schema import Family, Table
from hmodel.testing.fake import FakeHBaseServer

table = Table("aio_wire", [Family("f")])
ROWS = 600


@pytest.fixture(
    scope="module",
    params=[(t, p) for t in ("buffered", "framed") for p in ("binary", "compact")],
    ids="-".join,
)
def server(request: pytest.FixtureRequest) -> Iterator[FakeHBaseServer]:
    """Both fake servers on one engine, speaking the parametrised transport and protocol."""
    transport, protocol = request.param
    engine = MemoryBackend()
    engine.create_table(table)
    engine.mutate(
        "aio_wire", [Put(b"r%04d" % i, b"f:q", b"v%d-" % i + b"x" * 200) for i in range(ROWS)]
    )
    with FakeHBaseServer(engine, transport=transport, protocol=protocol, thrift2_port=0) as running:
        yield running


@pytest.mark.parametrize("backend_class", [AsyncThriftBackend, AsyncThrift2Backend])
def test_every_reply_size_and_the_server_errors_cross_the_wire(
    server: FakeHBaseServer, backend_class: Any
) -> None:
    port = server.port if backend_class is AsyncThriftBackend else server.thrift2_port
    assert port is not None

    async def scenario() -> None:
        backend = backend_class(
            server.host, port, transport=server.transport, protocol=server.protocol, pool_size=2
        )
        try:
            [found] = await backend.get("aio_wire", [b"r0007"])
            assert found.value(b"f:q") == b"v7-" + b"x" * 200
            assert await backend.get("aio_wire", [b"missing"]) == []
            scanner = await backend.scan("aio_wire", Scan(start=b"r", stop=b"s", batch_size=ROWS))
            rows = [row async for row in scanner]
            assert [r.row for r in rows] == [b"r%04d" % i for i in range(ROWS)]
            assert rows[-1].value(b"f:q") == b"v%d-" % (ROWS - 1) + b"x" * 200
            counter = backend_class.__name__.encode()
            assert await backend.increment("aio_wire", counter, b"f:n", 5) == 5
            with pytest.raises(TableNotFoundError):
                await backend.get("no_such_table", [b"r"])
            assert backend.idle_connections >= 1  # answered errors keep their connection
            assert (await backend.get("aio_wire", [b"r0001"]))[0].row == b"r0001"
        finally:
            await backend.aclose()

    asyncio.run(scenario())
