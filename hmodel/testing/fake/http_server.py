"""Thrift over HTTP(S) for the fake servers: one POST per call, as HBase's Thrift servlet serves."""

from __future__ import annotations

import contextlib
import html
import http.server
import logging
import socket
import ssl
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import attrs

from hmodel.errors import ValidationError

__all__ = ["HTTPServing", "serve_http_connection"]

logger = logging.getLogger(__name__)


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


class _Connection:
    """What one HTTP connection's handler needs of the server serving it."""

    def __init__(
        self,
        serving: HTTPServing,
        call: Callable[[bytes], bytes],
        max_body: int,
        dropped: tuple[type[BaseException], ...],
        stopping: Callable[[], bool],
    ) -> None:
        self.serving = serving
        self.call = call
        self.max_body = max_body
        self.dropped = dropped
        self.stopping = stopping


class _Handler(http.server.BaseHTTPRequestHandler):
    """One client connection: each ``POST`` carries one Thrift call and gets its reply."""

    protocol_version = "HTTP/1.1"  # keep-alive
    server: _Connection  # type: ignore[assignment]  # not a socketserver: one connection
    server_version = "hmodel-fake-hbase"
    sys_version = ""

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.serving.idle_timeout_s)

    def handle(self) -> None:
        # A TLS handshake that fails, a client that goes away or stays idle past the
        # timeout ends this connection only.
        with contextlib.suppress(OSError, ssl.SSLError):
            super().handle()

    def handle_one_request(self) -> None:
        super().handle_one_request()
        if self.server.stopping():
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("fake HBase HTTP %s: " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        self._page(405, "Method Not Allowed", "HBase's Thrift servlet takes POST")

    def do_POST(self) -> None:
        front = self.server
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
        if length > front.max_body:  # refused before any of the body is received
            detail = f"{length} bytes is more than {front.max_body} (MaxMessageSize reached)"
            self._page(413, "Payload Too Large", detail, close=True)
            return
        body = self.rfile.read(length)
        if len(body) < length:
            self.close_connection = True  # the client went away halfway through the body
            return
        try:
            reply = front.call(body)
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

    def _page(
        self,
        status: int,
        reason: str,
        detail: str,
        *,
        challenge: bool = False,
        close: bool = False,
    ) -> None:
        text = html.escape(f"Error {status} {detail}")
        page = f"<html><head><title>{text}</title></head><body>{text}</body></html>".encode()
        self.send_response(status, reason)
        if challenge:
            self.send_header("WWW-Authenticate", 'Basic realm="hmodel"')
        self.send_header("Content-Type", "text/html;charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        if status >= 500 or close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(page)


def serve_http_connection(
    connection: Any,
    address: Any,
    *,
    serving: HTTPServing,
    call: Callable[[bytes], bytes],
    max_body: int,
    dropped: tuple[type[BaseException], ...] = (),
    stopping: Callable[[], bool] = lambda: False,
) -> None:
    """Serve Thrift over HTTP on one accepted connection until it ends (the caller closes it).

    As HBase's Thrift HTTP server (Jetty, ``ThriftHttpServlet``) serves: every ``POST``
    body is one call in the binary protocol and its answer one reply
    (``application/x-thrift``); the connection is kept alive (HTTP/1.1) until it is idle
    for ``serving.idle_timeout_s``. A ``Content-Length`` over ``max_body`` is a ``413``
    and the connection is closed before any of the body is received; a body ``call``
    fails on (not a call, or a call over the bounds) is a ``500`` page, as Jetty answers
    the servlet's failure, and the connection is closed. ``GET`` is a ``405``; with a
    path or credentials in ``serving``, another path is a ``404``, no credentials a
    ``401``, wrong ones a ``403``.

    Args:
        connection: The accepted socket (already wrapped in TLS for HTTPS).
        address: The client's address (for log lines).
        serving: Path, credentials and idle timeout (see :class:`HTTPServing`).
        call: Serves one request body; returns the reply's bytes.
        max_body: The longest body taken, in bytes.
        dropped: What ``call`` raises to have the connection dropped without an answer
            (a call hook's drop).
        stopping: Whether the server is stopping: the connection then ends after the
            request being served.
    """
    _Handler(connection, address, _Connection(serving, call, max_body, dropped, stopping))  # type: ignore[arg-type]
