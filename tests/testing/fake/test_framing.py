"""RequestReader: whole requests off a stream, every declared size checked before its bytes."""

from __future__ import annotations

import doctest
import importlib
import io
import struct
from collections.abc import Callable
from typing import Any

import pytest
from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
from thriftpy2.thrift import TMessageType
from thriftpy2.transport import TMemoryBuffer, TTransportException

from hmodel.backend.thrift2.idl import HBASE2
from hmodel.testing.fake.framing import MAX_DEPTH, RefusedRequestError, RequestReader
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT

_PROTOCOLS = {"binary": TBinaryProtocolFactory, "compact": TCompactProtocolFactory}
_T1 = HBASE_THRIFT.Hbase
_T2 = HBASE2.THBaseService


def _encode(protocol: str, service: Any, call: str, *args: Any) -> bytes:
    """A request as a client sends it (without a frame)."""
    buffer = TMemoryBuffer()  # type: ignore[no-untyped-call]
    encoder = _PROTOCOLS[protocol]().get_protocol(buffer)
    encoder.write_message_begin(call, TMessageType.CALL, 300)
    getattr(service, f"{call}_args")(*args).write(encoder)
    encoder.write_message_end()
    data: bytes = buffer.getvalue()
    return data


def _stream(data: bytes, piece: int) -> Callable[[int], bytes]:
    """``recv`` over ``data``, giving at most ``piece`` bytes at a time."""
    source = io.BytesIO(data)
    return lambda n: source.read(min(n, piece))


_ROWS = [
    HBASE_THRIFT.BatchMutation(
        row=b"r%d" % i,
        mutations=[HBASE_THRIFT.Mutation(column=b"f:q%d" % j, value=b"v" * j) for j in range(4)],
    )
    for i in range(20)
]
_PUT = HBASE2.TPut(
    row=b"r",
    columnValues=[HBASE2.TColumnValue(b"f", b"q", b"v" * 300, timestamp=5)],
    attributes={b"x": b"y"},
    durability=1,
)
_CALLS = [
    (_T1, "getTableNames"),
    (_T1, "mutateRows", b"t", _ROWS, {b"_ttl": b"\x00" * 8}),
    (_T1, "get", b"t", b"r", b"f:q", {}),
    (_T1, "atomicIncrement", b"t", b"r", b"f:q", -(2**40)),
    (
        _T1,
        "scannerOpenWithScan",
        b"t",
        HBASE_THRIFT.TScan(startRow=b"a", columns=[b"f"], caching=10, batchSize=2, reversed=True),
        {},
    ),
    (_T2, "putMultiple", b"t", [_PUT, _PUT]),
    (
        _T2,
        "getMultiple",
        b"t",
        [HBASE2.TGet(row=b"r", timeRange=HBASE2.TTimeRange(1, 2**40), existence_only=True)],
    ),
    (
        _T2,
        "mutateRow",
        b"t",
        HBASE2.TRowMutations(row=b"r", mutations=[HBASE2.TMutation(put=_PUT)]),
    ),
    (_T2, "checkAndPut", b"t", b"r", b"f", b"q", None, _PUT),
]


@pytest.mark.parametrize("protocol", sorted(_PROTOCOLS))
@pytest.mark.parametrize("framed", [False, True], ids=["buffered", "framed"])
@pytest.mark.parametrize("piece", [1, 5, 1 << 20], ids=["byte-by-byte", "5-bytes", "at-once"])
def test_each_request_is_read_whole_and_exactly(protocol: str, framed: bool, piece: int) -> None:
    requests = [_encode(protocol, *call) for call in _CALLS]
    wire = b"".join(struct.pack("!i", len(r)) + r if framed else r for r in requests)
    reader = RequestReader(_stream(wire, piece), protocol=protocol, framed=framed)  # type: ignore[arg-type]
    assert [reader.read() for _ in requests] == requests
    with pytest.raises(TTransportException):
        reader.read()


@pytest.mark.parametrize("protocol", sorted(_PROTOCOLS))
def test_a_string_at_the_limit_is_taken_and_one_byte_more_refused(protocol: str) -> None:
    at_limit = _encode(protocol, _T1, "get", b"t", b"r" * 1000, b"f:q", {})
    reader = RequestReader(
        io.BytesIO(at_limit).read, protocol=protocol, max_message_bytes=1000, framed=False
    )  # type: ignore[arg-type]
    assert reader.read() == at_limit
    over = _encode(protocol, _T1, "get", b"t", b"r" * 1001, b"f:q", {})
    reader = RequestReader(
        io.BytesIO(over).read, protocol=protocol, max_message_bytes=1000, framed=False
    )  # type: ignore[arg-type]
    with pytest.raises(RefusedRequestError, match="MaxMessageSize reached"):
        reader.read()


def _binary_call(arguments: bytes) -> bytes:
    return struct.pack("!ii", -2147418111, 3) + b"get" + struct.pack("!i", 1) + arguments


def _received(data: bytes) -> tuple[Callable[[int], bytes], list[int]]:
    """``recv`` over ``data`` that records how many bytes it handed out."""
    source, given = io.BytesIO(data), [0]

    def recv(n: int) -> bytes:
        chunk = source.read(min(n, 16))
        given[0] += len(chunk)
        return chunk

    return recv, given


@pytest.mark.parametrize(
    ("declaration", "message"),
    [
        (struct.pack("!bhi", 11, 1, 1 << 30), "MaxMessageSize reached"),
        (struct.pack("!bhi", 11, 1, -1), "Negative length: -1"),
        (struct.pack("!bhbi", 15, 1, 10, 1 << 27), "MaxMessageSize reached"),  # 1 GiB of i64
        (struct.pack("!bhbi", 14, 1, 11, -2), "Negative length: -2"),
        (struct.pack("!bhbbi", 13, 1, 11, 8, 1 << 25), "MaxMessageSize reached"),
        (struct.pack("!bh", 17, 1), "unrecognized type code 17"),
        (struct.pack("!bhbi", 15, 1, 42, 3), "unrecognized type code 42"),
    ],
)
def test_a_declaration_over_the_bounds_is_refused_before_its_bytes(
    declaration: bytes, message: str
) -> None:
    request = _binary_call(declaration) + b"x" * 4096
    recv, given = _received(request)
    reader = RequestReader(recv, protocol="binary", framed=False)
    with pytest.raises(RefusedRequestError, match=message):
        reader.read()
    assert given[0] <= len(_binary_call(declaration)) + 16  # nothing it announced


def test_a_list_of_structs_is_bounded_by_the_bytes_that_come_not_its_count() -> None:
    """A struct may take 1 byte (STOP), so libthrift lets any count of them through."""
    declaration = struct.pack("!bhbi", 15, 1, 12, 3) + b"\x00\x00\x00" + b"\x00"
    request = _binary_call(declaration)
    assert RequestReader(io.BytesIO(request).read, protocol="binary", framed=False).read() == (
        request
    )


def test_nesting_deeper_than_the_limit_is_refused() -> None:
    deep = struct.pack("!bh", 12, 1) * (MAX_DEPTH + 1)
    reader = RequestReader(io.BytesIO(_binary_call(deep)).read, protocol="binary", framed=False)
    with pytest.raises(RefusedRequestError, match="nesting"):
        reader.read()


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (struct.pack("!i", 3) + b"get", "Bad version"),  # an old, unversioned call
        (struct.pack("!i", -2147287039), "Bad version"),  # 0x80030001
    ],
)
def test_a_binary_request_without_the_version_header_is_refused(
    header: bytes, message: str
) -> None:
    reader = RequestReader(io.BytesIO(header + bytes(16)).read, protocol="binary", framed=False)
    with pytest.raises(RefusedRequestError, match=message):
        reader.read()


@pytest.mark.parametrize(
    ("request_bytes", "message"),
    [
        (b"\x80\x21\x01", "Expected protocol id 82"),
        (b"\x82\x22\x01", "Expected version 1"),
        (b"\x82\x21\x01\x03get\x18" + b"\xff" * 11, "Variable-length int over 10 bytes"),
        (b"\x82\x21\x01\x03get\x18\x80\x80\x80\x80\x08", "Negative length"),
        (b"\x82\x21\x01\x03get\x19\xf8\x80\x80\x80\x80\x01", "MaxMessageSize reached"),
    ],
)
def test_a_compact_request_over_the_bounds_or_malformed_is_refused(
    request_bytes: bytes, message: str
) -> None:
    reader = RequestReader(io.BytesIO(request_bytes).read, protocol="compact", framed=False)
    with pytest.raises(RefusedRequestError, match=message):
        reader.read()


@pytest.mark.parametrize(
    ("size", "message"),
    [
        (2 * 1024 * 1024 + 1, r"Frame size \(2097153\) larger than max length \(2097152\)!"),
        (-7, r"Read a negative frame size \(-7\)!"),
    ],
)
def test_a_frame_over_the_limit_is_refused_before_its_bytes(size: int, message: str) -> None:
    recv, given = _received(struct.pack("!i", size) + b"x" * 4096)
    reader = RequestReader(recv, protocol="binary", framed=True)
    with pytest.raises(RefusedRequestError, match=message):
        reader.read()
    assert given[0] <= 16


@pytest.mark.parametrize("protocol", sorted(_PROTOCOLS))
def test_a_string_longer_than_its_frame_is_refused(protocol: str) -> None:
    request = _encode(protocol, _T1, "get", b"t", b"r" * 100, b"f:q", {})
    short = request[: len(request) - 60]  # the frame ends inside the row
    reader = RequestReader(
        io.BytesIO(struct.pack("!i", len(short)) + short).read, protocol=protocol, framed=True
    )  # type: ignore[arg-type]
    with pytest.raises(RefusedRequestError, match="MaxMessageSize reached"):
        reader.read()


def test_the_examples_in_the_fake_servers_docstrings_run() -> None:
    for name in ("hmodel.testing.fake.framing", "hmodel.testing.fake.server"):
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, name
        assert result.attempted > 0, name
