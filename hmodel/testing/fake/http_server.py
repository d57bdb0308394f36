"""Thrift over HTTP(S) for the fake servers: one POST per call, as HBase's Thrift servlet serves."""

from __future__ import annotations

import contextlib
import html
import http.server
import logging
import socket
import ssl
import threading
from typing import Any
from urllib.parse import urlsplit

import attrs
from thriftpy2.protocol import TBinaryProtocolFactory as _TBinaryProtocolFactory
from thriftpy2.transport import TMemoryBuffer as _TMemoryBuffer

from hmodel.errors import BackendError, ValidationError

__all__ = ["HTTPServing", "HttpFront"]

logger = logging.getLogger(__name__)

# thriftpy2 is untyped.
TMemoryBuffer: Any = _TMemoryBuffer
TBinaryProtocolFactory: Any = _TBinaryProtocolFactory

_JOIN_TIMEOUT = 5.0  # seconds to wait for a thread that should already be ending
#: The largest request body served (HBase's servlet is bounded by libthrift's
#: ``TConfiguration`` maximum message size, 100 MiB by default).
MAX_BODY = 100 * 1024 * 1024


@attrs.frozen
class HTTPServing:
    """How the fake serves Thrift over HTTP: as HBase does, or as a gateway in front of it.

    HBase's servlet (``hbase.regionserver.thrift.http=true``) answers a ``POST`` at any
    path and asks for no credentials (without Kerberos). ``path`` and ``username`` /
    ``password`` make the fake behave like a gateway (Apache Knox, say) instead: another
    path is a ``404``; no ``Authorization: Basic`` header a ``401``, wrong credentials a
    ``403``.

    Args:
        path: The one path served (``None``: any, as HBase).
        username: With ``password``: the basic credentials required (``None``: none).
        password: The password of ``username``.
        idle_timeout_s: A kept-alive connection idle this long is closed (Jetty's
            ``ServerConnector`` default, which HBase's Thrift HTTP server keeps, is 30 s).

    Raises:
        ValidationError: A path without a leading ``/``, half a credential, or a
            non-positive timeout.
    """

    path: str | None = None
    username: str | None = None
    password: str | None = attrs.field(default=None, repr=False)
    idle_timeout_s: float = 30.0

    def __attrs_post_init__(self) -> None:
        path = self.path
        if path is not None and (not isinstance(path, str) or not path.startswith("/")):
            raise ValidationError("the HTTP path must start with '/'", field="path", value=path)
        if (self.username is None) != (self.password is None):
            raise ValidationError("basic credentials need username and password", field="username")
        timeout = self.idle_timeout_s
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ValidationError(
                "idle_timeout_s must be a positive number", field="idle_timeout_s", value=timeout
            )


class _Server(http.server.ThreadingHTTPServer):
    """The listening side: TLS per accepted connection (handshake in its own thread)."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, front: HttpFront, address: tuple[str, int], family: int) -> None:
        self.address_family = family
        self.front = front
        super().__init__(address, _Handler)

    def get_request(self) -> tuple[Any, Any]:
        sock, address = self.socket.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        context = self.front.tls
        if context is not None:
            # The handshake runs at the first read, in the connection's own thread.
            sock = context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, address


class _Handler(http.server.BaseHTTPRequestHandler):
    """One client connection: each ``POST`` carries one Thrift call and gets its reply."""

    protocol_version = "HTTP/1.1"  # keep-alive
    server: _Server
    server_version = "hmodel-fake-hbase"
    sys_version = ""

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.front.serving.idle_timeout_s)
        self.server.front.track(self.connection, threading.current_thread())

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.front.untrack(self.connection)

    def handle(self) -> None:
        # A TLS handshake that fails or a client that goes away ends this connection only.
        with contextlib.suppress(OSError, ssl.SSLError):
            super().handle()

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("fake HBase HTTP %s: " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        self._page(405, "Method Not Allowed", "HBase's Thrift servlet takes POST")

    def do_POST(self) -> None:
        front = self.server.front
        serving = front.serving
        if serving.path is not None and urlsplit(self.path).path != serving.path:
            self._page(404, "Not Found", f"no Thrift service at {self.path}")
            return
        if serving.username is not None and not self._authorised(serving):
            return
        length_text = self.headers.get("Content-Length")
        if length_text is None or not length_text.isdigit():
            self._page(411, "Length Required", "a Thrift call needs a Content-Length")
            return
        length = int(length_text)
        if length > MAX_BODY:
            self._page(413, "Payload Too Large", f"{length} bytes is more than {MAX_BODY}")
            return
        body = self.rfile.read(length)
        answer = TMemoryBuffer()
        factory = front.protocol_factory
        try:
            front.processor.process(
                factory.get_protocol(TMemoryBuffer(body)), factory.get_protocol(answer)
            )
        except front.dropped as dropped:
            logger.debug("dropping an HTTP client as the call hook asked: %s", dropped)
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        except Exception as exc:
            # Jetty answers a servlet's failure (a malformed request) with a 500 page.
            logger.warning("HTTP 500 for a malformed Thrift request", exc_info=True)
            self._page(500, "Server Error", f"TTransportException: {type(exc).__name__}: {exc}")
            return
        reply = answer.getvalue()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-thrift")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def _authorised(self, serving: HTTPServing) -> bool:
        import base64

        given = self.headers.get("Authorization", "")
        if not given.startswith("Basic "):
            self._page(401, "Unauthorized", "credentials required", challenge=True)
            return False
        try:
            pair = base64.b64decode(given[6:], validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            pair = ""
        if pair != f"{serving.username}:{serving.password}":
            self._page(403, "Forbidden", "these credentials are refused")
            return False
        return True

    def _page(self, status: int, reason: str, detail: str, *, challenge: bool = False) -> None:
        text = html.escape(f"Error {status} {detail}")
        page = f"<html><head><title>{text}</title></head><body>{text}</body></html>".encode()
        self.send_response(status, reason)
        if challenge:
            self.send_header("WWW-Authenticate", 'Basic realm="hmodel"')
        self.send_header("Content-Type", "text/html;charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        if status >= 500:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(page)


class HttpFront:
    """Serves a fake server's Thrift processor over HTTP or HTTPS, in threads.

    Like HBase's Thrift HTTP server (Jetty, ``ThriftHttpServlet``): every ``POST`` body is
    one call in the binary protocol and its answer one reply (``application/x-thrift``);
    connections are kept alive (HTTP/1.1) until idle for ``serving.idle_timeout_s``; a
    body that is not a call is a ``500`` page, as Jetty answers the servlet's failure.
    With ``tls`` each accepted connection is wrapped in TLS (HTTPS). A call hook that
    drops the connection closes it without an answer.

    Args:
        processor: The Thrift1 or Thrift2 processor (``process(iprot, oprot)``).
        host: Interface to listen on.
        port: TCP port; ``0`` picks a free one.
        tls: The server-side ``ssl.SSLContext`` (HTTPS), or ``None`` (HTTP).
        serving: Path and credentials (see :class:`HTTPServing`).
        name: Names the threads.
        dropped: What the processor raises when a call hook drops the connection.
    """

    def __init__(
        self,
        processor: Any,
        *,
        host: str,
        port: int,
        tls: ssl.SSLContext | None,
        serving: HTTPServing,
        name: str,
        dropped: tuple[type[BaseException], ...] = (),
    ) -> None:
        self.processor = processor
        self.dropped = dropped
        self.tls = tls
        self.serving = serving
        self.protocol_factory = TBinaryProtocolFactory()
        self._address = (host, port)
        self._name = name
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._connections: dict[Any, threading.Thread] = {}
        self._threads: list[threading.Thread] = []

    def start(self) -> int:
        """Listen and serve in a daemon thread; return the port bound.

        Raises:
            BackendError: The address cannot be bound (the OS error is the cause).
        """
        host, port = self._address
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        try:
            self._server = _Server(self, (host, port), family)
        except OSError as exc:
            raise BackendError(f"cannot listen on {host}:{port}: {exc}") from exc
        bound = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"{self._name}-{bound}-http",
            daemon=True,
        )
        self._thread.start()
        return bound

    def track(self, connection: Any, thread: threading.Thread) -> None:
        """Remember an open client connection (and its thread) until :meth:`untrack`."""
        with self._lock:
            self._connections[connection] = thread
            self._threads = [t for t in self._threads if t.is_alive()]
            self._threads.append(thread)

    def untrack(self, connection: Any) -> None:
        """Forget a client connection that ended."""
        with self._lock:
            self._connections.pop(connection, None)

    def client_count(self) -> int:
        """How many client connections are open right now."""
        with self._lock:
            return len(self._connections)

    def close_connections(self) -> int:
        """Close every open client connection now, as an idle timeout does; return how many.

        For tests of clients whose kept-alive connection the server closed.
        """
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        return len(connections)

    def stop(self) -> None:
        """Stop listening, close every client connection, wait for their threads."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        with self._lock:
            connections = list(self._connections)
            threads = list(self._threads)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        for thread in threads:
            if thread is not threading.current_thread():
                thread.join(_JOIN_TIMEOUT)
        if self._thread is not None:
            self._thread.join(_JOIN_TIMEOUT)
