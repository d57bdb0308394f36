"""Cancellation and timeouts on the async edge: no half-written row, no bad pooled connection.

A write is one request per row operation. Cancelled before the request is sent, nothing
is written; cancelled once it is out, the server applies it whole (or not at all) and the
connection it used is closed, never given back to the pool with an answer unread. The
Thrift1 and Thrift2 tests run the async backend through a proxy in front of the session's fake
server that holds the server's answers on demand: the test waits until the server has
answered (so the request was applied) and cancels then, deterministically, without
sleeping.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from hmodel import Family, Key, Str, Table, field, model
from hmodel.aio import (
    AsyncMemoryBackend,
    AsyncRepository,
    AsyncThrift2Backend,
    AsyncThriftBackend,
)
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.repository import Repository

notes = Table("aio_note", [Family("n")])


@model(notes, key=Key(Str("note_id")))
class Note:
    note_id: str
    title: str = field("n:t")
    body: str = field("n:b")


class HoldingProxy:
    """Forwards bytes between clients and a server; holds the server's answers on demand.

    While :attr:`holding`, every answer the server sends is kept instead of delivered and
    :attr:`held` is set: the server has run the request by then. :meth:`release`
    delivers what was kept (to the clients still connected) and stops holding.
    """

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.holding = False
        self.held = asyncio.Event()
        self.connections = 0
        self._kept: list[tuple[asyncio.StreamWriter, bytes]] = []
        self._writers: list[asyncio.StreamWriter] = []
        self._server: asyncio.Server | None = None
        self._pumps: list[asyncio.Future[Any]] = []

    async def start(self) -> tuple[str, int]:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return "127.0.0.1", self._server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        self._writers += [writer, up_writer]

        async def requests() -> None:
            while data := await reader.read(65536):
                up_writer.write(data)
                await up_writer.drain()
            up_writer.close()

        async def answers() -> None:
            while data := await up_reader.read(65536):
                if self.holding:
                    self._kept.append((writer, data))
                    self.held.set()
                    continue
                writer.write(data)
                await writer.drain()
            writer.close()

        self._pumps.append(asyncio.gather(requests(), answers(), return_exceptions=True))
        await self._pumps[-1]

    def release(self) -> None:
        self.holding = False
        self.held.clear()
        kept, self._kept = self._kept, []
        for writer, data in kept:
            if not writer.is_closing():
                writer.write(data)

    async def close(self) -> None:
        for writer in self._writers:
            writer.close()
        if self._pumps:
            await asyncio.wait(self._pumps)
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    yield running
    running.close()


@pytest.fixture(params=["thrift", "thrift2"])
def served(
    request: pytest.FixtureRequest,
    hmodel_thrift_address: tuple[str, int],
    hmodel_thrift2_address: tuple[str, int],
) -> Iterator[Any]:
    """A synchronous backend of the fake server (Thrift1, then Thrift2), with the notes table.

    Its ``async_class`` attribute is the matching async backend class.
    """
    backend: Any
    if request.param == "thrift":
        backend = ThriftBackend(*hmodel_thrift_address, table_prefix="aio_cancel")
        backend.async_class = AsyncThriftBackend
    else:
        backend = Thrift2Backend(*hmodel_thrift2_address, table_prefix="aio_cancel")
        backend.async_class = AsyncThrift2Backend
    if backend.table_exists(notes.full_name):
        backend.delete_table(notes.full_name)
    backend.create_table(notes)
    yield backend
    backend.delete_table(notes.full_name)
    backend.close()


def run(loop: asyncio.AbstractEventLoop, scenario: Any) -> Any:
    return loop.run_until_complete(scenario)


def test_a_save_cancelled_before_the_engine_runs_it_writes_nothing(
    loop: asyncio.AbstractEventLoop,
) -> None:
    engine = MemoryBackend()
    engine.create_table(notes)
    repo = AsyncRepository(Note, AsyncMemoryBackend(engine))
    note = Note(note_id="n1", title="t", body="b")

    before = engine.round_trips

    async def scenario() -> None:
        task = asyncio.create_task(repo.save(note))
        await asyncio.sleep(0)  # the task runs up to its first suspension, before the mutate
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert engine.round_trips == before
        assert await repo.get(note_id="n1") is None
        await repo.save(note)  # the same instance saves afterwards
        assert await repo.get(note_id="n1") == note

    run(loop, scenario())


def test_a_save_cancelled_after_the_server_applied_it_leaves_the_whole_row_and_no_pooled_connection(
    loop: asyncio.AbstractEventLoop, served: Any
) -> None:
    note = Note(note_id="n1", title="title", body="body")

    async def scenario() -> None:
        proxy = HoldingProxy((served.host, served.port))
        host, port = await proxy.start()
        backend = served.async_class(host, port, table_prefix="aio_cancel", pool_size=2)
        repo = AsyncRepository(Note, backend)
        try:
            await repo.get(note_id="warm-up")  # one pooled connection
            assert backend.idle_connections == 1
            proxy.holding = True
            task = asyncio.create_task(repo.save(note))
            await proxy.held.wait()  # the server answered: the mutation was applied
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert backend.idle_connections == 0  # closed, not given back mid-answer
            proxy.release()
            # The whole row is there, and the next call reads its own answer.
            assert await repo.get(note_id="n1") == note
            assert Repository(Note, served).get(note_id="n1") == note
            assert backend.idle_connections == 1
        finally:
            await backend.aclose()
            await proxy.close()

    run(loop, scenario())


def test_a_call_cancelled_while_waiting_for_a_connection_sends_nothing(
    loop: asyncio.AbstractEventLoop, served: Any
) -> None:
    async def scenario() -> None:
        proxy = HoldingProxy((served.host, served.port))
        host, port = await proxy.start()
        backend = served.async_class(host, port, table_prefix="aio_cancel", pool_size=1)
        repo = AsyncRepository(Note, backend)
        try:
            proxy.holding = True
            first = asyncio.create_task(repo.save(Note(note_id="a", title="t", body="b")))
            await proxy.held.wait()  # the only connection is lent, its answer held
            second = asyncio.create_task(repo.save(Note(note_id="b", title="t", body="b")))
            await asyncio.sleep(0)  # the second call waits for the connection
            second.cancel()
            with pytest.raises(asyncio.CancelledError):
                await second
            proxy.release()
            await first
            assert await repo.get(note_id="b") is None
            assert await repo.get(note_id="a") is not None
            assert backend.round_trips == 3  # the first save and the two gets
        finally:
            await backend.aclose()
            await proxy.close()

    run(loop, scenario())


def test_a_timeout_ends_a_call_whose_answer_never_comes_and_the_pool_recovers(
    loop: asyncio.AbstractEventLoop, served: Any
) -> None:
    Repository(Note, served).save(Note(note_id="n1", title="t", body="b"))

    async def scenario() -> None:
        proxy = HoldingProxy((served.host, served.port))
        host, port = await proxy.start()
        backend = served.async_class(host, port, table_prefix="aio_cancel", pool_size=1)
        repo = AsyncRepository(Note, backend)
        try:
            proxy.holding = True
            with pytest.raises(asyncio.TimeoutError):  # the answer is held: it never comes
                if sys.version_info >= (3, 11):
                    async with asyncio.timeout(0.05):
                        await repo.get(note_id="n1")
                else:
                    await asyncio.wait_for(repo.get(note_id="n1"), 0.05)
            assert backend.idle_connections == 0
            proxy.release()
            found = await repo.get(note_id="n1")  # a new connection, its own answer
            assert found is not None and found.title == "t"
            assert proxy.connections == 2
        finally:
            await backend.aclose()
            await proxy.close()

    run(loop, scenario())
