"""AsyncTimeSeries: time-bucketed rows (R9) appended and read over an AsyncBackend."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from hmodel.aio.store import AsyncStore
from hmodel.backend.aio import AsyncBackend
from hmodel.backend.op import arun, create_tables_op
from hmodel.clock import WriteStamps
from hmodel.patterns.timebucket import Instant, Point, Points, TimeBuckets, TimeSeriesCore

__all__ = ["AsyncTimeSeries"]

V = TypeVar("V")


class AsyncTimeSeries(TimeSeriesCore[V, AsyncBackend]):
    """The asyncio edge of :class:`~hmodel.patterns.TimeSeries` (R9, K8, K3).

    A :class:`~hmodel.patterns.TimeBuckets` declaration bound to an
    :class:`~hmodel.backend.aio.AsyncBackend` (or an :class:`~hmodel.aio.AsyncStore`:
    its backend and write stamps). The same arguments, methods, results, round trips and
    errors as the synchronous series, each I/O method a coroutine running the very
    operation the synchronous one runs. ``await series.create_table()`` creates the
    table.

    Cancellation: an append is one ``mutate``; cancelled before it is sent, nothing is
    written; once sent, each bucket row's cells are applied whole or not at all (as
    after a dropped connection: read the window to know). Appends are idempotent (the
    same event is the same cell), so a cancelled append may simply be sent again.

    Example::

        cpu = TimeBuckets(Table("tsdb", [Family("t")]), key=Key(Str("metric")), value=Float64())
        series = AsyncTimeSeries(cpu, AsyncThrift2Backend("hbase-thrift", 9090))
        await series.append({"metric": "cpu"}, {now: 0.93})
    """

    def __init__(
        self,
        buckets: TimeBuckets[V],
        backend: AsyncBackend | AsyncStore,
        *,
        stamps: WriteStamps | None = None,
        rows_per_get: int = 1000,
    ) -> None:
        if isinstance(backend, AsyncStore):
            stamps = backend.stamps if stamps is None else stamps
            backend = backend.backend
        super().__init__(buckets, backend, stamps=stamps, rows_per_get=rows_per_get)

    async def create_table(self, *, exist_ok: bool = True) -> None:
        """Create the table (one ``create_table``), as the synchronous series'.

        Raises:
            TableExistsError: The table exists and ``exist_ok`` is false.
        """
        tables = [self.declaration.table]
        await arun(create_tables_op(tables, exist_ok=exist_ok), self.backend)

    async def append(self, entity: Mapping[str, Any], points: Points[V]) -> int:
        """Write events of one entity in one round trip; return the cells written."""
        return await self.append_many([(entity, points)])

    async def append_many(self, items: Iterable[tuple[Mapping[str, Any], Points[V]]]) -> int:
        """Write events of several entities in one ``mutate``; return the cells written.

        Raises:
            ValidationError: An invalid event; nothing is sent.
        """
        return await arun(self._append_many_op(items), self.backend)

    async def read(self, entity: Mapping[str, Any], start: Instant, end: Instant) -> list[Point[V]]:
        """The events of ``entity`` with ``start <= t < end``, oldest first (as ``read``)."""
        return (await self.read_many([entity], start, end))[0]

    async def read_many(
        self, entities: Sequence[Mapping[str, Any]], start: Instant, end: Instant
    ) -> list[list[Point[V]]]:
        """:meth:`read` for several entities, sharing the gets; one list per entity."""
        return await arun(self._read_many_op(entities, start, end), self.backend)
