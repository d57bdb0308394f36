"""Relations kept on both sides (R6): map columns on each side, linked and unlinked together."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, TypeVar

import attrs

from hmodel.backend.base import Mutation, RowResult
from hmodel.backend.op import Call, Op, backoff_op, run
from hmodel.codecs import Raw
from hmodel.errors import ConflictError, DeclarationError, NotFoundError, ValidationError
from hmodel.patterns.guard import Outcome, RowGuard
from hmodel.patterns.storelike import END, StoreLike, UnitLike, pull
from hmodel.repository import Repository, Store, UnitOfWork, execute_op
from hmodel.repository.core import RepositoryCore

__all__ = ["OneSidedLink", "Relation", "RelationCore"]

L = TypeVar("L")
R = TypeVar("R")

#: How often a link is read again after a concurrent change before giving up.
ATTEMPTS = 20


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


class _Side:
    """One side of a relation: its repository, its map field, and how its ids are written."""

    def __init__(self, store: StoreLike, model: type, field: str) -> None:
        self.repository: RepositoryCore[Any, Any] = store.repository(model)
        self.field = field
        info = self.repository.info
        if field not in info.maps:
            raise DeclarationError(
                f"{info.name}.{field} is not a map field",
                table=self.repository.table,
                field=field,
            )
        self.names = info.key_field_names
        self.locked = info.version_field is not None
        self.guard = RowGuard(store.backend, self.repository.mapper)

    @property
    def table(self) -> str:
        return self.repository.table

    def key(self, ident: Any) -> dict[str, Any]:
        """The key fields of the row ``ident`` names: a value (one-field key), a tuple or a dict."""
        if len(self.names) == 1 and not isinstance(ident, Mapping):
            return {self.names[0]: ident}
        if isinstance(ident, Mapping):
            return dict(ident)
        if isinstance(ident, tuple) and len(ident) == len(self.names):
            return dict(zip(self.names, ident, strict=True))
        raise ValidationError(
            f"a {self.repository.info.name} id is a dict of its key fields {list(self.names)} "
            "or a tuple of them in key order",
            table=self.table,
            value=ident,
        )

    def row(self, ident: Any) -> bytes:
        return self.repository.mapper.key_of_values(self.key(ident))

    def entry_key(self, ident: Any) -> Any:
        """The other side's entry key for ``ident``: the id itself, or the rowkey bytes."""
        if len(self.names) == 1:
            return self.key(ident)[self.names[0]]
        return self.row(ident)

    def ident(self, entry_key: Any) -> Any:
        """The id an entry key stands for (a tuple of key values for a multi-field key)."""
        if len(self.names) == 1:
            return entry_key
        values = self.repository.mapper.info.key.decode(entry_key)
        return tuple(values[name] for name in self.names)

    def ident_of_row(self, row: bytes) -> Any:
        values = self.repository.mapper.info.key.decode(row)
        if len(self.names) == 1:
            return values[self.names[0]]
        return tuple(values[name] for name in self.names)

    def check_entry_keys(self, other: _Side) -> None:
        """A multi-field key of ``other`` is stored as its rowkey: this map must take bytes."""
        if len(other.names) > 1:
            owner = self.repository.info.maps[self.field]
            if not isinstance(owner.key_codec, Raw):
                raise DeclarationError(
                    f"{self.repository.info.name}.{self.field} holds "
                    f"{other.repository.info.name} ids, whose key has several fields: "
                    "declare it dict[bytes, ...] (each entry key is the other row's rowkey)",
                    table=self.table,
                    field=self.field,
                )


class RelationCore(Generic[L, R]):
    """The declaration and sans-I/O operations of a relation, shared by both edges (R6, F6).

    Not used directly: :class:`Relation` (over a :class:`~hmodel.repository.Store`) and
    :class:`hmodel.aio.AsyncRelation` (over an :class:`~hmodel.aio.AsyncStore`) run its
    operations; see :class:`Relation` for the arguments and what a link promises.
    """

    def __init__(
        self, store: StoreLike, left: type[L], left_field: str, right: type[R], right_field: str
    ) -> None:
        self.store = store
        self._l = _Side(store, left, left_field)
        self._r = _Side(store, right, right_field)
        self._l.check_entry_keys(self._r)
        self._r.check_entry_keys(self._l)
        self.left: RepositoryCore[L, Any] = self._l.repository
        self.right: RepositoryCore[R, Any] = self._r.repository
        self.left_field = left_field
        self.right_field = right_field

    # --- writes -------------------------------------------------------------------------

    def _link_op(self, left_id: Any, right_id: Any, value: Any, right_value: Any) -> Op[None]:
        """The operation of ``link``."""
        other = value if right_value is None else right_value
        writes = [
            (self._l, left_id, self._r.entry_key(right_id), value),
            (self._r, right_id, self._l.entry_key(left_id), other),
        ]
        reads = yield from self._read_op([(side, ident) for side, ident, _, _ in writes])
        for side, ident, _, _ in writes:
            if side.guard.required and not side.locked and reads.get(side.row(ident)) is None:
                raise self._missing(side, ident)
        done: list[tuple[_Side, Any, Any]] = []
        for side, ident, entry, entry_value in writes:
            read = reads.get(side.row(ident))
            outcome = yield from self._put_op(side, ident, entry, entry_value, read)
            if outcome is Outcome.GONE:
                for written, written_ident, written_entry in done:
                    yield from self._remove_op(written, written_ident, written_entry)
                raise self._missing(side, ident)
            done.append((side, ident, entry))

    def _missing(self, side: _Side, ident: Any) -> NotFoundError:
        return NotFoundError(
            f"no {side.repository.info.name} to link: a link never creates a row",
            table=side.table,
            row=side.row(ident),
        )

    def _read_op(self, pairs: Sequence[tuple[_Side, Any]]) -> Op[dict[bytes, RowResult]]:
        """The rows of the guarded sides, one ``get`` per table; rows not found left out."""
        by_table: dict[str, tuple[_Side, list[bytes]]] = {}
        for side, ident in pairs:
            if side.locked or not side.guard.required:
                continue
            by_table.setdefault(side.table, (side, []))[1].append(side.row(ident))
        found: dict[bytes, RowResult] = {}
        for side, rows in by_table.values():
            results = yield Call(
                "get",
                (side.table, list(dict.fromkeys(rows))),
                {"columns": list(side.guard.read_columns)},
            )
            found.update((r.row, r) for r in results if side.guard.exists(r))
        return found

    def _put_op(
        self, side: _Side, ident: Any, entry: Any, value: Any, read: RowResult | None
    ) -> Op[Outcome]:
        key = side.key(ident)
        if side.locked:
            outcome: Outcome = yield from self._save_locked_op(
                side, ident, lambda m: m.__setitem__(entry, value)
            )
            return outcome
        row = side.row(ident)
        mapper = side.repository.mapper
        for _ in range(ATTEMPTS):
            stamp = self.store.stamps.next(rows=(row,))
            puts: list[Mutation] = list(
                mapper.map_put(key, side.field, {entry: value}, timestamp=stamp)
            )
            if not side.guard.required:
                yield Call("mutate", (side.table, puts))
                return Outcome.APPLIED
            if read is None:
                return Outcome.GONE
            outcome = yield from side.guard._write_op(read, puts)
            if outcome is not Outcome.CHANGED:
                return outcome
            read = yield from side.guard._read_op(row)
            if not side.guard.exists(read):
                return Outcome.GONE
        raise ConflictError(
            f"this {side.repository.info.name} changed {ATTEMPTS} times during the link",
            table=side.table,
            row=row,
        )

    def _save_locked_op(
        self, side: _Side, ident: Any, change: Callable[[dict[Any, Any]], Any]
    ) -> Op[Outcome]:
        """Change a locked side's map through its repository's checked save."""
        key = side.key(ident)
        for attempt in range(ATTEMPTS):
            yield from backoff_op(attempt)  # after a conflict: another save may be in progress
            current = yield from side.repository._get_op(
                required=False, fields=None, as_of=None, key=key
            )
            if current is None:
                return Outcome.GONE
            entries = dict(getattr(current, side.field))
            change(entries)
            if entries == getattr(current, side.field):
                return Outcome.APPLIED
            setattr(current, side.field, entries)
            try:
                yield from side.repository._save_op(current, ttl=None, write_stamp=None)
            except ConflictError:
                continue
            return Outcome.APPLIED
        raise ConflictError(
            f"this {side.repository.info.name} changed {ATTEMPTS} times during the link",
            table=side.table,
            row=side.row(ident),
        )

    def _remove_op(self, side: _Side, ident: Any, entry: Any) -> Op[None]:
        if side.locked:
            yield from self._save_locked_op(side, ident, lambda m: m.pop(entry, None))
            return
        row = side.row(ident)
        stamp = self.store.stamps.next(rows=(row,))
        deletes = side.repository.mapper.map_delete(
            side.key(ident), side.field, [entry], timestamp=stamp
        )
        yield Call("mutate", (side.table, deletes))

    def _queue_link(
        self, unit: UnitLike, left_id: Any, right_id: Any, value: Any, right_value: Any
    ) -> None:
        """Queue both entries of a link in ``unit`` (see ``Relation.queue_link``)."""
        self._unguarded(unit)
        other = value if right_value is None else right_value
        unit.put_entries(
            self.left.model,
            self._l.key(left_id),
            self.left_field,
            {self._r.entry_key(right_id): value},
        )
        unit.put_entries(
            self.right.model,
            self._r.key(right_id),
            self.right_field,
            {self._l.entry_key(left_id): other},
        )

    def _unguarded(self, unit: UnitLike) -> None:
        for side in (self._l, self._r):
            if side.locked:
                unit.discard()
                raise ValidationError(
                    f"{side.repository.info.name} has a version field: its entries change "
                    "through its checked save; use Relation.link() / unlink()",
                    table=side.table,
                    field=side.field,
                )

    def _unlink_op(self, left_id: Any, right_id: Any) -> Op[None]:
        """The operation of ``unlink``: one unit of work, or each locked side's save."""
        if self._l.locked or self._r.locked:
            yield from self._remove_op(self._l, left_id, self._r.entry_key(right_id))
            yield from self._remove_op(self._r, right_id, self._l.entry_key(left_id))
            return
        unit: UnitLike = self.store.unit_of_work()
        try:
            self._queue_unlink(unit, left_id, right_id)
        except BaseException:
            unit.discard()
            raise
        yield from unit._commit_op()

    def _queue_unlink(self, unit: UnitLike, left_id: Any, right_id: Any) -> None:
        """Queue an unlink in ``unit`` (see ``Relation.queue_unlink``)."""
        self._unguarded(unit)
        unit.remove_entries(
            self.left.model, self._l.key(left_id), self.left_field, [self._r.entry_key(right_id)]
        )
        unit.remove_entries(
            self.right.model,
            self._r.key(right_id),
            self.right_field,
            [self._l.entry_key(left_id)],
        )

    # --- reads --------------------------------------------------------------------------

    def left_id(self, left_id: Any) -> Any:
        """``left_id`` as reads give ids back: the value of a one-field key, else a tuple."""
        return self._ident(self._l, left_id)

    def left_row(self, left_id: Any) -> bytes:
        """The rowkey of the left row ``left_id`` names."""
        return self._l.row(left_id)

    def _of_left_op(self, left_id: Any) -> Op[dict[Any, Any]]:
        """The operation of ``of_left`` (one ``get``)."""
        entries = yield from self.left._get_entries_op(self._l.key(left_id), self.left_field, None)
        return {self._r.ident(k): v for k, v in entries.items()}

    def _of_right_op(self, right_id: Any) -> Op[dict[Any, Any]]:
        """The operation of ``of_right`` (one ``get``)."""
        entries = yield from self.right._get_entries_op(
            self._r.key(right_id), self.right_field, None
        )
        return {self._l.ident(k): v for k, v in entries.items()}

    def _of_left_many_op(self, left_ids: Sequence[Any]) -> Op[list[dict[Any, Any]]]:
        """The operation of ``of_left_many`` (one ``get``)."""
        return (yield from _entries_of_op(self._l, self._r, left_ids))

    def _of_right_many_op(self, right_ids: Sequence[Any]) -> Op[list[dict[Any, Any]]]:
        """The operation of ``of_right_many`` (one ``get``)."""
        return (yield from _entries_of_op(self._r, self._l, right_ids))

    def _all_of_left_op(self) -> Op[dict[Any, dict[Any, Any]]]:
        """The operation of ``all_of_left`` (one scan)."""
        return (yield from _all_entries_op(self._l, self._r))

    def _verify_op(self, left_ids: Iterable[Any] | None) -> Op[list[OneSidedLink]]:
        """The operation of ``verify``."""
        left_links: dict[Any, dict[Any, Any]] = {}
        right_links: dict[Any, dict[Any, Any]] = {}
        if left_ids is None:
            left_links = yield from _all_entries_op(self._l, self._r)
            right_links = yield from _all_entries_op(self._r, self._l)
        else:
            for left_id in left_ids:
                left_links[self._ident(self._l, left_id)] = yield from self._of_left_op(left_id)
            named = {r for links in left_links.values() for r in links}
            for right_id in named:
                right_links[right_id] = yield from self._of_right_op(right_id)
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

    @staticmethod
    def _ident(side: _Side, ident: Any) -> Any:
        """``ident`` as ``of_left`` and ``of_right`` give ids back (hashable)."""
        if len(side.names) == 1:
            return side.key(ident)[side.names[0]]
        key = side.key(ident)
        return tuple(key[name] for name in side.names)

    def _one_sided(self, left_id: Any, right_id: Any, side: str, value: Any) -> OneSidedLink:
        return OneSidedLink(self._l.key(left_id), self._r.key(right_id), side, value)

    def _repair_op(self, links: Iterable[OneSidedLink], complete: bool) -> Op[int]:
        """The operation of ``repair``."""
        count = 0
        for link in links:
            left_id, right_id = dict(link.left), dict(link.right)
            if complete:
                try:
                    yield from self._link_op(left_id, right_id, link.value, None)
                except NotFoundError:
                    yield from self._unlink_op(left_id, right_id)
            else:
                yield from self._unlink_op(left_id, right_id)
            count += 1
        return count


class Relation(RelationCore[L, R]):
    """A many-to-many relation stored as map columns on both sides (R6, F6).

    A relation is kept as wide rows on both sides instead of a join table: a shop row has
    ``item:<item id>`` columns and an item row ``shop:<shop id>`` columns; a user has
    ``follows:<id>`` and ``fans:<id>``. Each side is a ``map_field`` keyed by the other
    side's id. A side whose key has one field is named by that value; a side whose key
    has several is named by a dict of its key fields or a tuple of them in key order, and
    the other side's map must be declared ``dict[bytes, ...]`` (its entry keys are this
    side's rowkeys; :meth:`of_left` and :meth:`of_right` give them back as tuples).

    **What a link promises.** :meth:`link` never creates a row: both rows are read first
    (one ``get`` per table) and a missing one raises
    :class:`~hmodel.errors.NotFoundError` naming its table and row, with nothing written.
    Each side's entry is then written by a guarded write
    (:class:`~hmodel.patterns.guard.RowGuard`: one ``check_and_mutate`` checking a
    cell of the row read, on the memory engine and Thrift2; over Thrift1 a ``mutate`` of
    both sides, a ``get`` back, and the entries of a row found deleted removed again). A
    side deleted between the read and the write is not re-created: the other side's
    entry is removed again and ``NotFoundError`` raised. A side whose model has no
    required field is a valid row with only its entries, so it is written without a
    guard (a link may create it). Entries are stamped by the store's write stamps, so a
    later link or unlink of this process always wins over an earlier one.

    :meth:`unlink` only deletes entries: it never creates a row. Both calls are
    idempotent, so calling again repairs a half-done one; the rows are not one
    transaction (HBase has none across rows), so a crash between the two sides leaves a
    one-sided link, which :meth:`verify` finds and :meth:`repair` fixes.

    A side with a version field (optimistic locking) is written through its repository:
    read the row, change the map, save with the version check, and read again on a
    conflict; so a link never undoes a concurrent locked save, nor is undone by one.

    Every method runs the operation :class:`RelationCore` defines (sans-I/O, see
    :mod:`hmodel.backend.op`); :class:`hmodel.aio.AsyncRelation` runs the same ones from
    an asyncio event loop.

    Args:
        store: Where both models live.
        left: The model of one side, e.g. ``User`` (follower).
        left_field: Its map field holding the other side, e.g. ``"follows"``.
        right: The model of the other side (may be ``left``), e.g. ``User`` (followee).
        right_field: Its map field holding this side, e.g. ``"fans"``.

    Raises:
        DeclarationError: A side is not a map field, or holds ids of a multi-field key
            without bytes entry keys.
    """

    left: Repository[L]
    right: Repository[R]

    def __init__(
        self, store: Store, left: type[L], left_field: str, right: type[R], right_field: str
    ) -> None:
        super().__init__(store, left, left_field, right, right_field)

    # --- writes -------------------------------------------------------------------------

    def link(self, left_id: Any, right_id: Any, value: Any, right_value: Any = None) -> None:
        """Record the link on both sides, never creating a row.

        ``left.left_field[right id] = value`` and ``right.right_field[left id] =
        right_value`` (``value`` when not given).

        Round trips: one ``get`` per table, then one ``check_and_mutate`` per side (over
        Thrift1: a ``mutate`` and a ``get`` per table); a locked side: a read and a
        checked save.

        Raises:
            NotFoundError: A side's row does not exist (or was deleted meanwhile); the
                other side's entry is not left behind.
            ConflictError: A locked side kept changing through every attempt.
        """
        run(self._link_op(left_id, right_id, value, right_value), self.store.backend)

    def queue_link(
        self, unit: UnitOfWork, left_id: Any, right_id: Any, value: Any, right_value: Any = None
    ) -> None:
        """Queue both entries of :meth:`link` in ``unit``, unguarded (one mutate per table).

        For rows known to exist (the caller read them): a unit of work writes without a
        check, so a row deleted before the unit commits would come back as a partial
        row. :meth:`link` guards each side. Not for locked sides (use :meth:`link`).
        """
        self._queue_link(unit, left_id, right_id, value, right_value)

    def unlink(self, left_id: Any, right_id: Any) -> None:
        """Remove the link from both sides (idempotent); never creates a row.

        One unit of work (one ``mutate`` per table); a locked side through its checked
        save (a read and a save, none if the row or the entry is gone).
        """
        run(self._unlink_op(left_id, right_id), self.store.backend)

    def queue_unlink(self, unit: UnitOfWork, left_id: Any, right_id: Any) -> None:
        """Queue :meth:`unlink` in ``unit`` (deletes only: never creates a row)."""
        self._queue_unlink(unit, left_id, right_id)

    # --- reads --------------------------------------------------------------------------

    def of_left(self, left_id: Any) -> dict[Any, Any]:
        """The links of one left row: right id -> value (one round trip)."""
        return run(self._of_left_op(left_id), self.store.backend)

    def of_right(self, right_id: Any) -> dict[Any, Any]:
        """The links of one right row: left id -> value (one round trip)."""
        return run(self._of_right_op(right_id), self.store.backend)

    def of_left_many(self, left_ids: Sequence[Any]) -> list[dict[Any, Any]]:
        """The links of several left rows, aligned with ``left_ids`` (one ``get_many``).

        A missing row has no links (``{}``).
        """
        return run(self._of_left_many_op(left_ids), self.store.backend)

    def of_right_many(self, right_ids: Sequence[Any]) -> list[dict[Any, Any]]:
        """The links of several right rows, aligned with ``right_ids`` (one ``get_many``)."""
        return run(self._of_right_many_op(right_ids), self.store.backend)

    def all_of_left(self) -> dict[Any, dict[Any, Any]]:
        """Every left row's links: left id -> right id -> value (rows with none left out).

        One scan of the left table, reading only the relation's family.
        """
        return run(self._all_of_left_op(), self.store.backend)

    def verify(self, left_ids: Iterable[Any] | None = None) -> list[OneSidedLink]:
        """Links present on one side only.

        With ``left_ids`` only those left rows and the right rows they name or that name
        them are checked (a read per row); without, both sides are scanned whole (one scan
        per side, with only the relation's family).
        """
        return run(self._verify_op(left_ids), self.store.backend)

    def repair(self, links: Iterable[OneSidedLink], *, complete: bool = True) -> int:
        """Fix one-sided links: complete them on the missing side, or remove them.

        A link whose other row does not exist any more cannot be completed: its side is
        removed instead.

        Args:
            links: From :meth:`verify`.
            complete: Write the missing side (with the found side's value), else remove
                the side found.

        Returns:
            How many links were fixed.
        """
        return run(self._repair_op(links, complete), self.store.backend)


def _entries_of_op(side: _Side, other: _Side, ids: Sequence[Any]) -> Op[list[dict[Any, Any]]]:
    """One side's map of each row named: one multi-get of only the map's columns."""
    if not ids:
        return []
    repository = side.repository
    mapper = repository.mapper
    rows = [side.row(ident) for ident in ids]
    results = yield Call(
        "get",
        (repository.table, list(dict.fromkeys(rows))),
        {"columns": mapper.map_columns(side.field)},
    )
    found = {r.row: mapper.map_entries(side.field, r) for r in results}
    return [{other.ident(k): v for k, v in found.get(row, {}).items()} for row in rows]


def _all_entries_op(side: _Side, other: _Side) -> Op[dict[Any, dict[Any, Any]]]:
    """Every row's entries of one side's map: one scan reading only the map's family."""
    repository = side.repository
    found: dict[Any, dict[Any, Any]] = {}
    rows = execute_op(repository.plan(fields=[side.field]))
    try:
        while True:
            item = yield from pull(rows)
            if item is END:
                break
            result = item[1]
            if not repository.mapper.matches(result.row):
                continue  # another record type sharing the table (R1)
            entries = repository.mapper.map_entries(side.field, result)
            if entries:
                found[side.ident_of_row(result.row)] = {
                    other.ident(k): v for k, v in entries.items()
                }
    finally:
        rows.close()
    return found
