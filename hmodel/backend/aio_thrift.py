"""What the asyncio Thrift1 and Thrift2 backends share: awaiting the sync backends' operations.

Each Thrift backend writes its data calls once, as sans-I/O operations
(``ThriftBackend.get_op``, ``Thrift2Backend.mutate_op``, ...), and its scanner once
(a ``ScannerCore``: ``open_op``, ``fetch_op``, ``release_op``). :class:`AsyncThriftBase`
awaits those operations through an :class:`~hmodel.backend.aio_pool.AsyncPooledChannel`,
and :class:`AsyncScannerEdge` serves a scanner core's rows as an async iterator; the
per-protocol subclasses only name their classes.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from hmodel.backend.aio import AsyncBackend, AsyncScanner
from hmodel.backend.aio_pool import AsyncPooledChannel
from hmodel.backend.base import Cell, Increment, Mutation, Put, RowBatch, RowResult, Scan
from hmodel.backend.endpoint import Endpoint, HTTPOption, TLSOption, as_http, as_tls
from hmodel.backend.op import arun
from hmodel.backend.retry import Retry
from hmodel.errors import IllegalArgumentError
from hmodel.schema import Table

if TYPE_CHECKING:
    from typing_extensions import Self

    from hmodel.backend.sasl import Sasl

__all__ = ["AsyncScannerEdge", "AsyncThriftBase"]


def _endpoint_options(endpoint: Endpoint) -> dict[str, Any]:
    """The constructor options of a backend that reaches ``endpoint`` (SASL aside)."""
    return {
        "timeout_ms": endpoint.timeout_ms,
        "transport": endpoint.transport,
        "protocol": endpoint.protocol,
        "tls": endpoint.tls,
        "http": endpoint.http,
    }


class AsyncScannerEdge(AsyncScanner):
    """The asyncio edge of a Thrift ``ScannerCore`` (mixed in before the core).

    The core's requests, awaited: the scanner is opened by :meth:`start` (and, where the
    protocol fails a missing table only at the first fetch, its first batch fetched
    too), one fetch per batch, and the scanner closed when the rows run out, the limit
    is reached, a fetch fails, or :meth:`aclose` is awaited. A scanner neither exhausted
    nor closed is left to the server's scanner lease (a finalizer cannot await).
    """

    #: Fetch the first batch when opening (Thrift2: a missing table fails only there).
    fetch_at_open: ClassVar[bool] = False

    _buffer: Any
    _finished: bool

    def __init__(self, *, rpc: Any, **core: Any) -> None:
        super().__init__(**core)  # the ScannerCore's arguments
        self._rpc = rpc
        #: The scanner core's operations (``open_op``, ``fetch_op``, ``release_op``).
        self._core: Any = self

    async def start(self) -> AsyncScannerEdge:
        """Open the scanner (and fetch the first batch where the protocol needs it)."""
        if not self._finished:
            try:
                await arun(self._core.open_op(), self._rpc)
            except BaseException:
                self._core._detach()
                raise
            if self.fetch_at_open:
                await arun(self._core.fetch_op(), self._rpc)
        return self

    async def __anext__(self) -> RowResult:
        while not self._buffer:
            if self._finished:
                raise StopAsyncIteration
            await arun(self._core.fetch_op(), self._rpc)
        row: RowResult = self._buffer.popleft()
        return row

    async def aclose(self) -> None:
        """Release the server-side scanner; nothing more is served (safe to repeat)."""
        self._buffer.clear()
        await arun(self._core.release_op(), self._rpc)


class AsyncThriftBase(AsyncBackend):
    """An :class:`~hmodel.backend.aio.AsyncBackend` awaiting a sync Thrift backend's operations.

    Subclasses name the synchronous backend (:attr:`sync_backend`, which checks the
    arguments, builds the requests and reads the answers: it never connects here), the
    asyncio channel and the scanner. Round trips are counted per request sent, retries
    included; capabilities and RPC names are the synchronous backend's.
    """

    sync_backend: ClassVar[Any]
    channel: ClassVar[type[AsyncPooledChannel]]
    scanner: ClassVar[type[AsyncScannerEdge]]

    def __init__(
        self,
        host: str = "localhost",
        port: int = 9090,
        *,
        timeout_ms: int | None = 10_000,
        transport: str = "buffered",
        protocol: str = "binary",
        tls: TLSOption = None,
        http: HTTPOption = None,
        table_prefix: str | None = None,
        table_prefix_separator: str = "_",
        pool_size: int = 4,
        retries: int = 3,
        retry_backoff_ms: int = 50,
        sleep: Callable[[float], Any] = asyncio.sleep,
        retry_jitter: Callable[[], float] = random.random,
        sasl: Sasl | None = None,
    ) -> None:
        endpoint = Endpoint(
            host,
            port,
            timeout_ms=timeout_ms,
            transport=transport,
            protocol=protocol,
            tls=as_tls(tls),
            http=as_http(http),
            sasl=sasl,
        )
        #: The synchronous backend whose operations this one awaits; it never connects.
        self._ops = self.sync_backend(
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
        self.capabilities = self._ops.capabilities
        self.rpc_names = self._ops.rpc_names
        self.round_trips = 0
        self._channel = self.channel(
            endpoint,
            pool_size=pool_size,
            retries=retries,
            retry_backoff_ms=retry_backoff_ms,
            sleep=sleep,
            count=self._count_round_trip,
        )
        self._channel.jitter = retry_jitter
        self._ops.binary_requests = not self._channel.codec.compact
        self._admin_options: dict[str, Any] = {
            "table_prefix": table_prefix,
            "table_prefix_separator": table_prefix_separator,
            "retries": retries,
            "retry_backoff_ms": retry_backoff_ms,
        }
        self._admin: Any = None
        self._admin_lock = threading.Lock()

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        tls: TLSOption = None,
        headers: Mapping[str, str] | None = None,
        **options: Any,
    ) -> Self:
        """A backend for the server a URL names, as the synchronous backend's ``from_url``.

        ``thrift://host:port`` (a plain socket), ``thrift+tls://host:port`` (a socket in
        TLS), ``http://host:port/path`` and ``https://host:port/path`` (Thrift over
        HTTP(S), with ``user:password@`` for HTTP basic authentication).

        Raises:
            IllegalArgumentError: An unknown scheme, no host, a bad port, or options the
                scheme cannot use; naming them.
        """
        endpoint = Endpoint.from_url(url, tls=tls, headers=headers)
        return cls(endpoint.host, endpoint.port, tls=endpoint.tls, http=endpoint.http, **options)

    @classmethod
    def from_endpoint(cls, endpoint: Endpoint, **options: Any) -> Self:
        """A backend reaching ``endpoint`` (a synchronous backend's ``endpoint``, say).

        Its address, timeout, framing, protocol, TLS, HTTP and SASL settings are the
        endpoint's; ``options`` are the constructor's others (``table_prefix``, ...).

        Raises:
            IllegalArgumentError: An option out of range, or a socket wrapper (the
                asyncio backends take none), naming it.
        """
        if endpoint.wrap_socket is not None:
            raise IllegalArgumentError(
                f"{cls.__name__} takes no socket wrapper (an asyncio transport has no "
                "blocking socket to wrap)",
                field="wrap_socket",
            )
        return cls(
            endpoint.host,
            endpoint.port,
            **_endpoint_options(endpoint),
            sasl=endpoint.sasl,
            **options,
        )

    def _count_round_trip(self) -> None:
        self.round_trips += 1

    def __repr__(self) -> str:
        if self._channel.endpoint.scheme != "thrift":
            return f"{type(self).__name__}.from_url({self.url!r})"
        return f"{type(self).__name__}({self.host!r}, {self.port})"

    @property
    def url(self) -> str:
        """Where calls go: ``thrift://``, ``thrift+tls://``, ``http://`` or ``https://``."""
        return self._channel.endpoint.url

    @property
    def endpoint(self) -> Endpoint:
        """Where and how this backend connects (address, framing, TLS, HTTP, SASL)."""
        return self._channel.endpoint

    @property
    def host(self) -> str:
        """The server's host."""
        return self._channel.host

    @property
    def port(self) -> int:
        """The server's port."""
        return self._channel.port

    @property
    def table_prefix(self) -> str | None:
        """The prefix of every table name, or ``None``."""
        prefix: str | None = self._ops.table_prefix
        return prefix

    def server_table_name(self, table: str) -> str:
        """The name sent to the server: ``[namespace:]prefix<sep>table`` with a prefix."""
        name: str = self._ops.server_table_name(table)
        return name

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
        request: bytes | None = None,
    ) -> Any:
        """Send one call; translate the server's errors as the synchronous backend does.

        ``request``: the call written already (as the synchronous ``_rpc`` takes it).
        """
        try:
            return await self._channel.call(
                method, *args, retry=retry, table=table, row=row, request=request
            )
        except self._channel.server_errors as exc:
            raise self._ops.server_error(
                exc, method=method, table=table, row=row, column=column, filter_given=filter_given
            ) from exc

    @property
    def family_reads(self) -> bool:
        """As the synchronous backend's ``family_reads`` (reads of single columns).

        ``True`` (the default): reads of ``family:qualifier`` columns ask the server for
        their families and keep exactly the columns asked for; ``False``: name them.
        """
        flag: bool = self._ops.family_reads
        return flag

    @family_reads.setter
    def family_reads(self, value: bool) -> None:
        self._ops.family_reads = value

    async def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        """As the synchronous backend's ``get``."""
        op = self._ops.get_op(table, rows, columns=columns, before=before)
        found: list[RowResult] = await arun(op, self._rpc)
        return found

    async def get_versions(
        self,
        table: str,
        row: bytes,
        column: bytes,
        *,
        max_versions: int,
        before: int | None = None,
    ) -> list[Cell]:
        """As the synchronous backend's ``get_versions``."""
        op = self._ops.get_versions_op(table, row, column, max_versions=max_versions, before=before)
        cells: list[Cell] = await arun(op, self._rpc)
        return cells

    async def scan(self, table: str, scan: Scan) -> AsyncScanner:
        """As the synchronous backend's ``scan``: the scanner is opened now."""
        scanner = self.scanner(
            rpc=self._rpc,
            table=table,
            server_table=self._ops.scan_table(table, scan),
            scan=scan,
            retries=self._channel.retries,
            read=self._ops.scan_read(table, scan),
        )
        return await scanner.start()

    async def mutate(self, table: str, mutations: Sequence[Mutation]) -> None:
        """As the synchronous backend's ``mutate``."""
        await arun(self._ops.mutate_op(table, mutations), self._rpc)

    def row_batch(
        self, table: str, timestamp: int, ttl: int | None, families: frozenset[bytes]
    ) -> RowBatch | None:
        """As the synchronous backend's ``row_batch`` (no I/O)."""
        batch: RowBatch | None = self._ops.row_batch(table, timestamp, ttl, families)
        return batch

    async def write_rows(self, table: str, batch: RowBatch) -> None:
        """As the synchronous backend's ``write_rows``."""
        await arun(self._ops.write_rows_op(table, batch), self._rpc)

    async def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """As the synchronous backend's ``increment``: never retried once sent."""
        value: int = await arun(self._ops.increment_op(table, row, column, amount), self._rpc)
        return value

    async def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """As the synchronous backend's ``increment_many``."""
        await arun(self._ops.increment_many_op(table, increments), self._rpc)

    async def check_and_put(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> bool:
        """As the synchronous backend's ``check_and_put``: never retried once sent."""
        op = self._ops.check_and_put_op(table, row, column, expected, put)
        applied: bool = await arun(op, self._rpc)
        return applied

    async def append(
        self, table: str, row: bytes, values: Mapping[bytes, bytes]
    ) -> dict[bytes, bytes]:
        """As the synchronous backend's ``append``: never retried once sent."""
        values_now: dict[bytes, bytes] = await arun(
            self._ops.append_op(table, row, values), self._rpc
        )
        return values_now

    # --- admin: the synchronous backend's calls, in a worker thread ----------------------

    def _admin_backend(self) -> Any:
        """The synchronous backend of this endpoint that makes the DDL calls.

        Made once, in the worker thread (it connects when made).
        """
        with self._admin_lock:
            if self._admin is None:
                endpoint = self._channel.endpoint
                self._admin = self.sync_backend(
                    endpoint.host,
                    endpoint.port,
                    **_endpoint_options(endpoint),
                    pool_size=1,
                    **self._admin_options,
                )
            return self._admin

    async def _admin_call(self, method: str, *args: Any) -> Any:
        """``method`` of the admin backend, run in a worker thread (DDL is rare and slow)."""
        self._channel._check_open()
        return await asyncio.to_thread(lambda: getattr(self._admin_backend(), method)(*args))

    async def create_table(self, table: Table) -> None:
        """As the synchronous backend's ``create_table``.

        On one connection of its own, from a worker thread: the event loop is not
        blocked while HBase creates the table.
        """
        await self._admin_call("create_table", table)

    async def delete_table(self, name: str) -> None:
        """As the synchronous backend's ``delete_table`` (as :meth:`create_table`)."""
        await self._admin_call("delete_table", name)

    async def table_exists(self, name: str) -> bool:
        """As the synchronous backend's ``table_exists`` (as :meth:`create_table`)."""
        exists: bool = await self._admin_call("table_exists", name)
        return exists

    async def list_tables(self) -> list[str]:
        """As the synchronous backend's ``list_tables`` (as :meth:`create_table`)."""
        names: list[str] = await self._admin_call("list_tables")
        return names

    async def aclose(self) -> None:
        """Close the pooled connections; the backend is unusable afterwards."""
        await self._channel.aclose()
        self._ops.close()
        with self._admin_lock:
            admin, self._admin = self._admin, None
        if admin is not None:
            admin.close()
