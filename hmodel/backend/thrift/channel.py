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
    """Thread-safe access to an HBase Thrift1 server through a ``happybase.ConnectionPool``.

    Each RPC borrows one pooled connection for exactly the duration of the call, so any
    number of threads (and any number of open scanners) share ``pool_size`` connections.
    A connection that fails is closed and replaced by the pool before it is reused.

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
        self._options: dict[str, Any] = {
            "host": host,
            "port": port,
            "timeout": timeout_ms,
            "transport": transport,
            "protocol": protocol,
        }
        self._pool_size = pool_size
        self._retries = retries
        self._backoff_ms = retry_backoff_ms
        self._sleep = sleep
        self._pool: Any = None
        self._lock = threading.Lock()
        self._connections: dict[int, Any] = {}
        self._count = count
        self._closed = False
        self._local = threading.local()
        if autoconnect:  # fail now, once, if the server cannot be reached
            send(
                self._get_pool,
                method="connect",
                retry=Retry.IDEMPOTENT,
                retries=0,
                backoff_ms=0,
                sleep=self._sleep,
                where=f"{self.host}:{self.port}",
            )

    @property
    def retries(self) -> int:
        """How many times a failed request may be sent again."""
        return self._retries

    def busy_here(self) -> bool:
        """Whether the calling thread is inside an RPC (e.g. a finalizer run by the GC)."""
        return bool(getattr(self._local, "busy", False))

    def _get_pool(self) -> Any:
        with self._lock:
            if self._closed:
                raise ConnectionLostError(
                    f"the Thrift backend for {self.host}:{self.port} was closed"
                )
            if self._pool is None:
                try:
                    pool = happybase.ConnectionPool(self._pool_size, **self._options)
                except TRANSPORT_ERRORS as exc:
                    raise DroppedError(exc, sent=False) from exc
                # The pool opened one connection to check the address: remember it.
                with pool.connection() as connection:
                    self._connections[id(connection)] = connection
                self._pool = pool
            return self._pool

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
            where=f"{self.host}:{self.port}",
            table=table,
            row=row,
        )

    def _attempt(
        self, method: str, args: tuple[Any, ...], *, table: str | None, row: bytes | None
    ) -> Any:
        pool = self._get_pool()
        sent = False
        failure: BaseException | None = None
        unencodable: BaseException | None = None
        try:
            with pool.connection() as connection:
                self._connections[id(connection)] = connection
                self._local.busy = True
                try:
                    sent = True
                    return getattr(connection.client, method)(*args)
                except SERVER_ERRORS as exc:
                    # The server answered: the connection is fine. Raised below, outside
                    # the pool's block, so the pool does not replace a healthy connection.
                    failure = exc
                except TRANSPORT_ERRORS:
                    connection.close()
                    raise
                except ENCODING_ERRORS as exc:
                    # An argument the protocol cannot encode (wrong type, out of range).
                    # Requests are flushed only once fully encoded, so nothing was sent,
                    # but the write buffer holds part of it: replace the connection.
                    sent = False
                    unencodable = exc
                    connection.close()
                    raise TTransportException(message=f"{type(exc).__name__}: {exc}") from exc
                except Exception as exc:
                    # Anything else (a malformed answer) leaves the stream in an unknown
                    # state: close it and let the pool replace it.
                    connection.close()
                    raise TTransportException(message=f"{type(exc).__name__}: {exc}") from exc
                except BaseException:
                    connection.close()
                    raise
                finally:
                    self._local.busy = False
                    if sent:
                        self._count()
        except TRANSPORT_ERRORS as exc:
            if unencodable is not None:
                raise IllegalArgumentError(
                    f"{method}: an argument cannot be encoded for Thrift: {unencodable}",
                    table=table,
                    row=row,
                ) from unencodable
            raise DroppedError(exc, sent=sent) from exc
        assert failure is not None
        raise failure

    def close(self) -> None:
        """Close every pooled connection; later calls raise ``ConnectionLostError``."""
        with self._lock:
            self._closed = True
            connections = list(self._connections.values())
            self._connections.clear()
            self._pool = None
        for connection in connections:
            with contextlib.suppress(*TRANSPORT_ERRORS):
                connection.close()
