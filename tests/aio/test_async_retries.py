"""The async Thrift backends retry as the sync ones do (one decision: ``retry.after_drop``).

The fake Thrift1 server drops a connection at an exact call (its hook), before or after
running it: an idempotent read is sent again on a new connection, a non-idempotent call
that may have run raises ``OutcomeUnknownError``, and the pauses between attempts are
the sync backend's (awaited through the injected ``sleep``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from hmodel.backend.base import Put
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift import AsyncThriftBackend, ThriftBackend
from hmodel.errors import ConnectionLostError, OutcomeUnknownError
from hmodel.schema import Family, Table
from hmodel.testing.fake import FakeHBaseServer
from hmodel.testing.fake.thrift1_processor import Drop

table = Table("aio_retry", [Family("f")])


class Drops:
    """The server's call hook: drops the next calls of a method as planned."""

    def __init__(self) -> None:
        self.plan: dict[str, list[Drop]] = {}

    def __call__(self, method: str) -> Drop | None:
        planned = self.plan.get(method)
        return planned.pop(0) if planned else None


@pytest.fixture
def drops() -> Drops:
    return Drops()


@pytest.fixture
def server(drops: Drops) -> Iterator[FakeHBaseServer]:
    engine = MemoryBackend()
    engine.create_table(table)
    engine.mutate("aio_retry", [Put(b"r", b"f:q", b"v"), Put(b"c", b"f:n", (5).to_bytes(8, "big"))])
    with FakeHBaseServer(engine, hook=drops) as running:
        yield running


def run_with(server: FakeHBaseServer, scenario: object, **options: object) -> object:
    pauses: list[float] = []

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)

    async def main() -> object:
        backend = AsyncThriftBackend(
            server.host, server.port, sleep=sleep, retry_jitter=lambda: 1.0, **options
        )
        try:
            return await scenario(backend), pauses, backend.round_trips  # type: ignore[operator]
        finally:
            await backend.aclose()

    return asyncio.run(main())


def test_a_read_whose_connection_dropped_is_sent_again_after_the_sync_backoff(
    server: FakeHBaseServer, drops: Drops
) -> None:
    drops.plan["getRowsWithColumns"] = [Drop.AFTER, Drop.BEFORE]

    async def scenario(backend: AsyncThriftBackend) -> object:
        return [r.value(b"f:q") for r in await backend.get("aio_retry", [b"r"])]

    values, pauses, round_trips = run_with(server, scenario, retry_backoff_ms=50)  # type: ignore[misc]
    assert values == [b"v"]
    assert pauses == [0.05, 0.1]  # as ThriftBackend pauses: 50 ms, doubled
    assert round_trips == 3


def test_an_increment_that_may_have_run_is_not_sent_again(
    server: FakeHBaseServer, drops: Drops
) -> None:
    drops.plan["atomicIncrement"] = [Drop.AFTER]

    async def scenario(backend: AsyncThriftBackend) -> object:
        return await backend.increment("aio_retry", b"c", b"f:n", 1)

    with pytest.raises(OutcomeUnknownError) as info:
        run_with(server, scenario)
    assert info.value.table == "aio_retry" and info.value.row == b"c"
    sync = ThriftBackend(server.host, server.port)
    assert sync.increment("aio_retry", b"c", b"f:n", 0) == 6  # it ran once
    sync.close()


def test_the_retry_budget_spent_raises_connection_lost(
    server: FakeHBaseServer, drops: Drops
) -> None:
    drops.plan["getRowsWithColumns"] = [Drop.BEFORE] * 3

    async def scenario(backend: AsyncThriftBackend) -> object:
        return await backend.get("aio_retry", [b"r"])

    with pytest.raises(ConnectionLostError) as info:
        run_with(server, scenario, retries=2)
    assert "after 3 attempt(s)" in info.value.message
