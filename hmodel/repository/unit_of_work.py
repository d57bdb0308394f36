"""A unit of work: collect saves, updates and deletes, send them in one ``mutate`` per table."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from types import TracebackType
from typing import Any, Generic, TypeVar

import attrs

from hmodel.backend.base import Backend, Delete, Increment, Mutation, Put, RowResult
from hmodel.backend.op import Call, Op, run
from hmodel.clock import Clock, WriteStamps, stamps_for, system_clock
from hmodel.errors import ValidationError
from hmodel.mapping import Mapper
from hmodel.repository.event import Listener, QueryEvent

__all__ = ["UnitOfWork", "UnitOfWorkCore"]

#: The backend type: a ``Backend`` (synchronous edge) or an ``AsyncBackend``.
B = TypeVar("B")

#: Queued mutations carry one of two relative stamps, made real at commit: the write's
#: stamp, and the one before it for deletes that must hide only what is older (a map's
#: family, a row deleted and then written again in the same unit).
_CLEAR = 1
_WRITE = 2


@attrs.frozen
class _Replace:
    """A queued write of prefixed maps of one row: their old entries are read at commit."""

    mapper: Mapper[Any]
    row: bytes
    fields: tuple[str, ...] | None  # the map fields replaced; None: all of the model's


class UnitOfWorkCore(Generic[B]):
    """The queue and the commit operation (sans-I/O) shared by both unit-of-work edges.

    Not used directly: :class:`UnitOfWork` (synchronous) and
    :class:`hmodel.aio.AsyncUnitOfWork` (asyncio) are its facades; the queueing
    methods are these, and each edge's ``commit`` runs :meth:`_commit_op`. ``backend``
    is a :class:`~hmodel.backend.base.Backend` or an
    :class:`~hmodel.backend.aio.AsyncBackend`.
    """

    def __init__(
        self,
        backend: B,
        *,
        clock: Clock = system_clock,
        stamps: WriteStamps | None = None,
        listeners: Sequence[Listener] = (),
    ) -> None:
        self.backend = backend
        self._stamps = stamps if stamps is not None else stamps_for(clock)
        self._listeners = list(listeners)
        self._by_table: dict[str, list[Mutation]] = {}
        self._increments: dict[str, list[Increment]] = {}
        self._replaces: dict[str, dict[bytes, _Replace]] = {}
        self._mappers: dict[type, Mapper[Any]] = {}

    @property
    def pending(self) -> int:
        """How many mutations and increments wait to be sent."""
        return sum(len(m) for m in self._by_table.values()) + sum(
            len(i) for i in self._increments.values()
        )

    def _mapper(self, model: type) -> Mapper[Any]:
        mapper = self._mappers.get(model)
        if mapper is None:
            mapper = self._mappers[model] = Mapper(model)
            if mapper.info.version_field is not None:
                raise ValidationError(
                    f"{model.__name__} has a version field, and a unit of work writes without "
                    "a version check: save or delete it through Repository.save/delete (one "
                    "checked write each), and change its map entries through Relation.link/"
                    "unlink, which go through the check",
                    table=mapper.info.table.full_name,
                )
        return mapper

    def _add(
        self,
        mapper: Mapper[Any],
        row: bytes,
        mutations: list[Mutation],
        supersedes: Callable[[bytes | None], bool],
        replace: _Replace | None = None,
    ) -> None:
        """Queue ``mutations`` of ``row`` so that the last operation on a row wins.

        A queued row delete followed by a write of the same row is moved to the clearing
        stamp (it still clears everything older, not the write), and a new operation drops
        the queued mutations of the row whose column it ``supersedes``: a row delete all of
        them, a full save those of its model's columns (other models sharing the row keep
        theirs), a partial update those of the same columns.
        """
        table = mapper.info.table.full_name
        queue = self._by_table.setdefault(table, [])
        deletes_row = any(isinstance(m, Delete) and m.column is None for m in mutations)
        kept: list[Mutation] = []
        for queued in queue:
            if queued.row != row:
                kept.append(queued)
            elif isinstance(queued, Delete) and queued.column is None:
                if not deletes_row:  # delete, then write: the delete must not hide the write
                    kept.append(Delete(row, None, _CLEAR))
            elif not supersedes(queued.column):
                kept.append(queued)
        kept.extend(mutations)
        queue[:] = kept
        replaces = self._replaces.setdefault(table, {})
        if deletes_row:
            replaces.pop(row, None)
        if replace is not None:
            replaces[row] = replace

    def save(self, obj: object, *, ttl: timedelta | None = None) -> None:
        """Queue a full save of ``obj`` (as :meth:`Repository.save`)."""
        mapper = self._mapper(type(obj))
        row = mapper.rowkey(obj)
        mutations = mapper.to_mutations(obj, timestamp=_WRITE, ttl_ms=mapper.ttl_of(ttl), row=row)
        own = mapper.field_of
        replace = _Replace(mapper, row, None) if mapper.previous_families() else None
        self._add(mapper, row, mutations, lambda c: c is not None and own(c) is not None, replace)

    def update(
        self, model: type, key: Mapping[str, Any], *, ttl: timedelta | None = None, **changes: Any
    ) -> None:
        """Queue a partial update of one row of ``model`` (as :meth:`Repository.update`)."""
        mapper = self._mapper(model)
        mutations = mapper.to_partial_mutations(
            dict(key), changes, timestamp=_WRITE, ttl_ms=mapper.ttl_of(ttl)
        )
        row = mapper.key_of(**key)
        columns = {m.column for m in mutations}
        replaced = tuple(changes)
        replace = _Replace(mapper, row, replaced) if mapper.previous_families(replaced) else None
        self._add(mapper, row, mutations, columns.__contains__, replace)

    def delete(self, model: type, **key: Any) -> None:
        """Queue the deletion of one row of ``model`` by its key fields."""
        mapper = self._mapper(model)
        row = mapper.key_of(**key)
        self._add(mapper, row, [Delete(row, timestamp=_WRITE)], lambda _: True)

    def put_entries(
        self, model: type, key: Mapping[str, Any], field: str, entries: Mapping[Any, Any]
    ) -> None:
        """Queue entries added to a map field (as :meth:`Repository.put_entries`)."""
        mapper = self._mapper(model)
        row = mapper.key_of(**key)
        puts: list[Mutation] = list(mapper.map_put(dict(key), field, entries, timestamp=_WRITE))
        columns = {m.column for m in puts}
        self._add(mapper, row, puts, columns.__contains__)

    def remove_entries(
        self, model: type, key: Mapping[str, Any], field: str, names: Sequence[Any]
    ) -> None:
        """Queue entries removed from a map field (as :meth:`Repository.remove_entries`)."""
        mapper = self._mapper(model)
        row = mapper.key_of(**key)
        deletes: list[Mutation] = list(mapper.map_delete(dict(key), field, names, timestamp=_WRITE))
        columns = {m.column for m in deletes}
        self._add(mapper, row, deletes, columns.__contains__)

    def change_entries(
        self,
        model: type,
        key: Mapping[str, Any],
        field: str,
        *,
        put: Mapping[Any, Any] | None = None,
        remove: Sequence[Any] = (),
    ) -> None:
        """Queue a map-entry change of one row (as :meth:`Repository.change_entries`).

        Its puts and deletes travel in the table's one ``mutate`` of the commit, at the
        unit's one stamp. Atomic on the row on the memory engine (the whole call is), and
        over Thrift2 when the row is the only one the unit writes to its table (one
        ``mutateRow``; with other rows the table's puts go in one ``putMultiple`` and its
        deletes in a ``deleteMultiple`` after it). Over Thrift1 the server applies the
        call's puts, then its deletes. Where not atomic, a reader in between sees the new
        entries and the old ones together, never neither: use
        :meth:`Repository.change_entries` for a change that must be atomic.

        Raises:
            ValidationError: As :meth:`Repository.change_entries`; nothing is queued.
        """
        mapper = self._mapper(model)
        row = mapper.key_of(**key)
        changed = mapper.map_change(
            dict(key), field, {} if put is None else put, remove, timestamp=_WRITE
        )
        columns = {m.column for m in changed}
        self._add(mapper, row, changed, columns.__contains__)

    def increment(self, model: type, key: Mapping[str, Any], **amounts: int) -> None:
        """Queue counter increments of one row (sent after the unit's mutations, F10)."""
        mapper = self._mapper(model)
        row = mapper.key_of(**key)
        if not amounts:
            raise ValidationError(
                "name at least one counter to increment", table=mapper.info.table.full_name
            )
        checked = [
            Increment(row, mapper.counter_column(name, amount), amount)
            for name, amount in amounts.items()
        ]  # every one is checked before any is queued
        self._increments.setdefault(mapper.info.table.full_name, []).extend(checked)

    def _stale_op(self, table: str, queue: Sequence[Mutation], write: int) -> Op[list[Mutation]]:
        """Read the prefixed maps being replaced (one round trip) and delete what is gone."""
        replaces = self._replaces.get(table)
        if not replaces:
            return []
        families = sorted(
            {f for r in replaces.values() for f in r.mapper.previous_families(r.fields)}
        )
        results: list[RowResult] = yield Call("get", (table, list(replaces)), {"columns": families})
        found = {r.row: r for r in results}
        deletes: list[Mutation] = []
        for row, replace in replaces.items():
            stored = found.get(row)
            if stored is None:
                continue
            written = [m.column for m in queue if isinstance(m, Put) and m.row == row]
            deletes.extend(
                replace.mapper.stale_entries(
                    stored, written, timestamp=write, field_names=replace.fields
                )
            )
        return deletes

    def _commit_op(self) -> Op[int]:
        """The operation of ``commit``: a ``mutate`` per table, then an ``increment_many``.

        A table whose queue replaces prefixed maps is read first (one ``get``). The queue
        is emptied however it ends (an error, a cancellation).
        """
        backend: Any = self.backend
        before = backend.round_trips
        started_ns, began = time.time_ns(), time.perf_counter_ns()
        tables = list(dict.fromkeys([*self._by_table, *self._increments]))
        rows = tuple(
            dict.fromkeys(
                [m.row for ms in self._by_table.values() for m in ms]
                + [i.row for increments in self._increments.values() for i in increments]
            )
        )
        sent = self.pending
        try:
            queued = [m for ms in self._by_table.values() for m in ms]
            count = 2 if any(m.timestamp == _CLEAR for m in queued) else 1
            first = self._stamps.next(count, rows=rows) if queued else 0
            stamp = {_CLEAR: first, _WRITE: first + count - 1}
            for table, mutations in self._by_table.items():
                real = [_stamped(m, stamp) for m in mutations]
                real.extend((yield from self._stale_op(table, mutations, stamp[_WRITE])))
                if real:
                    yield Call("mutate", (table, real))
            for table, increments in self._increments.items():
                if increments:
                    yield Call("increment_many", (table, increments))
        finally:
            self.discard()
        spent: int = backend.round_trips - before
        if self._listeners and tables:
            event = QueryEvent(
                "commit",
                ",".join(tables),
                rows=rows,
                round_trips=spent,
                results=sent,
                started_ns=started_ns,
                duration_ns=time.perf_counter_ns() - began,
            )
            for listener in self._listeners:
                listener(event)
        return spent

    def discard(self) -> None:
        """Drop everything queued."""
        self._by_table.clear()
        self._replaces.clear()
        self._increments.clear()


class UnitOfWork(UnitOfWorkCore[Backend]):
    """Batches writes of any models; :meth:`commit` sends one ``mutate`` per table.

    Every kind of write a repository makes can be queued: saves (of several models),
    partial updates, deletes, map entries put or removed, and counter increments (sent
    after the mutations, one ``increment_many`` per table; each increment is atomic on
    its own, F10).

    Everything is validated when it is added, so a bad instance is rejected before
    anything is sent. The writes are stamped when the unit commits, by the process's
    :class:`~hmodel.clock.WriteStamps` for ``clock`` (the same as the repositories'), so
    they are ordered after every earlier write of the process and before every later one.
    All writes of a unit share one stamp; deletes that must hide only older cells (a map
    owning its family, a row deleted and then written again in the unit) take the stamp
    just before it.

    Round trips per table: one, plus one when a saved model has a map owning its family
    over Thrift1 (its family delete, a stamp older, is a second ``mutateRowsTs``; one
    atomic row mutation on the memory engine and Thrift2), plus one read when a saved or
    updated map has a prefix (its old entries are found by name). The last operation
    queued on a row wins. Rows are atomic one by one (HBase row atomicity); the unit as a
    whole is not a transaction. Models with a version field are refused when queued, with
    a :class:`~hmodel.errors.ValidationError` naming the alternative: their saves and
    deletes need a checked write each (``Repository.save``/``delete``), and a
    relation's entries on them change through ``Relation.link``/``unlink``.

    Used as a context manager, it commits when the block ends without an exception and
    discards everything otherwise.

    Args:
        backend: Where to write.
        clock: Epoch-ms clock the stamps follow.
        stamps: The write stamps; default: the process's stamps for ``clock``.
        listeners: Told of one :class:`~hmodel.repository.event.QueryEvent` per commit
            (operation ``"commit"``, the tables comma-separated, the rows written).

    Example:
        >>> from hmodel.backend.memory import MemoryBackend
        >>> uow = UnitOfWork(MemoryBackend())
        >>> uow.pending
        0
    """

    def commit(self) -> int:
        """Stamp and send everything queued, one ``mutate`` per table; return the round trips.

        A table's ``mutate`` is one round trip on the memory engine and over Thrift1
        (``mutateRowsTs``); over Thrift2, one ``mutateRow`` for one row, else a
        ``putMultiple`` and a ``deleteMultiple`` when it both puts and deletes (the count
        returned is the backend's).

        Raises:
            BackendError: A table's mutate failed; tables sent before it stay written.
        """
        return run(self._commit_op(), self.backend)

    def __enter__(self) -> UnitOfWork:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


def _stamped(mutation: Mutation, stamp: Mapping[int, int]) -> Mutation:
    """``mutation`` with its relative stamp replaced by the real one."""
    real = stamp[mutation.timestamp or _WRITE]
    if isinstance(mutation, Put):
        return Put(mutation.row, mutation.column, mutation.value, real, mutation.ttl)
    return Delete(mutation.row, mutation.column, real)
