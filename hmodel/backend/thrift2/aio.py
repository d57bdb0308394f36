"""The asyncio Thrift2 backend: the AsyncBackend protocol over HBase 2's Thrift2 API."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmodel.backend.aio_pool import AsyncPooledChannel
from hmodel.backend.aio_thrift import AsyncScannerEdge, AsyncThriftBase
from hmodel.backend.base import Delete, Mutation
from hmodel.backend.op import arun
from hmodel.backend.thrift2.backend import Thrift2Backend
from hmodel.backend.thrift2.channel import ENCODING_ERRORS
from hmodel.backend.thrift2.error import SERVER_ERRORS, TRANSPORT_ERRORS
from hmodel.backend.thrift2.idl import HBASE2
from hmodel.backend.thrift2.scanner import ScannerCore

__all__ = ["AsyncThrift2Backend"]


class AsyncChannel(AsyncPooledChannel):
    """Calls to a Thrift2 server from any event loop, at most ``pool_size`` connections per loop."""

    service: Any = HBASE2.THBaseService
    decode_response = True
    server_errors = SERVER_ERRORS
    transport_errors = TRANSPORT_ERRORS
    encoding_errors = ENCODING_ERRORS
    backend = "Thrift2"


class AsyncThrift2Scanner(AsyncScannerEdge, ScannerCore):
    """A Thrift2 scanner's rows as an async iterator (the scanner core's requests, awaited).

    ``openScanner`` and the first ``getScannerRows`` are sent by ``start`` (HBase fails
    a missing table only at the first fetch), as the synchronous backend does.
    """

    fetch_at_open = True


class AsyncThrift2Backend(AsyncThriftBase):
    """The :class:`~hmodel.backend.aio.AsyncBackend` protocol over a Thrift2 server.

    Every call is the synchronous :class:`~hmodel.backend.thrift2.Thrift2Backend`'s own
    operation (the same arguments checked, the same requests, the same error
    translation), sent over hmodel's asyncio Thrift wire through a pool of at most
    ``pool_size`` connections, with the same retry rules. Round trips, capabilities and
    RPC names are the synchronous backend's.

    A socket (``transport`` buffered or framed, ``protocol`` binary or compact), inside
    TLS with ``tls``, or Thrift over HTTP(S) with ``http`` (one ``POST`` per call on a
    kept-alive connection), as the synchronous backend connects; SASL is not
    asynchronous yet. Table administration is not part of
    :class:`~hmodel.backend.aio.AsyncBackend`: use a
    :class:`~hmodel.backend.thrift2.Thrift2Backend` for DDL. Nothing is opened until the
    first call (no ``autoconnect``: a constructor cannot await); a TLS file that cannot
    be loaded fails here, a certificate the server shows that is not accepted at the
    first call (:class:`~hmodel.errors.TLSError`).

    Args:
        host: The Thrift2 server's host.
        port: Its port.
        timeout_ms: Connect and read timeout in milliseconds; ``None``: wait forever.
        transport: ``"buffered"`` or ``"framed"`` (over HTTP only ``"buffered"``).
        protocol: ``"binary"`` or ``"compact"`` (over HTTP only ``"binary"``).
        tls: TLS settings (:class:`~hmodel.backend.endpoint.TLS`), a ready
            ``ssl.SSLContext``, ``True`` for the system's CAs, or ``None`` for none.
        http: HTTP settings (:class:`~hmodel.backend.endpoint.HTTP`), a path, ``True``
            for ``HTTP()``, or ``None`` for a plain Thrift socket.
        table_prefix: Prepended, with ``table_prefix_separator``, to every table name.
        table_prefix_separator: Between prefix and name.
        pool_size: Most connections open at once (>= 1).
        retries: How many times a call whose connection failed may be sent again.
        retry_backoff_ms: Pause before the first retry, doubled for each further one.
        sleep: Awaited with the pause in seconds between retries (inject in tests).
        retry_jitter: A float from 0 to 1 spreading each retry pause.
        sasl: Refused: SASL is not asynchronous yet.

    Raises:
        IllegalArgumentError: An option out of range, a combination the server cannot
            serve (framed or compact over HTTP), ``sasl``, or a TLS file that cannot be
            loaded; naming it.
    """

    sync_backend = Thrift2Backend
    channel = AsyncChannel
    scanner = AsyncThrift2Scanner

    async def check_and_delete(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, delete: Delete
    ) -> bool:
        """As ``Thrift2Backend.check_and_delete``: one ``checkAndDelete``, never retried."""
        op = self._ops.check_and_delete_op(table, row, column, expected, delete)
        applied: bool = await arun(op, self._rpc)
        return applied

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
        applied: bool = await arun(op, self._rpc)
        return applied
