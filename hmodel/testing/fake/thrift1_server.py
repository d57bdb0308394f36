"""FakeHBaseServer: an HBase-compatible Thrift1 server over the memory engine, in a thread."""

from __future__ import annotations

import contextlib
import itertools
import logging
import selectors
import socket
import ssl
import threading
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
from thriftpy2.transport import (
    TBufferedTransportFactory,
    TFramedTransportFactory,
    TSocket,
    TTransportException,
)

from hmodel.backend.memory import MemoryBackend
from hmodel.clock import Clock
from hmodel.errors import BackendError, UnsupportedOperationError, ValidationError
from hmodel.testing.fake.http_server import HttpFront, HTTPServing
from hmodel.testing.fake.thrift1_handler import HBaseHandler
from hmodel.testing.fake.thrift1_processor import (
    CallHook,
    Drop,
    DroppedConnectionError,
    HBaseProcessor,
)
from hmodel.testing.fake.thrift1_scanner import DEFAULT_SCANNER_LEASE_MS

if TYPE_CHECKING:
    from hmodel.testing.fake.sasl import SaslAcceptor

__all__ = ["CallHook", "Drop", "FakeHBaseServer", "Protocol", "Transport"]

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


class FakeHBaseServer:
    """An HBase Thrift1 server (the ``Hbase`` service happybase speaks) over a memory engine.

    Unmodified happybase programs run against it: point ``happybase.Connection`` at
    :attr:`host` and :attr:`port` with the same ``transport`` and ``protocol``. Each client
    connection is served by its own thread; scanners are shared by all connections, as in
    HBase. A request that cannot even be decoded drops only that client's connection; an
    error inside a call is answered with the Thrift error HBase would send and the
    connection goes on. See ``docs/testing.md`` for exactly what is served.

    Args:
        backend: The engine holding the tables; a fresh :class:`MemoryBackend` if ``None``.
        host: Interface to listen on; loopback by default. ``"0.0.0.0"`` exposes the fake
            to the network: it has no authentication.
        port: TCP port; ``0`` picks a free one (read it back from :attr:`port`).
        transport: ``"buffered"`` (HBase's default) or ``"framed"``.
        protocol: ``"binary"`` (HBase's default) or ``"compact"``.
        scanner_lease_ms: A scanner no call has used for this long expires and its id
            answers ``IllegalArgument("scanner ID is invalid")``, as HBase 2.2's Thrift1
            server drops scanners unused for twice ``hbase.client.scanner.timeout.period``
            (120 s by default). Clients that vanish leak nothing for longer.
        clock: The time scanner leases are measured with, in epoch milliseconds; the
            engine's clock if ``None`` (a ``ManualClock`` lets tests expire scanners
            without sleeping).
        hook: Asked with each Thrift method name before the call runs; returning
            :attr:`Drop.BEFORE` or :attr:`Drop.AFTER` drops that client's connection
            there (see :data:`~hmodel.testing.fake.thrift1_processor.CallHook`). For tests of
            clients on a failing network; ``None`` serves every call.
        thrift2_port: Also serve HBase 2's Thrift2 API (``THBaseService``) over the same
            engine on this port (``0``: a free one, read back from :attr:`thrift2_port`),
            as a real HBase runs ``hbase thrift`` and ``hbase thrift2`` side by side;
            ``None`` (the default): Thrift1 only. Same transport, protocol, TLS and HTTP.
        tls: A server-side ``ssl.SSLContext`` (its certificate loaded): every connection
            is wrapped in TLS, the handshake done in the connection's thread. Over a
            socket this is what a TLS proxy in front of HBase serves (HBase's own TLS
            is HTTP only); with ``http`` it is HTTPS. ``None``: no TLS.
        http: Serve Thrift over HTTP instead of a socket, as HBase does with
            ``hbase.regionserver.thrift.http=true``: ``True`` (any path, no credentials,
            as HBase), or :class:`~hmodel.testing.fake.http_server.HTTPServing` settings
            (a gateway's path and basic credentials). Binary protocol, no framing.
        sasl: Require SASL authentication (Kerberos GSSAPI or PLAIN) of every client,
            as HBase does with ``hbase.thrift.security.qop`` set (see
            :class:`~hmodel.testing.fake.sasl.SaslAcceptor`); buffered transport over a
            socket only, as in HBase (over HTTP HBase uses SPNEGO instead). ``None`` (the
            default): no authentication. The Thrift2 port too.

    Example:
        >>> import happybase
        >>> with FakeHBaseServer() as server:
        ...     connection = happybase.Connection(server.host, server.port)
        ...     connection.create_table("t", {"f": {}})
        ...     connection.table("t").put(b"r", {b"f:q": b"v"})
        ...     connection.table("t").row(b"r")
        ...     connection.close()
        {b'f:q': b'v'}

    Raises:
        ValidationError: An unknown ``transport`` or ``protocol``, a bad
            ``scanner_lease_ms``, ``tls`` that is not an ``ssl.SSLContext``, or ``http``
            with the framed transport or the compact protocol (HBase's servlet speaks
            neither), or ``sasl`` with the framed transport or HTTP.
    """

    def __init__(
        self,
        backend: MemoryBackend | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        transport: Transport = "buffered",
        protocol: Protocol = "binary",
        scanner_lease_ms: int = DEFAULT_SCANNER_LEASE_MS,
        clock: Clock | None = None,
        hook: CallHook | None = None,
        thrift2_port: int | None = None,
        tls: ssl.SSLContext | None = None,
        http: bool | HTTPServing = False,
        sasl: SaslAcceptor | None = None,
    ) -> None:
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
        self.tls = tls
        self.http: HTTPServing | None = (
            http if isinstance(http, HTTPServing) else HTTPServing() if http else None
        )
        self._front: HttpFront | None = None
        if not isinstance(host, str) or not host:
            raise ValidationError("host must be a non-empty string", field="host", value=host)
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65_535:
            raise ValidationError("port must be an int from 0 to 65535", field="port", value=port)
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
        if thrift2_port is not None and (
            isinstance(thrift2_port, bool)
            or not isinstance(thrift2_port, int)
            or not 0 <= thrift2_port <= 65_535
        ):
            raise ValidationError(
                "thrift2_port must be None or an int from 0 to 65535",
                field="thrift2_port",
                value=thrift2_port,
            )
        self._thrift2_port = thrift2_port
        self._thrift2: FakeHBaseServer | None = None
        self._backend = backend if backend is not None else MemoryBackend()
        self._host = host
        self._port = port
        self.transport: Transport = transport
        self.protocol: Protocol = protocol
        self._transport_factory = _TRANSPORTS[transport]()
        self._protocol_factory = _PROTOCOLS[protocol]()
        self._sasl = sasl
        if sasl is not None:  # HBase: "authentication doesn't work with framed transport yet"
            if transport != "buffered":
                raise ValidationError("sasl needs the buffered transport", field="transport")
            if http:
                raise ValidationError("sasl is served over a socket, not HTTP", field="http")
            self._transport_factory = sasl
        if (
            isinstance(scanner_lease_ms, bool)
            or not isinstance(scanner_lease_ms, int)
            or scanner_lease_ms < 1
        ):
            raise ValidationError(
                "scanner_lease_ms must be an int >= 1",
                field="scanner_lease_ms",
                value=scanner_lease_ms,
            )
        self._handler = HBaseHandler(
            self._backend,
            server_host=host,
            server_port=port,
            scanner_lease_ms=scanner_lease_ms,
            clock=clock,
        )
        self._processor = HBaseProcessor(self._handler, hook=hook)
        self._listener: socket.socket | None = None
        self._wakeup: tuple[socket.socket, socket.socket] | None = None
        self._acceptor: threading.Thread | None = None
        self._clients: dict[socket.socket, threading.Thread] = {}
        # Every client thread not known to have ended: stop() joins them all, including
        # one that saw the stop flag and left on its own, already out of _clients.
        self._threads: list[threading.Thread] = []
        self._clients_lock = threading.Lock()
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
    def handler(self) -> HBaseHandler:
        """The ``Hbase`` service handler (its :attr:`~HBaseHandler.scanners` are open scans)."""
        return self._handler

    @property
    def host(self) -> str:
        """The interface the server listens on."""
        return self._host

    @property
    def port(self) -> int:
        """The TCP port: the one actually bound once started (also when created with 0)."""
        return self._port

    @property
    def thrift2_port(self) -> int | None:
        """The Thrift2 port (the one bound once started), or ``None`` without Thrift2."""
        return self._thrift2.port if self._thrift2 is not None else self._thrift2_port

    @property
    def thrift2_server(self) -> FakeHBaseServer | None:
        """The running Thrift2 side (a ``FakeThrift2Server``), or ``None``; for inspection."""
        return self._thrift2

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

    def client_count(self) -> int:
        """How many client connections are open right now."""
        if self._front is not None:
            return self._front.client_count()
        with self._clients_lock:
            return len(self._clients)

    # --- lifecycle ------------------------------------------------------------------

    def start(self) -> FakeHBaseServer:
        """Bind, listen and serve in a daemon thread; returns ``self``.

        Raises:
            BackendError: The address cannot be bound (the OS error is the cause).
            UnsupportedOperationError: The server was started before (it starts once).
        """
        if self._started:
            raise UnsupportedOperationError("a FakeHBaseServer can be started only once")
        if self.http is not None:
            return self._start_http()
        family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
        try:
            listener = socket.create_server((self._host, self._port), family=family)
        except OSError as exc:
            raise BackendError(f"cannot listen on {self._host}:{self._port}: {exc}") from exc
        self._started = True
        self._listener = listener
        self._port = listener.getsockname()[1]
        self._handler.server_port = self._port
        self._wakeup = socket.socketpair()
        self._acceptor = threading.Thread(
            target=self._accept_loop, name=f"hmodel-fake-hbase-{self._port}", daemon=True
        )
        self._acceptor.start()
        logger.info("fake HBase Thrift1 server listening on %s:%d", self._host, self._port)
        return self._start_thrift2()

    def _start_http(self) -> FakeHBaseServer:
        """Serve over HTTP(S) (:class:`HttpFront`) instead of the socket accept loop."""
        assert self.http is not None
        self._front = HttpFront(
            self._processor,
            host=self._host,
            port=self._port,
            tls=self.tls,
            serving=self.http,
            name="hmodel-fake-hbase",
            dropped=(DroppedConnectionError,),
        )
        self._port = self._front.start()
        self._started = True
        self._handler.server_port = self._port
        logger.info("fake HBase server serving %s", self.url)
        return self._start_thrift2()

    def _start_thrift2(self) -> FakeHBaseServer:
        if self._thrift2_port is not None:
            from hmodel.testing.fake.thrift2_server import FakeThrift2Server

            self._thrift2 = FakeThrift2Server(
                self._backend,
                host=self._host,
                port=self._thrift2_port,
                transport=self.transport,
                protocol=self.protocol,
                tls=self.tls,
                http=self.http or False,
                sasl=self._sasl,
            )
            try:
                self._thrift2.start()
            except BaseException:
                self.stop()
                raise
        return self

    def stop(self) -> None:
        """Stop serving: close the listening socket and every client connection.

        Returns once the accept thread and every connection thread have ended and all
        open scanners are closed. Calling it again (or before :meth:`start`) does nothing.
        """
        if not self._started or self._stopping.is_set():
            return
        if self._thrift2 is not None:
            self._thrift2.stop()
        self._stopping.set()
        if self._front is not None:
            self._front.stop()
            self._handler.scanners.close_all()
            self._stopped.set()
            return
        assert self._wakeup is not None and self._acceptor is not None
        self._wakeup[1].send(b"x")
        self._acceptor.join(_JOIN_TIMEOUT)
        with self._clients_lock:
            clients = dict(self._clients)
            threads = list(self._threads)
        for client in clients:
            with contextlib.suppress(OSError):  # already closed by its own thread
                client.shutdown(socket.SHUT_RDWR)
        for thread in threads:
            thread.join(_JOIN_TIMEOUT)
        for end in self._wakeup:
            end.close()
        self._handler.scanners.close_all()
        self._stopped.set()
        logger.info("fake HBase Thrift1 server on %s:%d stopped", self._host, self._port)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until :meth:`stop` has finished; returns whether it has."""
        return self._stopped.wait(timeout)

    def __enter__(self) -> FakeHBaseServer:
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
            f"<FakeHBaseServer {self._host}:{self._port} {self.transport}/{self.protocol} {state}>"
        )

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
        try:
            client, _address = listener.accept()
        except OSError:
            return  # the client went away before we accepted it
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.tls is not None:  # the handshake runs at the first read, in the client's thread
            client = self.tls.wrap_socket(client, server_side=True, do_handshake_on_connect=False)
        thread = threading.Thread(
            target=self._serve_client,
            args=(client,),
            name=f"hmodel-fake-hbase-{self._port}-client-{next(self._numbers)}",
            daemon=True,
        )
        with self._clients_lock:
            self._clients[client] = thread
            self._threads = [t for t in self._threads if t.is_alive()]
            self._threads.append(thread)
        thread.start()

    def _serve_client(self, client: socket.socket) -> None:
        socket_transport = TSocket(sock=client)  # type: ignore[no-untyped-call]  # thriftpy2 is untyped
        trans = self._transport_factory.get_transport(socket_transport)
        prot = self._protocol_factory.get_protocol(trans)
        try:
            while not self._stopping.is_set():
                self._processor.process(prot, prot)
        except (TTransportException, OSError):
            pass  # the client closed the connection, or the server is stopping
        except DroppedConnectionError as dropped:
            logger.debug("dropping a client as the call hook asked: %s", dropped)
        except Exception:
            # Undecodable bytes: the stream cannot be resynchronised, drop this client only.
            logger.warning("dropping a client after a malformed request", exc_info=True)
        finally:
            with self._clients_lock:
                self._clients.pop(client, None)
            with contextlib.suppress(OSError):
                trans.close()
            client.close()
