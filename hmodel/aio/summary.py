"""AsyncSummary, AsyncSummarizedRepository: summary tables (I3) kept and checked, awaited."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any, TypeVar

from hmodel.aio.repository import AsyncRepository
from hmodel.aio.store import AsyncStore
from hmodel.backend.aio import AsyncBackend
from hmodel.backend.op import arun
from hmodel.patterns.summary import (
    BATCH,
    Count,
    Sum,
    SummarizedRepositoryCore,
    SummaryCore,
    SummaryReport,
    Tally,
)

__all__ = ["AsyncSummarizedRepository", "AsyncSummary"]

M = TypeVar("M")
S = TypeVar("S")


class AsyncSummary(SummaryCore[M, S, AsyncBackend]):
    """The asyncio edge of :class:`~hmodel.patterns.Summary` (I3, F10).

    The same arguments (an :class:`~hmodel.aio.AsyncStore` first), declaration checks,
    methods, results, round trips and errors, each I/O method a coroutine (and
    :meth:`scan` an async iterator) running the very operation the synchronous summary
    runs. The pure parts (:meth:`deltas`, :meth:`group_of`, :meth:`tally_rows`...) are
    the same methods. No table administration: create the summary table with the
    synchronous :class:`~hmodel.patterns.Summary` (or a :class:`~hmodel.Store`) first.

    Cancellation: :meth:`apply` is one ``increment_many``, as a dropped connection
    leaves it (none, some or all applied: :meth:`verify` finds it, :meth:`rebuild`
    fixes it); :meth:`verify` and :meth:`tally_range` only read; a cancelled
    :meth:`rebuild` leaves the chunks it sent applied: run it again.
    """

    data: AsyncRepository[M]
    rows: AsyncRepository[S]
    store: AsyncStore

    def __init__(
        self,
        store: AsyncStore,
        model: type[M],
        summary: type[S],
        *,
        by: Mapping[str, str | Callable[[M], Any]],
        measures: Mapping[str, Count | Sum],
        samples: int = 20,
    ) -> None:
        super().__init__(
            store,
            store.repository(model),
            store.repository(summary),
            by=by,
            measures=measures,
            samples=samples,
        )

    async def create_table(self, *, exist_ok: bool = False) -> None:
        """Create the summary table (one ``create_table``), as ``Summary.create_table``.

        Raises:
            TableExistsError: It exists and ``exist_ok`` is false.
        """
        await self.rows.create_table(exist_ok=exist_ok)

    async def apply(self, deltas: Mapping[bytes, Mapping[str, int]]) -> None:
        """Add ``deltas`` to the counters: one ``increment_many`` (none if empty).

        Raises:
            OutcomeUnknownError: The connection dropped after the batch left.
        """
        await arun(self._apply_op(deltas), self.rows.backend)

    async def get(self, **group: Any) -> S | None:
        """The summary row of one group, typed; ``None`` if none (one round trip)."""
        found: S | None = await self.rows.get(**group)
        return found

    def scan(self, prefix: Mapping[str, Any] | None = None, **options: Any) -> AsyncIterator[S]:
        """The summary rows of a key prefix, typed, in key order (``async for``).

        ``options`` are :meth:`~hmodel.aio.AsyncRepository.scan`'s.
        """
        return self.rows.scan(prefix, **options)

    async def tally_range(
        self,
        start: bytes = b"",
        stop: bytes = b"",
        *,
        limit: int | None = None,
        batch_size: int = BATCH,
    ) -> Tally:
        """Recount the data rows of ``[start, stop)`` (as ``Summary.tally_range``)."""
        return await arun(self._tally_range_op(start, stop, limit, batch_size), self.data.backend)

    async def verify(self, tally: Tally | None = None) -> SummaryReport:
        """Compare every counter with the recount; nothing is written (as ``verify``)."""
        return await arun(self._settle_op(tally, fix=False), self.rows.backend)

    async def rebuild(self, tally: Tally | None = None) -> SummaryReport:
        """Add ``recount - counter as read`` to every wrong counter (as ``rebuild``)."""
        return await arun(self._settle_op(tally, fix=True), self.rows.backend)


class AsyncSummarizedRepository(SummarizedRepositoryCore[M, AsyncBackend]):
    """The asyncio edge of :class:`~hmodel.patterns.SummarizedRepository` (I3).

    Saves and deletes of a data model that keep its :class:`AsyncSummary` counters: the
    same requests in the same order (a ``get`` of the stored row, the data write, one
    ``increment_many`` per summary with a change), the same validation before anything
    is written, the same errors. Under concurrency the promise is the synchronous one:
    with a version field on the data model, concurrent writers (tasks or processes)
    never make a summary drift; without one, two writers that read the same old row may.

    Cancellation: a task cancelled after its data write and before its increments leaves
    the summary short of that write's delta, as a crash there does:
    :meth:`AsyncSummary.verify` finds it, :meth:`AsyncSummary.rebuild` fixes it.

    Args:
        repository: The data repository.
        summaries: Its summaries.

    Raises:
        ValidationError: A summary of another model.
    """

    repository: AsyncRepository[M]

    def __init__(
        self, repository: AsyncRepository[M], summaries: Sequence[AsyncSummary[M, Any]]
    ) -> None:
        super().__init__(repository, summaries)

    async def save(self, obj: M, *, ttl: timedelta | None = None) -> M:
        """Save ``obj`` and add the change to every summary (as ``SummarizedRepository.save``).

        Raises:
            ValidationError: The instance, a group or a summed value is invalid; nothing
                is written.
            RowExistsError: A new locked instance and the row exists; nothing is written.
            ConflictError: The stored version is not ``obj``'s; nothing is written.
            OutcomeUnknownError: The save's or an increment's outcome is unknown.
        """
        return await arun(self._save_op(obj, ttl), self.repository.backend)

    async def delete(self, obj: M) -> None:
        """Delete ``obj``'s row and take the stored values out of every summary.

        Raises:
            ConflictError: Locked: the stored version is not ``obj``'s; nothing is deleted.
        """
        await arun(self._delete_op(obj), self.repository.backend)
