"""AsyncForwardingBackend: the one base of every wrapper around an AsyncBackend."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from hmodel.backend.aio import AsyncBackend, AsyncScanner
from hmodel.backend.base import Cell, Delete, Increment, Mutation, Put, RowResult, Scan
from hmodel.schema.table import Table

__all__ = ["AsyncForwardingBackend"]

T = TypeVar("T")


class AsyncForwardingBackend(AsyncBackend):
    """An :class:`~hmodel.backend.aio.AsyncBackend` that passes every call on to another.

    The asyncio counterpart of :class:`~hmodel.backend.forwarding.ForwardingBackend`:
    every protocol coroutine goes through one path, :meth:`_forward`, with the method's
    name, the wrapped backend's bound coroutine function and the call's arguments; a
    wrapper that intercepts every call (hooks, faults) overrides :meth:`_forward` alone.
    :attr:`capabilities`, :attr:`rpc_names`, :attr:`round_trips` and
    :meth:`mutate_round_trips` are the wrapped backend's; :meth:`aclose` closes it.

    Args:
        inner: The backend that does the work.

    Attributes:
        inner: The backend that does the work.
    """

    def __init__(self, inner: AsyncBackend) -> None:
        self.inner = inner

    async def _forward(
        self, method: str, call: Callable[..., Awaitable[T]], /, *args: Any, **kwargs: Any
    ) -> T:
        """Make one call of the wrapped backend: ``await call(*args, **kwargs)``."""
        return await call(*args, **kwargs)

    @property
    def capabilities(self) -> frozenset[str]:  # type: ignore[override]
        """The wrapped backend's."""
        return self.inner.capabilities

    @property
    def rpc_names(self) -> Mapping[str, str]:  # type: ignore[override]
        """The wrapped backend's."""
        return self.inner.rpc_names

    @property
    def round_trips(self) -> int:  # type: ignore[override]
        """The wrapped backend's."""
        return self.inner.round_trips

    def mutate_round_trips(self, mutations: Sequence[Mutation]) -> int:
        """The wrapped backend's (arithmetic, no request)."""
        return self.inner.mutate_round_trips(mutations)

    def server_table_name(self, table: str) -> str:
        """The wrapped backend's name of ``table`` on its server (no request)."""
        return self.inner.server_table_name(table)

    async def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        """Passed on."""
        return await self._forward(
            "get", self.inner.get, table, rows, columns=columns, before=before
        )

    async def get_versions(
        self,
        table: str,
        row: bytes,
        column: bytes,
        *,
        max_versions: int,
        before: int | None = None,
    ) -> list[Cell]:
        """Passed on."""
        return await self._forward(
            "get_versions",
            self.inner.get_versions,
            table,
            row,
            column,
            max_versions=max_versions,
            before=before,
        )

    async def scan(self, table: str, scan: Scan) -> AsyncScanner:
        """Passed on (the scanner is the wrapped backend's own)."""
        return await self._forward("scan", self.inner.scan, table, scan)

    async def mutate(self, table: str, mutations: Sequence[Mutation]) -> None:
        """Passed on."""
        await self._forward("mutate", self.inner.mutate, table, mutations)

    async def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """Passed on."""
        return await self._forward("increment", self.inner.increment, table, row, column, amount)

    async def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """Passed on."""
        await self._forward("increment_many", self.inner.increment_many, table, increments)

    async def check_and_put(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> bool:
        """Passed on."""
        return await self._forward(
            "check_and_put", self.inner.check_and_put, table, row, column, expected, put
        )

    async def check_and_delete(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, delete: Delete
    ) -> bool:
        """Passed on."""
        return await self._forward(
            "check_and_delete", self.inner.check_and_delete, table, row, column, expected, delete
        )

    async def check_and_mutate(
        self,
        table: str,
        row: bytes,
        column: bytes,
        expected: bytes | None,
        mutations: Sequence[Mutation],
    ) -> bool:
        """Passed on."""
        return await self._forward(
            "check_and_mutate",
            self.inner.check_and_mutate,
            table,
            row,
            column,
            expected,
            mutations,
        )

    async def append(
        self, table: str, row: bytes, values: Mapping[bytes, bytes]
    ) -> dict[bytes, bytes]:
        """Passed on."""
        return await self._forward("append", self.inner.append, table, row, values)

    async def create_table(self, table: Table) -> None:
        """Passed on."""
        await self._forward("create_table", self.inner.create_table, table)

    async def delete_table(self, name: str) -> None:
        """Passed on."""
        await self._forward("delete_table", self.inner.delete_table, name)

    async def table_exists(self, name: str) -> bool:
        """Passed on."""
        return await self._forward("table_exists", self.inner.table_exists, name)

    async def list_tables(self) -> list[str]:
        """Passed on."""
        return await self._forward("list_tables", self.inner.list_tables)

    async def aclose(self) -> None:
        """Close the wrapped backend."""
        await self._forward("aclose", self.inner.aclose)
