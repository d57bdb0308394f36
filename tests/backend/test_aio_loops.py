"""An asyncio backend on any event loop: a pool per loop, a closed loop's connections dropped."""

from __future__ import annotations

import asyncio
import threading

from hmodel.backend.aio import AsyncBackend
from hmodel.backend.base import Backend, Put
from hmodel.schema import Family, Table
from hmodel.testing.async_edge import async_backend_of

TABLE = Table("aio_loops", [Family("f")])


def _async(backend: Backend) -> AsyncBackend:
    made = async_backend_of(backend)
    assert made is not None
    return made


async def _round_trip(made: AsyncBackend, row: bytes) -> bytes:
    await made.mutate(TABLE.full_name, [Put(row, b"f:q", row)])
    [found] = await made.get(TABLE.full_name, [row])
    return found.cells[b"f:q"].value


def test_one_asyncio_backend_serves_one_asyncio_run_after_another(backend: Backend) -> None:
    """Each ``asyncio.run`` is a new event loop: every call on the second (and third)
    succeeds, the earlier loops' pools dropped, not lent to the new loop."""
    backend.create_table(TABLE)
    made = _async(backend)
    channel = getattr(made, "_channel", None)  # the Thrift backends' pool
    for n in range(3):
        row = f"r{n}".encode()
        assert asyncio.run(_round_trip(made, row)) == row
        if channel is not None:
            assert channel.loops == 1  # the earlier, closed loops' pools dropped
    asyncio.run(made.aclose())
    if channel is not None:
        assert channel.loops == 0


def test_one_asyncio_backend_serves_loops_in_two_threads_at_once(backend: Backend) -> None:
    """Two threads, each with its own loop, call one backend concurrently: both succeed."""
    backend.create_table(TABLE)
    made = _async(backend)
    found: dict[int, list[bytes]] = {}

    def run(number: int) -> None:
        async def calls() -> list[bytes]:
            rows = [f"t{number}-{k}".encode() for k in range(20)]
            return list(await asyncio.gather(*(_round_trip(made, r) for r in rows)))

        found[number] = asyncio.run(calls())

    threads = [threading.Thread(target=run, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert {n: len(v) for n, v in found.items()} == {0: 20, 1: 20}
    assert found[0] == [f"t0-{k}".encode() for k in range(20)]
    asyncio.run(made.aclose())
