"""RequestReader: one Thrift request at a time off a connection, declared sizes checked first."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Literal

from thriftpy2.transport import TTransportException

from hmodel.errors import IllegalArgumentError

__all__ = [
    "DEFAULT_MAX_FRAME_BYTES",
    "DEFAULT_MAX_MESSAGE_BYTES",
    "MAX_DEPTH",
    "RefusedRequestError",
    "RequestReader",
]

#: The largest frame the framed transport takes: HBase's
#: ``hbase.regionserver.thrift.framed.max_frame_size_in_mb`` (2, in MiB, by default),
#: which its Thrift servers hand to libthrift's ``TFramedTransport.Factory``.
DEFAULT_MAX_FRAME_BYTES = 2 * 1024 * 1024

#: The longest string or binary (and the most a container's elements may need) a request
#: may declare: libthrift's ``TConfiguration.DEFAULT_MAX_MESSAGE_SIZE``, 100 MiB, which
#: HBase 2.6's Thrift servers keep; libthrift 0.14 checks each declared length against
#: it before reading the bytes (``MaxMessageSize reached``).
DEFAULT_MAX_MESSAGE_BYTES = 100 * 1024 * 1024

#: The deepest nesting of structs and containers a request may have (libthrift's
#: ``TConfiguration.DEFAULT_RECURSION_DEPTH``); HBase's IDLs nest a few levels only.
MAX_DEPTH = 64

_I32 = struct.Struct("!i").unpack_from
_BINARY_VERSION_MASK = -65536  # 0xffff0000 as a signed i32
_BINARY_VERSION_1 = -2147418112  # 0x80010000 as a signed i32
_COMPACT_PROTOCOL_ID = 0x82
_COMPACT_VERSION = 1
_MAX_VARINT_BYTES = 10
_CHUNK = 64 * 1024  # bytes asked of the stream at least, when more are needed
_MAX_CHUNK = 1024 * 1024  # ... and at most: a receive never allocates more than this

# Binary protocol: type id -> width of a fixed-size value (BOOL, BYTE, DOUBLE, I16, I32,
# I64), and the fewest bytes any value takes (libthrift's getMinSerializedSize).
_BINARY_FIXED = {2: 1, 3: 1, 4: 8, 6: 2, 8: 4, 10: 8}
_BINARY_LEAST = {**_BINARY_FIXED, 11: 4, 12: 0, 13: 4, 14: 4, 15: 4}
# Compact protocol, as a container's element: type id -> width of a fixed-size element
# (BOOLEAN_TRUE, BOOLEAN_FALSE, BYTE, DOUBLE), and the fewest bytes of any element.
_COMPACT_FIXED = {1: 1, 2: 1, 3: 1, 7: 8}
_COMPACT_LEAST = {**_COMPACT_FIXED, 4: 1, 5: 1, 6: 1, 8: 1, 9: 1, 10: 1, 11: 1, 12: 0}

# A walker's stack entry: [state, elements left, element type, value type]. States: a
# struct's fields, a list's or set's elements, a map's next key, a map's next value.
_STRUCT, _LIST, _KEY, _VALUE = 0, 1, 2, 3

#: Makes the bytes up to an index available; returns how many the buffer then holds.
Fill = Callable[[int], int]


class RefusedRequestError(IllegalArgumentError):
    """A request declares more than the server takes, or cannot be a Thrift request.

    The server closes the connection without a reply, as HBase's does: libthrift raises a
    ``TTransportException`` (``MaxMessageSize reached``, ``Frame size (N) larger than max
    length (M)!``) or a ``TProtocolException`` (``Negative length``), and HBase's
    connection loop closes the transport.
    """


def _too_long(length: int) -> RefusedRequestError:
    if length < 0:
        return RefusedRequestError(f"Negative length: {length}")
    return RefusedRequestError("MaxMessageSize reached", value=length)


def _unknown(kind: int) -> RefusedRequestError:
    return RefusedRequestError(f"unrecognized type code {kind}")


def _least(table: dict[int, int], kind: int) -> int:
    least = table.get(kind)
    if least is None:
        raise _unknown(kind)
    return least


def walk_binary(buffer: bytearray, at: int, end: int, limit: int, fill: Fill) -> int:
    """Walk a binary-protocol struct from ``at``; return the index just past it.

    ``end`` is how many bytes ``buffer`` holds; ``fill(n)`` makes ``n`` available (and
    returns the new count) or raises. A string longer than ``limit``, a container whose
    elements need more than ``limit`` bytes, or a negative length is refused before
    anything it announces is asked of ``fill``. Skipped bytes are only received when a
    later read needs what follows them (the caller fills up to the returned index).

    Raises:
        RefusedRequestError: A declared length over the bound, too deep, an unknown type.
    """
    fixed = _BINARY_FIXED.get
    stack = [[_STRUCT, 0, 0, 0]]
    while stack:
        top = stack[-1]
        state = top[0]
        if state == _STRUCT:
            while True:  # the struct's strings and fixed-size fields, in one go
                if at >= end:
                    end = fill(at + 1)
                kind = buffer[at]
                if kind == 11:
                    if at + 7 > end:
                        end = fill(at + 7)
                    length = _I32(buffer, at + 3)[0]
                    if length < 0 or length > limit:
                        raise _too_long(length)
                    at += 7 + length
                    continue
                width = fixed(kind)
                if width is None:
                    break
                at += 3 + width
            if kind == 0:  # STOP
                at += 1
                stack.pop()
                continue
            at += 3  # the type and the field id of a struct or container field
        elif top[1] == 0:
            stack.pop()
            continue
        elif state == _LIST:
            top[1] -= 1
            kind = top[2]
        elif state == _KEY:
            top[0] = _VALUE
            kind = top[2]
        else:
            top[0] = _KEY
            top[1] -= 1
            kind = top[3]
        width = fixed(kind)
        if width is not None:
            at += width
        elif kind == 11:  # STRING (binary)
            if at + 4 > end:
                end = fill(at + 4)
            length = _I32(buffer, at)[0]
            if length < 0 or length > limit:
                raise _too_long(length)
            at += 4 + length
        elif len(stack) > MAX_DEPTH:
            raise RefusedRequestError(f"nesting deeper than {MAX_DEPTH}")
        elif kind == 12:  # STRUCT
            stack.append([_STRUCT, 0, 0, 0])
        elif kind in (14, 15):  # SET, LIST
            if at + 5 > end:
                end = fill(at + 5)
            element, count = buffer[at], _I32(buffer, at + 1)[0]
            at += 5
            if count < 0 or count * _least(_BINARY_LEAST, element) > limit:
                raise _too_long(count)
            width = fixed(element)
            if width is not None:
                at += count * width
            elif element == 11:  # strings (rows, columns), in one go
                for _ in range(count):
                    if at + 4 > end:
                        end = fill(at + 4)
                    length = _I32(buffer, at)[0]
                    if length < 0 or length > limit:
                        raise _too_long(length)
                    at += 4 + length
            else:
                stack.append([_LIST, count, element, 0])
        elif kind == 13:  # MAP
            if at + 6 > end:
                end = fill(at + 6)
            key, value, count = buffer[at], buffer[at + 1], _I32(buffer, at + 2)[0]
            at += 6
            least = _least(_BINARY_LEAST, key) + _least(_BINARY_LEAST, value)
            if count < 0 or count * least > limit:
                raise _too_long(count)
            stack.append([_KEY, count, key, value])
        else:
            raise _unknown(kind)
    return at


def walk_compact(buffer: bytearray, at: int, end: int, limit: int, fill: Fill) -> int:
    """Walk a compact-protocol struct from ``at``; return the index just past it.

    The same contract as :func:`walk_binary`, for the compact encoding (varints, field id
    deltas, booleans in the field type).

    Raises:
        RefusedRequestError: A declared length over the bound, too deep, an unknown type,
            a varint over 10 bytes.
    """
    fixed = _COMPACT_FIXED.get
    stack = [[_STRUCT, 0, 0, 0]]
    while stack:
        top = stack[-1]
        state = top[0]
        if state == _STRUCT:
            if at >= end:
                end = fill(at + 1)
            header = buffer[at]
            at += 1
            if header == 0:  # STOP
                stack.pop()
                continue
            if not header & 0xF0:  # a field id that is not a small delta: a varint
                at, end, _id = _varint(buffer, at, end, fill)
            kind = header & 0x0F
            if kind in (1, 2):  # a boolean field carries its value in its type
                continue
        elif top[1] == 0:
            stack.pop()
            continue
        elif state == _LIST:
            top[1] -= 1
            kind = top[2]
        elif state == _KEY:
            top[0] = _VALUE
            kind = top[2]
        else:
            top[0] = _KEY
            top[1] -= 1
            kind = top[3]
        width = fixed(kind)
        if width is not None:
            at += width
        elif kind in (4, 5, 6):  # I16, I32, I64: zigzag varints
            at, end, _value = _varint(buffer, at, end, fill)
        elif kind == 8:  # BINARY
            at, end, length = _varint(buffer, at, end, fill)
            length = _signed(length)
            if length < 0 or length > limit:
                raise _too_long(length)
            at += length
        elif len(stack) > MAX_DEPTH:
            raise RefusedRequestError(f"nesting deeper than {MAX_DEPTH}")
        elif kind == 12:  # STRUCT
            stack.append([_STRUCT, 0, 0, 0])
        elif kind in (9, 10):  # LIST, SET
            if at >= end:
                end = fill(at + 1)
            header = buffer[at]
            at += 1
            count, element = header >> 4, header & 0x0F
            if count == 15:
                at, end, count = _varint(buffer, at, end, fill)
                count = _signed(count)
            if count < 0 or count * _least(_COMPACT_LEAST, element) > limit:
                raise _too_long(count)
            width = fixed(element)
            if width is not None:
                at += count * width
            else:
                stack.append([_LIST, count, element, 0])
        elif kind == 11:  # MAP
            at, end, count = _varint(buffer, at, end, fill)
            count = _signed(count)
            if count == 0:
                continue
            if at >= end:
                end = fill(at + 1)
            key, value = buffer[at] >> 4, buffer[at] & 0x0F
            at += 1
            least = _least(_COMPACT_LEAST, key) + _least(_COMPACT_LEAST, value)
            if count < 0 or count * least > limit:
                raise _too_long(count)
            stack.append([_KEY, count, key, value])
        else:
            raise _unknown(kind)
    return at


def _varint(buffer: bytearray, at: int, end: int, fill: Fill) -> tuple[int, int, int]:
    """An unsigned varint at ``at``: ``(index past it, bytes held, value)``."""
    value = shift = 0
    for _ in range(_MAX_VARINT_BYTES):
        if at >= end:
            end = fill(at + 1)
        byte = buffer[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return at, end, value
        shift += 7
    raise RefusedRequestError("Variable-length int over 10 bytes.")


def _signed(value: int) -> int:
    """A varint length as Java reads it, a signed int (2**31 and more are negative)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


class RequestReader:
    """Reads one request (a whole Thrift message) at a time off a byte stream.

    Every length a request declares (a frame, a string or binary, a container's element
    count) is checked **before** the bytes it announces are asked for, so a client that
    declares a 1 GiB string makes the server receive and buffer none of it: the request
    is refused with :class:`RefusedRequestError` at once. The checks are libthrift 0.14's,
    which HBase 2.6's Thrift servers run:

    * framed transport: a frame longer than ``max_frame_bytes``, or negative
      (``Frame size (N) larger than max length (M)!``);
    * a string or binary longer than ``max_message_bytes`` (buffered) or than its frame
      (framed), or negative (``MaxMessageSize reached``, ``Negative length``);
    * a list, set or map whose element count times the fewest bytes an element takes
      exceeds the same bound (a list of structs, whose elements may be 1 byte, is bounded
      by the bytes that actually arrive);
    * nesting deeper than :data:`MAX_DEPTH`, an unknown type id, a bad protocol header.

    Bytes are received in pieces of at most 1 MiB as they are needed: what the server
    holds of a request is never more than what the client has sent.

    Args:
        recv: Receives up to ``n`` bytes (``socket.recv``); ``b""`` at the end of the stream.
        protocol: ``"binary"`` or ``"compact"``, the encoding of the requests.
        framed: Whether each request comes in a frame (a 4-byte big-endian length first).
        max_frame_bytes: The longest frame taken (framed only).
        max_message_bytes: The longest string or binary taken (buffered; in a frame, the
            frame bounds them).

    Example:
        >>> import io
        >>> call = bytes.fromhex("80010001 0000000d") + b"getTableNames" + bytes(5)
        >>> reader = RequestReader(io.BytesIO(call * 2).read, protocol="binary", framed=False)
        >>> reader.read() == call, reader.read() == call
        (True, True)
    """

    def __init__(
        self,
        recv: Callable[[int], bytes],
        *,
        protocol: Literal["binary", "compact"],
        framed: bool,
        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> None:
        self._recv = recv
        self._compact = protocol == "compact"
        self._framed = framed
        self._max_frame = max_frame_bytes
        self._max_message = max_message_bytes
        self._buffer = bytearray()

    def read(self) -> bytes:
        """Receive the next request and return its bytes (a frame's payload when framed).

        Raises:
            RefusedRequestError: The request declares more than the bounds allow, or is not
                a Thrift message; the connection cannot go on.
            TTransportException: The stream ended before a whole request.
            OSError: The stream failed or timed out.
        """
        if not self._framed:
            held = len(self._buffer) or self._fill(1)
            end = self._message(0, held, self._max_message, self._fill)
            if end > len(self._buffer):
                self._fill(end)
            return self._take(0, end)
        self._fill(4)
        size: int = _I32(self._buffer, 0)[0]
        if size < 0:
            raise RefusedRequestError(f"Read a negative frame size ({size})!")
        if size > self._max_frame:
            raise RefusedRequestError(
                f"Frame size ({size}) larger than max length ({self._max_frame})!"
            )
        frame = 4 + size
        self._fill(frame)

        def within(wanted: int) -> int:
            if wanted > frame:
                raise RefusedRequestError("MaxMessageSize reached")
            return frame

        if self._message(4, frame, size, within) > frame:
            raise RefusedRequestError("MaxMessageSize reached")
        return self._take(4, frame)

    def _take(self, start: int, end: int) -> bytes:
        buffer = self._buffer
        if end == len(buffer):
            request = bytes(buffer[start:] if start else buffer)
            buffer.clear()
        else:
            request = bytes(buffer[start:end])
            del buffer[:end]
        return request

    def _fill(self, size: int) -> int:
        """Receive until the buffer holds ``size`` bytes; return how many it holds."""
        buffer = self._buffer
        while len(buffer) < size:
            data = self._recv(min(max(size - len(buffer), _CHUNK), _MAX_CHUNK))
            if not data:
                raise TTransportException(
                    TTransportException.END_OF_FILE, "the client closed the connection"
                )
            buffer += data
        return len(buffer)

    def _message(self, at: int, end: int, limit: int, fill: Fill) -> int:
        """Walk the message at ``at`` (header, then arguments); return the index past it."""
        buffer = self._buffer
        if self._compact:
            if at + 2 > end:
                end = fill(at + 2)
            if buffer[at] != _COMPACT_PROTOCOL_ID:
                raise RefusedRequestError(f"Expected protocol id 82 but got {buffer[at]:x}")
            if buffer[at + 1] & 0x1F != _COMPACT_VERSION:
                raise RefusedRequestError(f"Expected version 1 but got {buffer[at + 1] & 0x1F}")
            at, end, _seqid = _varint(buffer, at + 2, end, fill)
            at, end, length = _varint(buffer, at, end, fill)
            length = _signed(length)
            if length < 0 or length > limit:
                raise _too_long(length)
            return walk_compact(buffer, at + length, end, limit, fill)
        if at + 8 > end:
            end = fill(at + 8)
        version, length = _I32(buffer, at)[0], _I32(buffer, at + 4)[0]
        if version >= 0 or version & _BINARY_VERSION_MASK != _BINARY_VERSION_1:
            raise RefusedRequestError(f"Bad version in readMessageBegin: {version}")
        if length < 0 or length > limit:
            raise _too_long(length)
        return walk_binary(buffer, at + 8 + length + 4, end, limit, fill)  # + the seqid
