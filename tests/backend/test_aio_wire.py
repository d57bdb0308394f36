"""The asyncio wire decodes every reply as thriftpy2 does, however its bytes are split, never early.

Replies are generated from the services' own Thrift specs (every result of Thrift1's
``Hbase`` and Thrift2's ``THBaseService``: values, lists, maps, the server's exceptions),
encoded by thriftpy2, and read back by :class:`WireClient` from a stream that hands them
over in arbitrary pieces: the outcome is the one thriftpy2's synchronous client gets from
the whole reply. A reply cut short is never decoded: the client waits for more bytes (and
fails with the stream when it ends).
"""

from __future__ import annotations

import itertools
from collections.abc import Coroutine
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from thriftpy2.protocol import TCompactProtocol
from thriftpy2.protocol.cybin import TCyBinaryProtocol
from thriftpy2.thrift import TApplicationException, TMessageType, TType
from thriftpy2.transport import TTransportException
from thriftpy2.transport.memory import TCyMemoryBuffer

from hmodel.backend.aio_wire import (
    DECODE_ATTEMPTS,
    SKIP_CHECKS,
    IncompleteError,
    WireClient,
    WireCodec,
    binary_length,
    compact_length,
)
from hmodel.backend.thrift.idl import Hbase
from hmodel.backend.thrift2.idl import HBASE2

#: (service, decode_response) as the async backends use them.
SERVICES = {"thrift": (Hbase, False), "thrift2": (HBASE2.THBaseService, True)}
PROTOCOLS = {"binary": TCyBinaryProtocol, "compact": TCompactProtocol}


def _value(ttype: int, spec: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Any value of a Thrift type, as thriftpy2 specs describe it."""
    if ttype == TType.BOOL:
        return st.booleans()
    if ttype == TType.BYTE:
        return st.integers(-(2**7), 2**7 - 1)
    if ttype == TType.I16:
        return st.integers(-(2**15), 2**15 - 1)
    if ttype == TType.I32:
        return st.integers(-(2**31), 2**31 - 1)
    if ttype == TType.I64:
        return st.integers(-(2**63), 2**63 - 1)
    if ttype == TType.DOUBLE:
        return st.floats(allow_nan=False)
    if ttype == TType.STRING:
        return st.text(max_size=12)
    if ttype == TType.BINARY:
        return st.binary(max_size=40)
    if ttype == TType.STRUCT:
        return _struct(spec, depth + 1)
    if ttype in (TType.LIST, TType.SET):
        element = (spec, None) if isinstance(spec, int) else spec
        return st.lists(_value(*element, depth=depth + 1), max_size=4 if depth < 3 else 1)
    if ttype == TType.MAP:
        key, value = ((s, None) if isinstance(s, int) else s for s in spec)
        return st.dictionaries(
            _value(*key, depth=depth + 1), _value(*value, depth=depth + 1), max_size=3
        )
    raise AssertionError(f"type {ttype}")


def _struct(cls: Any, depth: int) -> st.SearchStrategy[Any]:
    fields = {
        field[1]: st.none() | _value(field[0], field[2] if len(field) > 3 else None, depth)
        for field in cls.thrift_spec.values()
    }
    return st.builds(cls, **fields)


@st.composite
def replies(draw: st.DrawFn, service: Any) -> tuple[str, Any]:
    """A method of ``service`` and a reply to it: its result (one field set, or none), or a
    ``TApplicationException``."""
    method = draw(st.sampled_from(sorted(service.thrift_services)))
    result_type = getattr(service, method + "_result")
    if draw(st.integers(0, 9)) == 0:
        return method, TApplicationException(draw(st.integers(0, 10)), draw(st.text(max_size=20)))
    result = result_type()
    fields = list(result_type.thrift_spec.values())
    if fields and draw(st.integers(0, 5)):
        field = draw(st.sampled_from(fields))
        value = draw(_value(field[0], field[2] if len(field) > 3 else None))
        setattr(result, field[1], value)
    return method, result


def encode(protocol: str, method: str, reply: Any) -> bytes:
    buffer = TCyMemoryBuffer()
    writer = PROTOCOLS[protocol](buffer)
    kind = (
        TMessageType.EXCEPTION if isinstance(reply, TApplicationException) else TMessageType.REPLY
    )
    writer.write_message_begin(method, kind, 0)
    writer.write_struct(reply)
    writer.write_message_end()
    data: bytes = buffer.getvalue()
    return data


def thriftpy2_outcome(service: Any, protocol: str, decode: bool, method: str, data: bytes) -> Any:
    """What thriftpy2's own (synchronous) client makes of the whole reply."""
    reader = PROTOCOLS[protocol](TCyMemoryBuffer(data), decode_response=decode)
    _, kind, _ = reader.read_message_begin()
    result = (
        TApplicationException()
        if kind == TMessageType.EXCEPTION
        else getattr(service, method + "_result")()
    )
    reader.read_struct(result)
    return outcome(lambda: _settled(result))


def _settled(result: Any) -> Any:
    from hmodel.backend.aio_wire import settle

    return settle(result)


def outcome(call: Any) -> tuple[str, Any]:
    """``("value", v)`` or ``("raised", (type, fields))``, comparable."""
    try:
        return "value", call()
    except Exception as exc:  # the server's answer, whatever its type
        return "raised", (type(exc), dict(exc.__dict__))


class Pieces:
    """A stream serving given byte pieces (no more than asked per read), then its end."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = list(pieces)
        self.written: list[bytes] = []
        self.reads = 0

    def write(self, data: bytes) -> None:
        self.written.append(data)

    async def flush(self) -> None:
        return None

    async def read(self, size: int) -> bytes:
        self.reads += 1
        if not self.pieces:
            raise TTransportException(TTransportException.END_OF_FILE, "the stream ended")
        piece = self.pieces.pop(0)
        if len(piece) > size:
            self.pieces.insert(0, piece[size:])
            piece = piece[:size]
        return piece


def now(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never waits (its stream has every byte ready) to its end."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise AssertionError("the call waited")


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted({c % len(data) for c in cuts if c % len(data)}), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def frame(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


WIRES = [
    (service, protocol, framed)
    for service in SERVICES
    for protocol in PROTOCOLS
    for framed in (False, True)
]
HYPOTHESIS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize(("name", "protocol", "framed"), WIRES)
@HYPOTHESIS
@given(data=st.data(), cuts=st.lists(st.integers(0, 10**6), max_size=12))
def test_a_reply_in_any_pieces_means_what_it_means_to_thriftpy2(
    name: str, protocol: str, framed: bool, data: st.DataObject, cuts: list[int]
) -> None:
    service, decode = SERVICES[name]
    method, reply = data.draw(replies(service))
    encoded = encode(protocol, method, reply)
    expected = thriftpy2_outcome(service, protocol, decode, method, encoded)
    stream = Pieces(split(frame(encoded) if framed else encoded, cuts))
    client = WireClient(
        stream, WireCodec(service, protocol=protocol, decode_response=decode), framed=framed
    )

    assert outcome(lambda: now(client.call(method, b"request"))) == expected
    assert stream.pieces == [] and not client.desynchronised
    assert stream.written == [frame(b"request") if framed else b"request"]


@pytest.mark.parametrize(("name", "protocol"), [(s, p) for s in SERVICES for p in PROTOCOLS])
@HYPOTHESIS
@given(data=st.data(), cut=st.integers(0, 10**6), extra=st.binary(max_size=8))
def test_a_reply_cut_short_is_never_decoded_and_its_length_is_measured_exactly(
    name: str, protocol: str, data: st.DataObject, cut: int, extra: bytes
) -> None:
    service, decode = SERVICES[name]
    method, reply = data.draw(replies(service))
    encoded = encode(protocol, method, reply)
    short = encoded[: cut % len(encoded)]
    codec = WireCodec(service, protocol=protocol, decode_response=decode)
    measure = binary_length if protocol == "binary" else compact_length

    with pytest.raises(IncompleteError):
        codec.decode(method, short)
    growing = bytearray(short)
    measuring = measure(growing)
    next(measuring)  # it needs more bytes: it yields instead of returning a length
    growing += encoded[len(short) :] + extra
    with pytest.raises(StopIteration) as done:
        while True:
            next(measuring)
    assert done.value.value == len(encoded)
    # Over a stream, a reply cut short waits for the rest and fails with the stream.
    client = WireClient(Pieces(split(short, [cut // 3]) if short else []), codec, framed=False)
    with pytest.raises(TTransportException):
        now(client.call(method, b"request"))


def test_a_reply_in_many_pieces_is_checked_then_measured_then_decoded_once() -> None:
    service = HBASE2.THBaseService
    rows = [
        HBASE2.TResult(
            row=b"r%04d" % i,
            columnValues=[HBASE2.TColumnValue(family=b"f", qualifier=b"q", value=b"v" * 50)],
        )
        for i in range(300)
    ]
    reply = service.getScannerRows_result(success=rows)
    encoded = encode("binary", "getScannerRows", reply)
    pieces = [encoded[i : i + 1000] for i in range(0, len(encoded), 1000)]
    assert len(pieces) > DECODE_ATTEMPTS + SKIP_CHECKS + 1
    decodes: list[int] = []
    checks: list[int] = []

    class Counting(WireCodec):
        def decode(self, method: str, data: bytes) -> tuple[Any, bool]:
            decodes.append(len(data))
            return super().decode(method, data)

        def whole(self, data: bytes) -> bool:
            checks.append(len(data))
            return super().whole(data)

    stream = Pieces(pieces)
    client = WireClient(
        stream, Counting(service, protocol="binary", decode_response=True), framed=False
    )
    assert now(client.call("getScannerRows", b"request")) == rows
    # Two decodes tried, Cython skip checks, then it is measured and decoded once.
    assert decodes == [1000, 2000, len(encoded)]
    assert checks == [1000 * n for n in range(3, 3 + SKIP_CHECKS)]


@pytest.mark.parametrize("framed", [False, True])
def test_bytes_past_a_reply_mark_the_connection_unusable(framed: bool) -> None:
    service = HBASE2.THBaseService
    encoded = encode("binary", "tableExists", service.tableExists_result(success=True))
    stream = Pieces([(frame(encoded) if framed else encoded) + b"\x00\x00"])
    client = WireClient(
        stream, WireCodec(service, protocol="binary", decode_response=True), framed=framed
    )
    assert now(client.call("tableExists", b"request")) is True
    assert client.desynchronised


def test_a_negative_frame_length_fails_the_call() -> None:
    stream = Pieces([b"\xff\xff\xff\xfe"])
    codec = WireCodec(HBASE2.THBaseService, protocol="binary", decode_response=True)
    with pytest.raises(TTransportException, match="frame of -2"):
        now(WireClient(stream, codec, framed=True).call("tableExists", b"request"))


def test_a_request_is_the_message_thriftpy2_encodes() -> None:
    service = HBASE2.THBaseService
    get = HBASE2.TGet(row=b"r", columns=[HBASE2.TColumn(family=b"f")])
    for protocol in PROTOCOLS:
        codec = WireCodec(service, protocol=protocol, decode_response=True)
        args = service.get_args(table=b"t", tget=get)
        assert codec.encode("get", (b"t", get)) == encode_call(protocol, "get", args)


def encode_call(protocol: str, method: str, args: Any) -> bytes:
    buffer = TCyMemoryBuffer()
    writer = PROTOCOLS[protocol](buffer)
    writer.write_message_begin(method, TMessageType.CALL, 0)
    writer.write_struct(args)
    writer.write_message_end()
    data: bytes = buffer.getvalue()
    return data


def test_a_missing_required_argument_is_refused_before_anything_is_sent() -> None:
    codec = WireCodec(HBASE2.THBaseService, protocol="binary", decode_response=True)
    with pytest.raises(TApplicationException, match="tget"):
        codec.encode("get", (b"t",))


def test_an_argument_that_cannot_be_encoded_is_refused_before_a_connection_is_opened() -> None:
    """Nothing listens on the port: the call fails on its argument, not on connecting."""
    import asyncio

    from hmodel.backend.endpoint import Endpoint
    from hmodel.backend.retry import Retry
    from hmodel.backend.thrift2.aio import AsyncChannel
    from hmodel.errors import IllegalArgumentError

    async def scenario() -> None:
        channel = AsyncChannel(Endpoint("127.0.0.1", 1), pool_size=1, retries=0, retry_backoff_ms=0)
        with pytest.raises(IllegalArgumentError, match="cannot be encoded") as info:
            await channel.call(
                "get", b"t", HBASE2.TGet(row=12), retry=Retry.IDEMPOTENT, table="t", row=b"r"
            )
        assert info.value.table == "t" and info.value.row == b"r"
        assert channel.idle_connections == 0
        await channel.aclose()

    asyncio.run(scenario())
