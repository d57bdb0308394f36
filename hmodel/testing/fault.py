"""A Backend wrapper that fails, stalls or interleaves work at a chosen call, for tests."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

import attrs

from hmodel.backend.aio import AsyncBackend
from hmodel.backend.aio_forwarding import AsyncForwardingBackend
from hmodel.backend.base import Backend
from hmodel.backend.forwarding import ForwardingBackend

__all__ = ["AsyncFaultyBackend", "FaultyBackend", "Hook"]

P = ParamSpec("P")
T = TypeVar("T")

#: What a hook runs: it gets the call's name and positional arguments (on the asyncio edge
#: it may return an awaitable, awaited).
Action = Callable[[str, tuple[Any, ...]], Any]


@attrs.define
class Hook:
    """What happens at the ``nth`` call (1-based) of one method, counting from installation.

    Attributes:
        method: The Backend method, e.g. ``"mutate"`` or ``"check_and_mutate"``.
        nth: Which call (1: the next one). ``0``: every call.
        before: Run before the call is passed on (e.g. another writer's whole save, or a
            read that must see the row as it is before the call).
        after: Run after the call returned (the call's effect is there).
        fail: Raised instead of passing the call on (``before`` still runs first), or,
            with ``fail_after``, after passing it on (the call took effect, the caller
            never learns it: a dropped reply).
        fail_after: See ``fail``.
        seen: Calls of ``method`` counted so far.
    """

    method: str
    nth: int = 1
    before: Action | None = None
    after: Action | None = None
    fail: BaseException | None = None
    fail_after: bool = False
    seen: int = 0


class _Hooks:
    """The hooks of a faulty backend, either edge: installed by method, met by call count."""

    inner: Any

    def _init_hooks(self) -> None:
        self.hooks: list[Hook] = []
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def on(self, method: str, **options: Any) -> Hook:
        """Install a :class:`Hook` on ``method`` (options as its attributes)."""
        if not callable(getattr(self.inner, method, None)):
            raise ValueError(f"a Backend has no method {method!r}")
        hook = Hook(method, **options)
        with self._lock:
            self.hooks.append(hook)
        return hook

    def _hook(self, method: str) -> Hook | None:
        with self._lock:
            self.calls.append(method)
            for hook in self.hooks:
                if hook.method != method:
                    continue
                hook.seen += 1
                if hook.nth in (0, hook.seen):
                    if hook.nth:
                        self.hooks.remove(hook)
                    return hook
        return None


class FaultyBackend(_Hooks, ForwardingBackend):
    """Wraps a backend; passes every call on, except where a :class:`Hook` intervenes.

    Deterministic fault injection for write-path tests (no sleeps, no patching): a hook
    on the ``nth`` call of a method can run code before or after it (interleave another
    writer at exactly that point), or raise instead of it or after it. Hooks fire once
    (``nth >= 1``) or on every call (``nth=0``); the hooked thread runs the hook's code.
    A :class:`~hmodel.backend.forwarding.ForwardingBackend`: the hooks are met in its
    ``_forward``, so every protocol call can be hooked, and a subclass that draws its own
    faults overrides ``_forward`` and calls this one to keep the hooks.

    Example:
        >>> from hmodel.backend.memory import MemoryBackend
        >>> from hmodel.errors import ConnectionLostError
        >>> faulty = FaultyBackend(MemoryBackend())
        >>> _ = faulty.on("list_tables", fail=ConnectionLostError("dropped"))
        >>> faulty.list_tables()
        Traceback (most recent call last):
        ...
        hmodel.errors.ConnectionLostError: dropped
        >>> faulty.list_tables()
        []

    Args:
        inner: The backend that does the work.
    """

    def __init__(self, inner: Backend) -> None:
        super().__init__(inner)
        self._init_hooks()

    def _forward(
        self, method: str, call: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """Pass the call on, running the :class:`Hook` it meets, if any."""
        hook = self._hook(method)
        if hook is None:
            return call(*args, **kwargs)
        if hook.before is not None:
            hook.before(method, args)
        if hook.fail is not None and not hook.fail_after:
            raise hook.fail
        result = call(*args, **kwargs)
        if hook.after is not None:
            hook.after(method, args)
        if hook.fail is not None:
            raise hook.fail
        return result


class AsyncFaultyBackend(_Hooks, AsyncForwardingBackend):
    """:class:`FaultyBackend` for the asyncio edge: the same :class:`Hook` at the ``nth`` call.

    Wraps an :class:`~hmodel.backend.aio.AsyncBackend` (an ``AsyncMemoryBackend``, an
    ``AsyncThrift2Backend``...); ``on(method, nth=..., before=..., after=..., fail=...,
    fail_after=...)`` as there. A ``before`` or ``after`` action may be a coroutine
    function (another writer's awaited save at exactly that point) or a plain one.
    An :class:`~hmodel.backend.aio_forwarding.AsyncForwardingBackend`: the hooks are met
    in its ``_forward``, so every protocol call can be hooked.

    Example:
        >>> import asyncio
        >>> from hmodel.backend.memory import AsyncMemoryBackend, MemoryBackend
        >>> from hmodel.errors import OutcomeUnknownError
        >>> faulty = AsyncFaultyBackend(AsyncMemoryBackend(MemoryBackend()))
        >>> _ = faulty.on("list_tables", fail=OutcomeUnknownError("reply lost"), fail_after=True)
        >>> asyncio.run(faulty.list_tables())
        Traceback (most recent call last):
        ...
        hmodel.errors.OutcomeUnknownError: reply lost

    Args:
        inner: The asyncio backend that does the work.
    """

    def __init__(self, inner: AsyncBackend) -> None:
        super().__init__(inner)
        self._init_hooks()

    async def _forward(
        self, method: str, call: Callable[..., Awaitable[T]], /, *args: Any, **kwargs: Any
    ) -> T:
        """Pass the call on, running the :class:`Hook` it meets, if any."""
        hook = self._hook(method)
        if hook is None:
            return await call(*args, **kwargs)
        await _act(hook.before, method, args)
        if hook.fail is not None and not hook.fail_after:
            raise hook.fail
        result = await call(*args, **kwargs)
        await _act(hook.after, method, args)
        if hook.fail is not None:
            raise hook.fail
        return result


async def _act(action: Action | None, method: str, args: tuple[Any, ...]) -> None:
    """Run a hook's action; await what it returns when that is awaitable."""
    if action is None:
        return
    done: Any = action(method, args)
    if inspect.isawaitable(done):
        await done
