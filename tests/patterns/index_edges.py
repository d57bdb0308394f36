"""The index tests on both edges: indexed repositories and hooked backends of an ``edge``.

A test body written once takes ``edge`` (``tests/edges.py``) and builds its indexed
repositories with :func:`indexed` and its fault-injecting backends with :func:`faulty`:
on the sync edge an :class:`IndexedRepository` over a :class:`FaultyBackend`; on the
async edge an :class:`AsyncIndexedRepository` over an :class:`AsyncFaultyBackend` around
the target's async backend (the memory engine, or the fake Thrift1/Thrift2 server), with
the same hooks. Calls go through ``edge.call``. A hook's ``before``/``after`` may return a
coroutine (another async client's call): the async wrapper awaits it at that point.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from hmodel.aio import AsyncIndexedRepository, AsyncRepository
from hmodel.clock import Clock
from hmodel.patterns.index import Index
from hmodel.patterns.index_repository import IndexedRepository
from hmodel.repository import Repository
from hmodel.testing.fault import FaultyBackend
from tests.edges import Edge

M = TypeVar("M")


#: The data calls of the AsyncBackend protocol, which hooks can meet.
_CALLS = frozenset(
    {
        "get",
        "get_versions",
        "scan",
        "mutate",
        "increment",
        "increment_many",
        "check_and_put",
        "check_and_delete",
        "check_and_mutate",
        "append",
    }
)


class AsyncFaultyBackend:
    """:class:`FaultyBackend`'s hooks around an async backend's calls (tests only).

    Each data call is a coroutine that meets its hook (counted as the call is made, as the
    synchronous wrapper counts it) around awaiting the wrapped async backend: ``before``
    runs before the request is sent, ``after`` once its answer arrived, ``fail`` instead
    of (or after) it. A hook returning an awaitable is awaited there. ``on``, ``hooks``
    and ``calls`` are :class:`FaultyBackend`'s; anything else (``capabilities``,
    ``round_trips``, ``aclose``) is the wrapped backend's.
    """

    on = FaultyBackend.on
    _hook = FaultyBackend._hook

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.hooks: list[Any] = []
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.inner, name)
        if name not in _CALLS:
            return found

        async def call(*args: Any, **kwargs: Any) -> Any:
            hook = self._hook(name)
            if hook is None:
                return await found(*args, **kwargs)
            if hook.before is not None:
                await _settle(hook.before(name, args))
            if hook.fail is not None and not hook.fail_after:
                raise hook.fail
            result = await found(*args, **kwargs)
            if hook.after is not None:
                await _settle(hook.after(name, args))
            if hook.fail is not None:
                raise hook.fail
            return result

        return call


async def _settle(value: Any) -> None:
    if inspect.isawaitable(value):
        await value


def faulty(edge: Edge) -> Any:
    """A hooked backend of the edge's target: sync, or around its async backend."""
    if edge.async_backend is not None:
        return AsyncFaultyBackend(edge.async_backend)
    return FaultyBackend(edge.backend)


def plain(edge: Edge) -> Any:
    """The edge's own backend (no hooks): ``edge.backend`` or ``edge.async_backend``."""
    return edge.async_backend if edge.async_backend is not None else edge.backend


def indexed(
    edge: Edge,
    model: type[M],
    indexes: Sequence[Index[M]],
    *,
    backend: Any = None,
    clock: Clock | None = None,
    create: bool = True,
) -> Any:
    """An indexed repository of ``model`` on the edge, over ``backend`` (default: plain).

    Its tables are created (synchronously, on the target) unless ``create`` is false.
    """
    used = plain(edge) if backend is None else backend
    options: dict[str, Any] = {} if clock is None else {"clock": clock}
    repo: Any
    if edge.is_async:
        repo = AsyncIndexedRepository(AsyncRepository(model, used, **options), indexes)
        if create:  # on the target, past any fault-injecting backend ``used`` may be
            sync = IndexedRepository(Repository(model, edge.backend), indexes)
            sync.create_tables(exist_ok=True)
    else:
        repo = IndexedRepository(Repository(model, used, **options), indexes)
        if create:
            repo.create_tables(exist_ok=True)
    return repo


def then(edge: Edge, result: Any, check: Callable[[Any], Any]) -> Any:
    """``check(result)`` once ``result`` is there (a hook's multi-step work, on either edge).

    Sync: ``check(result)`` at once. Async: a coroutine awaiting ``result``, then
    ``check`` of its value, then what ``check`` returns if it is awaitable (so checks chain
    further calls). A hook returns it: the async wrapper awaits it at the hooked call.
    """
    if not edge.is_async:
        return check(result)

    async def run() -> Any:
        value = await result
        return await _settle_value(check(value))

    return run()


async def _settle_value(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value
