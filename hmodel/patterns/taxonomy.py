"""Taxonomies (R11): nodes with a parents family and a children family, linked on both sides."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

from hmodel.backend.op import Op, run
from hmodel.errors import CycleError
from hmodel.patterns.relation import OneSidedLink, Relation, RelationCore
from hmodel.repository import Repository, Store
from hmodel.repository.core import RepositoryCore

__all__ = ["Taxonomy", "TaxonomyCore"]

N = TypeVar("N")


class TaxonomyCore(Generic[N]):
    """The declaration and sans-I/O operations of a taxonomy, shared by both edges (R11).

    Not used directly: :class:`Taxonomy` (over a :class:`~hmodel.repository.Store`) and
    :class:`hmodel.aio.AsyncTaxonomy` (over an :class:`~hmodel.aio.AsyncStore`) run its
    operations on :attr:`relation`; see :class:`Taxonomy` for the arguments.
    """

    def __init__(self, relation: RelationCore[N, N]) -> None:
        self.relation = relation
        self.repository: RepositoryCore[N, Any] = relation.left

    # --- writes -------------------------------------------------------------------------

    def _link_op(self, parent: Any, child: Any, value: Any, child_value: Any) -> Op[None]:
        """The operation of ``link``: the walk of the parent's ancestors, then the link."""
        relation = self.relation
        ancestors = yield from self._ancestors_op(parent)
        if relation.left_id(child) in {relation.left_id(parent), *ancestors}:
            raise CycleError(
                f"{self.repository.info.name} {relation.left_id(child)!r} is "
                f"{relation.left_id(parent)!r} or one of its ancestors: the link would make "
                "it its own ancestor",
                table=self.repository.table,
                row=relation.left_row(parent),
                value=relation.left_row(child),
            )
        yield from relation._link_op(parent, child, value, child_value)

    # --- reads --------------------------------------------------------------------------

    def _ancestors_op(self, node: Any) -> Op[list[Any]]:
        """The operation of ``ancestors``: one multi-get per level."""
        return (yield from self._walk_op(node, self.relation._of_right_many_op))

    def _descendants_op(self, node: Any) -> Op[list[Any]]:
        """The operation of ``descendants``: one multi-get per level."""
        return (yield from self._walk_op(node, self.relation._of_left_many_op))

    def _walk_op(
        self, node: Any, read: Callable[[Sequence[Any]], Op[list[dict[Any, Any]]]]
    ) -> Op[list[Any]]:
        start = self.relation.left_id(node)
        seen: set[Any] = set()
        found: list[Any] = []
        level = [start]
        while level:
            following: list[Any] = []
            for links in (yield from read(level)):
                for other in links:
                    if other not in seen:
                        seen.add(other)
                        following.append(other)
            found.extend(following)
            level = following
        return found

    def _cycles_op(self) -> Op[list[Any]]:
        """The operation of ``cycles``: one scan of the nodes' children."""
        children = yield from self.relation._all_of_left_op()
        on_cycle = []
        for start in children:
            seen: set[Any] = set()
            level = list(children[start])
            while level:
                following: list[Any] = []
                for other in level:
                    if other not in seen:
                        seen.add(other)
                        following.extend(children.get(other, {}))
                level = following
            if start in seen:
                on_cycle.append(start)
        return sorted(on_cycle)


class Taxonomy(TaxonomyCore[N]):
    """A taxonomy of one model's rows: each node lists its parents and its children (R11).

    The animal taxonomy of HBase schema design: a row per node, a ``parent`` family with
    a column per parent and a ``child`` family with a column per child, so both "what
    kinds of dog are there" and "what is a red dog" are one row read. Declared on two
    map fields of the node model (F6), each keyed by the other node's id; a node may have
    several parents (a directed acyclic graph, not only a tree).

    It is a :class:`~hmodel.patterns.relation.Relation` of the model with itself (parent
    on the left through ``children``, child on the right through ``parents``), so a link
    is written exactly as R6 writes one: never creating a row, guarded per side, locked
    sides through their checked save; a crash between the two sides leaves a one-sided
    link that :meth:`verify` finds and :meth:`repair` fixes.

    **Cycles.** :meth:`link` refuses a link that would make a node its own ancestor
    (:class:`~hmodel.errors.CycleError`, nothing written): it walks the parent's
    ancestors first. The walk and the link are not one transaction: two links written
    at once (``a`` under ``b`` and ``b`` under ``a``) may both pass and close a cycle.
    Walks visit each node once, so they end even then; :meth:`cycles` lists the nodes
    on one.

    Every method runs the operation :class:`TaxonomyCore` defines (sans-I/O, see
    :mod:`hmodel.backend.op`); :class:`hmodel.aio.AsyncTaxonomy` runs the same ones from
    an asyncio event loop.

    Args:
        store: Where the nodes live.
        model: The node model.
        parents: Its map field of parents (parent id -> value), e.g. ``"parents"``.
        children: Its map field of children (child id -> value), e.g. ``"children"``.

    Raises:
        DeclarationError: A field is not a map field (see :class:`Relation`).
    """

    relation: Relation[N, N]
    repository: Repository[N]

    def __init__(self, store: Store, model: type[N], *, parents: str, children: str) -> None:
        super().__init__(Relation(store, model, children, model, parents))

    # --- writes -------------------------------------------------------------------------

    def link(self, parent: Any, child: Any, value: Any, child_value: Any = None) -> None:
        """Make ``child`` a child of ``parent`` on both rows, never creating a row.

        ``parent.children[child] = value`` and ``child.parents[parent] = child_value``
        (``value`` when not given). Idempotent.

        Round trips: the walk of the parent's ancestors (one multi-get of the parent's
        row, then one per level of its ancestors), then those of :meth:`Relation.link`.

        Raises:
            CycleError: ``child`` is ``parent`` or one of its ancestors; nothing written.
            NotFoundError: A node does not exist (see :meth:`Relation.link`).
        """
        run(self._link_op(parent, child, value, child_value), self.relation.store.backend)

    def unlink(self, parent: Any, child: Any) -> None:
        """Remove the link from both rows (idempotent; never creates a row)."""
        self.relation.unlink(parent, child)

    # --- reads --------------------------------------------------------------------------

    def children(self, node: Any) -> dict[Any, Any]:
        """The node's children: id -> value (one round trip)."""
        return self.relation.of_left(node)

    def parents(self, node: Any) -> dict[Any, Any]:
        """The node's parents: id -> value (one round trip)."""
        return self.relation.of_right(node)

    def ancestors(self, node: Any) -> list[Any]:
        """Every ancestor of ``node``, nearest first (breadth first), each once.

        ``node`` itself only if it is on a cycle (see :meth:`cycles`).

        One multi-get per level, ``node``'s own row first (no read per node): a node
        with ``d`` levels of ancestors costs ``d + 1`` round trips.
        """
        return run(self._ancestors_op(node), self.relation.store.backend)

    def descendants(self, node: Any) -> list[Any]:
        """Every descendant of ``node``, nearest first (breadth first), each once.

        ``node`` itself only if it is on a cycle.

        One multi-get per level, ``node``'s own row first (no read per node).
        """
        return run(self._descendants_op(node), self.relation.store.backend)

    def cycles(self) -> list[Any]:
        """The nodes that are their own ancestors (closed by concurrent links), sorted.

        One scan of the nodes' children (the relation's family), no other read.
        """
        return run(self._cycles_op(), self.relation.store.backend)

    # --- checks -------------------------------------------------------------------------

    def verify(self) -> list[OneSidedLink]:
        """Links found on one row only (``left`` is the parent, ``right`` the child).

        One scan per family (see :meth:`Relation.verify`).
        """
        return self.relation.verify()

    def repair(self, links: Iterable[OneSidedLink], *, complete: bool = True) -> int:
        """Complete one-sided links (or remove them): see :meth:`Relation.repair`."""
        return self.relation.repair(links, complete=complete)
