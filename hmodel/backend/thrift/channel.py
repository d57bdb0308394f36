"""A pool of Thrift1 connections that sends one RPC at a time, with bounded retries."""

from __future__ import annotations

import contextlib
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

import happybase
from thriftpy2.thrift import TDecodeException
from thriftpy2.transport import TTransportException

from hmodel.backend.retry import MAX_BACKOFF_MS, DroppedError, Retry, send
from hmodel.backend.thrift.error import SERVER_ERRORS, TRANSPORT_ERRORS
from hmodel.errors import (
    ConnectionLostError,
    IllegalArgumentError,
)

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


class Channel:
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
        if transport not in ("buffered", "framed"):
            raise IllegalArgumentError("transport must be 'buffered' or 'framed'", value=transport)
        if protocol not in ("binary", "compact"):
            raise IllegalArgumentError("protocol must be 'binary' or 'compact'", value=protocol)
        for label, number, minimum in (
            ("pool_size", pool_size, 1),
            ("retries", retries, 0),
            ("retry_backoff_ms", retry_backoff_ms, 0),
        ):
            if isinstance(number, bool) or not isinstance(number, int) or number < minimum:
                raise IllegalArgumentError(f"{label} must be an integer >= {minimum}", value=number)
        if timeout_ms is not None and (not isinstance(timeout_ms, int) or timeout_ms < 1):
            raise IllegalArgumentError(
                "timeout_ms must be a positive integer or None", value=timeout_ms
            )
        self.host = host
        self.port = port
        self._where = f"{host}:{port}"
        self._options: dict[str, Any] = {
            "host": host,
            "port": port,
            "timeout": timeout_ms,
            "transport": transport,
            "protocol": protocol,
        }
        self._retries = retries
        self._backoff_ms = retry_backoff_ms
        self._sleep = sleep
        self._lock = threading.Lock()
        self._returned = threading.Condition(self._lock)
        #: Open connections not lent; the last one is lent first.
        self._idle: list[Any] = []
        #: How many more connections may be opened (``pool_size`` minus those open).
        self._unopened = pool_size
        #: How many threads wait for a connection to be given back.
        self._waiting = 0
        #: Every open connection, lent or idle, by id (for :meth:`close`).
        self._connections: dict[int, Any] = {}
        self._count = count
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
        """How many times a failed request may be sent again."""
        return self._retries

    def busy_here(self) -> bool:
        """Whether the calling thread is inside an RPC (e.g. a finalizer run by the GC)."""
        return bool(getattr(self._local, "busy", False))

    def _borrow(self) -> Any:
        """An idle connection, else a new one if the pool may grow, else the next returned.

        Raises:
            ConnectionLostError: The channel was closed.
            DroppedError: A new connection could not be opened (nothing was sent).
        """
        with self._lock:
            while True:
                if self._closed:
                    raise ConnectionLostError(
                        f"the Thrift backend for {self.host}:{self.port} was closed"
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
            connection = happybase.Connection(**self._options)
        except TRANSPORT_ERRORS as exc:
            self._free_slot()
            raise DroppedError(exc, sent=False) from exc
        except BaseException:
            self._free_slot()
            raise
        with self._lock:
            if not self._closed:
                self._connections[id(connection)] = connection
                return connection
        self._discard(connection)
        raise ConnectionLostError(f"the Thrift backend for {self.host}:{self.port} was closed")

    def _give_back(self, connection: Any) -> None:
        """Return a healthy connection to the idle ones (closed if the channel was)."""
        with self._lock:
            if not self._closed:
                self._idle.append(connection)
                if self._waiting:
                    self._returned.notify()
                return
        with contextlib.suppress(*TRANSPORT_ERRORS):
            connection.close()

    def _discard(self, connection: Any) -> None:
        """Close a connection that failed (or outlived the channel) and free its place."""
        with contextlib.suppress(*TRANSPORT_ERRORS):
            connection.close()
        with self._lock:
            self._connections.pop(id(connection), None)
        self._free_slot()

    def _free_slot(self) -> None:
        with self._lock:
            self._unopened += 1
            if self._waiting:
                self._returned.notify()

    def call(
        self,
        method: str,
        *args: Any,
        retry: Retry,
        table: str | None = None,
        row: bytes | None = None,
    ) -> Any:
        """Send one Thrift1 RPC and return its result.

        Errors the server answers with (``IOError``, ``IllegalArgument``,
        ``AlreadyExists``, ``TApplicationException``) are raised as they are, for the
        caller to translate with its context. A dropped or failed connection is retried
        as ``retry`` allows, with exponential backoff; when it may not be (or the budget
        is spent) :class:`~hmodel.errors.ConnectionLostError` is raised, the last
        transport error as its cause. An argument thriftpy2 cannot encode raises
        :class:`~hmodel.errors.IllegalArgumentError` at once (nothing was sent).
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
            # The server answered: the connection is fine.
            healthy = True
            raise
        except TRANSPORT_ERRORS as exc:
            raise DroppedError(exc, sent=True) from exc
        except ENCODING_ERRORS as exc:
            # An argument the protocol cannot encode (wrong type, out of range). Requests
            # are flushed only once fully encoded, so nothing was sent, but the write
            # buffer holds part of it: the connection is replaced.
            sent = False
            raise IllegalArgumentError(
                f"{method}: an argument cannot be encoded for Thrift: {exc}",
                table=table,
                row=row,
            ) from exc
        except Exception as exc:
            # Anything else (a malformed answer) leaves the stream in an unknown state:
            # the connection is replaced.
            failure = TTransportException(message=f"{type(exc).__name__}: {exc}")
            failure.__cause__ = exc
            raise DroppedError(failure, sent=True) from failure
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
        """Close every pooled connection; later calls raise ``ConnectionLostError``."""
        with self._lock:
            self._closed = True
            connections = list(self._connections.values())
            self._connections.clear()
            self._idle.clear()
            self._returned.notify_all()
        for connection in connections:
            with contextlib.suppress(*TRANSPORT_ERRORS):
                connection.close()
