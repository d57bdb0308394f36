"""The memory engine behind the :class:`~hmodel.backend.aio.AsyncBackend` protocol."""

from __future__ import annotations

from hmodel.backend.aio import InProcessAsyncBackend
from hmodel.backend.memory.backend import MemoryBackend
from hmodel.clock import Clock, system_clock

__all__ = ["AsyncMemoryBackend"]


class AsyncMemoryBackend(InProcessAsyncBackend):
    """The in-process HBase engine, spoken to from an asyncio event loop.

    Every call yields to the loop once and then runs on the engine to its end (see
    :class:`~hmodel.backend.aio.InProcessAsyncBackend`): concurrent tasks interleave
    call by call, and a cancelled write was applied whole or not at all.

    Args:
        engine: The engine to serve; a new :class:`MemoryBackend` by default. Pass the
            one a synchronous repository uses to share the tables (e.g. to create them:
            table administration is synchronous).
        clock: The new engine's clock (ignored with ``engine``).

    >>> import asyncio
    >>> backend = AsyncMemoryBackend()
    >>> asyncio.run(backend.get("t", []))
    []
    """

    def __init__(self, engine: MemoryBackend | None = None, *, clock: Clock = system_clock) -> None:
        self.engine = engine if engine is not None else MemoryBackend(clock=clock)
        super().__init__(self.engine)
