"""AsyncStore: the Store of an asyncio service (shared stamps, clock, listeners, token key)."""

from __future__ import annotations

from typing import Any, TypeVar

from hmodel.aio.repository import AsyncRepository
from hmodel.aio.unit_of_work import AsyncUnitOfWork
from hmodel.backend.aio import AsyncBackend
from hmodel.backend.op import arun, create_tables_op
from hmodel.repository.store import StoreCore

__all__ = ["AsyncStore"]

M = TypeVar("M")


class AsyncStore(StoreCore[AsyncBackend]):
    """What every async repository of an application shares: the asyncio :class:`~hmodel.Store`.

    The same arguments as :class:`~hmodel.Store` (an
    :class:`~hmodel.backend.aio.AsyncBackend` first): one cached
    :class:`~hmodel.aio.AsyncRepository` per model and new
    :class:`~hmodel.aio.AsyncUnitOfWork` objects, all with the same clock, write stamps
    (so their writes are ordered with each other and with a synchronous store's built on
    the same stamps), listeners and page-token key. ``await store.create_tables(...)``
    creates the models' tables through the asyncio backend, as ``Store.create_tables``.

    Example:
        >>> import asyncio
        >>> from hmodel import Family, Key, Str, Store, Table, field, model
        >>> from hmodel.backend.memory import AsyncMemoryBackend, MemoryBackend
        >>> @model(Table("async_pet", [Family("p")]), key=Key(Str("name")))
        ... class Pet:
        ...     name: str
        ...     kind: str = field("p:k")
        >>> engine = MemoryBackend()
        >>> Store(engine).create_tables(Pet)
        >>> store = AsyncStore(AsyncMemoryBackend(engine))
        >>> async def main() -> Pet | None:
        ...     async with store.unit_of_work() as unit:
        ...         unit.save(Pet(name="rex", kind="dog"))
        ...     return await store.repository(Pet).get(name="rex")
        >>> asyncio.run(main())
        Pet(name='rex', kind='dog')
        >>> store.repository(Pet) is store.repository(Pet)
        True
    """

    def repository(self, model: type[M]) -> AsyncRepository[M]:
        """The store's async repository of ``model`` (built once, then cached).

        Raises:
            DeclarationError: ``model`` is not a model class.
        """
        found: Any = self._repositories.get(model)
        if found is None:
            found = AsyncRepository(model, self.backend, **self._repository_options())
            self._repositories[model] = found
        result: AsyncRepository[M] = found
        return result

    async def create_tables(self, *models: type, exist_ok: bool = True) -> None:
        """Create the tables of ``models`` (each table once; one ``create_table`` each).

        Raises:
            TableExistsError: A table exists and ``exist_ok`` is false.
        """
        await arun(create_tables_op(self._tables_of(models), exist_ok=exist_ok), self.backend)

    def unit_of_work(self) -> AsyncUnitOfWork:
        """A new async unit of work on the store's backend, stamps and listeners."""
        return AsyncUnitOfWork(self.backend, stamps=self.stamps, listeners=[self._tell])
