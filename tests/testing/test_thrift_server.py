"""FakeHBaseServer lifecycle, wire formats, concurrency and isolation of misbehaving clients."""

from __future__ import annotations

import socket
import threading
from collections.abc import Sequence

import happybase
import pytest
from thriftpy2.thrift import TApplicationException
from thriftpy2.transport import TTransportException

from hmodel.backend.base import RowResult
from hmodel.backend.memory import MemoryBackend
from hmodel.errors import BackendError, UnsupportedOperationError, ValidationError
from hmodel.testing import FakeHBaseServer
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT, method_name

from .conftest import WIRE_FORMATS


def server_threads(
    server: FakeHBaseServer, existing: set[threading.Thread]
) -> list[threading.Thread]:
    """The threads this server started: new since ``existing``, named after its port.

    Ports are reused, so a thread left by an earlier server may carry the same name.
    """
    name = f"hmodel-fake-hbase-{server.port}"  # the acceptor; "-sweeper", "-worker-N"
    return [
        t
        for t in threading.enumerate()
        if t not in existing and (t.name == name or t.name.startswith(name + "-"))
    ]


def test_the_handler_implements_every_call_of_the_happybase_idl(server: FakeHBaseServer) -> None:
    missing = [
        api
        for api in HBASE_THRIFT.Hbase.thrift_services
        if not callable(getattr(server.handler, method_name(api), None))
    ]
    assert missing == []


def test_port_zero_binds_a_free_port_on_loopback() -> None:
    with FakeHBaseServer() as server:
        assert server.host == "127.0.0.1"
        assert server.port > 0
        assert server.address == ("127.0.0.1", server.port)
        with socket.create_connection(server.address, timeout=5):
            pass


def test_a_new_server_has_a_fresh_engine_and_keeps_a_given_one() -> None:
    engine = MemoryBackend()
    assert FakeHBaseServer(engine).backend is engine
    assert FakeHBaseServer().backend.list_tables() == []


@pytest.mark.parametrize(("transport", "protocol"), WIRE_FORMATS)
def test_happybase_works_over_every_transport_and_protocol(transport: str, protocol: str) -> None:
    with FakeHBaseServer(transport=transport, protocol=protocol) as server:  # type: ignore[arg-type]
        connection = happybase.Connection(
            server.host, server.port, transport=transport, protocol=protocol
        )
        try:
            connection.create_table("t", {"f": {}})
            table = connection.table("t")
            with table.batch() as batch:
                batch.put(b"r1", {b"f:q": b"\x00\xff"})
                batch.put(b"r2", {b"f:q": b"v2"})
            assert list(table.scan(batch_size=1)) == [
                (b"r1", {b"f:q": b"\x00\xff"}),
                (b"r2", {b"f:q": b"v2"}),
            ]
            assert table.counter_inc(b"c", b"f:n", 3) == 3
            assert connection.tables() == [b"t"]
        finally:
            connection.close()


def test_stop_closes_the_listening_socket() -> None:
    server = FakeHBaseServer().start()
    address = server.address
    server.stop()
    with pytest.raises(OSError):
        socket.create_connection(address, timeout=5).close()


def test_stop_closes_client_connections_and_ends_every_server_thread() -> None:
    existing = set(threading.enumerate())
    server = FakeHBaseServer().start()
    connection = happybase.Connection(server.host, server.port)
    assert connection.tables() == []
    assert len(server_threads(server, existing)) == 3  # the acceptor, sweeper, one worker
    server.stop()
    assert server_threads(server, existing) == []
    assert server.client_count() == 0
    with pytest.raises((TTransportException, OSError)):
        connection.tables()
    connection.close()


def test_the_context_manager_starts_and_stops() -> None:
    with FakeHBaseServer() as server:
        assert server.running
    assert not server.running
    assert server.wait(0)


def test_stop_twice_or_before_start_does_nothing() -> None:
    server = FakeHBaseServer()
    server.stop()
    server.start()
    server.stop()
    server.stop()
    assert not server.running


def test_a_server_starts_only_once() -> None:
    with FakeHBaseServer() as server, pytest.raises(UnsupportedOperationError):
        server.start()


def test_a_busy_port_is_a_backend_error() -> None:
    with FakeHBaseServer() as first, pytest.raises(BackendError, match="cannot listen"):
        FakeHBaseServer(port=first.port).start()


@pytest.mark.parametrize(("field", "value"), [("transport", "http"), ("protocol", "json")])
def test_unknown_wire_formats_are_rejected(field: str, value: str) -> None:
    with pytest.raises(ValidationError, match=field):
        FakeHBaseServer(**{field: value})  # type: ignore[arg-type]


def test_repr_shows_address_wire_format_and_state() -> None:
    server = FakeHBaseServer(transport="framed", protocol="compact")
    assert repr(server) == "<FakeHBaseServer 127.0.0.1:0 framed/compact new>"
    with server:
        assert repr(server).endswith(f":{server.port} framed/compact running>")
    assert repr(server).endswith("stopped>")


def test_garbage_from_one_client_does_not_disturb_another(
    server: FakeHBaseServer, connection: happybase.Connection
) -> None:
    connection.create_table("t", {"f": {}})
    with socket.create_connection(server.address, timeout=5) as rogue:
        rogue.sendall(b"\xde\xad\xbe\xef" * 8 + b"GET / HTTP/1.1\r\n\r\n")
        assert rogue.recv(1) == b""  # the server dropped only this connection
    connection.table("t").put(b"r", {b"f:q": b"v"})
    assert connection.table("t").row(b"r") == {b"f:q": b"v"}
    assert server.running


def test_a_client_that_vanishes_mid_request_does_not_disturb_another(
    server: FakeHBaseServer, connection: happybase.Connection
) -> None:
    with socket.create_connection(server.address, timeout=5) as rogue:
        rogue.sendall(b"\x80\x01\x00\x01\x00\x00\x00\x0cgetTableNa")
    assert connection.tables() == []


def test_an_error_reply_leaves_the_connection_usable(connection: happybase.Connection) -> None:
    with pytest.raises(HBASE_THRIFT.IOError):
        connection.table("nope").row(b"r")
    assert connection.tables() == []


class ExplodingBackend(MemoryBackend):
    """An engine with a bug: every ``get`` raises an exception hmodel never raises."""

    def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        raise ZeroDivisionError("engine bug")


def test_an_unexpected_exception_is_an_internal_error_and_the_server_keeps_serving() -> None:
    with FakeHBaseServer(ExplodingBackend()) as server:
        connection = happybase.Connection(server.host, server.port)
        try:
            connection.create_table("t", {"f": {}})
            with pytest.raises(TApplicationException) as raised:
                connection.table("t").row(b"r")
            assert raised.value.type == TApplicationException.INTERNAL_ERROR
            assert b"ZeroDivisionError: engine bug" in raised.value.message
            assert connection.tables() == [b"t"]
        finally:
            connection.close()


def test_the_connection_pool_under_several_threads(server: FakeHBaseServer) -> None:
    pool = happybase.ConnectionPool(size=3, host=server.host, port=server.port)
    with pool.connection() as connection:
        connection.create_table("t", {"f": {}})
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(25):
                with pool.connection() as connection:
                    table = connection.table("t")
                    table.counter_inc(b"counter", b"f:n")
                    table.put(f"w{worker}-{i:02d}".encode(), {b"f:q": str(i).encode()})
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with pool.connection() as connection:
        table = connection.table("t")
        assert table.counter_get(b"counter", b"f:n") == 150
        assert len(list(table.scan(row_prefix=b"w"))) == 150


def test_scanners_are_shared_by_all_connections_as_in_hbase(
    server: FakeHBaseServer, connection: happybase.Connection
) -> None:
    connection.create_table("t", {"f": {}})
    connection.table("t").put(b"r", {b"f:q": b"v"})
    scanner = connection.client.scannerOpen(b"t", b"", [], {})
    other = happybase.Connection(server.host, server.port)
    try:
        assert [r.row for r in other.client.scannerGet(scanner)] == [b"r"]
        other.client.scannerClose(scanner)
    finally:
        other.close()


def test_stop_closes_open_scanners(
    server: FakeHBaseServer, connection: happybase.Connection
) -> None:
    connection.create_table("t", {"f": {}})
    connection.client.scannerOpen(b"t", b"", [], {})
    assert len(server.handler.scanners) == 1
    server.stop()
    assert len(server.handler.scanners) == 0


@pytest.mark.parametrize(
    ("host", "port"), [("127.0.0.1", -1), ("127.0.0.1", 70_000), ("127.0.0.1", "9090"), (None, 0)]
)
def test_a_bad_host_or_port_is_a_typed_error(host: object, port: object) -> None:
    with pytest.raises(ValidationError):
        FakeHBaseServer(host=host, port=port)  # type: ignore[arg-type]
