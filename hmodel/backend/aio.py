"""The AsyncBackend protocol: the data calls of :class:`~hmodel.backend.base.Backend` as coroutines.

:class:`AsyncBackend` mirrors the synchronous protocol's reads and writes, in bytes only,
with the same arguments, results, errors and round trips; a scan is an async iterator.
Of table administration it has what an application creating its tables needs
(``create_table``, ``delete_table``, ``table_exists``, ``list_tables``); for the rest
(families, regions, options) use the synchronous backend of the same server.

:class:`InProcessAsyncBackend` serves the protocol from a synchronous backend that does no
I/O (the memory engine, or a test wrapper around it): each call yields to the event loop
once, then runs to its end without another suspension point, so a cancelled call was
either never applied or fully applied, never half.
"""

from __future__ import annotations

import abc
import asyncio
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence

from hmodel.backend.base import (
    Backend,
    Cell,
    Delete,
    Increment,
    Mutation,
    Put,
    RowResult,
    Scan,
)
from hmodel.errors import UnsupportedOperationError
from hmodel.schema import Table

__all__ = ["AsyncBackend", "AsyncScanner", "InProcessAsyncBackend"]


class AsyncScanner(AsyncIterator[RowResult]):
    """The rows of one open scan; ``aclose()`` (or the end of the rows) releases it."""

    @abc.abstractmethod
    async def __anext__(self) -> RowResult:
        """The next row; ``StopAsyncIteration`` when none is left."""

    async def aclose(self) -> None:
        """Release the server-side scanner (safe to call more than once)."""

    async def __aenter__(self) -> AsyncScanner:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class AsyncBackend(abc.ABC):
    """A store that behaves like HBase, spoken to in bytes, from an asyncio event loop.

    The same calls as :class:`~hmodel.backend.base.Backend`'s reads and writes, each a
    coroutine with the same arguments, result, errors and round trips (see each method
    of :class:`~hmodel.backend.base.Backend`). :meth:`scan` opens the scan (its first
    round trip) and returns an :class:`AsyncScanner`.

    Cancellation: a call cancelled before its request is sent sends nothing; once a
    request may have left, the call runs to its answer or its connection is discarded
    (never given back to a pool mid-response). A cancelled write is therefore applied
    whole or not at all (one request is one row operation), as with a dropped connection.

    Implementations: :class:`InProcessAsyncBackend` (and
    :class:`~hmodel.backend.memory.AsyncMemoryBackend`), and
    :class:`~hmodel.backend.thrift2.AsyncThrift2Backend`.
    """

    #: Optional capabilities beyond the protocol's core, as ``Backend.capabilities``.
    capabilities: frozenset[str] = frozenset()

    #: The wire RPC(s) each protocol method sends, as ``Backend.rpc_names``.
    rpc_names: Mapping[str, str] = {}

    #: Round trips made so far, as ``Backend.round_trips``.
    round_trips: int = 0

    @abc.abstractmethod
    async def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        """As :meth:`Backend.get <hmodel.backend.base.Backend.get>`."""

    @abc.abstractmethod
    async def get_versions(
        self,
        table: str,
        row: bytes,
        column: bytes,
        *,
        max_versions: int,
        before: int | None = None,
    ) -> list[Cell]:
        """As :meth:`Backend.get_versions <hmodel.backend.base.Backend.get_versions>`."""

    @abc.abstractmethod
    async def scan(self, table: str, scan: Scan) -> AsyncScanner:
        """Open ``scan``: as :meth:`Backend.scan <hmodel.backend.base.Backend.scan>`.

        The errors of a missing table or a bad filter are raised here, by the open.
        """

    @abc.abstractmethod
    async def mutate(self, table: str, mutations: Sequence[Mutation]) -> None:
        """As :meth:`Backend.mutate <hmodel.backend.base.Backend.mutate>`."""

    @abc.abstractmethod
    async def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """As :meth:`Backend.increment <hmodel.backend.base.Backend.increment>`."""

    @abc.abstractmethod
    async def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """As :meth:`Backend.increment_many <hmodel.backend.base.Backend.increment_many>`."""

    @abc.abstractmethod
    async def check_and_put(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> bool:
        """As :meth:`Backend.check_and_put <hmodel.backend.base.Backend.check_and_put>`."""

    @abc.abstractmethod
    async def append(
        self, table: str, row: bytes, values: Mapping[bytes, bytes]
    ) -> dict[bytes, bytes]:
        """As :meth:`Backend.append <hmodel.backend.base.Backend.append>`."""

    # --- admin: what an application creating its tables needs -----------------------

    async def create_table(self, table: Table) -> None:
        """As :meth:`Backend.create_table <hmodel.backend.base.Backend.create_table>`.

        Raises:
            TableExistsError: A table of that name exists.
            UnsupportedOperationError: This backend has no DDL.
        """
        raise UnsupportedOperationError(
            f"{type(self).__name__} cannot create tables", table=table.full_name
        )

    async def delete_table(self, name: str) -> None:
        """As :meth:`Backend.delete_table <hmodel.backend.base.Backend.delete_table>`."""
        raise UnsupportedOperationError(f"{type(self).__name__} cannot delete tables", table=name)

    async def table_exists(self, name: str) -> bool:
        """As :meth:`Backend.table_exists <hmodel.backend.base.Backend.table_exists>`."""
        raise UnsupportedOperationError(f"{type(self).__name__} cannot list tables", table=name)

    async def list_tables(self) -> list[str]:
        """As :meth:`Backend.list_tables <hmodel.backend.base.Backend.list_tables>`."""
        raise UnsupportedOperationError(f"{type(self).__name__} cannot list tables")

    async def check_and_delete(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, delete: Delete
    ) -> bool:
        """As ``Backend.check_and_delete``: only with ``"check_and_delete"`` capability."""
        raise UnsupportedOperationError(
            f"{type(self).__name__} cannot check-and-delete", table=table, row=row
        )

    async def check_and_mutate(
        self,
        table: str,
        row: bytes,
        column: bytes,
        expected: bytes | None,
        mutations: Sequence[Mutation],
    ) -> bool:
        """As ``Backend.check_and_mutate``: only with ``"check_and_mutate"`` capability."""
        raise UnsupportedOperationError(
            f"{type(self).__name__} cannot check-and-mutate", table=table, row=row
        )

    def mutate_round_trips(self, mutations: Sequence[Mutation]) -> int:
        """As ``Backend.mutate_round_trips`` (arithmetic, no request)."""
        return len({(m.timestamp, m.ttl if isinstance(m, Put) else None) for m in mutations})

    def server_table_name(self, table: str) -> str:
        """As ``Backend.server_table_name``: the name the server knows ``table`` by."""
        return table

    async def aclose(self) -> None:  # noqa: B027 -- optional hook
        """Release connections; the backend is unusable afterwards."""

    async def __aenter__(self) -> AsyncBackend:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class _InProcessScanner(AsyncScanner):
    """An in-process backend's scan iterator, yielding to the loop before each fetch."""

    def __init__(self, rows: Iterator[RowResult], batch_size: int) -> None:
        self._rows = rows
        self._batch_size = batch_size
        self._served = 0

    async def __anext__(self) -> RowResult:
        if self._served % self._batch_size == 0:
            await asyncio.sleep(0)  # one round trip's worth of rows between suspensions
        self._served += 1
        try:
            return next(self._rows)
        except StopIteration:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        close = getattr(self._rows, "close", None)
        if close is not None:
            close()


class InProcessAsyncBackend(AsyncBackend):
    """The :class:`AsyncBackend` protocol over a synchronous backend that does no I/O.

    For the memory engine and wrappers around it (a
    :class:`~hmodel.testing.fault.FaultyBackend`): each call first yields to the event
    loop (so concurrent tasks interleave call by call, and a cancellation lands there,
    before anything is applied), then runs the synchronous call to its end. A scan
    yields to the loop before each batch of ``batch_size`` rows. Never use it over a
    network backend: its calls would block the loop.

    Args:
        backend: The synchronous, in-process backend; round trips and capabilities are
            its own.
    """

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    @property
    def capabilities(self) -> frozenset[str]:  # type: ignore[override]
        """The wrapped backend's capabilities."""
        return self.backend.capabilities

    @property
    def rpc_names(self) -> Mapping[str, str]:  # type: ignore[override]
        """The wrapped backend's RPC names."""
        return self.backend.rpc_names

    @property
    def round_trips(self) -> int:  # type: ignore[override]
        """The wrapped backend's round trips."""
        return self.backend.round_trips

    def server_table_name(self, table: str) -> str:
        """The wrapped backend's name of ``table``."""
        return self.backend.server_table_name(table)

    def mutate_round_trips(self, mutations: Sequence[Mutation]) -> int:
        """The wrapped backend's count."""
        return self.backend.mutate_round_trips(mutations)

    async def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        """As ``Backend.get``, after yielding to the loop."""
        await asyncio.sleep(0)
        return self.backend.get(table, rows, columns=columns, before=before)

    async def get_versions(
        self,
        table: str,
        row: bytes,
        column: bytes,
        *,
        max_versions: int,
        before: int | None = None,
    ) -> list[Cell]:
        """As ``Backend.get_versions``, after yielding to the loop."""
        await asyncio.sleep(0)
        return self.backend.get_versions(
            table, row, column, max_versions=max_versions, before=before
        )

    async def scan(self, table: str, scan: Scan) -> AsyncScanner:
        """As ``Backend.scan``, after yielding to the loop; rows in batches."""
        await asyncio.sleep(0)
        return _InProcessScanner(self.backend.scan(table, scan), scan.batch_size)

    async def mutate(self, table: str, mutations: Sequence[Mutation]) -> None:
        """As ``Backend.mutate``, after yielding to the loop (then applied whole)."""
        await asyncio.sleep(0)
        self.backend.mutate(table, mutations)

    async def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """As ``Backend.increment``, after yielding to the loop."""
        await asyncio.sleep(0)
        return self.backend.increment(table, row, column, amount)

    async def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """As ``Backend.increment_many``, after yielding to the loop."""
        await asyncio.sleep(0)
        self.backend.increment_many(table, increments)

    async def check_and_put(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> bool:
        """As ``Backend.check_and_put``, after yielding to the loop."""
        await asyncio.sleep(0)
        return self.backend.check_and_put(table, row, column, expected, put)

    async def check_and_delete(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, delete: Delete
    ) -> bool:
        """As ``Backend.check_and_delete``, after yielding to the loop."""
        await asyncio.sleep(0)
        return self.backend.check_and_delete(table, row, column, expected, delete)

    async def check_and_mutate(
        self,
        table: str,
        row: bytes,
        column: bytes,
        expected: bytes | None,
        mutations: Sequence[Mutation],
    ) -> bool:
        """As ``Backend.check_and_mutate``, after yielding to the loop."""
        await asyncio.sleep(0)
        return self.backend.check_and_mutate(table, row, column, expected, mutations)

    async def append(
        self, table: str, row: bytes, values: Mapping[bytes, bytes]
    ) -> dict[bytes, bytes]:
        """As ``Backend.append``, after yielding to the loop."""
        await asyncio.sleep(0)
        return self.backend.append(table, row, values)

    async def create_table(self, table: Table) -> None:
        """The wrapped backend's ``create_table``."""
        await asyncio.sleep(0)
        self.backend.create_table(table)

    async def delete_table(self, name: str) -> None:
        """The wrapped backend's ``delete_table``."""
        await asyncio.sleep(0)
        self.backend.delete_table(name)

    async def table_exists(self, name: str) -> bool:
        """The wrapped backend's ``table_exists``."""
        await asyncio.sleep(0)
        return self.backend.table_exists(name)

    async def list_tables(self) -> list[str]:
        """The wrapped backend's ``list_tables``."""
        await asyncio.sleep(0)
        return self.backend.list_tables()

    async def aclose(self) -> None:
        """Close the wrapped backend."""
        self.backend.close()
