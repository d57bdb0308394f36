"""Thrift calls over an asyncio stream: requests encoded whole, replies decoded once whole."""

from __future__ import annotations

import struct
from collections.abc import Generator
from typing import Any, Protocol

from thriftpy2.protocol import TCompactProtocol, TCyBinaryProtocol
from thriftpy2.protocol.exc import TProtocolException
from thriftpy2.thrift import TApplicationException, TMessageType, TType, args_to_kwargs
from thriftpy2.transport import TCyBufferedTransport, TCyMemoryBuffer, TTransportException

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

#: How many bytes one read of the stream asks for (it returns what has arrived, up to that).
CHUNK_BYTES = 1 << 18

#: Decodes tried from the start of a reply (as its pieces come) before it is measured.
DECODE_ATTEMPTS = 2
#: Binary protocol: then, checks that the reply is whole by thriftpy2's Cython skip (less
#: than half a decode), from the start, before it is measured in Python.
SKIP_CHECKS = 6

_FRAME = struct.Struct("!i")


class IncompleteError(Exception):
    """The bytes end before the Thrift message does: read more, then decode again."""


class Stream(Protocol):
    """What a :class:`WireClient` sends through: an asyncio byte stream to the server."""

    async def read(self, size: int) -> bytes:
        """Between 1 and ``size`` bytes (raises at the end of the stream)."""

    def write(self, data: bytes) -> None:
        """Queue ``data`` to be sent."""

    async def flush(self) -> None:
        """Send what was written."""


class _Bytes:
    """The source a decoding transport reads from: the given bytes, then end of input."""

    __slots__ = ("_data",)

    def __init__(self, data: bytes) -> None:
        self._data = data

    def read(self, size: int) -> bytes:
        data = self._data
        if len(data) <= size:
            self._data = b""
            return data
        self._data = data[size:]
        return data[:size]


class WireCodec:
    """Encodes the calls of one Thrift service and decodes its replies, in memory.

    Args:
        service: The thriftpy2 service (``Hbase``, ``THBaseService``).
        protocol: ``"binary"`` (thriftpy2's Cython binary protocol) or ``"compact"``.
        decode_response: Whether Thrift ``string`` fields decode to ``str`` (``False``:
            they stay ``bytes``).
    """

    def __init__(self, service: Any, *, protocol: str, decode_response: bool) -> None:
        self.service = service
        self._compact = protocol == "compact"
        self._decode_response = decode_response

    def _protocol(self, transport: Any) -> Any:
        if self._compact:
            return TCompactProtocol(transport, decode_response=self._decode_response)  # type: ignore[no-untyped-call]
        return TCyBinaryProtocol(transport, decode_response=self._decode_response)  # type: ignore[no-untyped-call]

    def measure(self, data: bytearray) -> Generator[None, None, int]:
        """The length of the message at the start of ``data``, as it arrives.

        See :func:`binary_length` (the compact protocol: :func:`compact_length`).
        """
        return compact_length(data) if self._compact else binary_length(data)

    def oneway(self, method: str) -> bool:
        """Whether ``method`` is a one-way call (no reply to read)."""
        return bool(getattr(self.service, method + "_result").oneway)

    def encode(self, method: str, args: tuple[Any, ...]) -> bytes:
        """The whole ``method`` call message with the positional ``args`` (sequence id 0).

        Raises:
            TApplicationException: A required argument is missing (as thriftpy2's client).
            TDecodeException, TypeError, ValueError, OverflowError, struct.error: An
                argument cannot be encoded (nothing is sent).
        """
        args_type = getattr(self.service, method + "_args")
        try:
            values = args_to_kwargs(args_type.thrift_spec, *args)
        except ValueError as exc:
            raise TApplicationException(
                TApplicationException.UNKNOWN_METHOD,
                f"missing required argument {exc.args[0]} for {self.service.__name__}.{method}",
            ) from None
        message_type = TMessageType.ONEWAY if self.oneway(method) else TMessageType.CALL
        buffer = TCyMemoryBuffer()
        protocol = self._protocol(buffer)
        protocol.write_message_begin(method, message_type, 0)
        protocol.write_struct(args_type(**values))
        protocol.write_message_end()
        encoded: bytes = buffer.getvalue()
        return encoded

    @property
    def skip_checks(self) -> int:
        """How many :meth:`whole` checks a reply gets before it is measured.

        None in the compact protocol: its skip is pure Python, no cheaper than a measure.
        """
        return 0 if self._compact else SKIP_CHECKS

    def whole(self, data: bytes) -> bool:
        """Whether ``data`` holds a whole binary-protocol message (skipped by Cython).

        Raises:
            TProtocolException, ProtocolError, ...: The bytes are not a Thrift message.
        """
        transport = TCyBufferedTransport(_Bytes(data), max(len(data), 1024))
        protocol: Any = TCyBinaryProtocol(transport)  # type: ignore[no-untyped-call]
        try:
            protocol.read_message_begin()
            protocol.skip(TType.STRUCT)
        except TTransportException as exc:
            if exc.type == TTransportException.END_OF_FILE:
                return False
            raise
        return True

    def decode(self, method: str, data: bytes) -> tuple[Any, bool]:
        """The reply to ``method`` in ``data``, and whether bytes follow it.

        Returns:
            The result struct (``<method>_result``), or the ``TApplicationException``
            the server answered with; and ``True`` if ``data`` holds more than the message.

        Raises:
            IncompleteError: ``data`` ends before the message does (nothing is returned).
            TProtocolException, ProtocolError, ...: The bytes are not a Thrift message.
        """
        transport = TCyBufferedTransport(_Bytes(data), max(len(data), 1024))
        protocol = self._protocol(transport)
        try:
            _, message_type, _ = protocol.read_message_begin()
            result = (
                TApplicationException()
                if message_type == TMessageType.EXCEPTION
                else getattr(self.service, method + "_result")()
            )
            protocol.read_struct(result)
            protocol.read_message_end()
        except TTransportException as exc:
            if exc.type == TTransportException.END_OF_FILE:
                raise IncompleteError(f"{len(data)} byte(s) of a {method} reply so far") from None
            raise
        try:
            transport.read(1)
        except TTransportException:
            return result, False
        return result, True


#: Binary protocol: the types whose values have a fixed size (bool, byte, double, i16, i32, i64).
_BINARY_FIXED = {2: 1, 3: 1, 4: 8, 6: 2, 8: 4, 10: 8}
#: Compact protocol: the types of a fixed size (booleans in containers, byte, double).
_COMPACT_FIXED = {1: 1, 2: 1, 3: 1, 7: 8}
#: Nesting a measure follows before it calls the bytes malformed (thriftpy2's own bound).
_MAX_DEPTH = 64
_I32 = struct.Struct("!i")
#: Kinds of the containers a measure is inside of.
_STRUCT, _LIST, _MAP = 0, 1, 2


def _malformed(what: str) -> TProtocolException:
    return TProtocolException(TProtocolException.INVALID_DATA, f"malformed reply: {what}")  # type: ignore[no-untyped-call]


def _varint(data: bytearray, pos: int) -> tuple[int, int] | None:
    """The unsigned varint at ``pos`` and the position after it; ``None``: it goes on."""
    value = shift = 0
    end = len(data)
    while pos < end:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise _malformed("a varint longer than 10 bytes")
    return None


def binary_length(data: bytearray) -> Generator[None, None, int]:
    """Measure the binary-protocol message at the start of ``data`` without decoding it.

    A generator that yields whenever it needs bytes past the end of ``data`` (the caller
    appends to the same bytearray, then resumes it) and returns the message's length in
    bytes. Only type bytes and lengths are read, values are stepped over, and each byte
    is looked at once however often the generator is resumed.

    Raises:
        TProtocolException: A type or a length no well-formed message has.
    """
    while len(data) < 8:
        yield
    (head,) = _I32.unpack_from(data, 0)
    pos: int
    if head < 0:  # strict: version and type, the name, the sequence id
        (name,) = _I32.unpack_from(data, 4)
        pos = 8 + name + 4
    else:  # old style: the name's length, the name, the type, the sequence id
        name = head
        pos = 4 + name + 1 + 4
    if name < 0:
        raise _malformed(f"a name of {name} byte(s)")
    stack: list[list[int]] = [[_STRUCT]]
    while stack:
        top = stack[-1]
        if top[0] == _STRUCT:  # the next field's type byte and id, or the stop byte
            while len(data) <= pos:
                yield
            ttype = data[pos]
            if ttype == 0:
                pos += 1
                stack.pop()
                continue
            pos += 3
        else:
            left = top[1]
            if left == 0:
                stack.pop()
                continue
            if top[0] == _LIST:
                ttype = top[2]
                fixed = _BINARY_FIXED.get(ttype)
                if fixed is not None:  # the whole rest of the list at once
                    pos += fixed * left
                    stack.pop()
                    continue
            else:  # a map's keys and values alternate, a key first
                ttype = top[2] if left % 2 == 0 else top[3]
            top[1] = left - 1
        fixed = _BINARY_FIXED.get(ttype)
        if fixed is not None:
            pos += fixed
        elif ttype in {11, 18}:  # string, binary: a length, then the bytes
            while len(data) < pos + 4:
                yield
            (size,) = _I32.unpack_from(data, pos)
            if size < 0:
                raise _malformed(f"a string of {size} byte(s)")
            pos += 4 + size
        elif len(stack) >= _MAX_DEPTH:
            raise _malformed(f"nested deeper than {_MAX_DEPTH}")
        elif ttype == 12:
            stack.append([_STRUCT])
        elif ttype in {14, 15}:  # set, list: the element type, the count
            while len(data) < pos + 5:
                yield
            (size,) = _I32.unpack_from(data, pos + 1)
            if size < 0:
                raise _malformed(f"a list of {size} element(s)")
            stack.append([_LIST, size, data[pos]])
            pos += 5
        elif ttype == 13:  # map: the key type, the value type, the count
            while len(data) < pos + 6:
                yield
            (size,) = _I32.unpack_from(data, pos + 2)
            if size < 0:
                raise _malformed(f"a map of {size} entries")
            stack.append([_MAP, 2 * size, data[pos], data[pos + 1]])
            pos += 6
        else:
            raise _malformed(f"type {ttype}")
    while len(data) < pos:
        yield
    return pos


def compact_length(data: bytearray) -> Generator[None, None, int]:
    """Measure the compact-protocol message at the start of ``data`` (as :func:`binary_length`).

    Raises:
        TProtocolException: A type, a length or a protocol id no well-formed message has.
    """
    while len(data) < 2:
        yield
    if data[0] != 0x82:
        raise _malformed(f"protocol id {data[0]:#x}")
    pos = 2
    while (seqid := _varint(data, pos)) is None:
        yield
    while (name := _varint(data, seqid[1])) is None:
        yield
    pos = name[1] + name[0]
    stack: list[list[int]] = [[_STRUCT]]
    while stack:
        top = stack[-1]
        if top[0] == _STRUCT:
            while len(data) <= pos:
                yield
            header = data[pos]
            pos += 1
            if header & 0x0F == 0:
                stack.pop()
                continue
            if header >> 4 == 0:  # no id delta: the field id follows, a zigzag varint
                while (fid := _varint(data, pos)) is None:
                    yield
                pos = fid[1]
            ttype = header & 0x0F
            if ttype in {1, 2}:  # a boolean field's value is its type
                continue
        else:
            left = top[1]
            if left == 0:
                stack.pop()
                continue
            if top[0] == _LIST:
                ttype = top[2]
                fixed = _COMPACT_FIXED.get(ttype)
                if fixed is not None:
                    pos += fixed * left
                    stack.pop()
                    continue
            else:
                ttype = top[2] if left % 2 == 0 else top[3]
            top[1] = left - 1
        fixed = _COMPACT_FIXED.get(ttype)
        if fixed is not None:
            pos += fixed
        elif 4 <= ttype <= 6:  # i16, i32, i64: a zigzag varint
            while (number := _varint(data, pos)) is None:
                yield
            pos = number[1]
        elif ttype == 8:  # binary: a varint length, then the bytes
            while (size := _varint(data, pos)) is None:
                yield
            pos = size[1] + size[0]
        elif len(stack) >= _MAX_DEPTH:
            raise _malformed(f"nested deeper than {_MAX_DEPTH}")
        elif ttype == 12:
            stack.append([_STRUCT])
        elif ttype in {9, 10}:  # list, set: count (4 bits, or 15 and a varint), type
            while len(data) <= pos:
                yield
            header = data[pos]
            pos += 1
            count = header >> 4
            if count == 15:
                while (size := _varint(data, pos)) is None:
                    yield
                count, pos = size
            stack.append([_LIST, count, header & 0x0F])
        elif ttype == 11:  # map: a varint count, then (if any) the key and value types
            while (size := _varint(data, pos)) is None:
                yield
            count, pos = size
            if count:
                while len(data) <= pos:
                    yield
                types = data[pos]
                pos += 1
                stack.append([_MAP, 2 * count, types >> 4, types & 0x0F])
        else:
            raise _malformed(f"type {ttype}")
    while len(data) < pos:
        yield
    return pos


def settle(result: Any) -> Any:
    """What a decoded reply means: its value, or the server's exception raised.

    Raises:
        TApplicationException: The server answered with one, or gave no result.
        Exception: The exception field the server set (``TIOError``, ``IOError``...).
    """
    if isinstance(result, TApplicationException):
        raise result
    success = getattr(result, "success", None)
    if success is not None:
        return success
    if not result.thrift_spec:
        return None
    for name, value in result.__dict__.items():
        if name != "success" and value:
            raise value
    if hasattr(result, "success"):
        raise TApplicationException(TApplicationException.MISSING_RESULT)
    return None


class WireClient:
    """Sends encoded calls over one stream and reads their replies, one call at a time.

    thriftpy2's own asyncio client (``thriftpy2.contrib.aio``) decodes a reply field by
    field in pure Python, awaiting the transport for every field. Here the request comes
    encoded whole (:meth:`WireCodec.encode`) and is written at once; the reply is read in
    chunks of up to :data:`CHUNK_BYTES` and decoded by thriftpy2's synchronous protocol
    once all of it is there:

    * framed transport: the frame's 4-byte big-endian length says when;
    * buffered transport (HBase's default): nothing says when. The bytes so far are
      decoded by a transport that raises at their end (:class:`IncompleteError`), up to
      :data:`DECODE_ATTEMPTS` times; then (binary protocol) checked whole by thriftpy2's
      Cython skip, up to :data:`SKIP_CHECKS` times; then measured as they arrive
      (:func:`binary_length`, :func:`compact_length`, each byte looked at once) and
      decoded once. A strict prefix of a reply never decodes: every Thrift struct ends
      with its stop byte, the last byte of the message. (thriftpy2's Cython memory
      buffer is never read from: it serves zeros past its end, without an error.)

    What the server answers is read as thriftpy2's ``TClient`` reads it (:func:`settle`).

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
        if self._framed:
            stream.write(_FRAME.pack(len(request)) + request)
        else:
            stream.write(request)
        await stream.flush()
        if self._codec.oneway(method):
            return None
        if self._framed:
            result = await self._framed_reply(method)
        else:
            result = await self._buffered_reply(method)
        return settle(result)

    async def _buffered_reply(self, method: str) -> Any:
        read = self._stream.read
        codec = self._codec
        data = await read(CHUNK_BYTES)
        for attempt in range(DECODE_ATTEMPTS + codec.skip_checks):
            if attempt < DECODE_ATTEMPTS or codec.whole(data):
                try:
                    result, more = codec.decode(method, data)
                except IncompleteError:
                    pass
                else:
                    if more:
                        self.desynchronised = True
                    return result
            data += await read(CHUNK_BYTES)
        # A reply in many pieces: measured as they come (each byte once), decoded once.
        buffer = bytearray(data)
        measure = self._codec.measure(buffer)
        while True:
            try:
                next(measure)
            except StopIteration as done:
                length = int(done.value)
                break
            buffer += await read(CHUNK_BYTES)
        if len(buffer) > length:
            self.desynchronised = True
        try:
            result, _ = codec.decode(method, bytes(buffer[:length]))
        except IncompleteError:
            raise _malformed(f"a {method} reply longer than its {length} byte(s)") from None
        return result

    async def _framed_reply(self, method: str) -> Any:
        read = self._stream.read
        data = await read(CHUNK_BYTES)
        while len(data) < 4:
            data += await read(CHUNK_BYTES)
        (size,) = _FRAME.unpack_from(data)
        if size < 0:
            raise TTransportException(
                type=TTransportException.UNKNOWN, message=f"a frame of {size} byte(s)"
            )
        end = 4 + size
        if len(data) < end:  # the rest of the frame, joined once
            pieces, have = [data], len(data)
            while have < end:
                piece = await read(max(CHUNK_BYTES, end - have))
                pieces.append(piece)
                have += len(piece)
            data = b"".join(pieces)
        if len(data) > end:
            self.desynchronised = True
        try:
            result, _ = self._codec.decode(method, data[4:end])
        except IncompleteError:
            raise TTransportException(
                type=TTransportException.UNKNOWN,
                message=f"a {size}-byte frame ends inside its {method} reply",
            ) from None
        return result
