"""A bounded pool of asyncio Thrift connections that sends one call at a time, with retries.

The asyncio edge of :class:`~hmodel.backend.pool.PooledChannel`: the same pool rules, the
same retry decisions (:func:`~hmodel.backend.retry.after_drop`) and the same sorting of
failures (server answers, dropped connections, arguments that cannot be encoded), over
:mod:`hmodel.backend.aio_wire` (each request encoded whole before a connection is
borrowed, each reply decoded once whole by thriftpy2's synchronous protocol), over a
socket or TLS (a lean ``asyncio.Protocol``, not asyncio's streams: one timer per
connection, not one per read and per drain), or HTTP or HTTPS
(:mod:`hmodel.backend.aio_transport`); SASL endpoints are refused when the channel is made.

Cancellation: a call cancelled while it waits for a connection sends nothing; one
cancelled once its request may have left has its connection closed (the answer may be
half read), never given back to the pool; its place is freed.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import select
import threading
import weakref
from collections.abc import AsyncGenerator, Callable
from socket import SHUT_RDWR
from typing import Any, TypeVar

from thriftpy2.transport import TTransportException

from hmodel.backend.aio_transport import AsyncHttpTransport, StreamOpener
from hmodel.backend.aio_wire import WireClient, WireCodec
from hmodel.backend.connection import tls_refusal
from hmodel.backend.endpoint import Endpoint
from hmodel.backend.retry import DroppedError, Retry, asend
from hmodel.errors import ConnectionLostError, HModelError, IllegalArgumentError

__all__ = ["AsyncConnection", "AsyncPooledChannel"]

T = TypeVar("T")


class _ProtocolSocket(asyncio.Protocol):
    """What a :class:`~hmodel.backend.aio_wire.WireClient` calls through: a lean asyncio protocol.

    A plain socket or TLS connection without asyncio's streams: the bytes the loop
    receives are kept as they come and wake the one call waiting for them; a write goes
    to the transport at once and waits only while the transport says its buffer is full
    (``pause_writing``). Each wait (for a reply's bytes, for the buffer to drain) lasts
    at most ``timeout`` seconds, as a stream read under ``asyncio.timeout`` did, but
    without a timer per wait: one timer per connection, scheduled when a wait starts and
    none is pending, moved on when it fires early (a later wait), never cancelled per
    call. When it fires on a wait older than ``timeout``, the wait raises
    ``asyncio.TimeoutError``.

    The end of the connection is what the streams said: ``TTransportException``
    (``END_OF_FILE``) once the server closed it and its bytes are read, the loop's
    ``OSError`` (``ssl.SSLError`` included) if it broke.
    """

    def __init__(self, timeout: float | None) -> None:
        self._timeout = timeout
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.Transport | None = None
        self._poll: Any = None
        #: Bytes received and not read yet, in the pieces they came in.
        self._chunks: list[bytes] = []
        self._waiter: asyncio.Future[None] | None = None
        #: When the current wait started (loop time).
        self._since = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        self._paused = False
        self._lost = False
        self._error: BaseException | None = None

    # The loop's side.

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                poll = select.poll()
                poll.register(sock.fileno(), select.POLLIN)
                self._poll = poll

    def data_received(self, data: bytes) -> None:
        self._chunks.append(data)
        self._wake(None)

    def eof_received(self) -> bool:
        return False  # the transport closes; connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        self._error = exc
        self._wake(self._ended())
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        self._wake(None)

    def _wake(self, error: BaseException | None) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            if error is None:
                waiter.set_result(None)
            else:
                waiter.set_exception(error)

    def _ended(self) -> BaseException:
        """What a read past the end raises: the loop's error, or the end of the stream."""
        if self._error is not None:
            return self._error
        return TTransportException(
            type=TTransportException.END_OF_FILE, message="the server closed the connection"
        )

    def _expire(self) -> None:
        self._timer = None
        waiter = self._waiter
        if waiter is None or waiter.done() or self._timeout is None:
            return
        due = self._since + self._timeout
        if due > self._timer_at:  # a later wait than the one the timer was set for
            self._timer_at = due
            self._timer = self._loop.call_at(due, self._expire)
            return
        waiter.set_exception(asyncio.TimeoutError())

    async def _wait(self) -> None:
        """Until the loop wakes this call (bytes, drained, lost) or the wait times out."""
        waiter = self._loop.create_future()
        self._waiter = waiter
        if self._timeout is not None:
            self._since = now = self._loop.time()
            if self._timer is None:
                self._timer_at = now + self._timeout
                self._timer = self._loop.call_at(self._timer_at, self._expire)
        try:
            await waiter
        finally:
            self._waiter = None

    # The wire client's side.

    def is_open(self) -> bool:
        return not self._lost and self._transport is not None and not self._transport.is_closing()

    async def open(self) -> None:
        """Already open (the channel connects)."""

    async def read(self, size: int) -> bytes:
        chunks = self._chunks
        while not chunks:
            if self._lost:
                raise self._ended()
            await self._wait()
        if len(chunks) == 1 and len(chunks[0]) <= size:
            data = chunks.pop()
        else:
            joined = b"".join(chunks)
            data, rest = joined[:size], joined[size:]
            chunks[:] = [rest] if rest else []
        return data

    def write(self, data: bytes) -> None:
        assert self._transport is not None
        self._transport.write(data)

    async def flush(self) -> None:
        while self._paused and not self._lost:
            await self._wait()
        if self._lost:  # as a stream's drain: the loop's error, else the connection lost
            raise self._error or ConnectionResetError("Connection lost")

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        transport = self._transport
        if transport is None:
            return
        if self._loop.is_closed():
            # Its loop cannot run the transport's close: end the TCP connection now (the
            # server sees it closed); the socket is released with the transport.
            sock = transport.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(SHUT_RDWR)
            return
        transport.close()

    def stale(self) -> bool:
        """Whether the server closed this idle connection (end of stream, or bytes unasked).

        What the loop has seen says so (the connection lost, bytes received); so does the
        socket itself being readable, which the loop may not have noticed yet (a server's
        idle timeout that just closed it), as :func:`~hmodel.backend.connection.dropped`
        checks for the synchronous backends.
        """
        transport = self._transport
        if self._lost or self._chunks or transport is None or transport.is_closing():
            return True
        if self._poll is None:
            return False
        try:
            return bool(self._poll.poll(0))
        except (OSError, ValueError):
            return True


class AsyncConnection:
    """One open asyncio connection and the Thrift client that calls through it.

    Attributes:
        client: The :class:`~hmodel.backend.aio_wire.WireClient`; ``call`` sends one
            encoded request and returns what its reply means.
        pool: The event loop's pool it belongs to (``None`` until lent).
    """

    def __init__(self, socket: _ProtocolSocket | AsyncHttpTransport, client: WireClient) -> None:
        self._socket = socket
        self.client = client
        #: The loop's pool the connection is counted in (set when the channel lends it).
        self.pool: _LoopPool | None = None

    def stale(self) -> bool:
        """Whether this idle connection cannot serve a call (closed, or bytes unasked)."""
        return self.client.desynchronised or self._socket.stale()

    def close(self) -> None:
        """Close the connection at once; errors while closing are ignored."""
        with contextlib.suppress(TTransportException, OSError, RuntimeError):  # a closed loop
            self._socket.close()


class _LoopPool:
    """One event loop's connections: the idle ones and the free places."""

    def __init__(self, loop: asyncio.AbstractEventLoop, pool_size: int) -> None:
        self.loop = loop
        #: Open connections not lent; the last one is lent first.
        self.idle: list[AsyncConnection] = []
        #: Free places: ``pool_size`` minus the connections open.
        self.slots = asyncio.Semaphore(pool_size)

        #: Runs :meth:`discard_idle` when the loop shuts its async generators down
        #: (``asyncio.run`` does before closing the loop), while the loop still runs.
        self.keeper: AsyncGenerator[None, None] | None = None

    async def keep(self) -> None:
        """Register :attr:`keeper` with the running loop (its async generator hooks)."""
        self.keeper = self._until_shutdown()
        await self.keeper.__anext__()

    async def _until_shutdown(self) -> AsyncGenerator[None, None]:
        try:
            yield
        finally:
            self.discard_idle()

    def discard_idle(self) -> None:
        idle, self.idle = self.idle, []
        for connection in idle:
            connection.close()


class AsyncPooledChannel:
    """Connections to one server, at most ``pool_size`` open per event loop, lent one call each.

    The asyncio counterpart of :class:`~hmodel.backend.pool.PooledChannel` (same
    arguments, without ``sleep``'s type: here an awaitable pause). Subclasses set the
    class attributes, as there.

    Any event loop may call (one ``asyncio.run`` after another, a loop per thread): an
    asyncio connection belongs to the loop that opened it, so each loop has a pool of its
    own, of at most ``pool_size`` connections, made at its first call. A loop's idle
    connections are closed when it shuts its async generators down (``asyncio.run`` does,
    before closing the loop); the pools of loops found closed are dropped when another
    loop's pool is made and by :meth:`aclose` (a connection left there, its loop closed
    without that shutdown, is shut), never lent again.

    Raises:
        IllegalArgumentError: A count out of range, an endpoint with SASL (not
            asynchronous yet) or a socket wrapper, or a TLS file that cannot be loaded.
    """

    service: Any
    decode_response: bool
    server_errors: tuple[type[BaseException], ...]
    transport_errors: tuple[type[BaseException], ...]
    encoding_errors: tuple[type[BaseException], ...]
    backend: str
    jitter: Callable[[], float] = staticmethod(random.random)

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        pool_size: int,
        retries: int,
        retry_backoff_ms: int,
        sleep: Callable[[float], Any] = asyncio.sleep,
        count: Callable[[], None] = lambda: None,
    ) -> None:
        for label, number, minimum in (
            ("pool_size", pool_size, 1),
            ("retries", retries, 0),
            ("retry_backoff_ms", retry_backoff_ms, 0),
        ):
            if isinstance(number, bool) or not isinstance(number, int) or number < minimum:
                raise IllegalArgumentError(f"{label} must be an integer >= {minimum}", value=number)
        if endpoint.sasl is not None:
            raise IllegalArgumentError(
                f"the asyncio {self.backend} backend speaks no SASL yet "
                "(use the synchronous backend)",
                field="sasl",
            )
        if endpoint.wrap_socket is not None:
            raise IllegalArgumentError(
                f"the asyncio {self.backend} backend takes no socket wrapper",
                field="wrap_socket",
            )
        self.endpoint = endpoint
        self.host = endpoint.host
        self.port = endpoint.port
        self._where = endpoint.url if endpoint.scheme != "thrift" else f"{self.host}:{self.port}"
        self._timeout = endpoint.timeout_ms / 1000 if endpoint.timeout_ms is not None else None
        self._opener = StreamOpener(endpoint)
        self._framed = endpoint.transport == "framed"
        self._codec = WireCodec(
            self.service, protocol=endpoint.protocol, decode_response=self.decode_response
        )
        #: What a connection that failed raises (asyncio streams raise ``OSError``s and
        #: timeouts of their own besides the Thrift transport's errors).
        self._dropped_errors: tuple[type[BaseException], ...] = (
            OSError,
            EOFError,
            asyncio.TimeoutError,
            *self.transport_errors,
        )
        self._retries = retries
        self._backoff_ms = retry_backoff_ms
        self._sleep = sleep
        self._count = count
        self._pool_size = pool_size
        #: Each event loop's pool, made at its first call.
        self._pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopPool] = (
            weakref.WeakKeyDictionary()
        )
        self._pools_lock = threading.Lock()
        self._closed = False

    @property
    def retries(self) -> int:
        """How many times a failed call may be sent again."""
        return self._retries

    @property
    def idle_connections(self) -> int:
        """How many open connections wait in the running loop's pool (for tests and metrics).

        Outside a running loop: in every loop's pool.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return sum(len(pool.idle) for pool in list(self._pools.values()))
        pool = self._pools.get(loop)
        return 0 if pool is None else len(pool.idle)

    @property
    def loops(self) -> int:
        """How many event loops have a pool here (closed loops' pools not yet dropped)."""
        return len(self._pools)

    async def _pool(self) -> _LoopPool:
        """The running loop's pool, made at its first call (dropping closed loops' pools).

        A new pool registers an async generator with the loop, closed by the loop's
        ``shutdown_asyncgens`` (``asyncio.run`` awaits it before closing the loop): that
        closes the pool's idle connections while their loop can still close them.
        """
        loop = asyncio.get_running_loop()
        pool = self._pools.get(loop)
        if pool is None:
            with self._pools_lock:
                self._drop_closed_loops()
                pool = self._pools.get(loop)
                made = pool is None
                if pool is None:
                    pool = self._pools[loop] = _LoopPool(loop, self._pool_size)
            if made:
                await pool.keep()
        return pool

    def _drop_closed_loops(self) -> None:
        for loop, pool in list(self._pools.items()):
            if loop.is_closed():
                del self._pools[loop]
                pool.discard_idle()

    async def _open(self) -> AsyncConnection:
        """Open one connection (raising one of :attr:`transport_errors` if it cannot).

        A socket (inside TLS with the endpoint's TLS settings), or for HTTP(S) a
        transport posting each call, its first TCP connection opened now.

        Raises:
            TLSError: The TLS handshake failed.
        """
        socket: _ProtocolSocket | AsyncHttpTransport
        if self.endpoint.http is not None:
            socket = AsyncHttpTransport(self.endpoint, self._opener)
            await socket.open()
        else:
            timeout = self._timeout
            _, socket = await self._opener.connect(lambda: _ProtocolSocket(timeout))
        return AsyncConnection(socket, WireClient(socket, self._codec, framed=self._framed))

    async def call(
        self,
        method: str,
        *args: Any,
        retry: Retry,
        table: str | None = None,
        row: bytes | None = None,
        request: bytes | None = None,
    ) -> Any:
        """Send one call and return its result (as ``PooledChannel.call``, ``request`` too)."""
        return await asend(
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
        )

    def _check_open(self) -> None:
        if self._closed:
            raise ConnectionLostError(
                f"the asyncio {self.backend} backend for {self._where} was closed"
            )

    async def _borrow(self) -> AsyncConnection:
        """An idle connection, else a new one in a free place, else the next given back.

        The caller holds a place (``_slots``) for the connection until it is given back
        or discarded.

        Raises:
            ConnectionLostError: The channel was closed.
            DroppedError: A new connection could not be opened (nothing was sent).
        """
        self._check_open()
        pool = await self._pool()
        await pool.slots.acquire()  # cancelled here: nothing held, nothing sent
        try:
            self._check_open()
            while pool.idle:
                idle = pool.idle.pop()
                if not idle.stale():
                    return idle
                idle.close()
            try:
                connection = await self._open()
            except self.transport_errors as exc:
                raise DroppedError(exc, sent=False) from exc
            connection.pool = pool
            return connection
        except BaseException:
            pool.slots.release()
            raise

    def _give_back(self, connection: AsyncConnection) -> None:
        pool = connection.pool
        assert pool is not None
        if self._closed:
            connection.close()
        else:
            pool.idle.append(connection)
        pool.slots.release()

    @property
    def codec(self) -> WireCodec:
        """The codec of the wire the calls travel on."""
        return self._codec

    def _discard(self, connection: AsyncConnection) -> None:
        connection.close()
        assert connection.pool is not None
        connection.pool.slots.release()

    async def _attempt(
        self,
        method: str,
        args: tuple[Any, ...],
        *,
        table: str | None,
        row: bytes | None,
        request: bytes | None = None,
    ) -> Any:
        try:
            if request is None or self._codec.compact:
                request = self._codec.encode(method, args)
        except self.server_errors:
            raise  # a required argument missing, as thriftpy2's client answers it
        except self.encoding_errors as exc:  # before any connection is borrowed
            raise IllegalArgumentError(
                f"{method}: an argument cannot be encoded for Thrift: {exc}",
                table=table,
                row=row,
            ) from exc
        connection = await self._borrow()
        healthy = False
        stale = False
        try:
            result = await connection.client.call(method, request)
            healthy = True
            return result
        except self.server_errors:
            healthy = True  # the server answered: the connection is fine
            raise
        except HModelError:
            raise
        except self._dropped_errors as exc:
            refused = tls_refusal(exc, self._where)
            if refused is not None:  # TLS 1.3: a client certificate refused at the first read
                raise refused from exc
            stale = True
            raise DroppedError(exc, sent=True) from exc
        except Exception as exc:
            failure = TTransportException(message=f"{type(exc).__name__}: {exc}")
            failure.__cause__ = exc
            raise DroppedError(failure, sent=True) from failure
        finally:
            # Cancelled (or interrupted) with the request perhaps out: the connection is
            # closed, never given back mid-response.
            self._count()
            if healthy:
                self._give_back(connection)
            else:
                self._discard(connection)
            if stale:
                self._discard_idle()

    def _discard_idle(self) -> None:
        """Close the loop's idle connections (one just dropped: those idle as long may be dead)."""
        pool = self._pools.get(asyncio.get_running_loop())
        if pool is not None:
            pool.discard_idle()

    async def aclose(self) -> None:
        """Close the idle connections; later calls raise ``ConnectionLostError``.

        The running loop's are closed now, a closed loop's shut; another running loop's
        (another thread's) are closed by that loop, soon. A lent connection is closed
        when its call ends.
        """
        self._closed = True
        here = asyncio.get_running_loop()
        with self._pools_lock:
            pools = list(self._pools.items())
            self._pools.clear()
        for loop, pool in pools:
            if loop is here or loop.is_closed():
                pool.discard_idle()
            else:
                with contextlib.suppress(RuntimeError):  # closed meanwhile
                    loop.call_soon_threadsafe(pool.discard_idle)
