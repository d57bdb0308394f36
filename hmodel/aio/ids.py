"""AsyncIdAllocator: counter-issued ids for long names (K9), awaited over an AsyncBackend."""

from __future__ import annotations

from collections.abc import Iterable

from hmodel.aio.store import AsyncStore
from hmodel.backend.aio import AsyncBackend
from hmodel.backend.op import arun, create_tables_op
from hmodel.clock import WriteStamps
from hmodel.patterns.ids import IdAllocatorCore
from hmodel.schema import Table

__all__ = ["AsyncIdAllocator"]


class AsyncIdAllocator(IdAllocatorCore[AsyncBackend]):
    """The asyncio edge of :class:`~hmodel.patterns.IdAllocator` (K9, F10).

    The same arguments (an :class:`~hmodel.backend.aio.AsyncBackend` or an
    :class:`~hmodel.aio.AsyncStore` first), byte layout, methods, results, round trips
    and errors, each I/O method a coroutine running the very operation the synchronous
    allocator runs. The same promise under concurrency: tasks (or processes) asking for
    the same new name at once all get one id, the conditional write of its forward row
    deciding; no id is ever given to two names. Allocators of both edges may share a
    table and a kind. ``await allocator.create_table()`` creates the table.

    Cancellation: each request is applied whole or not at all, as after a dropped
    connection. A task cancelled between the counter's increment and the conditional
    write of a new name burns the ids drawn (a gap), and, once the reverse rows were
    written, leaves them as :meth:`orphans`; the name is given another id by the next
    :meth:`id_for`. Cancelled once the conditional write left, the forward row says
    whether it landed: the next :meth:`id_for` reads it.

    Example::

        hosts = AsyncIdAllocator(AsyncThrift2Backend("hbase-thrift", 9090),
                                 id_table("log_types"), kind="host", width=4)
        host_id = await hosts.id_for("myserver1.mycompany.com")
    """

    def __init__(
        self,
        backend: AsyncBackend | AsyncStore,
        table: Table,
        *,
        kind: str,
        width: int = 4,
        family: str = "i",
        cache_size: int = 0,
        stamps: WriteStamps | None = None,
    ) -> None:
        if isinstance(backend, AsyncStore):
            stamps = backend.stamps if stamps is None else stamps
            backend = backend.backend
        super().__init__(
            backend,
            table,
            kind=kind,
            width=width,
            family=family,
            cache_size=cache_size,
            stamps=stamps,
        )

    # --- reads --------------------------------------------------------------------------

    async def create_table(self, *, exist_ok: bool = True) -> None:
        """Create the lookup table (one ``create_table``), as the synchronous allocator's.

        Raises:
            TableExistsError: The table exists and ``exist_ok`` is false.
        """
        await arun(create_tables_op([self.table], exist_ok=exist_ok), self.backend)

    async def lookup(self, name: str) -> int | None:
        """The id of ``name``, or ``None``; never allocates (one get, none if cached)."""
        return (await self.lookup_many([name])).get(name)

    async def lookup_many(self, names: Iterable[str]) -> dict[str, int]:
        """The ids of the names that have one, in one get (none if all are cached)."""
        return await arun(self._lookup_many_op(names), self.backend)

    async def name_of(self, ident: int) -> str | None:
        """The name whose id is ``ident``, or ``None`` (one get, none if cached).

        Raises:
            ValidationError: ``ident`` is not an int in ``1 .. max_id``.
        """
        return (await self.names_of([ident])).get(ident)

    async def names_of(self, idents: Iterable[int]) -> dict[int, str]:
        """The names of the given ids that have one, in one get.

        Raises:
            ValidationError: An id is not an int in ``1 .. max_id``.
        """
        return await arun(self._names_of_op(idents), self.backend)

    async def orphans(self) -> list[int]:
        """The burned ids whose reverse row was left behind (a scan, then one get)."""
        return await arun(self._orphans_op(), self.backend)

    # --- allocation ---------------------------------------------------------------------

    async def id_for(self, name: str) -> int:
        """The id of ``name``, allocating one if it has none (as ``IdAllocator.id_for``).

        Raises:
            IdExhaustedError: The kind's counter passed ``max_id``.
            ValidationError: ``name`` is not a non-empty str.
        """
        return (await self.ids_for([name]))[name]

    async def ids_for(self, names: Iterable[str]) -> dict[str, int]:
        """The id of every name, allocating ids for new ones (as ``IdAllocator.ids_for``).

        Raises:
            IdExhaustedError: The counter passed ``max_id``.
            ValidationError: A name is not a non-empty str.
        """
        return await arun(self._ids_for_op(names), self.backend)
