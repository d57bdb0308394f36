"""The fake servers' minimum call latency: server-stamped writes spaced as on a real HBase."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import thriftpy2.rpc
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.transport import TBufferedTransportFactory

from hmodel.backend.thrift2.idl import (
    HBASE2,
    TColumnIncrement,
    TColumnValue,
    TGet,
    TIncrement,
    TPut,
)
from hmodel.errors import ValidationError
from hmodel.schema import Family, Table
from hmodel.testing.fake import FakeHBaseServer

_BURST = 200


@pytest.fixture
def spaced() -> Iterator[tuple[Any, bytes]]:
    """A raw Thrift2 client of a fake server holding each call 2 ms, and a table ``f``."""
    with FakeHBaseServer(thrift2_port=0, min_latency_ms=2) as server:
        server.backend.create_table(Table("t", [Family("f")]))
        assert server.thrift2_port is not None
        client = thriftpy2.rpc.make_client(
            HBASE2.THBaseService, server.host, server.thrift2_port,
            proto_factory=TBinaryProtocolFactory(), trans_factory=TBufferedTransportFactory(),
        )  # fmt: skip
        try:
            yield client, b"t"
        finally:
            client.close()


def test_a_put_after_a_burst_of_increments_is_seen(spaced: tuple[Any, bytes]) -> None:
    """Increments stamp ``max(now, old + 1)``: in a burst of sub-millisecond calls they
    run ahead of the clock and hide the put that follows (a local HBase 2.6.1 too, at
    0.8 ms a call); calls held 2 ms (``min_latency_ms=2``, a remote server's pace) never
    do (F10). Without the latency this fails on the fake."""
    client, name = spaced
    increment = TIncrement(row=b"r", columns=[TColumnIncrement(family=b"f", qualifier=b"n")])
    for _ in range(_BURST):
        client.increment(name, increment)
    put = TPut(row=b"r", columnValues=[TColumnValue(family=b"f", qualifier=b"n", value=b"x")])
    client.put(name, put)
    got = client.get(name, TGet(row=b"r"))
    assert [v.value for v in got.columnValues] == [b"x"]


def test_the_latency_is_checked() -> None:
    """A negative latency is refused, naming the option."""
    with pytest.raises(ValidationError, match="min_latency_ms"):
        FakeHBaseServer(min_latency_ms=-1)
