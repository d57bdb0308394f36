"""Relations kept on both sides (R6): map columns on each side, linked and unlinked together."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Generic, TypeVar

import attrs

from hmodel.errors import DeclarationError
from hmodel.repository import Repository, Store, UnitOfWork, execute

__all__ = ["OneSidedLink", "Relation"]

L = TypeVar("L")
R = TypeVar("R")


@attrs.frozen
class OneSidedLink:
    """A link found on one side only (a crash between the two rows' writes).

    Attributes:
        left: The left row's key values.
        right: The right row's key values.
        side: ``"left"`` if only the left row holds the link, ``"right"`` otherwise.
        value: The entry's value on the side that holds it.
    """

    left: Mapping[str, Any]
    right: Mapping[str, Any]
    side: str
    value: Any


class Relation(Generic[L, R]):
    """A many-to-many relation stored as map columns on both sides (R6, F6).

    The seed keeps a relation as wide rows on both sides instead of a join table: a shop
    row has ``item:<item id>`` columns and an item row ``shop:<shop id>`` columns; a user
    has ``follows:<id>`` and ``fans:<id>``. Each side is a ``map_field`` keyed by the other
    side's id (one key field on each side). :meth:`link` and :meth:`unlink` write both sides
    in one unit of work: one ``mutate`` per table (one round trip when both sides share a
    table), each row atomic, the two rows not one transaction. Both writes are idempotent
    (a put or delete of an entry), so calling again repairs a half-done link; a crash in
    between leaves a one-sided link, which :meth:`verify` finds and :meth:`repair` fixes.

    Args:
        store: Where both models live.
        left: The model of one side, e.g. ``User`` (follower).
        left_field: Its map field holding the other side, e.g. ``"follows"``.
        right: The model of the other side (may be ``left``), e.g. ``User`` (followee).
        right_field: Its map field holding this side, e.g. ``"fans"``.

    Raises:
        DeclarationError: A side is not a map field, or its model's key is not one field.
    """

    def __init__(
        self, store: Store, left: type[L], left_field: str, right: type[R], right_field: str
    ) -> None:
        self.store = store
        self.left = store.repository(left)
        self.right = store.repository(right)
        self.left_field = left_field
        self.right_field = right_field
        for repository, name in ((self.left, left_field), (self.right, right_field)):
            if name not in repository.info.maps:
                raise DeclarationError(
                    f"{repository.info.name}.{name} is not a map field",
                    table=repository.table,
                    field=name,
                )
            if len(repository.info.key_field_names) != 1:
                raise DeclarationError(
                    f"{repository.info.name} needs a one-field key: its id is the other "
                    "side's entry key",
                    table=repository.table,
                )
        self._left_key = self.left.info.key_field_names[0]
        self._right_key = self.right.info.key_field_names[0]

    def link(self, left_id: Any, right_id: Any, value: Any, right_value: Any = None) -> None:
        """Record the link on both sides, in one unit of work.

        ``left.left_field[right_id] = value`` and ``right.right_field[left_id] =
        right_value`` (``value`` when not given).
        """
        with self.store.unit_of_work() as unit:
            self.queue_link(unit, left_id, right_id, value, right_value)

    def queue_link(
        self, unit: UnitOfWork, left_id: Any, right_id: Any, value: Any, right_value: Any = None
    ) -> None:
        """Queue :meth:`link` in ``unit``, to send it with other writes (one mutate per table)."""
        other = value if right_value is None else right_value
        unit.put_entries(
            self.left.model, {self._left_key: left_id}, self.left_field, {right_id: value}
        )
        unit.put_entries(
            self.right.model, {self._right_key: right_id}, self.right_field, {left_id: other}
        )

    def unlink(self, left_id: Any, right_id: Any) -> None:
        """Remove the link from both sides (idempotent), in one unit of work."""
        with self.store.unit_of_work() as unit:
            self.queue_unlink(unit, left_id, right_id)

    def queue_unlink(self, unit: UnitOfWork, left_id: Any, right_id: Any) -> None:
        """Queue :meth:`unlink` in ``unit``."""
        unit.remove_entries(self.left.model, {self._left_key: left_id}, self.left_field, [right_id])
        unit.remove_entries(
            self.right.model, {self._right_key: right_id}, self.right_field, [left_id]
        )

    def of_left(self, left_id: Any) -> dict[Any, Any]:
        """The links of one left row: right id -> value (one round trip)."""
        return self.left.get_entries({self._left_key: left_id}, self.left_field)

    def of_right(self, right_id: Any) -> dict[Any, Any]:
        """The links of one right row: left id -> value (one round trip)."""
        return self.right.get_entries({self._right_key: right_id}, self.right_field)

    def verify(self, left_ids: Iterable[Any] | None = None) -> list[OneSidedLink]:
        """Links present on one side only.

        With ``left_ids`` only those left rows and the right rows they name or that name
        them are checked (a read per row); without, both sides are scanned whole (one scan
        per side, with only the relation's family).
        """
        left_links: dict[Any, dict[Any, Any]] = {}
        right_links: dict[Any, dict[Any, Any]] = {}
        if left_ids is None:
            left_links = _all_entries(self.left, self.left_field)
            right_links = _all_entries(self.right, self.right_field)
        else:
            for left_id in left_ids:
                left_links[left_id] = self.of_left(left_id)
            named = {r for links in left_links.values() for r in links}
            for right_id in named:
                right_links[right_id] = self.of_right(right_id)
        found: list[OneSidedLink] = []
        for left_id, links in left_links.items():
            for right_id, value in links.items():
                if left_id not in right_links.get(right_id, {}):
                    found.append(self._one_sided(left_id, right_id, "left", value))
        for right_id, links in right_links.items():
            for left_id, value in links.items():
                known = left_links.get(left_id)
                missing = right_id not in known if known is not None else left_ids is None
                if missing:
                    found.append(self._one_sided(left_id, right_id, "right", value))
        return found

    def _one_sided(self, left_id: Any, right_id: Any, side: str, value: Any) -> OneSidedLink:
        return OneSidedLink({self._left_key: left_id}, {self._right_key: right_id}, side, value)

    def repair(self, links: Iterable[OneSidedLink], *, complete: bool = True) -> int:
        """Fix one-sided links: complete them on the missing side, or remove them.

        Args:
            links: From :meth:`verify`.
            complete: Write the missing side (with the found side's value), else remove
                the side found.

        Returns:
            How many links were fixed.
        """
        count = 0
        for link in links:
            left_id = link.left[self._left_key]
            right_id = link.right[self._right_key]
            if complete:
                self.link(left_id, right_id, link.value)
            else:
                self.unlink(left_id, right_id)
            count += 1
        return count


def _all_entries(repository: Repository[Any], field: str) -> dict[Any, dict[Any, Any]]:
    """Every row's entries of one map field: one scan reading only the map's family."""
    key = repository.info.key_field_names[0]
    found: dict[Any, dict[Any, Any]] = {}
    rows = execute(repository.backend, repository.plan(fields=[field]))
    try:
        for _, result in rows:
            if not repository.mapper.matches(result.row):
                continue  # another record type sharing the table (R1)
            entries = repository.mapper.map_entries(field, result)
            if entries:
                found[repository.mapper.info.key.decode(result.row)[key]] = entries
    finally:
        rows.close()
    return found
