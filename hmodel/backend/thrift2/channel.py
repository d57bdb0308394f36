"""A pool of Thrift2 connections that sends one call at a time, with bounded retries."""

from __future__ import annotations

import contextlib
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
from thriftpy2.thrift import TClient, TDecodeException
from thriftpy2.transport import (
    TBufferedTransportFactory,
    TFramedTransportFactory,
    TSocket,
    TTransportException,
)

from hmodel.backend.retry import MAX_BACKOFF_MS, DroppedError, Retry, send
from hmodel.backend.thrift2.error import SERVER_ERRORS, TRANSPORT_ERRORS
from hmodel.backend.thrift2.idl import HBASE2
from hmodel.errors import ConnectionLostError, IllegalArgumentError

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
        sock = TSocket(  # type: ignore[no-untyped-call]  # thriftpy2 is untyped
            options["host"], options["port"], socket_timeout=timeout, connect_timeout=timeout
        )
        self.transport = options["transport"].get_transport(sock)
        self.transport.open()
        protocol = options["protocol"].get_protocol(self.transport)
        self.client = TClient(HBASE2.THBaseService, protocol)

    def close(self) -> None:
        with contextlib.suppress(*TRANSPORT_ERRORS):
            self.transport.close()


class Channel:
    """Thread-safe calls to a Thrift2 server over at most ``pool_size`` connections.

    Each call borrows one idle connection (or opens one) for exactly the duration of the
    call, so any number of threads and open scanners share the pool. A connection whose
    call failed at the transport level is closed, never reused.

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

    Raises:
        IllegalArgumentError: An option out of range.
        ConnectionLostError: ``autoconnect`` and the server cannot be reached.
    """

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
    ) -> None:
        if transport not in _TRANSPORTS:
            raise IllegalArgumentError("transport must be 'buffered' or 'framed'", value=transport)
        if protocol not in _PROTOCOLS:
            raise IllegalArgumentError("protocol must be 'binary' or 'compact'", value=protocol)
        for label, number, minimum in (
            ("pool_size", pool_size, 1),
            ("retries", retries, 0),
            ("retry_backoff_ms", retry_backoff_ms, 0),
        ):
            if isinstance(number, bool) or not isinstance(number, int) or number < minimum:
                raise IllegalArgumentError(f"{label} must be an integer >= {minimum}", value=number)
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
        self.host = host
        self.port = port
        self._options: dict[str, Any] = {
            "host": host,
            "port": port,
            "timeout_ms": timeout_ms,
            "transport": _TRANSPORTS[transport](),
            "protocol": _PROTOCOLS[protocol](),
        }
        self._retries = retries
        self._backoff_ms = retry_backoff_ms
        self._sleep = sleep
        self._count = count
        self._idle: list[_Connection] = []
        self._slots = threading.BoundedSemaphore(pool_size)
        self._lock = threading.Lock()
        self._closed = False
        self._local = threading.local()
        if autoconnect:  # fail now, once, if the server cannot be reached
            send(
                lambda: self._idle.append(self._connect()),
                method="connect",
                retry=Retry.IDEMPOTENT,
                retries=0,
                backoff_ms=0,
                sleep=self._sleep,
                where=f"{self.host}:{self.port}",
            )

    @property
    def retries(self) -> int:
        """How many times a failed call may be sent again."""
        return self._retries

    def busy_here(self) -> bool:
        """Whether the calling thread is inside a call (e.g. a finalizer run by the GC)."""
        return bool(getattr(self._local, "busy", False))

    def _connect(self) -> _Connection:
        try:
            return _Connection(self._options)
        except TRANSPORT_ERRORS as exc:
            raise DroppedError(exc, sent=False) from exc

    def call(
        self,
        method: str,
        *args: Any,
        retry: Retry,
        table: str | None = None,
        row: bytes | None = None,
    ) -> Any:
        """Send one Thrift2 call and return its result.

        Errors the server answers with (``TIOError``, ``TIllegalArgument``,
        ``TApplicationException``) are raised as they are, for the caller to translate
        with its context. A failed connection is retried as ``retry`` allows, with
        exponential backoff; when it may not be (or the budget is spent)
        :class:`~hmodel.errors.ConnectionLostError` is raised with the transport error as
        its cause. An argument thriftpy2 cannot encode raises
        :class:`~hmodel.errors.IllegalArgumentError` (nothing was sent).
        """
        return send(
            lambda: self._attempt(method, args, table=table, row=row),
            method=method,
            retry=retry,
            retries=self._retries,
            backoff_ms=self._backoff_ms,
            sleep=self._sleep,
            where=f"{self.host}:{self.port}",
            table=table,
            row=row,
        )

    def _borrow(self) -> _Connection:
        with self._lock:
            if self._closed:
                raise ConnectionLostError(
                    f"the Thrift2 backend for {self.host}:{self.port} was closed"
                )
            if self._idle:
                return self._idle.pop()
        return self._connect()

    def _give_back(self, connection: _Connection) -> None:
        with self._lock:
            if not self._closed:
                self._idle.append(connection)
                return
        connection.close()

    def _attempt(
        self, method: str, args: tuple[Any, ...], *, table: str | None, row: bytes | None
    ) -> Any:
        with self._slots:
            connection = self._borrow()
            self._local.busy = True
            try:
                result = getattr(connection.client, method)(*args)
            except SERVER_ERRORS:
                # The server answered: the connection is healthy.
                self._count()
                self._give_back(connection)
                raise
            except _ENCODING_ERRORS as exc:
                # Calls are flushed only once fully encoded: nothing left, but the write
                # buffer holds part of this one, so the connection is dropped.
                connection.close()
                raise IllegalArgumentError(
                    f"{method}: an argument cannot be encoded for Thrift: {exc}",
                    table=table,
                    row=row,
                ) from exc
            except TRANSPORT_ERRORS as exc:
                connection.close()
                self._count()
                raise DroppedError(exc, sent=True) from exc
            except Exception as exc:
                # A malformed answer leaves the stream in an unknown state.
                connection.close()
                self._count()
                failure = TTransportException(message=f"{type(exc).__name__}: {exc}")
                raise DroppedError(failure, sent=True) from exc
            except BaseException:
                connection.close()
                raise
            finally:
                self._local.busy = False
            self._count()
            self._give_back(connection)
            return result

    def close(self) -> None:
        """Close every idle connection; later calls raise ``ConnectionLostError``."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
