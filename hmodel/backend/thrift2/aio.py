"""The asyncio Thrift2 backend: the AsyncBackend protocol over HBase 2's Thrift2 API."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hmodel.backend.aio import AsyncBackend, AsyncScanner
from hmodel.backend.aio_pool import AsyncPooledChannel
from hmodel.backend.base import Cell, Delete, Increment, Mutation, Put, RowResult, Scan
from hmodel.backend.endpoint import Endpoint
from hmodel.backend.op import arun
from hmodel.backend.retry import Retry
from hmodel.backend.thrift2.backend import Thrift2Backend
from hmodel.backend.thrift2.channel import ENCODING_ERRORS
from hmodel.backend.thrift2.error import SERVER_ERRORS, TRANSPORT_ERRORS
from hmodel.backend.thrift2.idl import HBASE2
from hmodel.backend.thrift2.scanner import ScannerCore

__all__ = ["AsyncThrift2Backend"]


class AsyncChannel(AsyncPooledChannel):
    """Calls to a Thrift2 server from one event loop over at most ``pool_size`` connections."""

    service: Any = HBASE2.THBaseService
    decode_response = True
    server_errors = SERVER_ERRORS
    transport_errors = TRANSPORT_ERRORS
    encoding_errors = ENCODING_ERRORS
    backend = "Thrift2"


class AsyncThrift2Scanner(ScannerCore, AsyncScanner):
    """Rows of one scan from a Thrift2 scanner, fetched ``batch_size`` at a time.

    The asyncio edge of :class:`~hmodel.backend.thrift2.scanner.ScannerIterator`: the
    same requests (:class:`~hmodel.backend.thrift2.scanner.ScannerCore`), awaited.
    ``closeScanner`` is sent when the rows run out, the limit is reached, or
    :meth:`aclose` is awaited. A scanner neither exhausted nor closed is left to the
    server's scanner lease (no request can be awaited from a finalizer).
    """

    def __init__(
        self, *, rpc: Any, table: str, server_table: bytes, scan: Scan, retries: int
    ) -> None:
        super().__init__(table=table, server_table=server_table, scan=scan, retries=retries)
        self._rpc = rpc

    async def start(self) -> AsyncThrift2Scanner:
        """Open the scanner and fetch the first batch (a missing table fails here)."""
        if not self._finished:
            try:
                await arun(self.open_op(), self._rpc)
            except BaseException:
                self._detach()
                raise
            await self._fetch()
        return self

    async def __anext__(self) -> RowResult:
        while not self._buffer:
            if self._finished:
                raise StopAsyncIteration
            await self._fetch()
        return self._buffer.popleft()

    async def _fetch(self) -> None:
        try:
            done = await arun(self.fetch_op(), self._rpc)
        except BaseException:
            await self._release()
            raise
        if done:
            await self._release()  # the rows fetched are still served

    async def _release(self) -> None:
        scanner = self._detach()
        if scanner is not None:
            await arun(self.release_op(scanner), self._rpc)

    async def aclose(self) -> None:
        """Release the server-side scanner; nothing more is served (safe to repeat)."""
        self._buffer.clear()
        await self._release()


class AsyncThrift2Backend(AsyncBackend):
    """The :class:`~hmodel.backend.aio.AsyncBackend` protocol over a Thrift2 server.

    Every call is the synchronous :class:`~hmodel.backend.thrift2.Thrift2Backend`'s own
    operation (the same arguments checked, the same requests, the same error
    translation), sent over thriftpy2's asyncio client through a pool of at most
    ``pool_size`` connections, with the same retry rules. Round trips, capabilities and
    RPC names are the synchronous backend's.

    Plain sockets only so far (``transport`` buffered or framed, ``protocol`` binary or
    compact): TLS, HTTP and SASL are not asynchronous yet. Table administration is not
    part of :class:`~hmodel.backend.aio.AsyncBackend`: use a
    :class:`~hmodel.backend.thrift2.Thrift2Backend` for DDL. Nothing is opened until the
    first call (no ``autoconnect``: a constructor cannot await).

    Args:
        host: The Thrift2 server's host.
        port: Its port.
        timeout_ms: Connect and read timeout in milliseconds; ``None``: wait forever.
        transport: ``"buffered"`` or ``"framed"``.
        protocol: ``"binary"`` or ``"compact"``.
        table_prefix: Prepended, with ``table_prefix_separator``, to every table name.
        table_prefix_separator: Between prefix and name.
        pool_size: Most connections open at once (>= 1).
        retries: How many times a call whose connection failed may be sent again.
        retry_backoff_ms: Pause before the first retry, doubled for each further one.
        sleep: Awaited with the pause in seconds between retries (inject in tests).
        retry_jitter: A float from 0 to 1 spreading each retry pause.

    Raises:
        IllegalArgumentError: An option out of range, naming it.
    """

    capabilities = Thrift2Backend.capabilities
    rpc_names = Thrift2Backend.rpc_names

    def __init__(
        self,
        host: str = "localhost",
        port: int = 9090,
        *,
        timeout_ms: int | None = 10_000,
        transport: str = "buffered",
        protocol: str = "binary",
        table_prefix: str | None = None,
        table_prefix_separator: str = "_",
        pool_size: int = 4,
        retries: int = 3,
        retry_backoff_ms: int = 50,
        sleep: Callable[[float], Any] = asyncio.sleep,
        retry_jitter: Callable[[], float] = random.random,
    ) -> None:
        #: The synchronous backend whose operations this one awaits; it never connects.
        self._ops = Thrift2Backend(
            host,
            port,
            timeout_ms=timeout_ms,
            transport=transport,
            protocol=protocol,
            table_prefix=table_prefix,
            table_prefix_separator=table_prefix_separator,
            pool_size=pool_size,
            retries=retries,
            retry_backoff_ms=retry_backoff_ms,
            autoconnect=False,
        )
        self.round_trips = 0
        self._channel = AsyncChannel(
            Endpoint(host, port, timeout_ms=timeout_ms, transport=transport, protocol=protocol),
            pool_size=pool_size,
            retries=retries,
            retry_backoff_ms=retry_backoff_ms,
            sleep=sleep,
            count=self._count_round_trip,
        )
        self._channel.jitter = retry_jitter

    def _count_round_trip(self) -> None:
        self.round_trips += 1

    def __repr__(self) -> str:
        return f"AsyncThrift2Backend({self.host!r}, {self.port})"

    @property
    def host(self) -> str:
        """The Thrift2 server's host."""
        return self._channel.host

    @property
    def port(self) -> int:
        """The Thrift2 server's port."""
        return self._channel.port

    @property
    def table_prefix(self) -> str | None:
        """The prefix of every table name, or ``None``."""
        return self._ops.table_prefix

    @property
    def idle_connections(self) -> int:
        """Open connections waiting in the pool."""
        return self._channel.idle_connections

    async def _rpc(
        self,
        method: str,
        *args: Any,
        retry: Retry,
        table: str | None = None,
        row: bytes | None = None,
        column: bytes | None = None,
        filter_given: bool = False,
    ) -> Any:
        """Send one call; translate the server's errors as the synchronous backend does."""
        try:
            return await self._channel.call(method, *args, retry=retry, table=table, row=row)
        except SERVER_ERRORS as exc:
            raise self._ops.server_error(
                exc, method=method, table=table, row=row, column=column, filter_given=filter_given
            ) from exc

    # --- reads ----------------------------------------------------------------------

    async def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        """As ``Thrift2Backend.get``: one ``getMultiple``."""
        return await arun(self._ops.get_op(table, rows, columns=columns, before=before), self._rpc)

    async def get_versions(
        self,
        table: str,
        row: bytes,
        column: bytes,
        *,
        max_versions: int,
        before: int | None = None,
    ) -> list[Cell]:
        """As ``Thrift2Backend.get_versions``: one ``get``."""
        op = self._ops.get_versions_op(table, row, column, max_versions=max_versions, before=before)
        return await arun(op, self._rpc)

    async def scan(self, table: str, scan: Scan) -> AsyncScanner:
        """As ``Thrift2Backend.scan``: ``openScanner`` and the first ``getScannerRows`` now."""
        scanner = AsyncThrift2Scanner(
            rpc=self._rpc,
            table=table,
            server_table=self._ops.scan_table(table, scan),
            scan=scan,
            retries=self._channel.retries,
        )
        return await scanner.start()

    # --- writes ---------------------------------------------------------------------

    async def mutate(self, table: str, mutations: Sequence[Mutation]) -> None:
        """As ``Thrift2Backend.mutate``: ``mutateRow`` for one row, else the multi calls."""
        await arun(self._ops.mutate_op(table, mutations), self._rpc)

    async def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """As ``Thrift2Backend.increment``: one ``increment``, never retried."""
        return await arun(self._ops.increment_op(table, row, column, amount), self._rpc)

    async def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """As ``Thrift2Backend.increment_many``: one ``increment`` per run of a row's."""
        await arun(self._ops.increment_many_op(table, increments), self._rpc)

    async def check_and_put(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> bool:
        """As ``Thrift2Backend.check_and_put``: one ``checkAndPut``, never retried."""
        op = self._ops.check_and_put_op(table, row, column, expected, put)
        return await arun(op, self._rpc)

    async def check_and_delete(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, delete: Delete
    ) -> bool:
        """As ``Thrift2Backend.check_and_delete``: one ``checkAndDelete``, never retried."""
        op = self._ops.check_and_delete_op(table, row, column, expected, delete)
        return await arun(op, self._rpc)

    async def check_and_mutate(
        self,
        table: str,
        row: bytes,
        column: bytes,
        expected: bytes | None,
        mutations: Sequence[Mutation],
    ) -> bool:
        """As ``Thrift2Backend.check_and_mutate``: one call, never retried."""
        op = self._ops.check_and_mutate_op(table, row, column, expected, mutations)
        return await arun(op, self._rpc)

    async def append(
        self, table: str, row: bytes, values: Mapping[bytes, bytes]
    ) -> dict[bytes, bytes]:
        """As ``Thrift2Backend.append``: one ``append``, never retried."""
        return await arun(self._ops.append_op(table, row, values), self._rpc)

    async def aclose(self) -> None:
        """Close the pooled connections; the backend is unusable afterwards."""
        await self._channel.aclose()
        self._ops.close()
