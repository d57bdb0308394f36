"""Taxonomies (R11): nodes with a parents family and a children family, linked on both sides."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

from hmodel.errors import CycleError
from hmodel.patterns.relation import OneSidedLink, Relation
from hmodel.repository import Repository, Store

__all__ = ["Taxonomy"]

N = TypeVar("N")


class Taxonomy(Generic[N]):
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

    Args:
        store: Where the nodes live.
        model: The node model.
        parents: Its map field of parents (parent id -> value), e.g. ``"parents"``.
        children: Its map field of children (child id -> value), e.g. ``"children"``.

    Raises:
        DeclarationError: A field is not a map field (see :class:`Relation`).
    """

    def __init__(self, store: Store, model: type[N], *, parents: str, children: str) -> None:
        self.relation: Relation[N, N] = Relation(store, model, children, model, parents)
        self.repository: Repository[N] = self.relation.left

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
        relation = self.relation
        if relation.left_id(child) in {relation.left_id(parent), *self.ancestors(parent)}:
            raise CycleError(
                f"{self.repository.info.name} {relation.left_id(child)!r} is "
                f"{relation.left_id(parent)!r} or one of its ancestors: the link would make "
                "it its own ancestor",
                table=self.repository.table,
                row=relation.left_row(parent),
                value=relation.left_row(child),
            )
        relation.link(parent, child, value, child_value)

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
        return self._walk(node, self.relation.of_right_many)

    def descendants(self, node: Any) -> list[Any]:
        """Every descendant of ``node``, nearest first (breadth first), each once.

        ``node`` itself only if it is on a cycle.

        One multi-get per level, ``node``'s own row first (no read per node).
        """
        return self._walk(node, self.relation.of_left_many)

    def _walk(self, node: Any, read: Callable[[Sequence[Any]], list[dict[Any, Any]]]) -> list[Any]:
        start = self.relation.left_id(node)
        seen: set[Any] = set()
        found: list[Any] = []
        level = [start]
        while level:
            following: list[Any] = []
            for links in read(level):
                for other in links:
                    if other not in seen:
                        seen.add(other)
                        following.append(other)
            found.extend(following)
            level = following
        return found

    def cycles(self) -> list[Any]:
        """The nodes that are their own ancestors (closed by concurrent links), sorted.

        One scan of the nodes' children (the relation's family), no other read.
        """
        children = self.relation.all_of_left()
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

    # --- checks -------------------------------------------------------------------------

    def verify(self) -> list[OneSidedLink]:
        """Links found on one row only (``left`` is the parent, ``right`` the child).

        One scan per family (see :meth:`Relation.verify`).
        """
        return self.relation.verify()

    def repair(self, links: Iterable[OneSidedLink], *, complete: bool = True) -> int:
        """Complete one-sided links (or remove them): see :meth:`Relation.repair`."""
        return self.relation.repair(links, complete=complete)
