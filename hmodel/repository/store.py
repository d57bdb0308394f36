"""A Store: one backend, clock, stamps, listeners and token key shared by many repositories."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any, Generic, TypeVar

from hmodel.backend.base import Backend
from hmodel.backend.op import create_tables_op, run
from hmodel.clock import Clock, WriteStamps, stamps_for, system_clock
from hmodel.model import model_info
from hmodel.repository.event import Listener, QueryEvent
from hmodel.repository.repository import Repository
from hmodel.repository.unit_of_work import UnitOfWork
from hmodel.schema import Table

__all__ = ["Store", "StoreCore"]

M = TypeVar("M")
B = TypeVar("B")


class StoreCore(Generic[B]):
    """What a :class:`Store` and an :class:`~hmodel.aio.AsyncStore` share (no I/O).

    The backend, clock, write stamps, page-token key, listeners and repository options;
    each edge builds its own repositories and units of work from them.
    """

    def __init__(
        self,
        backend: B,
        *,
        clock: Clock = system_clock,
        stamps: WriteStamps | None = None,
        token_secret: bytes | None = None,
        listeners: Sequence[Listener] = (),
        scan_batch_size: int = 1000,
        lock_lease: timedelta = timedelta(seconds=30),
    ) -> None:
        self.backend = backend
        self.clock = clock
        self.stamps = stamps if stamps is not None else stamps_for(clock)
        self.token_secret = token_secret
        self._listeners = list(listeners)
        self._options: dict[str, Any] = {
            "scan_batch_size": scan_batch_size,
            "lock_lease": lock_lease,
        }
        self._repositories: dict[type, Any] = {}

    def _tell(self, event: QueryEvent) -> None:
        for listener in self._listeners:
            listener(event)

    def add_listener(self, listener: Listener) -> None:
        """Tell ``listener`` of every later event of every repository and unit of work."""
        self._listeners.append(listener)

    def _repository_options(self) -> dict[str, Any]:
        """The keywords every repository of the store is built with."""
        return {
            "clock": self.clock,
            "stamps": self.stamps,
            "token_secret": self.token_secret,
            "listeners": [self._tell],
            **self._options,
        }

    @staticmethod
    def _tables_of(models: tuple[type, ...]) -> list[Table]:
        """The tables of ``models``, each once, in order."""
        tables: dict[str, Table] = {}
        for cls in models:
            table = model_info(cls).table
            tables.setdefault(table.full_name, table)
        return list(tables.values())


class Store(StoreCore[Backend]):
    """What every repository of an application shares: the session of SQLAlchemy's ORM.

    One store per backend: it hands out one cached :class:`Repository` per model, opens
    units of work, and gives them all the same clock, write stamps (so their writes are
    ordered with each other), listeners and page-token key. Swap the backend and nothing
    else changes.

    Args:
        backend: Any :class:`~hmodel.backend.base.Backend`.
        clock: Epoch-ms clock the write stamps follow (and lock leases).
        stamps: The write stamps; default: the process's stamps for ``clock``.
        token_secret: HMAC key of page tokens; default: the process's random key, shared
            by every store and repository of the process (a store built per request
            serves the next page of another's token). A service running several
            processes must pass the same secret to each.
        listeners: Told of every :class:`QueryEvent` of every repository and unit of work.
        scan_batch_size: Rows per round trip of scans.
        lock_lease: Over Thrift1, how long a half-finished locked save blocks writers.

    Example:
        >>> from hmodel import Family, Key, Str, Table, field, model
        >>> from hmodel.backend.memory import MemoryBackend
        >>> @model(Table("pet", [Family("p")]), key=Key(Str("name")))
        ... class Pet:
        ...     name: str
        ...     kind: str = field("p:k")
        >>> store = Store(MemoryBackend())
        >>> store.create_tables(Pet)
        >>> with store.unit_of_work() as unit:
        ...     unit.save(Pet(name="rex", kind="dog"))
        >>> store.repository(Pet).get(name="rex")
        Pet(name='rex', kind='dog')
        >>> store.repository(Pet) is store.repository(Pet)
        True
    """

    def repository(self, model: type[M]) -> Repository[M]:
        """The store's repository of ``model`` (built once, then cached).

        Raises:
            DeclarationError: ``model`` is not a model class.
        """
        found = self._repositories.get(model)
        if found is None:
            found = Repository(model, self.backend, **self._repository_options())
            self._repositories[model] = found
        result: Repository[M] = found
        return result

    def unit_of_work(self) -> UnitOfWork:
        """A new unit of work on the store's backend, stamps and listeners."""
        return UnitOfWork(self.backend, stamps=self.stamps, listeners=[self._tell])

    def create_tables(self, *models: type, exist_ok: bool = True) -> None:
        """Create the tables of ``models`` (each table once; one round trip per table).

        Raises:
            TableExistsError: A table exists and ``exist_ok`` is false.
        """
        run(create_tables_op(self._tables_of(models), exist_ok=exist_ok), self.backend)
