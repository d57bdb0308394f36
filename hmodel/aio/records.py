"""AsyncRecordTypes: several models under one key prefix, read in one scan, over asyncio (R2)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, TypeVar

from hmodel.aio.repository import AsyncRepository
from hmodel.aio.store import AsyncStore
from hmodel.backend.op import aiterate, arun
from hmodel.patterns.records import Aggregate, RecordTypesCore
from hmodel.repository import OnError

__all__ = ["AsyncRecordTypes"]

R = TypeVar("R")


class AsyncRecordTypes(RecordTypesCore):
    """Models that share a table and a key prefix, read together from asyncio (R1, R2).

    The asynchronous edge of :class:`~hmodel.patterns.RecordTypes`: the same arguments
    (an :class:`~hmodel.aio.AsyncStore` first), the same results, round trips and errors;
    :meth:`scan` and :meth:`groups` are async iterators, :meth:`read` and :meth:`group`
    coroutines, :meth:`plan` does no I/O. Each runs the very operation the synchronous
    one runs (:class:`~hmodel.patterns.records.RecordTypesCore`). Leaving an ``async
    for`` early releases the scan (``aclose()`` the iterator to release it at once).

    Example::

        graph = AsyncRecordTypes(store, Order, Shipping, Line)
        order = await graph.group(Order, {"order_id": "o1"})
    """

    repositories: tuple[AsyncRepository[Any], ...]

    def __init__(self, store: AsyncStore, *models: type) -> None:
        super().__init__(store, *models)

    def scan(
        self,
        prefix: Mapping[str, Any],
        *,
        reverse: bool = False,
        on_error: OnError = "raise",
    ) -> AsyncIterator[Any]:
        """Every record under ``prefix``, typed, in key order (as ``RecordTypes.scan``)."""
        return aiterate(self._scan_op(prefix, reverse, on_error), self.backend)

    async def read(self, prefix: Mapping[str, Any], *, on_error: OnError = "raise") -> list[Any]:
        """:meth:`scan` as a list (as ``RecordTypes.read``)."""
        return await arun(self._read_op(prefix, on_error), self.backend)

    def groups(
        self, root: type[R], prefix: Mapping[str, Any], *, on_error: OnError = "raise"
    ) -> AsyncIterator[Aggregate[R]]:
        """The records under ``prefix`` grouped under each ``root`` record (R2).

        As ``RecordTypes.groups``.

        Raises:
            DeclarationError: ``root`` is not one of the record types (at once).
        """
        return aiterate(self._groups_op(root, prefix, on_error), self.backend)

    async def group(
        self, root: type[R], prefix: Mapping[str, Any], *, on_error: OnError = "raise"
    ) -> Aggregate[R] | None:
        """The one aggregate under ``prefix``, or None (as ``RecordTypes.group``).

        Raises:
            DeclarationError: More than one ``root`` record under ``prefix``.
        """
        return await arun(self._group_op(root, prefix, on_error), self.backend)
