"""FakeThriftServer: the sockets, threads and lifecycle both fake Thrift servers share."""

from __future__ import annotations

import contextlib
import io
import itertools
import logging
import selectors
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from typing import Protocol as TypingProtocol

from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
from thriftpy2.transport import (
    TBufferedTransportFactory,
    TCyBufferedTransport,
    TFramedTransportFactory,
    TMemoryBuffer,
    TSocket,
    TTransportException,
)

from hmodel.backend.memory import MemoryBackend
from hmodel.errors import BackendError, UnsupportedOperationError, ValidationError
from hmodel.testing.fake.framing import (
    DEFAULT_MAX_FRAME_BYTES,
    DEFAULT_MAX_MESSAGE_BYTES,
    RefusedRequestError,
    RequestReader,
)
from hmodel.testing.fake.http_server import HTTPServing, serve_http_connection
from hmodel.testing.fake.sasl import SaslServerTransport

if TYPE_CHECKING:
    from hmodel.testing.fake.sasl import SaslAcceptor

__all__ = [
    "DEFAULT_MAX_QUEUED",
    "DEFAULT_MAX_WORKERS",
    "DEFAULT_READ_TIMEOUT_MS",
    "SWEEP_INTERVAL_S",
    "CloseConnection",
    "FakeThriftServer",
    "Processor",
    "Protocol",
    "Transport",
]

logger = logging.getLogger(__name__)

#: The Thrift transport the server speaks: buffered (HBase's default) or framed.
Transport = Literal["buffered", "framed"]
#: The Thrift protocol the server speaks: binary (HBase's default) or compact.
Protocol = Literal["binary", "compact"]

_TRANSPORTS: dict[str, Any] = {
    "buffered": TBufferedTransportFactory,
    "framed": TFramedTransportFactory,
}
_PROTOCOLS: dict[str, Any] = {
    "binary": TBinaryProtocolFactory,
    "compact": TCompactProtocolFactory,
}
_JOIN_TIMEOUT = 5.0  # seconds to wait for a thread that should already be ending

#: How long a connection may wait for the client's next bytes before the server closes it:
#: HBase's ``hbase.thrift.server.socket.read.timeout`` (60 s), the socket timeout of its
#: thread-pool Thrift server (the default server type).
DEFAULT_READ_TIMEOUT_MS = 60_000
#: How many connections are served at once: ``hbase.thrift.maxWorkerThreads`` (1000) of
#: HBase's ``TBoundedThreadPoolServer``; a worker serves one connection until it closes.
DEFAULT_MAX_WORKERS = 1000
#: How many accepted connections may wait for a worker: ``hbase.thrift.maxQueuedRequests``
#: (1000); one more is closed at once ("Queue is full, closing connection").
DEFAULT_MAX_QUEUED = 1000
#: How often, in seconds, the server's sweeper expires what is due (scanners): expiry
#: needs no client call.
SWEEP_INTERVAL_S = 1.0

_Server = TypeVar("_Server", bound="FakeThriftServer")


class Processor(TypingProtocol):
    """What serves the calls: reads one request from ``iprot``, writes its reply to ``oprot``."""

    def process(self, iprot: Any, oprot: Any) -> None:
        """Serve one request; raise to have the connection closed."""


class CloseConnection(Exception):  # noqa: N818  # a signal to the connection loop, not a failure
    """Raised by a processor to close its client's connection quietly (no reply, no log)."""


def check_port(field: str, port: object, *, optional: bool = False) -> None:
    """Refuse a port that is not an int from 0 to 65535 (or ``None`` when ``optional``).

    Raises:
        ValidationError: Naming ``field``.
    """
    if optional and port is None:
        return
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65_535:
        allowed = "None or an int" if optional else "an int"
        raise ValidationError(f"{field} must be {allowed} from 0 to 65535", field=field, value=port)


def check_count(field: str, value: object, minimum: int) -> None:
    """Refuse a value that is not an int ``>= minimum`` (a bool is not an int here).

    Raises:
        ValidationError: Naming ``field``.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValidationError(f"{field} must be an int >= {minimum}", field=field, value=value)


class FakeThriftServer:
    """A Thrift server in threads over a memory engine: the part both fake servers share.

    It listens on ``host:port`` and accepts connections in one thread. Each connection is
    served by a worker thread of its own, one request after the other, as HBase's default
    server (``TBoundedThreadPoolServer``) does, and within the same bounds:

    * at most ``max_workers`` connections are served at once; up to ``max_queued`` more
      are accepted and wait, unanswered, until a served connection ends; one more is
      closed as soon as it is accepted ("Queue is full, closing connection");
    * a connection that sends nothing for ``read_timeout_ms`` is closed;
    * a request that declares more bytes than ``max_message_bytes`` (a string or binary,
      a container) or, framed, a frame longer than ``max_frame_bytes`` is refused before
      those bytes are received, and the connection closed
      (:class:`~hmodel.testing.fake.framing.RequestReader`).

    With ``tls`` each connection is wrapped in TLS by its worker (the handshake runs in the
    worker thread, within ``read_timeout_ms``). With ``http`` each connection speaks HTTP
    instead (:func:`~hmodel.testing.fake.http_server.serve_http_connection`): every
    ``POST`` body is one call, read by the same
    :class:`~hmodel.testing.fake.framing.RequestReader` within the same bounds (a
    ``Content-Length`` over ``max_message_bytes`` is refused before the body is
    received), on the same workers and queue; the connection's idle timeout is then
    ``HTTPServing.idle_timeout_s`` (Jetty's, 30 s) instead of ``read_timeout_ms``.

    A request that cannot even be decoded drops only that client's connection. A sweeper
    thread expires what is due every :data:`SWEEP_INTERVAL_S` (the subclass's
    :meth:`_sweep`: open scanners). Subclasses (the Thrift1 and Thrift2 servers) set
    :attr:`_processor`.

    Args:
        backend: The engine holding the tables; a fresh :class:`MemoryBackend` if ``None``.
        host: Interface to listen on; loopback by default. ``"0.0.0.0"`` exposes the fake
            to the network: it has no authentication.
        port: TCP port; ``0`` picks a free one (read it back from :attr:`port`).
        transport: ``"buffered"`` (HBase's default) or ``"framed"``.
        protocol: ``"binary"`` (HBase's default) or ``"compact"``.
        read_timeout_ms: A connection whose next bytes take longer than this to come is
            closed (a receive or a send that waits this long); ``0``: never.
            HBase's ``hbase.thrift.server.socket.read.timeout``, 60 s by default.
        max_workers: Connections served at once (``hbase.thrift.maxWorkerThreads``, 1000).
        max_queued: Connections accepted beyond those and waiting for a worker
            (``hbase.thrift.maxQueuedRequests``, 1000); ``0``: none wait, the next one is
            closed.
        max_frame_bytes: Framed transport: the longest frame taken, as its 4-byte length
            says (``hbase.regionserver.thrift.framed.max_frame_size_in_mb``: 2 MiB).
        max_message_bytes: The longest string or binary a request may declare (and the
            most a container's elements may need): libthrift's max message size, 100 MiB
            in HBase's servers.
        sasl: Require SASL authentication (Kerberos GSSAPI or PLAIN) of every client,
            as HBase does with ``hbase.thrift.security.qop`` set (see
            :class:`~hmodel.testing.fake.sasl.SaslAcceptor`); buffered transport over a
            socket only, as in HBase (over HTTP HBase uses SPNEGO instead). ``None`` (the
            default): no authentication.
        tls: A server-side ``ssl.SSLContext`` (its certificate loaded): every connection
            is wrapped in TLS. Over a socket this is what a TLS proxy in front of HBase
            serves (HBase's own TLS is HTTP only); with ``http`` it is HTTPS. ``None``:
            no TLS.
        http: Serve Thrift over HTTP instead of a socket, as HBase does with
            ``hbase.regionserver.thrift.http=true``: ``True`` (any path, no credentials,
            as HBase), or :class:`~hmodel.testing.fake.http_server.HTTPServing` settings
            (a gateway's path and basic credentials). Binary protocol, no framing.
        min_latency_ms: Wait this long before serving each call (``0``: not at all), so
            that one client's consecutive calls are at least this many milliseconds
            apart on the server's clock, as a real server's 5-8 ms calls are: writes the
            server stamps then never land in the millisecond of the previous call (an
            increment's ``max(now, old + 1)`` running ahead of the clock, a put hidden by
            a delete of the same millisecond). See ``docs/testing.md``.

    Raises:
        ValidationError: A bad ``host`` or ``port``, an unknown ``transport`` or
            ``protocol``, a bound that is not an int in range, ``tls`` that is not an
            ``ssl.SSLContext``, ``http`` with the framed transport or the compact protocol
            (HBase's servlet speaks neither), or ``sasl`` with the framed transport or
            HTTP.
    """

    #: The service's name in log lines.
    service = "Thrift"
    #: Set by the subclass: serves the calls.
    _processor: Processor

    def __init__(
        self,
        backend: MemoryBackend | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        transport: Transport = "buffered",
        protocol: Protocol = "binary",
        read_timeout_ms: int = DEFAULT_READ_TIMEOUT_MS,
        max_workers: int = DEFAULT_MAX_WORKERS,
        max_queued: int = DEFAULT_MAX_QUEUED,
        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        sasl: SaslAcceptor | None = None,
        tls: ssl.SSLContext | None = None,
        http: bool | HTTPServing = False,
        min_latency_ms: int = 0,
    ) -> None:
        if not isinstance(host, str) or not host:
            raise ValidationError("host must be a non-empty string", field="host", value=host)
        check_port("port", port)
        if transport not in _TRANSPORTS:
            raise ValidationError(
                f"transport must be one of {sorted(_TRANSPORTS)}",
                field="transport",
                value=transport,
            )
        if protocol not in _PROTOCOLS:
            raise ValidationError(
                f"protocol must be one of {sorted(_PROTOCOLS)}", field="protocol", value=protocol
            )
        check_count("read_timeout_ms", read_timeout_ms, 0)
        check_count("max_workers", max_workers, 1)
        check_count("max_queued", max_queued, 0)
        check_count("max_frame_bytes", max_frame_bytes, 1)
        check_count("max_message_bytes", max_message_bytes, 1)
        check_count("min_latency_ms", min_latency_ms, 0)
        if sasl is not None and transport != "buffered":  # HBase: "authentication doesn't
            # work with framed transport yet"
            raise ValidationError("sasl needs the buffered transport", field="transport")
        if tls is not None and not isinstance(tls, ssl.SSLContext):
            raise ValidationError("tls must be an ssl.SSLContext or None", field="tls", value=tls)
        if not isinstance(http, (bool, HTTPServing)):
            raise ValidationError("http must be a bool or HTTPServing", field="http", value=http)
        if http and (transport != "buffered" or protocol != "binary"):
            raise ValidationError(
                "over HTTP the server speaks the binary protocol, unframed (as HBase's servlet)",
                field="transport" if transport != "buffered" else "protocol",
                value=transport if transport != "buffered" else protocol,
            )
        if http and sasl is not None:
            raise ValidationError("sasl is served over a socket, not HTTP", field="http")
        self.sasl = sasl
        self.tls = tls
        self.http: HTTPServing | None = (
            http if isinstance(http, HTTPServing) else HTTPServing() if http else None
        )
        self._backend = backend if backend is not None else MemoryBackend()
        self._host = host
        self._port = port
        self.transport: Transport = transport
        self.protocol: Protocol = protocol
        self.read_timeout_ms = read_timeout_ms
        self.max_workers = max_workers
        self.max_queued = max_queued
        self.max_frame_bytes = max_frame_bytes
        self.max_message_bytes = max_message_bytes
        self.min_latency_ms = min_latency_ms
        self._transport_factory = _TRANSPORTS[transport]()
        self._protocol_factory = _PROTOCOLS[protocol]()
        self._listener: socket.socket | None = None
        self._wakeup: tuple[socket.socket, socket.socket] | None = None
        self._acceptor: threading.Thread | None = None
        self._sweeper: threading.Thread | None = None
        self._clients: set[socket.socket] = set()  # being served
        self._waiting: deque[socket.socket] = deque()  # accepted, waiting for a worker
        self._workers = 0  # worker threads running
        # Every worker thread not known to have ended: stop() joins them all, including
        # one that saw the stop flag and left on its own.
        self._threads: list[threading.Thread] = []
        self._clients_lock = threading.Lock()
        self._swept = threading.Condition()
        self._sweeps_started = self._sweeps_done = 0
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._started = False
        self._numbers = itertools.count(1)

    # --- properties -----------------------------------------------------------------

    @property
    def backend(self) -> MemoryBackend:
        """The engine the server reads and writes; tests may inspect it directly."""
        return self._backend

    @property
    def host(self) -> str:
        """The interface the server listens on."""
        return self._host

    @property
    def port(self) -> int:
        """The TCP port: the one actually bound once started (also when created with 0)."""
        return self._port

    @property
    def address(self) -> tuple[str, int]:
        """``(host, port)``."""
        return self._host, self._port

    @property
    def running(self) -> bool:
        """Whether the server has started and not yet stopped."""
        return self._started and not self._stopping.is_set()

    @property
    def url(self) -> str:
        """Where clients connect, as ``Endpoint.from_url`` reads it (``thrift://``...)."""
        if self.http is None:
            scheme = "thrift+tls" if self.tls is not None else "thrift"
        else:
            scheme = "https" if self.tls is not None else "http"
        host = f"[{self._host}]" if ":" in self._host else self._host
        path = (self.http.path or "/") if self.http is not None else ""
        return f"{scheme}://{host}:{self._port}{path}"

    @property
    def serving_options(self) -> dict[str, Any]:
        """The keyword arguments of how this server serves, for a sibling on another port."""
        return {
            "host": self._host,
            "transport": self.transport,
            "protocol": self.protocol,
            "read_timeout_ms": self.read_timeout_ms,
            "max_workers": self.max_workers,
            "max_queued": self.max_queued,
            "max_frame_bytes": self.max_frame_bytes,
            "max_message_bytes": self.max_message_bytes,
            "sasl": self.sasl,
            "tls": self.tls,
            "http": self.http or False,
            "min_latency_ms": self.min_latency_ms,
        }

    def client_count(self) -> int:
        """How many client connections are open: served, or waiting for a worker."""
        with self._clients_lock:
            return len(self._clients) + len(self._waiting)

    def close_connections(self) -> int:
        """Close every connection being served now, as an idle timeout does; return how many.

        For tests of clients whose kept-alive connection the server closed. Connections
        waiting for a worker are left alone.
        """
        with self._clients_lock:
            clients = list(self._clients)
        for client in clients:
            with contextlib.suppress(OSError):  # already closed by its own thread
                client.shutdown(socket.SHUT_RDWR)
        return len(clients)

    def waiting_count(self) -> int:
        """How many accepted connections are waiting for a worker (all ``max_workers`` busy)."""
        with self._clients_lock:
            return len(self._waiting)

    def wait_swept(self, timeout: float | None = None) -> bool:
        """Block until the sweeper has run once more, start to end, from now on.

        For tests that move a ``ManualClock`` and need what is due expired without any
        client call: the next sweep comes within :data:`SWEEP_INTERVAL_S`. Returns whether
        it came within ``timeout`` seconds (``False`` also when the server is not running).
        """
        with self._swept:
            after = self._sweeps_started
            return (
                self._swept.wait_for(lambda: self._sweeps_done > after or not self.running, timeout)
                and self._sweeps_done > after
            )

    # --- lifecycle ------------------------------------------------------------------

    def start(self: _Server) -> _Server:
        """Bind, listen and serve in daemon threads; returns ``self``.

        Raises:
            BackendError: The address cannot be bound (the OS error is the cause).
            UnsupportedOperationError: The server was started before (it starts once).
        """
        if self._started:
            raise UnsupportedOperationError(f"a {type(self).__name__} can be started only once")
        family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
        try:
            listener = socket.create_server((self._host, self._port), family=family)
        except OSError as exc:
            raise BackendError(f"cannot listen on {self._host}:{self._port}: {exc}") from exc
        self._started = True
        self._listener = listener
        self._port = listener.getsockname()[1]
        self._bound(self._port)
        self._wakeup = socket.socketpair()
        name = f"hmodel-fake-hbase-{self._port}"
        if self.http is not None:
            name += "-http"
        self._acceptor = threading.Thread(target=self._accept_loop, name=name, daemon=True)
        self._sweeper = threading.Thread(
            target=self._sweep_loop, name=f"{name}-sweeper", daemon=True
        )
        self._acceptor.start()
        self._sweeper.start()
        logger.info("fake HBase %s server serving %s", self.service, self.url)
        return self

    def stop(self) -> None:
        """Stop serving: close the listening socket and every client connection.

        Returns once the accept thread, the sweeper and every worker thread have ended and
        all open scanners are closed. Calling it again (or before :meth:`start`) does
        nothing.
        """
        if not self._started or self._stopping.is_set():
            return
        self._stopping.set()
        assert self._wakeup is not None and self._acceptor is not None
        assert self._sweeper is not None
        self._wakeup[1].send(b"x")
        self._acceptor.join(_JOIN_TIMEOUT)
        with self._swept:
            self._swept.notify_all()
        self._sweeper.join(_JOIN_TIMEOUT)
        with self._clients_lock:
            clients = list(self._clients)
            waiting = list(self._waiting)
            self._waiting.clear()
            threads = list(self._threads)
        for client in waiting:
            client.close()
        for client in clients:
            with contextlib.suppress(OSError):  # already closed by its own thread
                client.shutdown(socket.SHUT_RDWR)
        for thread in threads:
            thread.join(_JOIN_TIMEOUT)
        for end in self._wakeup:
            end.close()
        self._close_scanners()
        self._stopped.set()
        logger.info("fake HBase %s server on %s:%d stopped", self.service, self._host, self._port)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until :meth:`stop` has finished; returns whether it has."""
        return self._stopped.wait(timeout)

    def __enter__(self: _Server) -> _Server:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped" if self._started else "new"
        return (
            f"<{type(self).__name__} {self._host}:{self._port} "
            f"{self.transport}/{self.protocol} {state}>"
        )

    # --- subclass hooks -------------------------------------------------------------

    def _bound(self, port: int) -> None:
        """Called once the listening port is known (the handler reports it in regions)."""

    def _sweep(self) -> None:
        """Expire what is due (the sweeper calls it every :data:`SWEEP_INTERVAL_S`)."""

    def _close_scanners(self) -> None:
        """Close every open scanner (the server is stopping)."""

    # --- threads --------------------------------------------------------------------

    def _accept_loop(self) -> None:
        assert self._listener is not None and self._wakeup is not None
        listener = self._listener
        with selectors.DefaultSelector() as selector:
            selector.register(listener, selectors.EVENT_READ)
            selector.register(self._wakeup[0], selectors.EVENT_READ)
            while not self._stopping.is_set():
                for key, _events in selector.select():
                    if key.fileobj is listener and not self._stopping.is_set():
                        self._accept(listener)
        listener.close()

    def _accept(self, listener: socket.socket) -> None:
        """Accept one connection: to a new worker, else to the queue, else closed at once."""
        try:
            client, address = listener.accept()
        except OSError:
            return  # the client went away before we accepted it
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._clients_lock:
            if self._workers < self.max_workers:
                self._workers += 1
                self._clients.add(client)
                thread = threading.Thread(
                    target=self._work,
                    args=(client,),
                    name=f"hmodel-fake-hbase-{self._port}-worker-{next(self._numbers)}",
                    daemon=True,
                )
                self._threads = [t for t in self._threads if t.is_alive()]
                self._threads.append(thread)
                thread.start()
                return
            if len(self._waiting) < self.max_queued:
                self._waiting.append(client)
                return
        logger.warning("Queue is full, closing connection from %s", address)
        client.close()

    def _work(self, client: socket.socket) -> None:
        """A worker: serve a connection to its end, then the longest waiting one, if any."""
        while True:
            try:
                client = self._secure(client)
                if self.http is None:
                    self.serve_connection(client)
                else:
                    self.serve_http(client)
            except (OSError, ssl.SSLError) as exc:  # a failed TLS handshake: this one only
                logger.debug("closing a connection whose TLS handshake failed: %s", exc)
            finally:
                client.close()
            with self._clients_lock:
                self._clients.discard(client)
                if not self._waiting or self._stopping.is_set():
                    self._workers -= 1
                    return
                client = self._waiting.popleft()
                self._clients.add(client)

    def _secure(self, client: socket.socket) -> socket.socket:
        """With ``tls``: ``client`` wrapped in TLS, the handshake done in this (worker) thread.

        The wrapped socket takes the raw one's place among the served connections (so
        :meth:`stop` reaches it) before the handshake, which runs within
        ``read_timeout_ms``.

        Raises:
            OSError: The handshake failed or timed out (``ssl.SSLError`` is one).
        """
        if self.tls is None:
            return client
        client.settimeout(self.read_timeout_ms / 1000 if self.read_timeout_ms else None)
        with self._clients_lock:
            self._clients.discard(client)
            wrapped = self.tls.wrap_socket(client, server_side=True, do_handshake_on_connect=False)
            self._clients.add(wrapped)
        try:
            wrapped.do_handshake()
        except BaseException:
            with self._clients_lock:
                self._clients.discard(wrapped)
                self._clients.add(client)  # _work's bookkeeping discards it
            wrapped.close()
            raise
        return wrapped

    def _sweep_loop(self) -> None:
        while not self._stopping.wait(SWEEP_INTERVAL_S):
            with self._swept:
                self._sweeps_started += 1
            try:
                self._sweep()
            except Exception:  # a bug in a sweep must not end the sweeper
                logger.exception("the fake HBase %s server's sweep failed", self.service)
            with self._swept:
                self._sweeps_done += 1
                self._swept.notify_all()

    def _wait_latency(self) -> None:
        """Hold a call for ``min_latency_ms`` before it is served."""
        if self.min_latency_ms:
            time.sleep(self.min_latency_ms / 1000)

    def serve_connection(self, client: socket.socket) -> None:
        """Serve one accepted connection's byte stream until it ends (the caller closes it).

        Each request is read whole first, its declared sizes checked before the bytes
        they announce are received (:class:`~hmodel.testing.fake.framing.RequestReader`),
        then decoded and served; replies go back through the server's transport and
        protocol. It ends when the client closes the connection, nothing comes for
        ``read_timeout_ms``, the server stops, a request is refused or cannot be decoded
        (the stream cannot be resynchronised), or the processor raises
        :class:`CloseConnection`.
        """
        client.settimeout(self.read_timeout_ms / 1000 if self.read_timeout_ms else None)
        # thriftpy2 is untyped
        socket_transport = TSocket(sock=client)  # type: ignore[no-untyped-call]
        recv: Callable[[int], bytes]
        if self.sasl is None:
            recv = client.recv
            out = self._transport_factory.get_transport(socket_transport)
        else:  # the client authenticates at the first read; requests come in SASL frames
            sasl = SaslServerTransport(socket_transport, self.sasl)
            recv, out = sasl.read, TCyBufferedTransport(sasl)
        reader = RequestReader(
            recv,
            protocol=self.protocol,
            framed=self.transport == "framed",
            max_frame_bytes=self.max_frame_bytes,
            max_message_bytes=self.max_message_bytes,
        )
        oprot = self._protocol_factory.get_protocol(out)
        request: Any = TMemoryBuffer()  # type: ignore[no-untyped-call]
        iprot = self._protocol_factory.get_protocol(request)
        try:
            while not self._stopping.is_set():
                request.setvalue(reader.read())
                self._wait_latency()
                self._processor.process(iprot, oprot)
        except TimeoutError:
            logger.debug("closing a connection idle for %d ms", self.read_timeout_ms)
        except (TTransportException, OSError):
            pass  # the client closed the connection, or the server is stopping
        except RefusedRequestError as refused:
            logger.warning("closing a client's connection: %s", refused)
        except CloseConnection as closing:
            logger.debug("dropping a client as the processor asked: %s", closing)
        except Exception:
            logger.warning("dropping a client after a malformed request", exc_info=True)

    def serve_http(self, client: socket.socket) -> None:
        """Serve one accepted connection as HBase's Thrift HTTP server does (the caller closes it).

        Each ``POST`` body is read by a
        :class:`~hmodel.testing.fake.framing.RequestReader` within the server's bounds (a
        ``Content-Length`` over ``max_message_bytes`` is a ``413`` before the body is
        received), then served; the reply is the response body
        (:func:`~hmodel.testing.fake.http_server.serve_http_connection`). It ends when the
        client closes the connection, it is idle for ``HTTPServing.idle_timeout_s``, the
        server stops, a body is refused or cannot be decoded (a ``500`` page, then the
        connection is closed), or the processor raises :class:`CloseConnection` (closed
        without an answer).
        """
        assert self.http is not None
        factory = self._protocol_factory

        def call(body: bytes) -> bytes:
            reader = RequestReader(
                io.BytesIO(body).read,
                protocol=self.protocol,
                framed=False,
                max_frame_bytes=self.max_frame_bytes,
                max_message_bytes=self.max_message_bytes,
            )
            request: Any = TMemoryBuffer(reader.read())  # type: ignore[no-untyped-call]
            answer: Any = TMemoryBuffer()  # type: ignore[no-untyped-call]
            self._wait_latency()
            self._processor.process(factory.get_protocol(request), factory.get_protocol(answer))
            return bytes(answer.getvalue())

        serve_http_connection(
            client,
            client.getpeername(),
            serving=self.http,
            call=call,
            max_body=self.max_message_bytes,
            dropped=(CloseConnection,),
            stopping=self._stopping.is_set,
        )
