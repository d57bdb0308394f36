"""AsyncUnitOfWork: a unit of work whose commit is awaited over an AsyncBackend."""

from __future__ import annotations

from types import TracebackType

from hmodel.backend.aio import AsyncBackend
from hmodel.backend.op import arun
from hmodel.repository.unit_of_work import UnitOfWorkCore

__all__ = ["AsyncUnitOfWork"]


class AsyncUnitOfWork(UnitOfWorkCore[AsyncBackend]):
    """Batches writes of any models; ``await`` :meth:`commit` sends one ``mutate`` per table.

    The asynchronous edge of :class:`~hmodel.repository.UnitOfWork`: the same arguments
    (an :class:`~hmodel.backend.aio.AsyncBackend`, then ``clock``, ``stamps``,
    ``listeners``), the same queueing methods (``save``, ``update``, ``delete``,
    ``put_entries``, ``remove_entries``, ``change_entries``, ``increment``: no I/O, each
    validated when queued), and the same commit, run by an awaiting driver: the same
    requests, round trips, stamps and event. Used with ``async with``, it commits when
    the block ends without an exception and discards everything otherwise.

    Cancellation: the queue is emptied however the commit ends. Each table's ``mutate``
    is one request, applied whole or not at all; the tables sent before a cancellation
    stay written, the ones after are not sent (as after a failed ``mutate``).

    Example::

        async with AsyncUnitOfWork(backend) as unit:
            unit.save(order)
            unit.increment(Stat, {"page": "home"}, views=1)
    """

    async def commit(self) -> int:
        """Stamp and send everything queued, one ``mutate`` per table; return the round trips.

        Raises:
            BackendError: A table's mutate failed; tables sent before it stay written.
        """
        spent: int = await arun(self._commit_op(), self.backend)
        return spent

    async def __aenter__(self) -> AsyncUnitOfWork:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            await self.commit()
        else:
            self.discard()
