"""How an asyncio Thrift connection is opened: a socket, TLS, or Thrift over HTTP(S)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import select
import socket
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from thriftpy2.transport import TTransportException

from hmodel.backend.connection import (
    handshake_failure,
    http_headers,
    http_refusal,
    unreachable_hint,
)
from hmodel.backend.endpoint import Endpoint

__all__ = ["AsyncHttpTransport", "StreamOpener", "Streams", "streams_stale", "within"]

T = TypeVar("T")
P = TypeVar("P", bound=asyncio.Protocol)

#: The streams of one TCP (or TLS) connection.
Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]

#: The longest status line or header line read from an HTTP answer.
_LINE_LIMIT = 65_536


async def within(awaitable: Awaitable[T], timeout: float | None) -> T:
    """Await ``awaitable`` for at most ``timeout`` seconds (``asyncio.TimeoutError`` after).

    ``asyncio.timeout`` where there is one (Python 3.11): ``wait_for`` makes a task for
    every read, a cost paid per reply.
    """
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(timeout):
            return await awaitable
    return await asyncio.wait_for(awaitable, timeout)


def streams_stale(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
    """Whether the server closed an idle stream pair (end of stream, or bytes unasked).

    What the loop has read says so (an end of stream, bytes buffered); so does the
    socket itself being readable, which the loop may not have noticed yet (a server's
    idle timeout that just closed it): an idle connection has nothing to read, as
    :func:`~hmodel.backend.connection.dropped` checks for the synchronous backends.
    """
    buffered: Any = getattr(reader, "_buffer", b"")  # asyncio has no "bytes waiting"
    if writer.is_closing() or reader.at_eof() or buffered:
        return True
    sock = writer.get_extra_info("socket")
    if sock is None:
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):  # closed, or a descriptor select cannot take
        return True
    return bool(readable)


class StreamOpener:
    """Opens asyncio streams to one endpoint: TCP, inside TLS when it has TLS settings.

    The TLS context is built once, when the opener is (a bad CA or certificate file fails
    then, not at the first call), from the endpoint's settings exactly as the synchronous
    :class:`~hmodel.backend.connection.Connector` builds it; the server's name checked
    (and sent as SNI) is ``TLS.server_hostname`` or the host.

    Args:
        endpoint: Where and how to connect.

    Raises:
        IllegalArgumentError: A TLS file cannot be loaded (naming it).
    """

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self._timeout = endpoint.timeout_ms / 1000 if endpoint.timeout_ms is not None else None
        self._context = endpoint.tls.ssl_context() if endpoint.tls is not None else None
        self._server_hostname = (
            endpoint.tls.server_hostname or endpoint.host if endpoint.tls is not None else None
        )

    async def __call__(self) -> Streams:
        """A connected stream pair, the TLS handshake done, within the endpoint's timeout.

        Raises:
            TTransportException: The address cannot be reached, or the connection broke
                during the handshake (the ``OSError`` as cause).
            TLSError: The TLS handshake failed (the ``ssl.SSLError`` as cause).
        """
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(loop=loop)  # as asyncio.open_connection makes them
        protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
        transport, _ = await self.connect(lambda: protocol)
        return reader, asyncio.StreamWriter(transport, protocol, reader, loop)

    async def connect(self, factory: Callable[[], P]) -> tuple[asyncio.Transport, P]:
        """A connected transport and its protocol (made by ``factory``), the TLS handshake done.

        As :meth:`__call__` (the same timeout, errors and socket options), for a caller
        that handles the bytes itself (``asyncio.Protocol``) rather than through streams.

        Raises:
            TTransportException: The address cannot be reached, or the connection broke
                during the handshake (the ``OSError`` as cause).
            TLSError: The TLS handshake failed (the ``ssl.SSLError`` as cause).
        """
        endpoint = self.endpoint
        loop = asyncio.get_running_loop()
        try:
            transport, protocol = await within(
                loop.create_connection(
                    factory,
                    endpoint.host,
                    endpoint.port,
                    ssl=self._context,
                    server_hostname=self._server_hostname,
                ),
                self._timeout,
            )
        except asyncio.TimeoutError as exc:
            raise TTransportException(
                type=TTransportException.NOT_OPEN,
                message=f"could not connect to {endpoint.url}: timed out",
            ) from exc
        except OSError as exc:
            if self._context is not None and _is_tls(exc):
                raise handshake_failure(exc, endpoint.url) from exc
            raise TTransportException(
                type=TTransportException.NOT_OPEN,
                message=f"could not connect to {endpoint.url}: {exc}" + unreachable_hint(exc, None),
            ) from exc
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        return transport, protocol


def _is_tls(exc: BaseException) -> bool:
    import ssl

    return isinstance(exc, ssl.SSLError)


class AsyncHttpTransport:
    """The asyncio form of :class:`~hmodel.backend.connection.HttpTransport`.

    Each call is one HTTP/1.1 ``POST`` of the bytes written since the last flush, on a
    kept-alive connection (TLS for HTTPS), with the synchronous transport's headers
    (``Content-Type: application/x-thrift``, ``Accept``, ``User-Agent: hmodel``, the
    endpoint's extra headers and basic credentials); the whole answer is read before the
    protocol decodes it, so the connection can carry the next call. A connection the
    server closed (``Connection: close``, an idle timeout) is opened again by the next
    call; a call is never sent twice by the transport itself. An answer other than
    ``200`` with Thrift (or nothing) in it is refused as the synchronous transport
    refuses it.

    The same interface as the socket under thriftpy2's asyncio transports: async
    ``read``/``flush``, ``write``, ``close`` and ``is_open``.

    Args:
        endpoint: An endpoint with HTTP settings.
        opener: Opens a connected stream pair (TLS included) to the endpoint.
    """

    def __init__(self, endpoint: Endpoint, opener: Callable[[], Awaitable[Streams]]) -> None:
        assert endpoint.http is not None
        self._url = endpoint.url
        self._path = endpoint.http.path
        self._opener = opener
        self._timeout = endpoint.timeout_ms / 1000 if endpoint.timeout_ms is not None else None
        host = f"[{endpoint.host}]" if ":" in endpoint.host else endpoint.host
        # As http.client writes it: the port only when it is not HTTP's default.
        self._host = host if endpoint.port == 80 else f"{host}:{endpoint.port}"
        self._headers = http_headers(endpoint)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._written: list[bytes] = []
        self._answer = io.BytesIO()

    def is_open(self) -> bool:
        """Whether a TCP connection is open now."""
        return self._writer is not None and not self._writer.is_closing()

    async def open(self) -> None:
        """Connect now (a later call reconnects by itself if the server closed it)."""
        if not self.is_open():
            self._reader, self._writer = await self._opener()

    def close(self) -> None:
        """Close the TCP connection (a later call opens a new one)."""
        writer, self._writer, self._reader = self._writer, None, None
        if writer is not None:
            writer.close()

    def stale(self) -> bool:
        """Whether the server closed this idle connection (end of stream, or bytes unasked).

        ``False`` between connections: the next call opens one.
        """
        if self._writer is None or self._reader is None:
            return False
        return streams_stale(self._reader, self._writer)

    def write(self, data: bytes) -> None:
        """Add bytes to the call being written (sent by :meth:`flush`)."""
        self._written.append(bytes(data))

    async def read(self, size: int) -> bytes:
        """At most ``size`` bytes of the last answer.

        Raises:
            TTransportException: The answer is all read (``END_OF_FILE``).
        """
        data = self._answer.read(size)
        if not data:
            raise TTransportException(
                type=TTransportException.END_OF_FILE,
                message=f"the HTTP answer from {self._url} ended",
            )
        return data

    async def flush(self) -> None:
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
        if not body:
            return
        if self.stale():
            self.close()
        await self.open()
        reader, writer = self._reader, self._writer
        assert reader is not None and writer is not None
        head = [f"POST {self._path} HTTP/1.1", f"Host: {self._host}"]
        head += [f"{name}: {value}" for name, value in self._headers]
        head.append(f"Content-Length: {len(body)}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        try:
            await within(writer.drain(), self._timeout)
            status, reason, headers, payload = await within(_answer(reader), self._timeout)
        except _HttpError as exc:
            self.close()
            raise TTransportException(
                type=TTransportException.UNKNOWN,
                message=f"HTTP exchange with {self._url} failed: {exc}",
            ) from exc
        except BaseException:
            self.close()  # half an answer, or none: the connection cannot carry another
            raise
        if headers.get("connection", "").lower() == "close":
            self.close()
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if status == 200 and kind in ("", "application/x-thrift"):
            self._answer = io.BytesIO(payload)
            return
        self.close()  # the answer says nothing a next call could use
        raise http_refusal(self._url, status, reason, kind, payload)


class _HttpError(Exception):
    """An HTTP answer that cannot be read (what ``http.client.HTTPException`` says)."""


async def _line(reader: asyncio.StreamReader) -> bytes:
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            raise _HttpError("RemoteDisconnected (the server closed the connection)") from None
        raise _HttpError("IncompleteRead") from None
    except asyncio.LimitOverrunError:
        raise _HttpError("LineTooLong") from None
    if len(line) > _LINE_LIMIT:
        raise _HttpError("LineTooLong")
    return line


async def _exactly(reader: asyncio.StreamReader, size: int) -> bytes:
    try:
        return await reader.readexactly(size)
    except asyncio.IncompleteReadError:
        raise _HttpError("IncompleteRead") from None


def _chunk_size(line: bytes) -> int:
    try:
        return int(line.split(b";")[0].strip(), 16)
    except ValueError:
        raise _HttpError(f"a bad chunk size {line[:20]!r}") from None


async def _answer(reader: asyncio.StreamReader) -> tuple[int, str, dict[str, str], bytes]:
    """One HTTP/1.1 answer: status, reason, headers (names in lower case), whole body.

    Interim ``1xx`` answers are skipped; the body is read by its ``Content-Length``, its
    chunks, or to the end of the stream.
    """
    while True:
        line = await _line(reader)
        parts = line.decode("latin-1").rstrip("\r\n").split(" ", 2)
        if not parts[0].startswith("HTTP/") or len(parts) < 2 or not parts[1].isdigit():
            tls_alert = line[:2] == b"\x15\x03"
            hint = " (a TLS alert: the server speaks HTTPS there)" if tls_alert else ""
            raise _HttpError(f"BadStatusLine{hint}")
        status = int(parts[1])
        reason = parts[2] if len(parts) > 2 else ""
        headers: dict[str, str] = {}
        while (header := await _line(reader)) not in (b"\r\n", b"\n"):
            name, colon, value = header.decode("latin-1").partition(":")
            if not colon:
                raise _HttpError("a header line without ':'")
            headers[name.strip().lower()] = value.strip()
        if not 100 <= status < 200:
            break
    if parts[0] == "HTTP/1.0" and headers.get("connection", "").lower() != "keep-alive":
        headers["connection"] = "close"  # HTTP/1.0 closes after the answer unless told
    if headers.get("transfer-encoding", "").lower() == "chunked":
        chunks = []
        while size := _chunk_size(await _line(reader)):
            chunks.append(await _exactly(reader, size))
            await _line(reader)
        while (await _line(reader)) not in (b"\r\n", b"\n"):
            pass  # trailers
        return status, reason, headers, b"".join(chunks)
    length = headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise _HttpError(f"a bad Content-Length {length!r}")
        return status, reason, headers, await _exactly(reader, int(length))
    if status in (204, 304):
        return status, reason, headers, b""
    headers["connection"] = "close"  # the body runs to the end of the stream
    return status, reason, headers, await reader.read()
