"""AsyncCopy: denormalised copies (R3, R7) kept in sync from an asyncio event loop."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Mapping
from typing import Any, TypeVar

from hmodel.aio.repository import AsyncRepository
from hmodel.aio.store import AsyncStore
from hmodel.backend.op import aiterate, arun
from hmodel.patterns.copies import CopyCore, CopyReport, StaleCopy
from hmodel.repository import Query

__all__ = ["AsyncCopy"]

S = TypeVar("S")
T = TypeVar("T")


async def _listed(items: Iterable[T] | AsyncIterable[T]) -> list[T]:
    """``items`` as a list (an async iterable, e.g. an ``AsyncRepository.scan``, read first)."""
    if isinstance(items, AsyncIterable):
        return [item async for item in items]
    return list(items)


class AsyncCopy(CopyCore[S, T]):
    """Fields of ``target`` rows that copy fields of a ``source`` model, over asyncio (R3, R7).

    The asynchronous edge of :class:`~hmodel.patterns.Copy`: the same arguments (an
    :class:`~hmodel.aio.AsyncStore` first), the same method names, results, round trips,
    errors and promises under concurrency (copies converge to the newest source version
    by write stamp, never create rows, versioned targets through their checked save), each
    I/O method a coroutine and :meth:`copies` an async iterator. Every method runs the
    very operation the synchronous copy runs (:class:`~hmodel.patterns.copies.CopyCore`),
    awaiting its requests. :meth:`fill` and :meth:`values` do no I/O.

    Cancellation (``task.cancel()``, ``asyncio.timeout()``): a sync is one request per
    copy rewritten (over Thrift1 a ``mutate`` and a ``get`` per batch); cancelled midway,
    the copies written stay written and the others keep their old values, as after a
    sync that failed or a process that died there. :meth:`verify` or
    :meth:`verify_targets` lists the stale ones; :meth:`repair` or :meth:`repair_targets`
    (or the next sync) rewrites them.

    Example::

        ship_to = AsyncCopy(store, Shipping, Line, fields={"ship_city": "city"},
                            locate=lambda s: Query({"order_id": s.order_id}))
        report = await ship_to.save(shipping)
    """

    source: AsyncRepository[S]
    target: AsyncRepository[T]

    def __init__(
        self,
        store: AsyncStore,
        source: type[S],
        target: type[T],
        *,
        fields: Mapping[str, str],
        locate: Callable[[S], Query | Iterable[T]],
        source_of: Callable[[T], Mapping[str, Any] | None] | None = None,
        batch_size: int = 100,
    ) -> None:
        super().__init__(
            store,
            source,
            target,
            fields=fields,
            locate=locate,
            source_of=source_of,
            batch_size=batch_size,
        )

    def copies(self, source: S) -> AsyncIterator[T]:
        """The stored copies of ``source``, found as declared (``async for``)."""
        return aiterate(self._copies_op(source), self.store.backend)

    async def sync(self, source: S) -> CopyReport:
        """Rewrite every copy of ``source`` whose fields differ (as ``Copy.sync``).

        Raises:
            ConflictError: A copy (or a versioned target's source) kept changing through
                every attempt; the copies written stay written.
        """
        return await arun(self._report_op(source), self.store.backend)

    async def save(self, source: S) -> CopyReport:
        """Save ``source`` with its repository, then :meth:`sync` its copies (as ``save``)."""
        return await arun(self._save_op(source), self.store.backend)

    async def verify(self, sources: Iterable[S] | AsyncIterable[S]) -> list[StaleCopy]:
        """The copies of ``sources`` whose copied fields differ (as ``Copy.verify``).

        ``sources`` may be an async iterable (an ``AsyncRepository.scan``): it is read
        whole first.
        """
        listed = await _listed(sources)
        return await arun(self._verify_op(listed), self.store.backend)

    async def repair(self, sources: Iterable[S] | AsyncIterable[S]) -> CopyReport:
        """Rewrite every stale copy of ``sources`` from the sources as stored now.

        As ``Copy.repair``; ``sources`` may be an async iterable (read whole first).
        """
        listed = await _listed(sources)
        return await arun(self._repair_op(listed), self.store.backend)

    async def verify_targets(
        self, targets: Iterable[T] | AsyncIterable[T] | None = None
    ) -> list[StaleCopy]:
        """From the target side: every copy (or those given) checked against its source.

        As ``Copy.verify_targets``.

        Raises:
            ValidationError: ``source_of`` was not given to the constructor.
        """
        listed = None if targets is None else await _listed(targets)
        return await arun(self._verify_targets_op(listed), self.store.backend)

    async def repair_targets(
        self, targets: Iterable[T] | AsyncIterable[T] | None = None
    ) -> CopyReport:
        """From the target side: rewrite every stale copy (or those given) from its source.

        As ``Copy.repair_targets``.

        Raises:
            ValidationError: ``source_of`` was not given to the constructor.
            ConflictError: A copy kept changing through every attempt.
        """
        listed = None if targets is None else await _listed(targets)
        return await arun(self._repair_targets_op(listed), self.store.backend)
