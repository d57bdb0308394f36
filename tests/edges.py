"""The two edges of the API: a test body taking ``edge`` runs on the sync and the async API.

Its fixtures (``edge``, ``loop``) are imported by ``tests/conftest.py`` for every suite.

``edge`` gives a test the repository of its parametrised edge over the test's backend
target (the kit's ``backend``): the synchronous :class:`Repository`, or
:class:`AsyncRepository` over the target's async backend (the memory engine, or the
fake server through :class:`AsyncThriftBackend` and :class:`AsyncThrift2Backend`).
``edge.call(x)`` awaits ``x`` on the test's event loop when it is a coroutine and
returns it otherwise; ``edge.list(it)`` collects an iterator or an async iterator.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from typing import Any, TypeVar

import pytest

from hmodel.aio import (
    AsyncBackend,
    AsyncRepository,
    AsyncStore,
    AsyncUnitOfWork,
    InProcessAsyncBackend,
)
from hmodel.backend.base import Backend
from hmodel.errors import UnsupportedOperationError
from hmodel.model import model_info
from hmodel.repository import QueryEvent, Repository, Store, UnitOfWork
from hmodel.testing.async_edge import async_backend_of

M = TypeVar("M")


class Edge:
    """One edge of the API (``"sync"`` or ``"async"``) over one backend target."""

    def __init__(self, name: str, backend: Backend, loop: asyncio.AbstractEventLoop) -> None:
        self.name = name
        self.backend = backend
        self.loop = loop
        self.events: list[QueryEvent] = []
        self.async_backend: AsyncBackend | None = None
        if name == "async":
            self.async_backend = async_backend_of(backend)
            if self.async_backend is None:
                pytest.skip(f"no async backend for {type(backend).__name__} yet")

    @property
    def is_async(self) -> bool:
        return self.name == "async"

    @property
    def round_trips(self) -> int:
        """Round trips of the backend this edge's repositories use."""
        used = self.async_backend if self.async_backend is not None else self.backend
        return used.round_trips

    def repo(self, model: type[M], **options: Any) -> Any:
        """A repository of ``model`` on this edge; its table is created (synchronously)."""
        table = model_info(model).table
        if not self.backend.table_exists(table.full_name):
            try:
                self.backend.create_table(table)
            except UnsupportedOperationError:  # Thrift1 cannot pre-split at creation
                self.backend.create_table(table.without_splits())
        options.setdefault("listeners", [self.events.append])
        if self.async_backend is not None:
            return AsyncRepository(model, self.async_backend, **options)
        return Repository(model, self.backend, **options)

    def unit(self, **options: Any) -> Any:
        """A unit of work on this edge's backend (``UnitOfWork`` or ``AsyncUnitOfWork``)."""
        options.setdefault("listeners", [self.events.append])
        if self.async_backend is not None:
            return AsyncUnitOfWork(self.async_backend, **options)
        return UnitOfWork(self.backend, **options)

    def store(self, **options: Any) -> Any:
        """A store on this edge's backend (``Store`` or ``AsyncStore``); no table created."""
        options.setdefault("listeners", [self.events.append])
        if self.async_backend is not None:
            return AsyncStore(self.async_backend, **options)
        return Store(self.backend, **options)

    def pick(self, sync: Any, asynchronous: Any) -> Any:
        """``asynchronous`` on the async edge, ``sync`` on the sync one (e.g. two classes)."""
        return asynchronous if self.is_async else sync

    def within(self, unit: Any, body: Any) -> None:
        """Run ``body(unit)`` in ``with unit:`` (sync) or ``async with unit:`` (async)."""
        if not self.is_async:
            with unit:
                body(unit)
            return

        async def block() -> None:
            async with unit:
                body(unit)

        self.loop.run_until_complete(block())

    def sync_repo(self, model: type[M], **options: Any) -> Repository[M]:
        """The synchronous repository of ``model`` on the same backend (to cross edges)."""
        return Repository(model, self.backend, **options)

    def over(self, backend: Backend) -> Any:
        """``backend`` on this edge: itself (sync), or an ``InProcessAsyncBackend`` over it.

        For a synchronous wrapper (a ``FaultyBackend``) to serve the async edge too.
        """
        return InProcessAsyncBackend(backend) if self.is_async else backend

    def call(self, result: Any) -> Any:
        """``result`` awaited when it is a coroutine, as it is otherwise."""
        if inspect.isawaitable(result):
            return self.loop.run_until_complete(result)
        return result

    def list(self, items: Any) -> list[Any]:
        """The items of an iterator or an async iterator."""
        if hasattr(items, "__aiter__"):

            async def collect() -> list[Any]:
                return [item async for item in items]

            return self.loop.run_until_complete(collect())
        return list(items)


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """A fresh event loop for the test (no pytest asyncio plugin needed)."""
    running = asyncio.new_event_loop()
    yield running
    running.run_until_complete(running.shutdown_asyncgens())
    running.close()


@pytest.fixture(params=["sync", "async"])
def edge(
    request: pytest.FixtureRequest, backend: Backend, loop: asyncio.AbstractEventLoop
) -> Iterator[Edge]:
    """The repository edge of the test: the same body runs on ``sync`` and ``async``."""
    # The system clock: a real server's tables are reused across tests (emptied), and a
    # frozen clock would restart its write stamps below the last test's delete markers.
    made = Edge(str(request.param), backend, loop)
    yield made
    if made.async_backend is not None:
        loop.run_until_complete(made.async_backend.aclose())
