"""One connection to a Thrift server, over a socket, TLS or HTTP(S), with its client."""

from __future__ import annotations

import contextlib
import http.client
import io
import re
import select
import socket
import ssl
import struct
import sys
from typing import Any

from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
from thriftpy2.thrift import TClient
from thriftpy2.transport import (
    TBufferedTransportFactory,
    TFramedTransportFactory,
    TSocket,
    TTransportException,
)

from hmodel.backend.endpoint import Endpoint
from hmodel.backend.sasl import SaslClientTransport
from hmodel.backend.wire import Reply, WireCodec, framed, settle
from hmodel.errors import AuthenticationError, HTTPStatusError, TLSError

__all__ = [
    "Connection",
    "Connector",
    "HttpLink",
    "HttpTransport",
    "SocketLink",
    "WireCaller",
    "WireConnection",
    "dropped",
    "handshake_failure",
    "http_headers",
    "http_refusal",
    "tls_refusal",
]

_TRANSPORTS: dict[str, Any] = {
    "buffered": TBufferedTransportFactory,
    "framed": TFramedTransportFactory,
}

#: Statuses that say the credentials were refused (``407``: by a proxy).
_AUTHENTICATION_STATUSES = frozenset({401, 403, 407})
#: At most this much of an error page is quoted in a message.
_QUOTED = 200
#: OpenSSL's verify codes for a certificate that names another host or address.
_NAME_MISMATCH = frozenset({62, 64})  # X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH
_TITLE = re.compile(rb"<title>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def dropped(sock: socket.socket | None) -> bool:
    """Whether the peer closed (or broke) an idle connection while it waited in the pool.

    An idle connection has nothing to read: if its socket is readable, the server closed
    it (HBase's socket read timeout, an HTTP idle timeout, a restart) or sent something
    unasked, and a call sent on it would fail after leaving, its outcome unknown. TLS
    records that carry no data (TLS 1.3 session tickets) do not count.
    """
    if sock is None:
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):  # closed, or a descriptor select cannot take
        return True
    return bool(readable) and readable_means_dropped(sock)


def readable_means_dropped(sock: socket.socket) -> bool:
    """Whether an idle socket found readable was closed (or sent bytes nobody asked for).

    A plain socket: always. A TLS socket may have received records without application
    data (TLS 1.3 session tickets): one non-blocking read tells.
    """
    if not isinstance(sock, ssl.SSLSocket):
        return True
    timeout = sock.gettimeout()
    sock.setblocking(False)
    try:
        sock.recv(1)
    except ssl.SSLWantReadError:
        return False  # records without application data (session tickets)
    except OSError:
        return True
    finally:
        with contextlib.suppress(OSError):
            sock.settimeout(timeout)
    return True  # end of stream, or bytes nobody asked for


def tls_refusal(exc: BaseException, where: str) -> TLSError | None:
    """The :class:`TLSError` a failure during a call is, if it is the peer's TLS alert.

    With TLS 1.3 the client finishes its handshake before the server has checked the
    client's certificate, so a server that requires one (or refuses the one sent) says so
    with an alert at the first read, inside a call: that is no dropped connection to
    retry. An end of stream (``SSLEOFError``) is, and gives ``None``.
    """
    if not isinstance(exc, ssl.SSLError) or isinstance(
        exc, (ssl.SSLEOFError, ssl.SSLZeroReturnError, ssl.SSLSyscallError)
    ):
        return None
    reason = str(getattr(exc, "reason", None) or exc)
    if "ALERT" not in reason.upper():
        return None
    return TLSError(
        f"the TLS connection to {where} was refused by the server: {reason} (does it require "
        "a client certificate: TLS(cert_file=..., key_file=...)?)"
    )


def handshake_failure(exc: OSError, url: str) -> Exception:
    """What a failed TLS handshake with ``url`` is raised as (``exc`` is its cause).

    A certificate not accepted, or any other TLS failure, is a :class:`TLSError` saying
    what to check; a connection broken during the handshake is a ``TTransportException``
    (a dropped connection).
    """
    if isinstance(exc, ssl.SSLCertVerificationError):
        hint = (
            "connect by a name the certificate carries, or set TLS(server_hostname=...)"
            if exc.verify_code in _NAME_MISMATCH
            else "give the CA that signed it as TLS(ca_file=...)"
        )
        return TLSError(
            f"TLS handshake with {url} failed: the server's certificate is not "
            f"accepted: {exc.verify_message} ({hint})"
        )
    if isinstance(exc, ssl.SSLError):
        reason = getattr(exc, "reason", None) or exc
        return TLSError(
            f"TLS handshake with {url} failed: {reason} (does the "
            "server speak TLS there, and accept this client's certificate?)"
        )
    return TTransportException(
        type=TTransportException.NOT_OPEN,
        message=f"connection to {url} failed during the TLS handshake: {exc}",
    )


def http_refusal(url: str, status: int, reason: str, kind: str, payload: bytes) -> Exception:
    """What an HTTP answer other than ``200`` with Thrift in it is raised as.

    ``401``, ``403`` and ``407``: :class:`AuthenticationError`; a ``5xx``: a
    ``TTransportException`` (retried as a failed connection); any other: an
    :class:`HTTPStatusError`. ``kind`` is the answer's media type, ``payload`` its body
    (quoted, shortened, in the message).
    """
    quote = _quote(payload)
    said = f"HTTP {status} {reason} from {url}" + (f": {quote}" if quote else "")
    if status in _AUTHENTICATION_STATUSES:
        return AuthenticationError(
            f"{said} (the server or a gateway refused the credentials: check the HTTP "
            "username/password or headers)"
        )
    if 500 <= status <= 599:
        return TTransportException(type=TTransportException.UNKNOWN, message=said)
    if status == 200:
        return HTTPStatusError(
            f"HTTP 200 from {url} carries {kind}, not Thrift (a gateway's page? "
            "check the HTTP path)",
            status=status,
            url=url,
        )
    return HTTPStatusError(said, status=status, url=url)


def http_headers(endpoint: Endpoint) -> list[tuple[str, str]]:
    """The headers of every Thrift-over-HTTP call to ``endpoint`` but ``Host`` and length."""
    assert endpoint.http is not None
    return [
        ("Content-Type", "application/x-thrift"),
        ("Accept", "application/x-thrift"),
        ("User-Agent", "hmodel"),
        *endpoint.http.request_headers(),
    ]


def unreachable_hint(exc: OSError, service: Any) -> str:
    """What to check when a connection cannot be made: ``""`` when ``exc`` says nothing.

    A refused connection means nothing listens there; a name that does not resolve is
    a wrong host. The hint names the HBase server the ``service`` needs (``None``: either).
    """
    name = getattr(service, "__name__", "")
    server = {
        "THBaseService": "Thrift2 server (`hbase thrift2 start`)",
        "Hbase": "Thrift1 server (`hbase thrift start`)",
    }.get(name, "Thrift server (`hbase thrift start` / `hbase thrift2 start`)")
    if isinstance(exc, ConnectionRefusedError):
        return (
            f"; nothing listens there: is HBase's {server} running on that host and port? "
            "(for tests: `hmodel fake-hbase --port PORT --thrift2-port PORT2` or "
            "`hmodel hbase start`)"
        )
    if isinstance(exc, socket.gaierror):
        return "; the host name does not resolve: check the host"
    if isinstance(exc, TimeoutError):
        return "; no answer in time: a firewall, or a host that is down?"
    return ""


class Connector:
    """Opens connections to one endpoint for one Thrift service.

    The TLS context is built once, when the connector is (a bad CA or certificate file
    fails then, not at the first call).

    Args:
        endpoint: Where and how to connect.
        service: The thriftpy2 service the client calls (``Hbase``, ``THBaseService``).
        decode_response: Whether the protocol decodes Thrift ``string`` fields to ``str``
            (``False``: bytes, as happybase reads HBase's Thrift1 ``Text``).

    Raises:
        IllegalArgumentError: A TLS file cannot be loaded (naming it).
    """

    def __init__(self, endpoint: Endpoint, service: Any, *, decode_response: bool) -> None:
        self.endpoint = endpoint
        self._service = service
        self._context = endpoint.tls.ssl_context() if endpoint.tls is not None else None
        self._server_hostname = (
            endpoint.tls.server_hostname or endpoint.host if endpoint.tls is not None else None
        )
        self._transport_factory = _TRANSPORTS[endpoint.transport]()
        self._framed = endpoint.transport == "framed"
        #: Encodes the calls when the connections run on the wire (``None``: they go
        #: through thriftpy2's client, for SASL and a socket wrapper).
        self.codec: WireCodec | None = (
            WireCodec(service, protocol=endpoint.protocol, decode_response=decode_response)
            if endpoint.sasl is None and endpoint.wrap_socket is None
            else None
        )
        self._protocol_factory = (
            TBinaryProtocolFactory(decode_response=decode_response)  # type: ignore[no-untyped-call]
            if endpoint.protocol == "binary"
            else TCompactProtocolFactory(decode_response=decode_response)  # type: ignore[no-untyped-call]
        )

    def open_socket(self) -> socket.socket:
        """A connected socket to the endpoint, inside TLS when it has TLS settings.

        Raises:
            TTransportException: The address cannot be reached (the ``OSError`` as cause).
            TLSError: The TLS handshake failed (the ``ssl.SSLError`` as cause).
        """
        endpoint = self.endpoint
        timeout = endpoint.timeout_ms / 1000 if endpoint.timeout_ms is not None else None
        try:
            raw = socket.create_connection((endpoint.host, endpoint.port), timeout=timeout)
        except OSError as exc:
            raise TTransportException(
                type=TTransportException.NOT_OPEN,
                message=f"could not connect to {endpoint.url}: {exc}"
                + unreachable_hint(exc, self._service),
            ) from exc
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        if self._context is None:
            return raw
        try:
            return self._context.wrap_socket(raw, server_hostname=self._server_hostname)
        except OSError as exc:
            raw.close()
            raise handshake_failure(exc, endpoint.url) from exc

    def open(self) -> Connection | WireConnection:
        """Open one connection (for HTTP, its first TCP connection) with its client.

        On the wire (:attr:`codec` set) a :class:`WireConnection`, else (SASL, a socket
        wrapper) a :class:`Connection` through thriftpy2's client.

        Raises:
            TTransportException: The server cannot be reached.
            TLSError: The TLS handshake failed.
            AuthenticationError: The SASL authentication failed (``endpoint.sasl``).
        """
        endpoint = self.endpoint
        raw: Any
        codec = self.codec
        if endpoint.http is not None:
            raw = HttpTransport(endpoint, self.open_socket)
            raw.open()
            if codec is not None:
                return WireConnection(WireCaller(HttpLink(raw), codec, framed=self._framed))
        elif codec is not None:
            link = SocketLink(self.open_socket())
            return WireConnection(WireCaller(link, codec, framed=self._framed))
        else:
            raw = TSocket(sock=self.open_socket())  # type: ignore[no-untyped-call]  # thriftpy2 is untyped
            try:
                if endpoint.wrap_socket is not None:
                    raw = endpoint.wrap_socket(raw)
                if endpoint.sasl is not None:
                    where = f"{endpoint.host}:{endpoint.port}"
                    raw = SaslClientTransport(raw, endpoint.sasl, host=endpoint.host, where=where)
                    raw.open()  # authenticates over the open socket
            except BaseException:
                with contextlib.suppress(OSError):
                    raw.close()
                raise
        transport = self._transport_factory.get_transport(raw)
        protocol = self._protocol_factory.get_protocol(transport)  # type: ignore[no-untyped-call]
        return Connection(raw, transport, TClient(self._service, protocol))


class Connection:
    """One open connection: its transports and the Thrift client that calls through them.

    Attributes:
        client: The thriftpy2 client; each method sends one call.
    """

    def __init__(self, raw: Any, transport: Any, client: Any) -> None:
        self._raw = raw
        self._transport = transport
        self.client = client

    def call(self, method: str, args: tuple[Any, ...], request: bytes | None) -> Any:
        """Send one call through thriftpy2's client (``request`` is unused: ``None``)."""
        return getattr(self.client, method)(*args)

    def stale(self) -> bool:
        """Whether the server closed this (idle) connection: see :func:`dropped`."""
        raw = self._raw
        sock = raw.socket if isinstance(raw, HttpTransport) else getattr(raw, "sock", None)
        if isinstance(raw, HttpTransport) and sock is None:
            return False  # closed after a "Connection: close" answer: reopened when used
        return dropped(sock)

    def close(self) -> None:
        """Close the connection; errors while closing are ignored."""
        with contextlib.suppress(TTransportException, OSError, EOFError):
            self._transport.close()


class _HTTPConnection(http.client.HTTPConnection):
    """``http.client``'s connection whose socket (TLS included) the connector opens.

    So a reconnection after a ``Connection: close`` answer goes through the same TLS
    settings as the first connection.
    """

    def __init__(self, host: str, port: int, opener: Any) -> None:
        super().__init__(host, port)
        self._opener = opener

    def connect(self) -> None:
        self.sock = self._opener()


class HttpTransport:
    """A Thrift transport that sends each call as one HTTP ``POST`` (``THttpClient``'s job).

    Unlike thriftpy2's ``THttpClient`` it keeps one connection alive across calls and
    never sends a call twice on its own, checks the answer's status, applies the
    endpoint's timeout to its own socket only, and speaks TLS with the endpoint's
    settings. A call's bytes are gathered until ``flush``, posted with
    ``Content-Type: application/x-thrift``, and the whole answer is read before the
    protocol decodes it (so the connection can carry the next call).

    Args:
        endpoint: An endpoint with HTTP settings.
        opener: Returns a connected socket (TLS included) to the endpoint.
    """

    def __init__(self, endpoint: Endpoint, opener: Any) -> None:
        assert endpoint.http is not None
        self._url = endpoint.url
        self._path = endpoint.http.path
        self._connection = _HTTPConnection(endpoint.host, endpoint.port, opener)
        self._headers = http_headers(endpoint)
        self._written: list[bytes] = []
        self._answer = io.BytesIO()

    @property
    def socket(self) -> socket.socket | None:
        """The current TCP (or TLS) socket, ``None`` between connections."""
        sock: socket.socket | None = self._connection.sock
        return sock

    def open(self) -> None:
        """Connect now (a later call reconnects by itself if the server closed it)."""
        self._connection.connect()

    def is_open(self) -> bool:
        """Whether a TCP connection is open now."""
        return self._connection.sock is not None

    def close(self) -> None:
        """Close the TCP connection (a later call opens a new one)."""
        self._connection.close()

    def write(self, data: bytes) -> None:
        """Add bytes to the call being written (sent by :meth:`flush`)."""
        self._written.append(bytes(data))

    def read(self, size: int) -> bytes:
        """At most ``size`` bytes of the last answer; ``b""`` once it is all read."""
        return self._answer.read(size)

    def flush(self) -> None:
        """Post the call written so far and read the whole answer.

        Raises:
            TTransportException: The exchange failed, or a ``5xx`` answer (retried as a
                failed connection).
            AuthenticationError: A ``401``, ``403`` or ``407`` answer.
            HTTPStatusError: Any other answer that is not ``200`` with Thrift in it.
            TLSError: A reconnection's TLS handshake failed.
        """
        body = b"".join(self._written)
        self._written.clear()
        if body:
            self._answer = io.BytesIO(self.exchange(body))

    def exchange(self, body: bytes) -> bytes:
        """Post ``body`` (a whole call) and return the answer's body (raises as :meth:`flush`)."""
        connection = self._connection
        try:
            connection.putrequest("POST", self._path, skip_accept_encoding=True)
            for name, value in self._headers:
                connection.putheader(name, value)
            connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            payload = response.read()
        except http.client.HTTPException as exc:
            connection.close()
            hint = ""
            if isinstance(exc, http.client.BadStatusLine) and str(exc).startswith("\x15\x03"):
                hint = " (a TLS alert: the server speaks HTTPS there)"
            raise TTransportException(
                type=TTransportException.UNKNOWN,
                message=f"HTTP exchange with {self._url} failed: {type(exc).__name__}{hint}",
            ) from exc
        status = response.status
        kind = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
        if status == 200 and kind in ("", "application/x-thrift"):
            return payload
        connection.close()  # the answer says nothing a next call could use
        raise http_refusal(self._url, status, response.reason, kind, payload)


#: The most one ``recv`` of a :class:`SocketLink` asks for. 64 KiB measured cheapest for a
#: small reply (a one-row get, real HBase: 41.3 us of client CPU a round trip against
#: 44.3 us for ``recv_into`` a 256 KiB buffer kept with the connection, and 77.7 us for
#: ``recv(256 KiB)``, whose buffer is mapped and unmapped per call); a large reply takes a
#: few more calls.
RECEIVE_BYTES = 1 << 16


class SocketLink:
    """A :class:`WireCaller`'s way to the server over a connected socket (TLS included).

    Each call is one ``sendall``; a reply is read with ``recv`` of at most
    :data:`RECEIVE_BYTES` at a time.

    Args:
        sock: The connected socket (its timeout applies to every send and read).
    """

    __slots__ = ("_poll", "_sock")

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._poll: Any = None
        with contextlib.suppress(OSError, ValueError, AttributeError):
            poll = select.poll()
            poll.register(sock.fileno(), select.POLLIN)
            self._poll = poll
        _kernel_timeouts(sock)

    def send(self, data: bytes) -> None:
        """Send ``data`` whole (raises ``OSError`` if the connection fails).

        Raises:
            TimeoutError: The socket's timeout passed (part of ``data`` may be sent).
            OSError: The connection broke.
        """
        try:
            self._sock.sendall(data)
        except BlockingIOError as exc:  # the kernel's send timeout (see _kernel_timeouts)
            raise TimeoutError("timed out") from exc

    def receive(self) -> bytes:
        """The next bytes the server sent (waiting for at least one).

        Raises:
            TTransportException: The server closed the connection (``END_OF_FILE``).
            TimeoutError: The socket's timeout passed.
            OSError: The connection broke.
        """
        try:
            data = self._sock.recv(RECEIVE_BYTES)
        except BlockingIOError as exc:  # the kernel's receive timeout (see _kernel_timeouts)
            raise TimeoutError("timed out") from exc
        if not data:
            raise TTransportException(
                type=TTransportException.END_OF_FILE, message="the server closed the connection"
            )
        return data

    def stale(self) -> bool:
        """Whether this idle connection was closed by the server (see :func:`dropped`).

        The socket is registered with a ``poll`` object once, when the link is made, so
        the check is one ``poll`` system call with no descriptor sets built (``select``
        costs twice as much); a TLS socket found readable is read once more to tell
        session tickets from a close.
        """
        poll = self._poll
        if poll is None:
            return dropped(self._sock)
        try:
            readable = poll.poll(0)
        except (OSError, ValueError):
            return True
        return bool(readable) and readable_means_dropped(self._sock)

    def close(self) -> None:
        """Shut the socket down (waking a call blocked on it) and close it."""
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._sock.close()


#: The ``struct timeval`` of ``SO_RCVTIMEO``/``SO_SNDTIMEO`` (Linux and the BSDs: two longs).
_TIMEVAL = "ll"


def _kernel_timeouts(sock: socket.socket) -> None:
    """Have the kernel time a plain socket's sends and receives out, not Python.

    A socket with a Python timeout waits in ``poll`` before each ``send`` and ``recv``
    (two system calls each); a blocking one with ``SO_SNDTIMEO``/``SO_RCVTIMEO`` makes
    one, and one that times out fails with ``EAGAIN`` (``BlockingIOError``), which
    :class:`SocketLink` raises as ``TimeoutError``, as the Python timeout does. Only a
    plain TCP socket with a timeout, on Linux and the BSDs (a TLS socket, or any other
    platform, keeps its Python timeout).
    """
    timeout = sock.gettimeout()
    if (
        timeout is None
        or timeout <= 0  # a non-blocking socket stays one
        or type(sock) is not socket.socket
        or not sys.platform.startswith(("linux", "darwin", "freebsd"))
    ):
        return
    seconds, fraction = divmod(timeout, 1)
    micros = min(999_999, round(fraction * 1_000_000))
    # An all-zero timeval means "never time out": the smallest one instead.
    timeval = struct.pack(_TIMEVAL, int(seconds), micros or (0 if seconds else 1))
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeval)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeval)
    except OSError:
        return  # the Python timeout stays
    sock.settimeout(None)


class HttpLink:
    """A :class:`WireCaller`'s way to the server over HTTP(S): each call one ``POST``.

    Args:
        transport: The HTTP transport (its kept-alive connection, status checks, TLS).
    """

    __slots__ = ("_answer", "_transport")

    def __init__(self, transport: HttpTransport) -> None:
        self._transport = transport
        self._answer: bytes | None = None

    def send(self, data: bytes) -> None:
        """Post ``data`` and keep the whole answer (raises as :meth:`HttpTransport.flush`)."""
        self._answer = self._transport.exchange(data)

    def receive(self) -> bytes:
        """The answer's body, whole; then the end of it.

        Raises:
            TTransportException: The answer was read already (it ends inside the reply).
        """
        answer, self._answer = self._answer, None
        if answer is None:
            raise TTransportException(
                type=TTransportException.END_OF_FILE, message="the HTTP answer ends early"
            )
        return answer

    def stale(self) -> bool:
        """Whether the server closed the kept-alive connection (see :func:`dropped`)."""
        return dropped(self._transport.socket)  # None after "Connection: close": reopened

    def close(self) -> None:
        """Close the TCP connection."""
        with contextlib.suppress(TTransportException, OSError):
            self._transport.close()


class WireCaller:
    """Synchronous Thrift calls as whole messages: encoded once, one send, decoded once.

    The synchronous edge's :class:`~hmodel.backend.aio_wire.WireClient`: the request
    comes encoded whole (:meth:`~hmodel.backend.wire.WireCodec.encode`, before a
    connection is borrowed) and is sent at once (framed if the transport is); the reply
    is decoded once, by thriftpy2's Cython binary protocol or its compact one. Framed,
    its chunks are fed to a :class:`~hmodel.backend.wire.Reply` until the frame is whole;
    buffered, the link blocks, so the reply is decoded as it arrives, in one pass
    (:meth:`~hmodel.backend.wire.WireCodec.decode_stream`: no decode tried twice, no
    measure). What the server answers is read as thriftpy2's ``TClient`` reads it
    (:func:`~hmodel.backend.wire.settle`).

    Args:
        link: The way to the server (:class:`SocketLink`, :class:`HttpLink`).
        codec: The service's codec.
        framed: Whether messages travel in frames (4-byte big-endian length first).

    Attributes:
        desynchronised: Set when the server sent bytes past a reply: the connection
            must not be used again.
    """

    __slots__ = ("_codec", "_framed", "desynchronised", "link")

    def __init__(self, link: SocketLink | HttpLink, codec: WireCodec, *, framed: bool) -> None:
        self.link = link
        self._codec = codec
        self._framed = framed
        self.desynchronised = False

    def call(self, method: str, request: bytes) -> Any:
        """Send ``request`` (a whole message of ``method``) and return what the reply means.

        Raises:
            TTransportException, OSError: The connection failed, or a frame is malformed.
            Exception: The server's answer (see :func:`~hmodel.backend.wire.settle`).
        """
        link = self.link
        link.send(framed(request) if self._framed else request)
        if self._codec.oneway(method):
            return None
        receive = link.receive
        if self._framed:
            reply = Reply(self._codec, method, framed=True)
            while not reply.feed(receive()):
                pass
            result, more = reply.result, reply.desynchronised
        else:  # a blocking link: decoded as it arrives, in one pass
            result, more = self._codec.decode_stream(method, receive(), receive)
        if more:
            self.desynchronised = True
        return settle(result)


class WireConnection:
    """One open connection on the wire (:class:`WireCaller`), as the pool lends it."""

    __slots__ = ("client",)

    def __init__(self, client: WireCaller) -> None:
        self.client = client

    def call(self, method: str, args: tuple[Any, ...], request: bytes | None) -> Any:
        """Send the encoded ``request`` of ``method`` (``args`` are in it already)."""
        assert request is not None
        return self.client.call(method, request)

    def stale(self) -> bool:
        """Whether this idle connection cannot serve a call (closed, or bytes unasked)."""
        return self.client.desynchronised or self.client.link.stale()

    def close(self) -> None:
        """Close the connection; errors while closing are ignored."""
        self.client.link.close()


def _quote(payload: bytes) -> str:
    """The gist of an error page: its HTML title, else its first line, shortened."""
    title = _TITLE.search(payload)
    text = (title.group(1) if title else payload).decode("utf-8", "replace")
    text = " ".join(text.split())
    return text if len(text) <= _QUOTED else text[: _QUOTED - 3] + "..."
