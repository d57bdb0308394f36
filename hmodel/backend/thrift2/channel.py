"""A pool of Thrift2 connections that sends one call at a time, with bounded retries."""

from __future__ import annotations

import contextlib
import struct
import time
from collections.abc import Callable
from typing import Any

from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
from thriftpy2.thrift import TClient, TDecodeException
from thriftpy2.transport import TBufferedTransportFactory, TFramedTransportFactory, TSocket

from hmodel.backend.pool import PooledChannel
from hmodel.backend.retry import MAX_BACKOFF_MS, Retry
from hmodel.backend.sasl import Sasl, SaslClientTransport, check_sasl
from hmodel.backend.thrift2.error import SERVER_ERRORS, TRANSPORT_ERRORS
from hmodel.backend.thrift2.idl import HBASE2
from hmodel.errors import IllegalArgumentError

__all__ = ["MAX_BACKOFF_MS", "Channel", "Retry"]

#: What thriftpy2 raises for an argument it cannot encode (a str for an i64, 2**64...).
_ENCODING_ERRORS: tuple[type[BaseException], ...] = (
    TDecodeException,
    TypeError,
    ValueError,
    OverflowError,
    struct.error,
)

_TRANSPORTS: dict[str, Any] = {
    "buffered": TBufferedTransportFactory,
    "framed": TFramedTransportFactory,
}
_PROTOCOLS: dict[str, Any] = {"binary": TBinaryProtocolFactory, "compact": TCompactProtocolFactory}


class _Connection:
    """One open socket with its transport, protocol and ``THBaseService`` client."""

    def __init__(self, options: dict[str, Any]) -> None:
        timeout = options["timeout_ms"]
        sock: Any = TSocket(  # type: ignore[no-untyped-call]  # thriftpy2 is untyped
            options["host"], options["port"], socket_timeout=timeout, connect_timeout=timeout
        )
        if options["sasl"] is not None:
            where = f"{options['host']}:{options['port']}"
            sock = SaslClientTransport(sock, options["sasl"], host=options["host"], where=where)
        self.transport = options["transport"].get_transport(sock)
        self.transport.open()
        protocol = options["protocol"].get_protocol(self.transport)
        self.client = TClient(HBASE2.THBaseService, protocol)

    def close(self) -> None:
        with contextlib.suppress(*TRANSPORT_ERRORS):
            self.transport.close()


class Channel(PooledChannel):
    """Thread-safe calls to a Thrift2 server over at most ``pool_size`` connections.

    Each call borrows one idle connection (or opens one) for exactly the duration of the
    call, so any number of threads and open scanners share the pool. The most recently
    used idle connection is lent first; when ``pool_size`` are lent, a call waits for one
    to come back. A connection whose call failed at the transport level is closed, never
    reused, and its place freed.

    Args:
        host: The Thrift2 server's host.
        port: Its port.
        timeout_ms: Connect and socket timeout in milliseconds; ``None``: wait forever.
        transport: ``"buffered"`` or ``"framed"`` (must match the server).
        protocol: ``"binary"`` or ``"compact"`` (must match the server).
        pool_size: Most connections open at once (>= 1).
        retries: How many times a failed call may be sent again (>= 0).
        retry_backoff_ms: Pause before the first retry, doubled for each further one and
            capped at :data:`MAX_BACKOFF_MS`.
        sleep: Called with the pause in seconds between attempts (inject in tests).
        count: Called once per call sent (each attempt), to count round trips.
        autoconnect: Open one connection now, failing now if the server is unreachable.
        sasl: Authenticate each connection with SASL (:mod:`hmodel.backend.sasl`).

    Raises:
        IllegalArgumentError: An option out of range (or ``sasl`` with ``framed``).
        ConnectionLostError: ``autoconnect`` and the server cannot be reached.
        AuthenticationError: ``autoconnect`` and the server refused the authentication.
    """

    server_errors = SERVER_ERRORS
    transport_errors = TRANSPORT_ERRORS
    encoding_errors = _ENCODING_ERRORS
    backend = "Thrift2"
    track_lent = False  # close() closes the idle connections, a lent one when it is back
    count_interrupted = False

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
        if timeout_ms is not None and (
            isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms < 1
        ):
            raise IllegalArgumentError(
                "timeout_ms must be a positive integer or None", value=timeout_ms
            )
        if not isinstance(host, str) or not host:
            raise IllegalArgumentError("host must be a non-empty str", value=host)
        if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65_536:
            raise IllegalArgumentError("port must be an int from 1 to 65535", value=port)
        self._options: dict[str, Any] = {
            "host": host,
            "port": port,
            "timeout_ms": timeout_ms,
            "transport": _TRANSPORTS[transport](),
            "protocol": _PROTOCOLS[protocol](),
            "sasl": sasl,
        }
        self._start(host, port, pool_size, retries, retry_backoff_ms, sleep, count, autoconnect)

    def _open(self) -> _Connection:
        return _Connection(self._options)

    def _close_connection(self, connection: _Connection) -> None:
        connection.close()
