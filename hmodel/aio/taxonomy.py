"""AsyncTaxonomy: nodes with a parents and a children family (R11), over asyncio."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from hmodel.aio.relation import AsyncRelation
from hmodel.aio.repository import AsyncRepository
from hmodel.aio.store import AsyncStore
from hmodel.backend.op import arun
from hmodel.patterns.relation import OneSidedLink
from hmodel.patterns.taxonomy import TaxonomyCore

__all__ = ["AsyncTaxonomy"]

N = TypeVar("N")


class AsyncTaxonomy(TaxonomyCore[N]):
    """A taxonomy of one model's rows, each listing its parents and children, from asyncio (R11).

    The asynchronous edge of :class:`~hmodel.patterns.Taxonomy`: the same arguments (an
    :class:`~hmodel.aio.AsyncStore` first), method names, results, round trips and
    errors (:class:`~hmodel.errors.CycleError` for a link making a node its own
    ancestor), each method a coroutine, on an :class:`~hmodel.aio.AsyncRelation` of the
    model with itself. Every method runs the synchronous taxonomy's own operations
    (:class:`~hmodel.patterns.taxonomy.TaxonomyCore`).

    Example::

        kinds = AsyncTaxonomy(store, Animal, parents="parents", children="children")
        await kinds.link("dog", "red dog", "kind")
    """

    relation: AsyncRelation[N, N]
    repository: AsyncRepository[N]

    def __init__(self, store: AsyncStore, model: type[N], *, parents: str, children: str) -> None:
        super().__init__(AsyncRelation(store, model, children, model, parents))

    async def link(self, parent: Any, child: Any, value: Any, child_value: Any = None) -> None:
        """Make ``child`` a child of ``parent`` on both rows, never creating a row.

        As ``Taxonomy.link``: the walk of the parent's ancestors, then the link.

        Raises:
            CycleError: ``child`` is ``parent`` or one of its ancestors; nothing written.
            NotFoundError: A node does not exist.
        """
        await arun(self._link_op(parent, child, value, child_value), self.relation.store.backend)

    async def unlink(self, parent: Any, child: Any) -> None:
        """Remove the link from both rows (idempotent; never creates a row)."""
        await self.relation.unlink(parent, child)

    async def children(self, node: Any) -> dict[Any, Any]:
        """The node's children: id -> value (one round trip)."""
        return await self.relation.of_left(node)

    async def parents(self, node: Any) -> dict[Any, Any]:
        """The node's parents: id -> value (one round trip)."""
        return await self.relation.of_right(node)

    async def ancestors(self, node: Any) -> list[Any]:
        """Every ancestor of ``node``, nearest first, each once (one multi-get per level)."""
        return await arun(self._ancestors_op(node), self.relation.store.backend)

    async def descendants(self, node: Any) -> list[Any]:
        """Every descendant of ``node``, nearest first, each once (one multi-get per level)."""
        return await arun(self._descendants_op(node), self.relation.store.backend)

    async def cycles(self) -> list[Any]:
        """The nodes that are their own ancestors (closed by concurrent links), sorted."""
        return await arun(self._cycles_op(), self.relation.store.backend)

    async def verify(self) -> list[OneSidedLink]:
        """Links found on one row only (``left`` is the parent, ``right`` the child)."""
        return await self.relation.verify()

    async def repair(self, links: Iterable[OneSidedLink], *, complete: bool = True) -> int:
        """Complete one-sided links (or remove them): see ``Relation.repair``."""
        return await self.relation.repair(links, complete=complete)
