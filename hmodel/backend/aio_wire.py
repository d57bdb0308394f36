"""Thrift calls over an asyncio stream: requests encoded whole, replies decoded once whole."""

from __future__ import annotations

from typing import Any, Protocol

from hmodel.backend.wire import (
    CHUNK_BYTES,
    DECODE_ATTEMPTS,
    SKIP_CHECKS,
    IncompleteError,
    Reply,
    WireCodec,
    binary_length,
    compact_length,
    framed,
    settle,
)

__all__ = [
    "CHUNK_BYTES",
    "DECODE_ATTEMPTS",
    "SKIP_CHECKS",
    "IncompleteError",
    "WireClient",
    "WireCodec",
    "binary_length",
    "compact_length",
    "settle",
]


class Stream(Protocol):
    """What a :class:`WireClient` sends through: an asyncio byte stream to the server."""

    async def read(self, size: int) -> bytes:
        """Between 1 and ``size`` bytes (raises at the end of the stream)."""

    def write(self, data: bytes) -> None:
        """Queue ``data`` to be sent."""

    async def flush(self) -> None:
        """Send what was written."""


class WireClient:
    """Sends encoded calls over one stream and reads their replies, one call at a time.

    thriftpy2's own asyncio client (``thriftpy2.contrib.aio``) decodes a reply field by
    field in pure Python, awaiting the transport for every field. Here the request comes
    encoded whole (:meth:`WireCodec.encode`) and is written at once; the reply is read in
    chunks of up to :data:`CHUNK_BYTES` and decoded once whole by
    :class:`~hmodel.backend.wire.Reply` (the synchronous edge's
    :class:`~hmodel.backend.connection.SocketWire` does the same over a socket). What the
    server answers is read as thriftpy2's ``TClient`` reads it (:func:`settle`).

    Args:
        stream: The connection (``read``/``write``/``flush``).
        codec: The service's :class:`WireCodec`.
        framed: Whether messages travel in frames (4-byte big-endian length first).

    Attributes:
        desynchronised: Set when the server sent bytes past a reply: the connection
            must not be used again.
    """

    def __init__(self, stream: Stream, codec: WireCodec, *, framed: bool) -> None:
        self._stream = stream
        self._codec = codec
        self._framed = framed
        self.desynchronised = False

    async def call(self, method: str, request: bytes) -> Any:
        """Send ``request`` (a whole message of ``method``) and return what the reply means.

        Raises:
            TTransportException, OSError, asyncio.TimeoutError: The stream failed (from
                the stream's ``read``/``flush``), or a frame is malformed.
            Exception: The server's answer (see :func:`settle`).
        """
        stream = self._stream
        stream.write(framed(request) if self._framed else request)
        await stream.flush()
        if self._codec.oneway(method):
            return None
        reply = Reply(self._codec, method, framed=self._framed)
        read = stream.read
        while not reply.feed(await read(reply.want)):
            pass
        if reply.desynchronised:
            self.desynchronised = True
        return settle(reply.result)
