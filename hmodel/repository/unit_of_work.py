"""A unit of work: collect saves, updates and deletes, send them in one round trip per table."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from types import TracebackType
from typing import Any

from hmodel.backend.base import Backend, Delete, Mutation
from hmodel.clock import Clock, system_clock
from hmodel.errors import ValidationError
from hmodel.mapping import Mapper

__all__ = ["UnitOfWork"]


class UnitOfWork:
    """Batches writes of any models; :meth:`commit` sends one ``mutate`` per table.

    Everything is validated when it is added, so a bad instance is rejected before
    anything is sent. All writes of one unit share one timestamp, so each table costs
    one round trip, or two when a saved model has a map owning its family (its clearing
    family delete is one millisecond older, a second Thrift1 ``mutateRowsTs``). The last
    operation queued on a row wins. Rows are atomic one by one (HBase row atomicity);
    the unit as a whole is not a transaction. Models with a
    version field are refused (their saves need a check-and-put each).

    Used as a context manager, it commits when the block ends without an exception and
    discards everything otherwise.

    Args:
        backend: Where to write.
        clock: Epoch-ms clock for the shared timestamp.

    Example:
        >>> from hmodel.backend.memory import MemoryBackend
        >>> uow = UnitOfWork(MemoryBackend())
        >>> uow.pending
        0
    """

    def __init__(self, backend: Backend, *, clock: Clock = system_clock) -> None:
        self.backend = backend
        self._clock = clock
        self._timestamp: int | None = None
        self._by_table: dict[str, list[Mutation]] = {}
        self._mappers: dict[type, Mapper[Any]] = {}

    @property
    def pending(self) -> int:
        """How many mutations wait to be sent."""
        return sum(len(m) for m in self._by_table.values())

    def _mapper(self, model: type) -> Mapper[Any]:
        mapper = self._mappers.get(model)
        if mapper is None:
            mapper = self._mappers[model] = Mapper(model)
            if mapper.info.version_field is not None:
                raise ValidationError(
                    f"{model.__name__} has a version field: save it through Repository.save",
                    table=mapper.info.table.full_name,
                )
        return mapper

    def _stamp(self) -> int:
        if self._timestamp is None:
            self._timestamp = self._clock()
        return self._timestamp

    def _add(
        self,
        mapper: Mapper[Any],
        row: bytes,
        mutations: list[Mutation],
        supersedes: Callable[[bytes | None], bool],
    ) -> None:
        """Queue ``mutations`` of ``row`` so that the last operation on a row wins.

        All writes of a unit share one timestamp, and a delete hides puts at its own
        timestamp; so a queued row delete followed by a write of the same row is moved one
        millisecond back (it still clears everything older), and a new operation drops the
        queued mutations of the row whose column it ``supersedes``: a row delete all of
        them, a full save those of its model's columns (other models sharing the row
        keep theirs), a partial update those of the same columns.
        """
        queue = self._by_table.setdefault(mapper.info.table.full_name, [])
        deletes_row = any(isinstance(m, Delete) and m.column is None for m in mutations)
        kept: list[Mutation] = []
        for queued in queue:
            if queued.row != row:
                kept.append(queued)
            elif isinstance(queued, Delete) and queued.column is None:
                if not deletes_row:  # delete, then write: the delete must not hide the write
                    kept.append(Delete(row, None, self._stamp() - 1))
            elif not supersedes(queued.column):
                kept.append(queued)
        kept.extend(mutations)
        queue[:] = kept

    def save(self, obj: object, *, ttl: timedelta | None = None) -> None:
        """Queue a full save of ``obj`` (as :meth:`Repository.save`)."""
        mapper = self._mapper(type(obj))
        chosen = ttl if ttl is not None else mapper.info.ttl
        ttl_ms = None if chosen is None else int(chosen.total_seconds() * 1000)
        mutations = mapper.to_mutations(obj, timestamp=self._stamp(), ttl_ms=ttl_ms)
        own = mapper.field_of
        self._add(
            mapper, mapper.rowkey(obj), mutations, lambda c: c is not None and own(c) is not None
        )

    def update(self, model: type, key: Mapping[str, Any], **changes: Any) -> None:
        """Queue a partial update of one row of ``model`` (as :meth:`Repository.update`)."""
        mapper = self._mapper(model)
        mutations = mapper.to_partial_mutations(dict(key), changes, timestamp=self._stamp())
        columns = {m.column for m in mutations}
        self._add(mapper, mapper.key_of(**key), mutations, columns.__contains__)

    def delete(self, model: type, **key: Any) -> None:
        """Queue the deletion of one row of ``model`` by its key fields."""
        mapper = self._mapper(model)
        row = mapper.key_of(**key)
        self._add(mapper, row, [Delete(row, timestamp=self._stamp())], lambda _: True)

    def commit(self) -> int:
        """Send everything queued, one ``mutate`` per table; return the round trips used."""
        before = self.backend.round_trips
        try:
            for table, mutations in self._by_table.items():
                self.backend.mutate(table, mutations)
        finally:
            self._by_table.clear()
            self._timestamp = None
        return self.backend.round_trips - before

    def discard(self) -> None:
        """Drop everything queued."""
        self._by_table.clear()
        self._timestamp = None

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
