"""FakeThriftServer: the sockets, threads and lifecycle both fake Thrift servers share."""

from __future__ import annotations

import contextlib
import itertools
import logging
import selectors
import socket
import threading
from types import TracebackType
from typing import Any, Literal, TypeVar
from typing import Protocol as TypingProtocol

from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
from thriftpy2.transport import (
    TBufferedTransportFactory,
    TFramedTransportFactory,
    TSocket,
    TTransportException,
)

from hmodel.backend.memory import MemoryBackend
from hmodel.errors import BackendError, UnsupportedOperationError, ValidationError

__all__ = ["CloseConnection", "FakeThriftServer", "Processor", "Protocol", "Transport"]

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


class FakeThriftServer:
    """A Thrift server in threads over a memory engine: the part both fake servers share.

    It listens on ``host:port``, accepts connections in one thread and serves each one in
    a thread of its own with :attr:`_processor`, one request after the other. A request
    that cannot even be decoded drops only that client's connection. Subclasses (the
    Thrift1 and Thrift2 servers) set :attr:`_processor` and may override
    :meth:`_close_scanners`.

    Args:
        backend: The engine holding the tables; a fresh :class:`MemoryBackend` if ``None``.
        host: Interface to listen on; loopback by default. ``"0.0.0.0"`` exposes the fake
            to the network: it has no authentication.
        port: TCP port; ``0`` picks a free one (read it back from :attr:`port`).
        transport: ``"buffered"`` (HBase's default) or ``"framed"``.
        protocol: ``"binary"`` (HBase's default) or ``"compact"``.

    Raises:
        ValidationError: A bad ``host`` or ``port``, an unknown ``transport`` or ``protocol``.
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
        self._backend = backend if backend is not None else MemoryBackend()
        self._host = host
        self._port = port
        self.transport: Transport = transport
        self.protocol: Protocol = protocol
        self._transport_factory = _TRANSPORTS[transport]()
        self._protocol_factory = _PROTOCOLS[protocol]()
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
    def serving_options(self) -> dict[str, Any]:
        """The keyword arguments of how this server serves, for a sibling on another port."""
        return {"host": self._host, "transport": self.transport, "protocol": self.protocol}

    def client_count(self) -> int:
        """How many client connections are open right now."""
        with self._clients_lock:
            return len(self._clients)

    # --- lifecycle ------------------------------------------------------------------

    def start(self: _Server) -> _Server:
        """Bind, listen and serve in a daemon thread; returns ``self``.

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
        self._acceptor = threading.Thread(
            target=self._accept_loop, name=f"hmodel-fake-hbase-{self._port}", daemon=True
        )
        self._acceptor.start()
        logger.info("fake HBase %s server listening on %s:%d", self.service, self._host, self._port)
        return self

    def stop(self) -> None:
        """Stop serving: close the listening socket and every client connection.

        Returns once the accept thread and every connection thread have ended and all
        open scanners are closed. Calling it again (or before :meth:`start`) does nothing.
        """
        if not self._started or self._stopping.is_set():
            return
        self._stopping.set()
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
        try:
            client, _address = listener.accept()
        except OSError:
            return  # the client went away before we accepted it
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
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
        try:
            self.serve_connection(client)
        finally:
            with self._clients_lock:
                self._clients.pop(client, None)
            client.close()

    def serve_connection(self, client: socket.socket) -> None:
        """Serve one accepted connection's byte stream until it ends, then close it.

        Requests are read and answered one after the other. The client closing the
        connection, the server stopping, a :class:`CloseConnection` from the processor or
        a request that cannot be decoded (the stream cannot be resynchronised) ends it.
        """
        socket_transport = TSocket(sock=client)  # type: ignore[no-untyped-call]  # thriftpy2 is untyped
        trans = self._transport_factory.get_transport(socket_transport)
        prot = self._protocol_factory.get_protocol(trans)
        try:
            while not self._stopping.is_set():
                self._processor.process(prot, prot)
        except (TTransportException, OSError):
            pass  # the client closed the connection, or the server is stopping
        except CloseConnection as closing:
            logger.debug("dropping a client as the processor asked: %s", closing)
        except Exception:
            logger.warning("dropping a client after a malformed request", exc_info=True)
        finally:
            with contextlib.suppress(OSError):
                trans.close()
