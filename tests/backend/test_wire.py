"""The synchronous wire reads replies and writes requests as thriftpy2 does, however chunked.

:class:`~hmodel.backend.connection.WireCaller` (the synchronous Thrift1 and Thrift2
backends' client) reads replies generated from the services' own specs, fed in arbitrary
chunks, on the four transport x protocol pairs (buffered and framed, binary and
compact): the outcome is the one thriftpy2's client gets from the whole reply; a reply
cut short is never decoded; a request's bytes are those thriftpy2's own client writes.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
from thriftpy2.thrift import TClient
from thriftpy2.transport import (
    TBufferedTransportFactory,
    TFramedTransportFactory,
    TTransportException,
)

from hmodel.backend.connection import SocketLink, WireCaller
from hmodel.backend.endpoint import Endpoint
from hmodel.backend.retry import Retry
from hmodel.backend.thrift.channel import Channel
from hmodel.backend.thrift.idl import Hbase
from hmodel.backend.wire import Reply, WireCodec
from hmodel.errors import IllegalArgumentError
from tests.backend.test_aio_wire import (
    HYPOTHESIS,
    PROTOCOLS,
    SERVICES,
    _struct,
    encode,
    frame,
    outcome,
    replies,
    split,
    thriftpy2_outcome,
)

WIRES = [(s, p, f) for s in SERVICES for p in PROTOCOLS for f in (False, True)]


class Chunks:
    """A link serving given chunks of the server's bytes, then the end of the connection."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)
        self.sent: list[bytes] = []

    def send(self, data: bytes) -> None:
        self.sent.append(data)

    def receive(self) -> bytes:
        if not self.chunks:
            raise TTransportException(TTransportException.END_OF_FILE, "the link ended")
        return self.chunks.pop(0)

    def stale(self) -> bool:
        return False

    def close(self) -> None:
        return None


@pytest.mark.parametrize(("name", "protocol", "framed"), WIRES)
@HYPOTHESIS
@given(data=st.data(), cuts=st.lists(st.integers(0, 10**6), max_size=12))
def test_a_reply_in_any_chunks_means_to_the_sync_wire_what_it_means_to_thriftpy2(
    name: str, protocol: str, framed: bool, data: st.DataObject, cuts: list[int]
) -> None:
    service, decode = SERVICES[name]
    method, reply = data.draw(replies(service))
    encoded = encode(protocol, method, reply)
    expected = thriftpy2_outcome(service, protocol, decode, method, encoded)
    link = Chunks(split(frame(encoded) if framed else encoded, cuts))
    codec = WireCodec(service, protocol=protocol, decode_response=decode)
    caller = WireCaller(link, codec, framed=framed)  # type: ignore[arg-type]

    assert outcome(lambda: caller.call(method, b"request")) == expected
    assert link.chunks == [] and not caller.desynchronised
    assert link.sent == [frame(b"request") if framed else b"request"]


@pytest.mark.parametrize(("name", "protocol", "framed"), WIRES)
@HYPOTHESIS
@given(data=st.data(), cuts=st.lists(st.integers(0, 10**6), min_size=1, max_size=7))
def test_a_reply_cut_short_is_never_decoded_by_the_sync_wire(
    name: str, protocol: str, framed: bool, data: st.DataObject, cuts: list[int]
) -> None:
    service, decode = SERVICES[name]
    method, reply = data.draw(replies(service))
    whole = frame(encode(protocol, method, reply)) if framed else encode(protocol, method, reply)
    cut, *cuts = cuts
    short = whole[: cut % len(whole)]
    codec = WireCodec(service, protocol=protocol, decode_response=decode)
    assembling = Reply(codec, method, framed=framed)
    # Fed in any chunks, a strict prefix never makes a reply.
    assert not any(assembling.feed(chunk) for chunk in (split(short, cuts) if short else []))
    caller = WireCaller(Chunks(split(short, cuts) if short else []), codec, framed=framed)  # type: ignore[arg-type]
    with pytest.raises(TTransportException):
        caller.call(method, b"request")


class _SentError(Exception):
    """Raised by the capturing transport once a request is flushed (no reply to read)."""


class _Capture:
    """A thriftpy2 transport's end that records what is written and stops at the flush."""

    def __init__(self) -> None:
        self.written = bytearray()

    def is_open(self) -> bool:
        return True

    def write(self, data: bytes) -> None:
        self.written += data

    def flush(self) -> None:
        raise _SentError

    def read(self, size: int) -> bytes:
        raise _SentError

    def close(self) -> None:
        return None


def _thriftpy2_request(
    service: Any, method: str, args: tuple[Any, ...], *, protocol: str, framed: bool, decode: bool
) -> bytes:
    """The bytes thriftpy2's own client (as the backends built it before) sends for a call."""
    capture = _Capture()
    transport = (
        TFramedTransportFactory() if framed else TBufferedTransportFactory()
    ).get_transport(capture)
    factory = (
        TBinaryProtocolFactory(decode_response=decode)
        if protocol == "binary"
        else TCompactProtocolFactory(decode_response=decode)
    )
    client = TClient(service, factory.get_protocol(transport))
    with pytest.raises(_SentError):
        getattr(client, method)(*args)
    return bytes(capture.written)


@pytest.mark.parametrize(("name", "protocol", "framed"), WIRES)
@HYPOTHESIS
@given(data=st.data())
def test_a_request_is_byte_for_byte_what_thriftpy2s_client_sends(
    name: str, protocol: str, framed: bool, data: st.DataObject
) -> None:
    service, decode = SERVICES[name]
    method = data.draw(st.sampled_from(sorted(service.thrift_services)))
    args_type = getattr(service, method + "_args")
    drawn = data.draw(_struct(args_type, 1))
    args = tuple(getattr(drawn, field[1]) for _, field in sorted(args_type.thrift_spec.items()))
    codec = WireCodec(service, protocol=protocol, decode_response=decode)
    try:
        request = codec.encode(method, args)
    except Exception as exc:  # refused: thriftpy2's client refuses it too
        with pytest.raises(type(exc)):
            _thriftpy2_request(
                service, method, args, protocol=protocol, framed=framed, decode=decode
            )
        return
    link = Chunks([])
    caller = WireCaller(link, codec, framed=framed)  # type: ignore[arg-type]
    if not codec.oneway(method):
        with pytest.raises(TTransportException):
            caller.call(method, request)
    else:
        caller.call(method, request)
    sent = _thriftpy2_request(
        service, method, args, protocol=protocol, framed=framed, decode=decode
    )
    assert link.sent == [sent]


def test_an_idle_socket_the_peer_closed_is_stale_and_a_quiet_one_is_not() -> None:
    ours, theirs = socket.socketpair()
    link = SocketLink(ours)
    try:
        assert not link.stale()
        theirs.close()
        assert link.stale()
    finally:
        link.close()
    assert link.stale()  # closed here too


def test_an_argument_that_cannot_be_encoded_is_refused_before_a_connection_is_opened() -> None:
    """Nothing listens on the port: the sync call fails on its argument, not on connecting."""
    channel = Channel(
        Endpoint("127.0.0.1", 1), pool_size=1, retries=0, retry_backoff_ms=0, autoconnect=False
    )
    with pytest.raises(IllegalArgumentError, match="cannot be encoded") as info:
        channel.call(
            "atomicIncrement", b"t", b"r", b"f:q", "x", retry=Retry.IDEMPOTENT, table="t", row=b"r"
        )
    assert info.value.table == "t" and info.value.row == b"r"
    assert channel._idle == [] and channel._unopened == 1
    channel.close()


def test_the_thrift1_service_is_the_one_happybase_loads() -> None:
    """A happybase client's replies and hmodel's wire decode to the same classes."""
    import happybase  # noqa: F401

    assert Hbase.__module__ == "Hbase_thrift"
