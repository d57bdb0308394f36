"""A bounded pool of Thrift connections that sends one call at a time, with bounded retries.

The Thrift1 and Thrift2 channels differ in the service they call and the errors their
protocols raise; everything else, opening connections (:mod:`hmodel.backend.connection`:
socket, TLS, HTTP or HTTPS), the pool, the retry loop and the bookkeeping around one call,
is this one class.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

from thriftpy2.transport import TTransportException

from hmodel.backend.connection import Connector, tls_refusal
from hmodel.backend.endpoint import Endpoint
from hmodel.backend.retry import DroppedError, Retry, after_drop, send
from hmodel.backend.wire import WireCodec
from hmodel.errors import ConnectionLostError, HModelError, IllegalArgumentError

__all__ = ["PooledChannel"]


class PooledChannel:
    """Connections to one server, at most ``pool_size`` open, lent one call at a time.

    A call borrows an idle connection (the most recently returned first), else opens a new
    one while the pool may grow, else waits for one to come back. A connection that fails
    is closed and its place freed; one that answers (even with an error) goes back.

    An idle connection the server closed meanwhile (its idle timeout) is replaced before
    a call is sent on it, so that call is not lost to a connection already gone.

    Subclasses set the class attributes.

    Args:
        endpoint: Where the server is and how to reach it (socket, TLS, HTTP, HTTPS).
        pool_size: Most connections open at once (>= 1).
        retries: How many times a failed call may be sent again (>= 0).
        retry_backoff_ms: Pause before the first retry, doubled for each further one and
            capped at :data:`~hmodel.backend.retry.MAX_BACKOFF_MS`.
        sleep: Called with the pause in seconds between attempts (inject a recorder in
            tests instead of patching ``time.sleep``).
        count: Called once per call sent (each attempt), to count round trips.
        autoconnect: Open one connection now, failing now if the server is unreachable.
        connector: Where connections come from (``open()``, and ``codec``: the
            :class:`~hmodel.backend.wire.WireCodec` the calls are encoded with before a
            connection is borrowed, ``None`` for connections that encode themselves);
            default: a :class:`~hmodel.backend.connection.Connector` to ``endpoint``.

    Raises:
        IllegalArgumentError: A count out of range, or a TLS file that cannot be loaded.
        ConnectionLostError: ``autoconnect`` and the server cannot be reached.
        TLSError: ``autoconnect`` and the TLS handshake failed.

    Attributes:
        service: The thriftpy2 service the connections' clients call.
        decode_response: Whether the protocol decodes Thrift strings to ``str``.
        server_errors: Errors the server answers with (the connection is fine).
        transport_errors: Errors of the connection itself.
        encoding_errors: What the protocol raises for an argument it cannot encode.
        backend: The backend's name in "was closed" messages.
        track_lent: Keep every open connection, lent or idle (:meth:`close` then closes
            the lent ones too); else :meth:`close` closes the idle ones and a lent one is
            closed when it comes back.
        count_interrupted: Count a call interrupted by a ``BaseException`` (a
            ``KeyboardInterrupt``) as a round trip.
        jitter: Spreads retry pauses (:func:`~hmodel.backend.retry.send`); the backends
            set it from their ``retry_jitter`` argument.
    """

    service: Any
    decode_response: bool
    server_errors: tuple[type[BaseException], ...]
    transport_errors: tuple[type[BaseException], ...]
    encoding_errors: tuple[type[BaseException], ...]
    backend: str
    track_lent: bool
    count_interrupted: bool
    jitter: Callable[[], float] = staticmethod(random.random)

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        pool_size: int,
        retries: int,
        retry_backoff_ms: int,
        sleep: Callable[[float], None] = time.sleep,
        count: Callable[[], None] = lambda: None,
        autoconnect: bool = True,
        connector: Any = None,
    ) -> None:
        for label, number, minimum in (
            ("pool_size", pool_size, 1),
            ("retries", retries, 0),
            ("retry_backoff_ms", retry_backoff_ms, 0),
        ):
            if isinstance(number, bool) or not isinstance(number, int) or number < minimum:
                raise IllegalArgumentError(f"{label} must be an integer >= {minimum}", value=number)
        self.endpoint = endpoint
        self.host = endpoint.host
        self.port = endpoint.port
        self._connector = connector or Connector(
            endpoint, self.service, decode_response=self.decode_response
        )
        self._codec: WireCodec | None = self._connector.codec
        self._where = endpoint.url if endpoint.scheme != "thrift" else f"{self.host}:{self.port}"
        self._retries = retries
        self._backoff_ms = retry_backoff_ms
        self._sleep = sleep
        self._count = count
        self._lock = threading.Lock()
        self._returned = threading.Condition(self._lock)
        #: Open connections not lent; the last one is lent first.
        self._idle: list[Any] = []
        #: How many more connections may be opened (``pool_size`` minus those open).
        self._unopened = pool_size
        #: How many threads wait for a connection to be given back.
        self._waiting = 0
        #: With ``track_lent``: every open connection, lent or idle, by id.
        self._connections: dict[int, Any] = {}
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

    def _open(self) -> Any:
        """Open one connection (raising one of :attr:`transport_errors` if it cannot)."""
        return self._connector.open()

    def _close_connection(self, connection: Any) -> None:
        """Close one connection; transport errors while closing are ignored."""
        connection.close()

    @property
    def codec(self) -> WireCodec | None:
        """The codec of the wire the calls travel on; ``None`` through thriftpy2's client."""
        return self._codec

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
        request: bytes | None = None,
    ) -> Any:
        """Send one call and return its result.

        Errors the server answers with (:attr:`server_errors`) are raised as they are,
        for the caller to translate with its context. A dropped or failed connection is
        retried as ``retry`` allows, with exponential backoff; when it may not be (or the
        budget is spent) :class:`~hmodel.errors.ConnectionLostError` is raised, the last
        transport error as its cause. An argument thriftpy2 cannot encode raises
        :class:`~hmodel.errors.IllegalArgumentError` at once (nothing was sent).

        ``request``: the call's whole binary-protocol message, written already (a
        :class:`~hmodel.backend.template.MessageTemplate` filled in, a row batch's
        message), which a channel on the binary wire sends as it is, reading no
        ``args``. Callers pass one only to such a channel (``codec`` binary); a channel
        through thriftpy2's client (SASL, a socket wrapper) or on the compact protocol
        encodes ``args``, which must then be the call's arguments.
        """
        # The first attempt is made here (most calls need no other): the retry loop, and
        # the closure it calls, only after a drop.
        try:
            return self._attempt(method, args, table=table, row=row, request=request)
        except DroppedError as dropped:
            pause = after_drop(
                dropped,
                tries=0,
                method=method,
                retry=retry,
                retries=self._retries,
                backoff_ms=self._backoff_ms,
                where=self._where,
                table=table,
                row=row,
                jitter=self.jitter,
            )
        self._sleep(pause)
        return send(
            lambda: self._attempt(method, args, table=table, row=row, request=request),
            method=method,
            retry=retry,
            retries=self._retries,
            backoff_ms=self._backoff_ms,
            sleep=self._sleep,
            where=self._where,
            table=table,
            row=row,
            jitter=self.jitter,
            tries=1,
        )

    def _borrow(self) -> Any:
        """An idle connection, else a new one if the pool may grow, else the next returned.

        Raises:
            ConnectionLostError: The channel was closed.
            DroppedError: A new connection could not be opened (nothing was sent).
        """
        gone = None  # an idle connection the server closed: a new one takes its place
        with self._lock:
            while True:
                if self._closed:
                    raise ConnectionLostError(
                        f"the {self.backend} backend for {self.host}:{self.port} was closed"
                    )
                if self._idle:
                    idle = self._idle.pop()
                    if not idle.stale():
                        return idle
                    gone = idle
                    break
                if self._unopened:
                    self._unopened -= 1
                    break
                self._waiting += 1
                try:
                    self._returned.wait()
                finally:
                    self._waiting -= 1
        if gone is not None:
            self._close_connection(gone)
            if self.track_lent:
                with self._lock:
                    self._connections.pop(id(gone), None)
        try:
            connection = self._open()
        except self.transport_errors as exc:
            self._free_slot()
            raise DroppedError(exc, sent=False) from exc
        except BaseException:
            self._free_slot()
            raise
        if not self.track_lent:
            return connection
        with self._lock:
            if not self._closed:
                self._connections[id(connection)] = connection
                return connection
        self._discard(connection)
        raise ConnectionLostError(
            f"the {self.backend} backend for {self.host}:{self.port} was closed"
        )

    def _give_back(self, connection: Any) -> None:
        """Return a healthy connection to the idle ones (closed if the channel was)."""
        with self._lock:
            if not self._closed:
                self._idle.append(connection)
                if self._waiting:
                    self._returned.notify()
                return
        self._close_connection(connection)

    def _discard(self, connection: Any) -> None:
        """Close a connection that failed (or outlived the channel) and free its place."""
        self._close_connection(connection)
        if self.track_lent:
            with self._lock:
                self._connections.pop(id(connection), None)
        self._free_slot()

    def _free_slot(self) -> None:
        with self._lock:
            self._unopened += 1
            if self._waiting:
                self._returned.notify()

    def _attempt(
        self,
        method: str,
        args: tuple[Any, ...],
        *,
        table: str | None,
        row: bytes | None,
        request: bytes | None = None,
    ) -> Any:
        codec = self._codec
        if codec is None:
            request = None  # thriftpy2's client encodes ``args`` itself
        elif request is None or codec.compact:  # encoded whole before a borrow
            try:
                request = codec.encode(method, args)
            except self.server_errors:
                raise  # a required argument missing, as thriftpy2's client answers it
            except self.encoding_errors as exc:
                raise self._unencodable(method, exc, table=table, row=row) from exc
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
        stale = False
        try:
            result = connection.call(method, args, request)
            healthy = True
            return result
        except self.server_errors:
            # The server answered: the connection is fine.
            healthy = True
            raise
        except HModelError:
            # A typed refusal on the way (an HTTP 401, a TLS handshake on reconnection):
            # sending it again would be refused again. The connection is replaced.
            raise
        except self.transport_errors as exc:
            refused = tls_refusal(exc, self._where)
            if refused is not None:
                raise refused from exc
            stale = True
            raise DroppedError(exc, sent=True) from exc
        except self.encoding_errors as exc:
            # thriftpy2's client (SASL, a socket wrapper): an argument the protocol cannot
            # encode (wrong type, out of range). Requests are flushed only once fully
            # encoded, so nothing was sent, but the write buffer holds part of it: the
            # connection is replaced.
            sent = False
            raise self._unencodable(method, exc, table=table, row=row) from exc
        except Exception as exc:
            # Anything else (a malformed answer) leaves the stream in an unknown state:
            # the connection is replaced.
            failure = TTransportException(message=f"{type(exc).__name__}: {exc}")
            failure.__cause__ = exc
            raise DroppedError(failure, sent=True) from failure
        except BaseException:
            sent = self.count_interrupted  # interrupted: the connection is replaced
            raise
        finally:
            try:
                if sent:
                    self._count()
                if healthy:
                    self._give_back(connection)
                else:
                    self._discard(connection)
                if stale:
                    self._discard_idle()
            finally:
                local.busy = False

    @staticmethod
    def _unencodable(
        method: str, exc: BaseException, *, table: str | None, row: bytes | None
    ) -> IllegalArgumentError:
        """The error for an argument of ``method`` the protocol cannot encode (``exc``)."""
        return IllegalArgumentError(
            f"{method}: an argument cannot be encoded for Thrift: {exc}", table=table, row=row
        )

    def _discard_idle(self) -> None:
        """Close every idle connection: one just dropped, and those idle as long may be dead.

        A server closes the connections idle past its timeout (HBase's Thrift servers
        after ``hbase.thrift.server.socket.read.timeout``, 60 s by default), all at once
        after a quiet spell; a retry that took the next idle one would fail again, and
        could spend its whole budget on dead connections. It opens a new one instead.
        """
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            self._discard(connection)

    def close(self) -> None:
        """Close the pooled connections; later calls raise ``ConnectionLostError``.

        With :attr:`track_lent` every open connection is closed, lent or idle; else the
        idle ones, and each lent one when it comes back.
        """
        with self._lock:
            self._closed = True
            if self.track_lent:
                connections = list(self._connections.values())
                self._connections.clear()
            else:
                connections = list(self._idle)
            self._idle.clear()
            self._returned.notify_all()  # waiting threads then find the channel closed
        for connection in connections:
            self._close_connection(connection)
