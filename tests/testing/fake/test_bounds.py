"""The fake servers are bounded as HBase 2's Thrift servers are, with their defaults.

Scanners expire when unused (Thrift1 and Thrift2), without any call; idle connections
are closed; workers and the queue are capped; declared sizes over the limits are refused
before their bytes are received. The real settings are named in each test.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import tracemalloc
from collections.abc import Iterator

import happybase
import pytest
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.thrift import TClient
from thriftpy2.transport import TBufferedTransportFactory, TSocket, TTransportException

from hmodel.backend.base import Put, RowResult, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.sasl import Plain
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.backend.thrift2.idl import HBASE2
from hmodel.clock import ManualClock
from hmodel.errors import ConnectionLostError, ValidationError
from hmodel.schema import Family, Table
from hmodel.testing.fake import FakeHBaseServer, FakeThrift2Server
from hmodel.testing.fake.sasl import SaslAcceptor

_WAIT = 10.0  # seconds: a generous bound on what should happen at once, never a measure
_CALL = -2147418111  # 0x80010001: binary protocol, version 1, a CALL


def _call(name: bytes) -> bytes:
    """The start of a binary-protocol call of ``name`` (sequence id 1), before its arguments."""
    return struct.pack("!ii", _CALL, len(name)) + name + struct.pack("!i", 1)


def _closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closes ``sock`` (EOF or reset) before it sends anything."""
    sock.settimeout(_WAIT)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


class _Tracked:
    """An engine row iterator that records being closed (scanners close theirs)."""

    def __init__(self, rows: Iterator[RowResult], closed: list[str], table: str) -> None:
        self._rows, self._closed, self._table = rows, closed, table

    def __iter__(self) -> _Tracked:
        return self

    def __next__(self) -> RowResult:
        return next(self._rows)

    def close(self) -> None:
        self._closed.append(self._table)


class _TrackingBackend(MemoryBackend):
    """A memory engine whose scan iterators say when they are closed."""

    def __init__(self, clock: ManualClock) -> None:
        super().__init__(clock=clock)
        self.closed: list[str] = []

    def scan(self, table: str, scan: Scan) -> Iterator[RowResult]:
        return _Tracked(super().scan(table, scan), self.closed, table)


def _thrift2_client(port: int) -> tuple[object, object]:
    sock = TSocket("127.0.0.1", port, socket_timeout=int(_WAIT * 1000))  # type: ignore[no-untyped-call]
    transport = TBufferedTransportFactory().get_transport(sock)
    transport.open()
    client = TClient(HBASE2.THBaseService, TBinaryProtocolFactory().get_protocol(transport))
    return client, transport


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_700_000_000_000)


@pytest.fixture
def backend(clock: ManualClock) -> _TrackingBackend:
    engine = _TrackingBackend(clock)
    engine.create_table(Table("t", [Family("f")]))
    return engine


# --- defaults ---------------------------------------------------------------------------


def test_the_defaults_are_hbase_2s() -> None:
    """hbase.thrift.server.socket.read.timeout 60 s, maxWorkerThreads 1000,
    maxQueuedRequests 1000, framed.max_frame_size_in_mb 2, libthrift's max message size
    100 MiB, Thrift1 scanners 2 x and Thrift2 scanners 1 x scanner.timeout.period (60 s)."""
    server = FakeHBaseServer(thrift2_port=0)
    assert server.read_timeout_ms == 60_000
    assert (server.max_workers, server.max_queued) == (1000, 1000)
    assert server.max_frame_bytes == 2 * 1024 * 1024
    assert server.max_message_bytes == 100 * 1024 * 1024
    assert server.handler.scanners.lease_ms == 120_000
    assert FakeThrift2Server().handler.scanners.lease_ms == 60_000


def test_the_thrift2_side_is_bounded_as_the_thrift1_side(backend: _TrackingBackend) -> None:
    with FakeHBaseServer(
        backend,
        thrift2_port=0,
        read_timeout_ms=5_000,
        max_workers=7,
        max_queued=3,
        max_frame_bytes=4096,
        max_message_bytes=8192,
        thrift2_scanner_lease_ms=1234,
    ) as server:
        thrift2 = server.thrift2_server
        assert thrift2 is not None
        assert thrift2.serving_options == server.serving_options
        assert thrift2.handler.scanners.lease_ms == 1234


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("read_timeout_ms", -1),
        ("max_workers", 0),
        ("max_queued", -1),
        ("max_frame_bytes", 0),
        ("max_message_bytes", 1.5),
        ("scanner_lease_ms", 0),
        ("thrift2_scanner_lease_ms", True),
    ],
)
def test_a_bound_out_of_range_is_a_typed_error_naming_it(field: str, value: object) -> None:
    with pytest.raises(ValidationError, match=field) as raised:
        FakeHBaseServer(**{field: value})  # type: ignore[arg-type]
    assert raised.value.field == field


# --- scanners expire ----------------------------------------------------------------------


def test_an_unused_thrift2_scanner_expires_and_its_id_is_invalid(
    backend: _TrackingBackend, clock: ManualClock
) -> None:
    """HBase 2's Thrift2 handler: expireAfterAccess(hbase.client.scanner.timeout.period)."""
    with FakeHBaseServer(backend, thrift2_port=0, thrift2_scanner_lease_ms=1_000) as server:
        assert server.thrift2_port is not None
        client, transport = _thrift2_client(server.thrift2_port)
        try:
            kept = client.openScanner(b"t", HBASE2.TScan())  # type: ignore[attr-defined]
            dropped = client.openScanner(b"t", HBASE2.TScan())  # type: ignore[attr-defined]
            for _ in range(3):  # every use renews the lease
                clock.advance(600)
                assert client.getScannerRows(kept, 1) == []  # type: ignore[attr-defined]
            with pytest.raises(HBASE2.TIllegalArgument, match="Invalid scanner Id"):
                client.getScannerRows(dropped, 1)  # type: ignore[attr-defined]
            # Closing an expired (or unknown) id is no error on HBase 2.6.1.
            client.closeScanner(dropped)  # type: ignore[attr-defined]
            client.closeScanner(kept)  # type: ignore[attr-defined]
        finally:
            transport.close()  # type: ignore[attr-defined]


def test_scanners_expire_on_time_without_any_call(
    backend: _TrackingBackend, clock: ManualClock
) -> None:
    """Abandoned scanners are closed by the server's sweeper: no client call is needed."""
    with FakeHBaseServer(
        backend, scanner_lease_ms=1_000, thrift2_port=0, thrift2_scanner_lease_ms=1_000
    ) as server:
        assert server.thrift2_port is not None and server.thrift2_server is not None
        connection = happybase.Connection(server.host, server.port)
        client, transport = _thrift2_client(server.thrift2_port)
        connection.client.scannerOpen(b"t", b"", [], {})
        client.openScanner(b"t", HBASE2.TScan())  # type: ignore[attr-defined]
        connection.close()
        transport.close()  # type: ignore[attr-defined]
        clock.advance(999)
        assert server.wait_swept(_WAIT) and server.thrift2_server.wait_swept(_WAIT)
        assert backend.closed == []
        clock.advance(1)
        assert server.wait_swept(_WAIT) and server.thrift2_server.wait_swept(_WAIT)
        assert backend.closed == ["t", "t"]


def test_wait_swept_is_false_on_a_server_not_running() -> None:
    assert not FakeHBaseServer().wait_swept(0)


# --- idle connections -----------------------------------------------------------------------


def test_an_idle_connection_is_closed_after_the_read_timeout() -> None:
    """hbase.thrift.server.socket.read.timeout: the socket timeout of HBase's thread-pool
    server; a client that sends nothing (or stops halfway through a request) is dropped."""
    with FakeHBaseServer(read_timeout_ms=50, thrift2_port=0) as server:
        assert server.thrift2_port is not None
        for port in (server.port, server.thrift2_port):
            with socket.create_connection((server.host, port)) as idle:
                assert _closed_by_server(idle)
            with socket.create_connection((server.host, port)) as stalled:
                stalled.sendall(_call(b"getTableNames")[:7])
                assert _closed_by_server(stalled)


def test_a_connection_in_use_is_served_and_a_new_one_after_an_idle_one_is_closed() -> None:
    with FakeHBaseServer(read_timeout_ms=50) as server:
        connection = happybase.Connection(server.host, server.port)
        assert connection.tables() == []
        connection.close()
        with socket.create_connection(server.address) as idle:
            assert _closed_by_server(idle)
        connection = happybase.Connection(server.host, server.port)
        assert connection.tables() == []
        connection.close()


# --- workers and queue ---------------------------------------------------------------------


def test_connections_beyond_the_workers_wait_and_beyond_the_queue_are_closed() -> None:
    """TBoundedThreadPoolServer: maxWorkerThreads served, maxQueuedRequests waiting
    unanswered until a worker frees, the next one closed ("Queue is full")."""
    with FakeHBaseServer(max_workers=1, max_queued=1) as server:
        served = happybase.Connection(server.host, server.port)
        assert served.tables() == []
        with socket.create_connection(server.address) as waiting:
            waiting.sendall(_call(b"getTableNames") + b"\x00")  # no arguments: STOP
            with socket.create_connection(server.address) as refused:
                assert _closed_by_server(refused)
            assert server.waiting_count() == 1
            assert server.client_count() == 2
            served.close()  # the worker is free: it takes the waiting connection
            waiting.settimeout(_WAIT)
            reply = waiting.recv(64)
            assert reply.startswith(struct.pack("!ii", -2147418110, 13) + b"getTableNames")


def test_no_queue_closes_any_connection_beyond_the_workers() -> None:
    with FakeHBaseServer(max_workers=1, max_queued=0) as server:
        served = happybase.Connection(server.host, server.port)
        assert served.tables() == []
        with socket.create_connection(server.address) as refused:
            assert _closed_by_server(refused)
        assert served.tables() == []
        served.close()


def test_stop_closes_the_waiting_connections_too() -> None:
    server = FakeHBaseServer(max_workers=1, max_queued=1).start()
    served = happybase.Connection(server.host, server.port)
    assert served.tables() == []
    with socket.create_connection(server.address) as waiting:
        with socket.create_connection(server.address) as refused:
            assert _closed_by_server(refused)  # so `waiting` is in the queue
        server.stop()
        assert _closed_by_server(waiting)
    assert server.client_count() == 0
    served.close()


# --- declared sizes --------------------------------------------------------------------------


def test_a_declared_1_gib_string_is_refused_before_it_is_buffered() -> None:
    """libthrift 0.14 checks a declared length against the max message size (100 MiB)
    before reading; the server closes the connection. Nothing of it is buffered."""
    payload = b"x" * (256 * 1024)
    request = _call(b"get") + struct.pack("!bhi", 11, 1, 1 << 30) + payload
    with FakeHBaseServer() as server:
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            with socket.create_connection(server.address) as rogue:
                with contextlib.suppress(OSError):  # the server may close before the end
                    rogue.sendall(request)
                assert _closed_by_server(rogue)
            peak = tracemalloc.get_traced_memory()[1] - before
        finally:
            tracemalloc.stop()
        assert peak < 4 * 1024 * 1024  # today's code took 1 GiB here, and waited for it
        connection = happybase.Connection(server.host, server.port)  # others are served
        assert connection.tables() == []
        connection.close()


@pytest.mark.parametrize(
    ("field", "declaration"),
    [
        ("a string over the limit", struct.pack("!bhi", 11, 1, 2048)),
        ("a negative string length", struct.pack("!bhi", 11, 1, -1)),
        ("a list whose strings cannot fit", struct.pack("!bhbi", 15, 2, 11, 1 << 30)),
        ("a negative list size", struct.pack("!bhbi", 15, 2, 11, -5)),
        ("a map whose entries cannot fit", struct.pack("!bhbbi", 13, 3, 11, 11, 200)),
        ("an unknown type", struct.pack("!bh", 99, 1)),
    ],
)
def test_a_declaration_over_the_limit_closes_the_connection(field: str, declaration: bytes) -> None:
    with (
        FakeHBaseServer(max_message_bytes=1024) as server,
        socket.create_connection(server.address) as rogue,
    ):
        rogue.sendall(_call(b"getRows") + declaration)
        assert _closed_by_server(rogue), field


def test_values_under_the_limit_still_work_buffered() -> None:
    value = bytes(range(256)) * (5 * 4096)  # 5 MiB
    with FakeHBaseServer() as server:
        connection = happybase.Connection(server.host, server.port)
        connection.create_table("t", {"f": {}})
        connection.table("t").put(b"r", {b"f:q": value})
        assert connection.table("t").row(b"r") == {b"f:q": value}
        connection.close()


def test_a_smaller_max_message_refuses_a_value_a_default_server_takes() -> None:
    with FakeHBaseServer(max_message_bytes=64 * 1024) as server:
        connection = happybase.Connection(server.host, server.port)
        connection.create_table("t", {"f": {}})
        connection.table("t").put(b"r", {b"f:q": b"v" * (64 * 1024)})  # at the limit
        with pytest.raises((TTransportException, OSError)):
            connection.table("t").put(b"r", {b"f:q": b"v" * (64 * 1024 + 1)})
        connection.close()


def test_a_frame_over_the_limit_is_refused_and_one_under_it_served() -> None:
    """hbase.regionserver.thrift.framed.max_frame_size_in_mb: 2 MiB by default."""
    with FakeHBaseServer(transport="framed") as server:
        for size in (2 * 1024 * 1024 + 1, -1):
            with socket.create_connection(server.address) as rogue:
                rogue.sendall(struct.pack("!i", size) + _call(b"getTableNames"))
                assert _closed_by_server(rogue)
        connection = happybase.Connection(server.host, server.port, transport="framed")
        connection.create_table("t", {"f": {}})
        under = b"v" * (2 * 1024 * 1024 - 4096)
        connection.table("t").put(b"r", {b"f:q": under})
        assert connection.table("t").row(b"r") == {b"f:q": under}
        with pytest.raises((TTransportException, OSError)):
            connection.table("t").put(b"r", {b"f:q": under + b"v" * 8192})
        connection.close()


def test_a_larger_frame_limit_takes_larger_values() -> None:
    value = b"v" * (3 * 1024 * 1024)
    with FakeHBaseServer(transport="framed", max_frame_bytes=4 * 1024 * 1024) as server:
        connection = happybase.Connection(server.host, server.port, transport="framed")
        connection.create_table("t", {"f": {}})
        connection.table("t").put(b"r", {b"f:q": value})
        assert connection.table("t").row(b"r") == {b"f:q": value}
        connection.close()


def test_requests_over_sasl_are_read_within_the_same_bounds() -> None:
    """The bounds apply to the requests inside the SASL frames, on both ports."""
    acceptor = SaslAcceptor(plain={"gw": "pw"}, qop="auth")
    limit = 64 * 1024
    with FakeHBaseServer(thrift2_port=0, sasl=acceptor, max_message_bytes=limit) as server:
        assert server.thrift2_server is not None and server.thrift2_server.sasl is acceptor
        backend = Thrift2Backend(
            server.host, server.thrift2_port, sasl=Plain("gw", "pw"), retries=0
        )
        try:
            backend.create_table(Table("t", [Family("f")]))
            backend.mutate("t", [Put(b"r", b"f:q", b"v" * limit, timestamp=1)])
            assert backend.get("t", [b"r"])[0].value(b"f:q") == b"v" * limit
            with pytest.raises(ConnectionLostError):
                backend.mutate("t", [Put(b"r", b"f:q", b"v" * (limit + 1), timestamp=2)])
        finally:
            backend.close()


def test_sasl_needs_the_buffered_transport_as_in_hbase() -> None:
    with pytest.raises(ValidationError, match="sasl needs the buffered transport"):
        FakeHBaseServer(transport="framed", sasl=SaslAcceptor(plain={"gw": "pw"}))
