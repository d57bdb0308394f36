"""A pool of Thrift1 connections that sends one RPC at a time, with bounded retries."""

from __future__ import annotations

import contextlib
import struct
import time
from collections.abc import Callable
from typing import Any

import happybase
from thriftpy2.thrift import TClient, TDecodeException
from thriftpy2.transport import TSocket

from hmodel.backend.pool import PooledChannel
from hmodel.backend.retry import MAX_BACKOFF_MS, Retry
from hmodel.backend.sasl import Sasl, SaslClientTransport, check_sasl
from hmodel.backend.thrift.error import SERVER_ERRORS, TRANSPORT_ERRORS
from hmodel.errors import IllegalArgumentError

__all__ = ["ENCODING_ERRORS", "MAX_BACKOFF_MS", "Channel", "Retry"]

#: What thriftpy2 raises for an argument it cannot encode (a str for an i64, 2**64...):
#: its C protocol raises ``TDecodeException`` (sic), the Python one the others.
ENCODING_ERRORS: tuple[type[BaseException], ...] = (
    TDecodeException,
    TypeError,
    ValueError,
    OverflowError,
    struct.error,
)


class _SaslConnection(happybase.Connection):  # type: ignore[misc]  # happybase is untyped
    """A happybase connection whose socket is wrapped in SASL before its transport."""

    def __init__(self, *, sasl: Sasl, **options: Any) -> None:
        self._sasl = sasl
        super().__init__(**options)

    def _refresh_thrift_client(self) -> None:
        sock = TSocket(host=self.host, port=self.port, socket_timeout=self.timeout)  # type: ignore[no-untyped-call]
        where = f"{self.host}:{self.port}"
        sasl = SaslClientTransport(sock, self._sasl, host=self.host, where=where)
        self.transport = self._transport_class(sasl)
        protocol = self._protocol_class(self.transport, decode_response=False)
        self.client = TClient(happybase.connection.Hbase, protocol)


class Channel(PooledChannel):
    """Thread-safe access to an HBase Thrift1 server through a pool of happybase connections.

    Each RPC borrows one pooled connection for exactly the duration of the call, so any
    number of threads (and any number of open scanners) share ``pool_size`` connections.
    Connections are opened when first needed, the most recently used idle one is lent
    first, and a connection that fails is closed and replaced by a new one when next
    needed. (The pool is hmodel's: happybase's ``ConnectionPool`` costs several
    microseconds per call in its queue and thread-local bookkeeping.)

    Args:
        host: The Thrift server's host.
        port: The Thrift server's port.
        timeout_ms: Socket timeout per read/write in milliseconds; ``None``: wait forever.
        transport: ``"buffered"`` or ``"framed"`` (must match the server's mode).
        protocol: ``"binary"`` or ``"compact"`` (must match the server's mode).
        pool_size: Number of pooled connections (>= 1).
        retries: How many times a failed request may be sent again (>= 0).
        retry_backoff_ms: Pause before the first retry; doubled at each further one and
            capped at :data:`MAX_BACKOFF_MS`.
        sleep: Called with the pause in seconds between attempts (inject a recorder in
            tests instead of patching ``time.sleep``).
        count: Called once per RPC sent (each attempt), to count round trips.
        autoconnect: Connect now (and fail now if the server is unreachable) rather than
            at the first request.
        sasl: Authenticate each connection with SASL (:mod:`hmodel.backend.sasl`);
            buffered transport only, as HBase's secured Thrift server.
    """

    server_errors = SERVER_ERRORS
    transport_errors = TRANSPORT_ERRORS
    encoding_errors = ENCODING_ERRORS
    backend = "Thrift"
    track_lent = True  # close() closes every connection, lent ones too
    count_interrupted = True

    def __init__(
        self,
        host: str,
        port: int,
        *,
        timeout_ms: int | None,
        transport: str,
        protocol: str,
        pool_size: int,
        retries: int,
        retry_backoff_ms: int,
        sleep: Callable[[float], None] = time.sleep,
        count: Callable[[], None] = lambda: None,
        autoconnect: bool = True,
        sasl: Sasl | None = None,
    ) -> None:
        self._check_options(transport, protocol, pool_size, retries, retry_backoff_ms)
        check_sasl(sasl, transport)
        self._sasl = sasl
        if timeout_ms is not None and (not isinstance(timeout_ms, int) or timeout_ms < 1):
            raise IllegalArgumentError(
                "timeout_ms must be a positive integer or None", value=timeout_ms
            )
        self._options: dict[str, Any] = {
            "host": host,
            "port": port,
            "timeout": timeout_ms,
            "transport": transport,
            "protocol": protocol,
        }
        self._start(host, port, pool_size, retries, retry_backoff_ms, sleep, count, autoconnect)

    def _open(self) -> Any:
        if self._sasl is not None:
            return _SaslConnection(sasl=self._sasl, **self._options)
        return happybase.Connection(**self._options)

    def _close_connection(self, connection: Any) -> None:
        with contextlib.suppress(*TRANSPORT_ERRORS):
            connection.close()
