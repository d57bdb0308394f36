"""Thrift calls as whole messages, sans I/O: encoded once, replies fed in chunks, decoded once."""

from __future__ import annotations

import struct
from collections.abc import Callable, Generator
from typing import Any

from thriftpy2.protocol import TCompactProtocol, TCyBinaryProtocol
from thriftpy2.protocol.exc import TProtocolException
from thriftpy2.thrift import (
    TApplicationException,
    TMessageType,
    TPayload,
    TType,
    args_to_kwargs,
)
from thriftpy2.transport import TCyBufferedTransport, TCyMemoryBuffer, TTransportException

__all__ = [
    "CHUNK_BYTES",
    "DECODE_ATTEMPTS",
    "SKIP_CHECKS",
    "IncompleteError",
    "Reply",
    "WireCodec",
    "binary_length",
    "compact_length",
    "framed",
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
        #: Per method name: its arguments' struct, its result's struct, whether one-way.
        self._methods: dict[str, tuple[Any, Any, bool]] = {}

    def _method(self, method: str) -> tuple[Any, Any, bool]:
        """``method``'s arguments struct, result struct and one-way flag (looked up once).

        The result struct is the service's own, its rows and cells decoded into the
        slotted look-alikes of :func:`lean_spec`.
        """
        found = self._methods.get(method)
        if found is None:
            result = getattr(self.service, method + "_result")
            spec = {fid: _lean_field(field) for fid, field in result.thrift_spec.items()}
            decoded = result if spec == result.thrift_spec else _subclass(result, spec)
            found = (getattr(self.service, method + "_args"), decoded, bool(result.oneway))
            self._methods[method] = found
        return found

    @property
    def compact(self) -> bool:
        """Whether the codec speaks the compact protocol (else the binary one)."""
        return self._compact

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
        found = self._methods.get(method)
        return (found or self._method(method))[2]

    def encode(self, method: str, args: tuple[Any, ...]) -> bytes:
        """The whole ``method`` call message with the positional ``args`` (sequence id 0).

        Raises:
            TApplicationException: A required argument is missing (as thriftpy2's client).
            TDecodeException, TypeError, ValueError, OverflowError, struct.error: An
                argument cannot be encoded (nothing is sent).
        """
        args_type, _, oneway = self._methods.get(method) or self._method(method)
        try:
            values = args_to_kwargs(args_type.thrift_spec, *args)
        except ValueError as exc:
            raise TApplicationException(
                TApplicationException.UNKNOWN_METHOD,
                f"missing required argument {exc.args[0]} for {self.service.__name__}.{method}",
            ) from None
        message_type = TMessageType.ONEWAY if oneway else TMessageType.CALL
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
        try:
            result = self._read(method, transport)
        except TTransportException as exc:
            if exc.type == TTransportException.END_OF_FILE:
                raise IncompleteError(f"{len(data)} byte(s) of a {method} reply so far") from None
            raise
        return result, _more(transport)

    def decode_stream(
        self, method: str, data: bytes, receive: Callable[[], bytes]
    ) -> tuple[Any, bool]:
        """The reply to ``method`` that starts with ``data``, the rest read as it is needed.

        For a blocking connection: one decoding pass over the reply, calling ``receive``
        (which waits for the next bytes) only when the bytes so far end inside the
        message; no decode is tried twice and nothing is measured.

        Returns:
            The result struct (or the server's ``TApplicationException``), and ``True``
            if bytes past the message were received and not read ahead by the decoding
            transport (those it read ahead are dropped with it; on a socket, bytes that
            come later make the idle connection stale).

        Raises:
            TTransportException: The connection ended inside the reply (``END_OF_FILE``),
                or ``receive`` failed.
            OSError: ``receive`` failed (a timeout, a reset).
            TProtocolException, ProtocolError, ...: The bytes are not a Thrift message.
        """
        source = _Following(data, receive)
        transport = TCyBufferedTransport(source, max(len(data), _STREAM_BUFFER))
        try:
            result = self._read(method, transport)
        except TTransportException as exc:
            if exc.type == TTransportException.END_OF_FILE:
                raise TTransportException(
                    type=TTransportException.END_OF_FILE,
                    message=f"the connection ended inside a {method} reply",
                ) from None
            raise
        # Bytes past the message the transport read ahead go with it; any still in the
        # source make the connection desynchronised, and any still on the socket make
        # it stale when idle. No read past the message is tried (its exception costs).
        return result, source.holds()

    def _read(self, method: str, transport: Any) -> Any:
        """The reply to ``method`` read from ``transport`` (raises at its end)."""
        protocol = self._protocol(transport)
        _, message_type, _ = protocol.read_message_begin()
        result = (
            TApplicationException()
            if message_type == TMessageType.EXCEPTION
            else (self._methods.get(method) or self._method(method))[1]()
        )
        protocol.read_struct(result)
        protocol.read_message_end()
        return result


#: The reply structs a read returns one of per row and per cell (Thrift1 ``TRowResult`` and
#: ``TCell``, Thrift2 ``TResult`` and ``TColumnValue``): decoded into slotted look-alikes.
LEAN_STRUCTS = frozenset({"TRowResult", "TCell", "TResult", "TColumnValue"})

_LEAN: dict[type, type] = {}
_ORIGINAL: dict[type, type] = {}


class _LeanStruct:
    """The base of a decoded row or cell struct: slots, no ``__init__`` of its own.

    thriftpy2's decoders make a nested struct by calling its class and set each field
    the message holds; thriftpy2's own structs run a generated ``__init__`` that sets
    every field to its default first. A look-alike is made in C and has only the fields
    set that were sent; reading one that was not gives its default (``None`` for most),
    as on the original.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        defaults: dict[str, Any] = type(self)._defaults  # type: ignore[attr-defined]
        if name in defaults:
            return defaults[name]  # a field the message did not hold: its default
        raise AttributeError(name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _LeanStruct | TPayload):
            return NotImplemented
        names = [name for name, _ in self.default_spec]
        return [getattr(self, n) for n in names] == [getattr(other, n, None) for n in names]

    __hash__ = None  # type: ignore[assignment]  # mutable, as thriftpy2's structs

    def __repr__(self) -> str:
        names = [name for name, _ in self.default_spec]
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the struct it stands for and its fields (the class is made at run time)."""
        names = [name for name, _ in self.default_spec]
        return (_revive, (_ORIGINAL[type(self)], tuple(getattr(self, n) for n in names)))


def lean_spec(struct: type) -> type:
    """The slotted look-alike of a row or cell struct (its nested ones lean too), once."""
    found = _LEAN.get(struct)
    if found is not None:
        return found
    names = tuple(name for name, _ in struct.default_spec)  # type: ignore[attr-defined]
    lean = type(
        struct.__name__,
        (_LeanStruct,),
        {
            "__slots__": names,
            "default_spec": struct.default_spec,  # type: ignore[attr-defined]
            "_defaults": dict(struct.default_spec),  # type: ignore[attr-defined]
            "__module__": __name__,
        },
    )
    _LEAN[struct] = lean
    _ORIGINAL[lean] = struct
    lean.thrift_spec = {  # type: ignore[attr-defined]
        fid: _lean_field(field)
        for fid, field in struct.thrift_spec.items()  # type: ignore[attr-defined]
    }
    return lean


def _revive(struct: type, values: tuple[Any, ...]) -> Any:
    """A lean struct of ``struct`` with these field values (in ``default_spec`` order)."""
    lean = lean_spec(struct)()
    for (name, _), value in zip(struct.default_spec, values, strict=True):  # type: ignore[attr-defined]
        if value is not None:
            setattr(lean, name, value)
    return lean


def _lean_type(ttype: int, spec: Any) -> Any:
    """A field's (or an element's) type spec with row and cell structs made lean."""
    if ttype == TType.STRUCT and isinstance(spec, type) and spec.__name__ in LEAN_STRUCTS:
        return lean_spec(spec)
    if ttype in (TType.LIST, TType.SET) and isinstance(spec, tuple):
        return (spec[0], _lean_type(spec[0], spec[1]))
    if ttype == TType.MAP and isinstance(spec, tuple):
        key, value = spec
        return (
            key if not isinstance(key, tuple) else (key[0], _lean_type(key[0], key[1])),
            value if not isinstance(value, tuple) else (value[0], _lean_type(value[0], value[1])),
        )
    return spec


def _lean_field(field: tuple[Any, ...]) -> tuple[Any, ...]:
    """A ``thrift_spec`` entry ``(type, name[, spec], required)`` with its structs lean."""
    if len(field) <= 3:
        return field
    ttype, name, spec, required = field
    return (ttype, name, _lean_type(ttype, spec), required)


def _subclass(result: type, spec: dict[int, Any]) -> type:
    """A subclass of a result struct decoding with ``spec`` (its rows and cells lean)."""
    return type(result.__name__, (result,), {"thrift_spec": spec, "__module__": result.__module__})


#: The read buffer of :meth:`WireCodec.decode_stream` past its first bytes.
_STREAM_BUFFER = 1 << 16


def _more(transport: Any) -> bool:
    """Whether ``transport`` (its source at its end) holds bytes past the message read."""
    try:
        transport.read(1)
    except TTransportException:
        return False
    return True


class _Following:
    """A decoding transport's source: the given bytes, then each ``receive()``."""

    __slots__ = ("_data", "_receive")

    def __init__(self, data: bytes, receive: Callable[[], bytes]) -> None:
        self._data = data
        self._receive = receive

    def holds(self) -> bool:
        """Whether bytes received are left that the transport has not taken."""
        return bool(self._data)

    def read(self, size: int) -> bytes:
        data = self._data or self._receive()
        if len(data) <= size:
            self._data = b""
            return data
        self._data = data[size:]
        return data[:size]


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


def framed(request: bytes) -> bytes:
    """``request`` in a frame: its length (4 bytes, big-endian, signed), then the bytes."""
    return _FRAME.pack(len(request)) + request


class Reply:
    """One reply to ``method``, fed the bytes of a connection as they arrive; no I/O.

    A client sends a whole request (:meth:`WireCodec.encode`, :func:`framed` when the
    transport frames messages), then reads chunks of at most :attr:`want` bytes and gives
    each to :meth:`feed` until it returns ``True``; :attr:`result` then holds the decoded
    result struct (or the server's ``TApplicationException``), for :func:`settle`. Each
    reply is decoded once whole by thriftpy2's protocol:

    * framed transport: the frame's 4-byte big-endian length says when the bytes are all
      there (the pieces joined once);
    * buffered transport (HBase's default): nothing says when. The bytes so far are
      decoded by a transport that raises at their end (:class:`IncompleteError`), up to
      :data:`DECODE_ATTEMPTS` times; then (binary protocol) checked whole by thriftpy2's
      Cython skip, up to :data:`SKIP_CHECKS` times; then measured as they arrive
      (:func:`binary_length`, :func:`compact_length`, each byte looked at once) and
      decoded once. A strict prefix of a reply never decodes: every Thrift struct ends
      with its stop byte, the last byte of the message. (thriftpy2's Cython memory
      buffer is never read from: it serves zeros past its end, without an error.)

    Args:
        codec: The service's :class:`WireCodec`.
        method: The method called (its ``<method>_result`` is decoded).
        framed: Whether the reply comes in a frame.

    Attributes:
        result: The decoded reply, once :meth:`feed` returned ``True``.
        desynchronised: The connection sent bytes past the reply: it must not be used
            again.
        want: How many bytes the next read should ask for.
    """

    __slots__ = ("_attempts", "_buffer", "_codec", "_data", "_end", "_framed", "_have",
                 "_measure", "_method", "_pieces", "desynchronised", "result", "want")  # fmt: skip

    def __init__(self, codec: WireCodec, method: str, *, framed: bool) -> None:
        self._codec = codec
        self._method = method
        self._framed = framed
        self._data = b""
        self._attempts = 0
        self._measure: Generator[None, None, int] | None = None
        self._buffer = bytearray()
        self._pieces: list[bytes] = []
        self._have = 0
        self._end = -1
        self.result: Any = None
        self.desynchronised = False
        self.want = CHUNK_BYTES

    def feed(self, chunk: bytes) -> bool:
        """Add the next bytes of the connection; whether the reply is now decoded.

        Raises:
            TTransportException: A frame of a negative length, or one that ends inside
                its reply.
            TProtocolException, ...: The bytes are not a Thrift message.
        """
        if self._framed:
            return self._framed_feed(chunk)
        if self._measure is not None:
            self._buffer += chunk
            return self._measured()
        data = self._data = self._data + chunk if self._data else chunk
        codec = self._codec
        attempt = self._attempts
        if attempt < DECODE_ATTEMPTS + codec.skip_checks:
            self._attempts = attempt + 1
            if attempt < DECODE_ATTEMPTS or codec.whole(data):
                try:
                    self.result, self.desynchronised = codec.decode(self._method, data)
                except IncompleteError:
                    return False
                return True
            return False
        # A reply in many pieces: measured as they come (each byte once), decoded once.
        self._buffer = bytearray(data)
        self._data = b""
        self._measure = codec.measure(self._buffer)
        return self._measured()

    def _measured(self) -> bool:
        assert self._measure is not None
        try:
            next(self._measure)
        except StopIteration as done:
            length = int(done.value)
        else:
            return False
        buffer = self._buffer
        self.desynchronised = len(buffer) > length
        try:
            self.result, _ = self._codec.decode(self._method, bytes(buffer[:length]))
        except IncompleteError:
            raise _malformed(f"a {self._method} reply longer than its {length} byte(s)") from None
        return True

    def _framed_feed(self, chunk: bytes) -> bool:
        if self._end < 0:
            data = self._data = self._data + chunk if self._data else chunk
            if len(data) < 4:
                return False
            (size,) = _FRAME.unpack_from(data)
            if size < 0:
                raise TTransportException(
                    type=TTransportException.UNKNOWN, message=f"a frame of {size} byte(s)"
                )
            self._end = 4 + size
            self._pieces = [data]
            self._have = len(data)
            self._data = b""
        else:
            self._pieces.append(chunk)
            self._have += len(chunk)
        end = self._end
        if self._have < end:
            self.want = max(CHUNK_BYTES, end - self._have)
            return False
        pieces = self._pieces
        data = pieces[0] if len(pieces) == 1 else b"".join(pieces)  # the frame, joined once
        self.desynchronised = len(data) > end
        try:
            self.result, _ = self._codec.decode(self._method, data[4:end])
        except IncompleteError:
            raise TTransportException(
                type=TTransportException.UNKNOWN,
                message=f"a {end - 4}-byte frame ends inside its {self._method} reply",
            ) from None
        return True
