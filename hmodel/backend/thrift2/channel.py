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
        self._where = f"{host}:{port}"
        self._lock = threading.Lock()
        self._returned = threading.Condition(self._lock)
        #: Open connections not lent; the last one is lent first.
        self._idle: list[_Connection] = []
        #: How many more connections may be opened (``pool_size`` minus those open).
        self._unopened = pool_size
        #: How many threads wait for a connection to be given back.
        self._waiting = 0
        self._closed = False
        self._local = threading.local()
        if autoconnect:  # fail now, once, if the server cannot be reached
            send(
                lambda: self._give_back(self._borrow()),
                method="connect",
                retry=Retry.IDEMPOTENT,
                retries=0,
                backoff_ms=0,
                sleep=self._sleep,
                where=self._where,
            )

    @property
    def retries(self) -> int:
        """How many times a failed call may be sent again."""
        return self._retries

    def busy_here(self) -> bool:
        """Whether the calling thread is inside a call (e.g. a finalizer run by the GC)."""
        return bool(getattr(self._local, "busy", False))

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
            where=self._where,
            table=table,
            row=row,
        )

    def _borrow(self) -> _Connection:
        """An idle connection, else a new one if the pool may grow, else the next returned.

        Raises:
            ConnectionLostError: The channel was closed.
            DroppedError: A new connection could not be opened (nothing was sent).
        """
        with self._lock:
            while True:
                if self._closed:
                    raise ConnectionLostError(
                        f"the Thrift2 backend for {self.host}:{self.port} was closed"
                    )
                if self._idle:
                    return self._idle.pop()
                if self._unopened:
                    self._unopened -= 1
                    break
                self._waiting += 1
                try:
                    self._returned.wait()
                finally:
                    self._waiting -= 1
        try:
            return _Connection(self._options)
        except TRANSPORT_ERRORS as exc:
            self._free_place()
            raise DroppedError(exc, sent=False) from exc
        except BaseException:
            self._free_place()
            raise

    def _give_back(self, connection: _Connection) -> None:
        """Return a healthy connection to the idle ones (closed if the channel was)."""
        with self._lock:
            if not self._closed:
                self._idle.append(connection)
                if self._waiting:
                    self._returned.notify()
                return
        connection.close()

    def _discard(self, connection: _Connection) -> None:
        """Close a connection that failed and free its place in the pool."""
        connection.close()
        self._free_place()

    def _free_place(self) -> None:
        with self._lock:
            self._unopened += 1
            if self._waiting:
                self._returned.notify()

    def _attempt(
        self, method: str, args: tuple[Any, ...], *, table: str | None, row: bytes | None
    ) -> Any:
        local = self._local
        # Busy from before the borrow until the connection is back: a finalizer the GC
        # runs on this thread meanwhile defers its scanner close instead of entering the
        # pool again (whose lock this thread may hold).
        local.busy = True
        try:
            connection = self._borrow()
        except BaseException:
            local.busy = False
            raise
        sent = True
        healthy = False
        try:
            result = getattr(connection.client, method)(*args)
            healthy = True
            return result
        except SERVER_ERRORS:
            # The server answered: the connection is healthy.
            healthy = True
            raise
        except _ENCODING_ERRORS as exc:
            # Calls are flushed only once fully encoded: nothing left, but the write
            # buffer holds part of this one, so the connection is dropped.
            sent = False
            raise IllegalArgumentError(
                f"{method}: an argument cannot be encoded for Thrift: {exc}",
                table=table,
                row=row,
            ) from exc
        except TRANSPORT_ERRORS as exc:
            raise DroppedError(exc, sent=True) from exc
        except Exception as exc:
            # A malformed answer leaves the stream in an unknown state.
            failure = TTransportException(message=f"{type(exc).__name__}: {exc}")
            raise DroppedError(failure, sent=True) from exc
        except BaseException:
            sent = False  # interrupted (not counted, as ever): the connection is dropped
            raise
        finally:
            try:
                if sent:
                    self._count()
                if healthy:
                    self._give_back(connection)
                else:
                    self._discard(connection)
            finally:
                local.busy = False

    def close(self) -> None:
        """Close every idle connection; later calls raise ``ConnectionLostError``."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._returned.notify_all()  # waiting threads then find the channel closed
        for connection in idle:
            connection.close()
