"""AsyncRelation: a many-to-many relation kept on both sides (R6, F6), over asyncio."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from hmodel.aio.repository import AsyncRepository
from hmodel.aio.store import AsyncStore
from hmodel.aio.unit_of_work import AsyncUnitOfWork
from hmodel.backend.op import arun
from hmodel.patterns.relation import OneSidedLink, RelationCore

__all__ = ["AsyncRelation"]

L = TypeVar("L")
R = TypeVar("R")


class AsyncRelation(RelationCore[L, R]):
    """A many-to-many relation stored as map columns on both sides, from asyncio (R6, F6).

    The asynchronous edge of :class:`~hmodel.patterns.Relation`: the same arguments (an
    :class:`~hmodel.aio.AsyncStore` first), method names, results, round trips, errors
    and promises (a link never creates a row; guarded writes per side; locked sides
    through their checked save), each I/O method a coroutine. :meth:`queue_link` and
    :meth:`queue_unlink` queue into an :class:`~hmodel.aio.AsyncUnitOfWork` (no I/O).
    Every method runs the very operation the synchronous relation runs
    (:class:`~hmodel.patterns.relation.RelationCore`), awaiting its requests.

    Cancellation: a link writes the two sides one after the other; cancelled between
    them, it leaves a one-sided link, as a crash there does: :meth:`verify` finds it and
    :meth:`repair` (or the same link again) completes it.

    Example::

        follows = AsyncRelation(store, User, "follows", User, "fans")
        await follows.link("ann", "bob", "since 2024")
    """

    left: AsyncRepository[L]
    right: AsyncRepository[R]

    def __init__(
        self,
        store: AsyncStore,
        left: type[L],
        left_field: str,
        right: type[R],
        right_field: str,
    ) -> None:
        super().__init__(store, left, left_field, right, right_field)

    # --- writes -------------------------------------------------------------------------

    async def link(self, left_id: Any, right_id: Any, value: Any, right_value: Any = None) -> None:
        """Record the link on both sides, never creating a row (as ``Relation.link``).

        Raises:
            NotFoundError: A side's row does not exist (or was deleted meanwhile); the
                other side's entry is not left behind.
            ConflictError: A locked side kept changing through every attempt.
        """
        await arun(self._link_op(left_id, right_id, value, right_value), self.store.backend)

    def queue_link(
        self,
        unit: AsyncUnitOfWork,
        left_id: Any,
        right_id: Any,
        value: Any,
        right_value: Any = None,
    ) -> None:
        """Queue both entries of :meth:`link` in ``unit``, unguarded (as ``queue_link``).

        For rows known to exist; not for locked sides (``ValidationError``, the unit
        discarded).
        """
        self._queue_link(unit, left_id, right_id, value, right_value)

    async def unlink(self, left_id: Any, right_id: Any) -> None:
        """Remove the link from both sides (idempotent); never creates a row.

        One unit of work (one ``mutate`` per table); a locked side through its checked
        save.
        """
        await arun(self._unlink_op(left_id, right_id), self.store.backend)

    def queue_unlink(self, unit: AsyncUnitOfWork, left_id: Any, right_id: Any) -> None:
        """Queue :meth:`unlink` in ``unit`` (deletes only: never creates a row)."""
        self._queue_unlink(unit, left_id, right_id)

    # --- reads --------------------------------------------------------------------------

    async def of_left(self, left_id: Any) -> dict[Any, Any]:
        """The links of one left row: right id -> value (one round trip)."""
        return await arun(self._of_left_op(left_id), self.store.backend)

    async def of_right(self, right_id: Any) -> dict[Any, Any]:
        """The links of one right row: left id -> value (one round trip)."""
        return await arun(self._of_right_op(right_id), self.store.backend)

    async def of_left_many(self, left_ids: Sequence[Any]) -> list[dict[Any, Any]]:
        """The links of several left rows, aligned with ``left_ids`` (one ``get``)."""
        return await arun(self._of_left_many_op(left_ids), self.store.backend)

    async def of_right_many(self, right_ids: Sequence[Any]) -> list[dict[Any, Any]]:
        """The links of several right rows, aligned with ``right_ids`` (one ``get``)."""
        return await arun(self._of_right_many_op(right_ids), self.store.backend)

    async def all_of_left(self) -> dict[Any, dict[Any, Any]]:
        """Every left row's links: left id -> right id -> value (one scan)."""
        return await arun(self._all_of_left_op(), self.store.backend)

    async def verify(self, left_ids: Iterable[Any] | None = None) -> list[OneSidedLink]:
        """Links present on one side only (as ``Relation.verify``)."""
        return await arun(self._verify_op(left_ids), self.store.backend)

    async def repair(self, links: Iterable[OneSidedLink], *, complete: bool = True) -> int:
        """Complete one-sided links, or remove them; how many were fixed (as ``repair``)."""
        return await arun(self._repair_op(links, complete), self.store.backend)
