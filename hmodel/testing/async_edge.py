"""A synchronous Backend whose data calls an AsyncBackend serves: sync suites on the async edge."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from hmodel.backend.aio import AsyncBackend, AsyncScanner
from hmodel.backend.aio_forwarding import AsyncForwardingBackend
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
from hmodel.backend.forwarding import ForwardingBackend

__all__ = ["AsyncEdgeBackend", "TellingAsyncBackend", "async_backend_of", "pool_touch"]

T = TypeVar("T")


_READS = frozenset({"get", "get_versions", "scan"})
#: The table administration calls (no table pool's books to tell: ``admin`` keeps them).
_DDL = frozenset({"create_table", "delete_table", "table_exists", "list_tables"})


def pool_touch(backend: Backend) -> Callable[[str, str], None] | None:
    """For a real target's backend: what tells its table pool of an asyncio data call.

    The asyncio backend's calls do not pass through the synchronous backend that keeps
    the pool's books: a parked table touched is taken back first, and a table written
    is emptied before another test reuses it, as for the synchronous backend's calls
    (a table written only by the asyncio backend and then holding only delete markers
    would otherwise look empty and be handed to the next test with its markers, hiding
    that test's writes stamped by a manual clock). ``None`` for a backend without a pool.
    """
    pool = getattr(backend, "pool", None)
    if pool is None:
        return None

    def touch(method: str, table: str) -> None:
        if type(table) is str:
            pool.claim(table)
            if method not in _READS:
                pool.wrote(table)

    return touch


class TellingAsyncBackend(AsyncForwardingBackend):
    """An :class:`AsyncBackend` that calls ``touch(method, table)`` before each data call.

    Everything else (capabilities, RPC names, round trips, other attributes) is the
    wrapped backend's; table administration goes to ``admin`` when given (the real
    target's synchronous backend, which keeps the table pool's books: a table "created"
    is one taken from the pool, emptied), in a worker thread. An
    :class:`~hmodel.backend.aio_forwarding.AsyncForwardingBackend`: only its
    ``_forward`` is its own.

    Args:
        inner: The asyncio backend serving the calls.
        touch: Told of each data call first (see :func:`pool_touch`).
        admin: The synchronous backend making the DDL calls (``None``: ``inner``).
    """

    def __init__(
        self,
        inner: AsyncBackend,
        touch: Callable[[str, str], None],
        admin: Backend | None = None,
    ) -> None:
        super().__init__(inner)
        self._touch = touch
        self._admin = admin

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return repr(self.inner)

    async def _forward(
        self, method: str, call: Callable[..., Awaitable[T]], /, *args: Any, **kwargs: Any
    ) -> T:
        """Tell the pool of a data call first; send the DDL calls to ``admin`` if given."""
        if method in _DDL:
            if self._admin is None:
                return await call(*args, **kwargs)
            done: T = await asyncio.to_thread(getattr(self._admin, method), *args, **kwargs)
            return done
        if args:
            self._touch(method, args[0])
        return await call(*args, **kwargs)

    async def write_rows(self, table: str, batch: Any) -> None:
        """The wrapped backend's optional batched save (``RowBatch``), told as a ``mutate``."""
        self._touch("mutate", table)
        inner: Any = self.inner  # an optional method beyond the protocol
        await inner.write_rows(table, batch)


def async_backend_of(backend: Backend) -> AsyncBackend | None:
    """The asyncio backend reaching what the synchronous ``backend`` reaches, if any.

    The memory engine is shared (:class:`~hmodel.backend.memory.AsyncMemoryBackend` over
    the same engine); a Thrift1 or Thrift2 backend gives the asyncio backend of its
    endpoint (address, framing, TLS, HTTP, SASL) and table prefix, read now (a real
    target's ``table_prefix`` is settled by its first call); a real target's backend
    (with a table pool) gets one that tells the pool of its calls
    (:class:`TellingAsyncBackend`). ``None`` for any other backend (a wrapper: pass its
    wrapped backend).
    """
    from hmodel.backend.memory import AsyncMemoryBackend, MemoryBackend
    from hmodel.backend.thrift import AsyncThriftBackend, ThriftBackend
    from hmodel.backend.thrift2 import AsyncThrift2Backend, Thrift2Backend

    made: AsyncBackend
    if isinstance(backend, MemoryBackend):
        return AsyncMemoryBackend(backend)
    if isinstance(backend, Thrift2Backend):
        made = AsyncThrift2Backend.from_endpoint(
            backend.endpoint, table_prefix=backend.table_prefix
        )
    elif isinstance(backend, ThriftBackend):
        made = AsyncThriftBackend.from_endpoint(backend.endpoint, table_prefix=backend.table_prefix)
    else:
        return None
    touch = pool_touch(backend)
    return made if touch is None else TellingAsyncBackend(made, touch, backend)


class _Rows(Iterator[RowResult]):
    """An async scanner's rows, each fetched by running the scanner on the adapter's loop."""

    def __init__(self, scanner: AsyncScanner, run: Callable[[Coroutine[Any, Any, Any]], Any]):
        self._scanner: AsyncScanner | None = scanner
        self._run = run

    def __next__(self) -> RowResult:
        if self._scanner is None:
            raise StopIteration
        try:
            row: RowResult = self._run(self._scanner.__anext__())
        except StopAsyncIteration:
            self._scanner = None
            raise StopIteration from None
        return row

    def close(self) -> None:
        """Release the scanner (as a synchronous scan iterator's ``close``)."""
        scanner, self._scanner = self._scanner, None
        if scanner is not None:
            self._run(scanner.aclose())


class AsyncEdgeBackend(ForwardingBackend):
    """The :class:`~hmodel.backend.base.Backend` protocol served by an :class:`AsyncBackend`.

    A test-kit adapter, so that a suite written against the synchronous protocol (the
    backend contract, ``tests/contract``) checks an asyncio backend unchanged: each data
    call (``get``, ``get_versions``, ``scan``, ``mutate``, the increments, the
    conditional writes, ``append``) is the asyncio backend's coroutine, run to its end
    on the adapter's own event loop, so its results and errors are the asyncio
    backend's own. A scan is opened when called (its errors raised then, as the
    synchronous backends do) and each row is awaited as it is asked for; ``close()`` on
    the iterator releases the scanner. Table administration, which the asyncio protocol
    does not have, goes to ``admin``: the synchronous backend of the same server.

    Capabilities, RPC names and round trips are the asyncio backend's (admin calls are
    not counted). Not thread-safe: one caller at a time, never from a running event loop.

    Args:
        open_async: Makes the asyncio backend; called once, at the first data call or
            property read (after the first admin call, so a real target's table prefix is
            settled).
        admin: The synchronous backend of the same server, for table administration.
        owns_admin: Whether :meth:`close` also closes ``admin``.

    A real target's table pool is told of the data calls by the asyncio backend itself
    (:func:`async_backend_of` gives a :class:`TellingAsyncBackend`).
    """

    def __init__(
        self,
        open_async: Callable[[], AsyncBackend],
        admin: Backend,
        *,
        owns_admin: bool = True,
    ) -> None:
        super().__init__(admin)
        self._open_async = open_async
        self._async: AsyncBackend | None = None
        self._owns_admin = owns_admin
        self._loop = asyncio.new_event_loop()

    def __repr__(self) -> str:
        return f"AsyncEdgeBackend({self.async_backend!r})"

    @property
    def async_backend(self) -> AsyncBackend:
        """The asyncio backend serving the data calls (made on first use)."""
        if self._async is None:
            self._async = self._open_async()
        return self._async

    def _run(self, call: Coroutine[Any, Any, T]) -> T:
        return self._loop.run_until_complete(call)

    @property
    def capabilities(self) -> frozenset[str]:  # type: ignore[override]
        """The asyncio backend's capabilities."""
        return self.async_backend.capabilities

    @property
    def rpc_names(self) -> Mapping[str, str]:  # type: ignore[override]
        """The asyncio backend's RPC names."""
        return self.async_backend.rpc_names

    @property
    def round_trips(self) -> int:  # type: ignore[override]
        """The asyncio backend's round trips (admin calls not counted)."""
        return self.async_backend.round_trips

    def mutate_round_trips(self, mutations: Sequence[Mutation]) -> int:
        """The asyncio backend's count."""
        return self.async_backend.mutate_round_trips(mutations)

    def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        """The asyncio backend's ``get``, run on the adapter's loop."""
        return self._run(self.async_backend.get(table, rows, columns=columns, before=before))

    def get_versions(
        self,
        table: str,
        row: bytes,
        column: bytes,
        *,
        max_versions: int,
        before: int | None = None,
    ) -> list[Cell]:
        """The asyncio backend's ``get_versions``, run on the adapter's loop."""
        return self._run(
            self.async_backend.get_versions(
                table, row, column, max_versions=max_versions, before=before
            )
        )

    def scan(self, table: str, scan: Scan) -> Iterator[RowResult]:
        """The asyncio backend's scan, opened now; each row awaited as it is asked for."""
        return _Rows(self._run(self.async_backend.scan(table, scan)), self._run)

    def mutate(self, table: str, mutations: Sequence[Mutation]) -> None:
        """The asyncio backend's ``mutate``, run on the adapter's loop."""
        self._run(self.async_backend.mutate(table, mutations))

    def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """The asyncio backend's ``increment``, run on the adapter's loop."""
        return self._run(self.async_backend.increment(table, row, column, amount))

    def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """The asyncio backend's ``increment_many``, run on the adapter's loop."""
        self._run(self.async_backend.increment_many(table, increments))

    def check_and_put(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> bool:
        """The asyncio backend's ``check_and_put``, run on the adapter's loop."""
        return self._run(self.async_backend.check_and_put(table, row, column, expected, put))

    def check_and_delete(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, delete: Delete
    ) -> bool:
        """The asyncio backend's ``check_and_delete``, run on the adapter's loop."""
        return self._run(self.async_backend.check_and_delete(table, row, column, expected, delete))

    def check_and_mutate(
        self,
        table: str,
        row: bytes,
        column: bytes,
        expected: bytes | None,
        mutations: Sequence[Mutation],
    ) -> bool:
        """The asyncio backend's ``check_and_mutate``, run on the adapter's loop."""
        return self._run(
            self.async_backend.check_and_mutate(table, row, column, expected, mutations)
        )

    def append(self, table: str, row: bytes, values: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
        """The asyncio backend's ``append``, run on the adapter's loop."""
        return self._run(self.async_backend.append(table, row, values))

    def close(self) -> None:
        """Close the asyncio backend and the loop (and ``admin`` if owned); safe to repeat."""
        if self._loop.is_closed():
            return
        try:
            if self._async is not None:
                self._run(self._async.aclose())
            self._run(self._loop.shutdown_asyncgens())
        finally:
            self._loop.close()
            if self._owns_admin:
                self.inner.close()
