"""SASL over Thrift: Kerberos GSSAPI with real tickets from a loopback KDC, and PLAIN."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from thriftpy2.transport import TBufferedTransport, TSocket

from hmodel.backend.base import Backend, Put
from hmodel.backend.sasl import Kerberos, Plain, SaslClientTransport
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import AuthenticationError, ConnectionLostError, IllegalArgumentError
from hmodel.schema import Family, Table
from hmodel.testing.fake import FakeHBaseServer
from hmodel.testing.fake.sasl import SaslAcceptor
from hmodel.testing.kdc import LoopbackKdc

SERVICE = "hbase/localhost"
QOPS = ("auth", "auth-int", "auth-conf")
#: The two backends, each opened on its port of a fake server.
BACKENDS: dict[str, Callable[..., Backend]] = {
    "thrift": lambda server, **options: ThriftBackend("127.0.0.1", server.port, **options),
    "thrift2": lambda server, **options: Thrift2Backend(
        "127.0.0.1", server.thrift2_port, **options
    ),
}


@pytest.fixture(scope="module")
def realm(hmodel_kdc: LoopbackKdc) -> LoopbackKdc:
    """The session's KDC with the service principal and the client ``alice``."""
    if not (hmodel_kdc.directory / "hbase_localhost.keytab").exists():
        hmodel_kdc.add_principal(SERVICE)
        hmodel_kdc.add_principal("other/localhost")
    return hmodel_kdc


@pytest.fixture
def ticket(realm: LoopbackKdc, tmp_path: Path) -> str:
    """A fresh ticket-granting ticket of ``alice`` in its own credential cache."""
    return f"FILE:{realm.kinit('alice', ccache=tmp_path / 'alice.ccache')}"


def acceptor(realm: LoopbackKdc, qop: str) -> SaslAcceptor:
    """Kerberos as the service ``hbase/localhost``, offering ``qop``."""
    return SaslAcceptor(
        keytab=str(realm.directory / "hbase_localhost.keytab"),
        principal=realm.principal(SERVICE),
        qop=qop,
    )


def kerberized(realm: LoopbackKdc, qop: str, sasl: SaslAcceptor | None = None) -> FakeHBaseServer:
    """A fake server (Thrift1 and Thrift2) that requires Kerberos with ``qop``."""
    return FakeHBaseServer(thrift2_port=0, sasl=sasl or acceptor(realm, qop))


def round_trip(backend: Backend) -> bytes | None:
    """Create a table, write a cell and read it back through ``backend``."""
    backend.create_table(Table("t", [Family("f")]))
    backend.mutate("t", [Put(b"row", b"f:q", b"secret value")])
    return backend.get("t", [b"row"])[0].value(b"f:q")


# --- Kerberos end to end -----------------------------------------------------------------


@pytest.mark.parametrize("qop", QOPS)
@pytest.mark.parametrize("kind", sorted(BACKENDS))
def test_kerberos_authenticates_and_serves_calls_with_each_qop(
    realm: LoopbackKdc, ticket: str, kind: str, qop: str
) -> None:
    required = acceptor(realm, qop)
    with kerberized(realm, qop, required) as server:
        sasl = Kerberos(host="localhost", qop=qop, ccache=ticket)
        backend = BACKENDS[kind](server, sasl=sasl)
        try:
            assert round_trip(backend) == b"secret value"
        finally:
            backend.close()
    assert set(required.users) == {"alice@HMODEL.TEST"}


class Recording:
    """A socket transport that keeps every byte written, to look at the wire."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.sent = bytearray()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def write(self, data: bytes) -> None:
        self.sent += data
        self.inner.write(data)


@pytest.mark.parametrize(
    ("qop", "in_clear"), [("auth", True), ("auth-int", True), ("auth-conf", False)]
)
def test_only_auth_conf_keeps_the_data_off_the_wire(
    realm: LoopbackKdc, ticket: str, qop: str, in_clear: bool
) -> None:
    from thriftpy2.protocol import TBinaryProtocol
    from thriftpy2.thrift import TClient

    from hmodel.backend.thrift2.idl import HBASE2

    with kerberized(realm, qop) as server:
        wire = Recording(TSocket("127.0.0.1", server.thrift2_port))
        sasl = SaslClientTransport(
            wire, Kerberos(host="localhost", qop=qop, ccache=ticket), host="localhost"
        )
        transport = TBufferedTransport(sasl)
        transport.open()
        assert sasl.layer == qop
        client = TClient(HBASE2.THBaseService, TBinaryProtocol(transport))
        assert (
            client.tableExists(HBASE2.TTableName(ns=b"default", qualifier=b"a-table-name")) is False
        )
        transport.close()
    assert (b"a-table-name" in wire.sent) is in_clear


def test_the_client_host_names_the_service_principal(realm: LoopbackKdc, ticket: str) -> None:
    # The backend connects to "localhost" and the principal follows the host it connects to.
    with kerberized(realm, "auth-conf") as server:
        backend = ThriftBackend("localhost", server.port, sasl=Kerberos(ccache=ticket))
        try:
            assert backend.list_tables() == []
        finally:
            backend.close()


# --- Kerberos refusals -------------------------------------------------------------------


def refusal(
    server: FakeHBaseServer, sasl: Kerberos | Plain, kind: str = "thrift"
) -> AuthenticationError:
    with pytest.raises(AuthenticationError) as info:
        BACKENDS[kind](server, sasl=sasl, retries=0).close()
    error = info.value
    assert error.host == f"127.0.0.1:{server.port if kind == 'thrift' else server.thrift2_port}"
    assert error.host in str(error)
    return error


@pytest.mark.parametrize("kind", sorted(BACKENDS))
def test_without_a_ticket_authentication_fails_naming_host_and_cache(
    realm: LoopbackKdc, tmp_path: Path, kind: str
) -> None:
    required = acceptor(realm, "auth-conf")
    with kerberized(realm, "auth-conf", required) as server:
        error = refusal(
            server, Kerberos(host="localhost", ccache=f"FILE:{tmp_path / 'none'}"), kind
        )
    assert error.principal is None
    assert "default principal" in str(error) and "hbase/localhost" in str(error)
    assert required.users == []


def test_an_expired_ticket_is_refused_naming_the_principal(
    realm: LoopbackKdc, tmp_path: Path
) -> None:
    cache = realm.kinit("alice", ccache=tmp_path / "old.ccache")
    LoopbackKdc.age_ccache(cache, 2 * 3600)  # tickets live one hour in this realm
    with kerberized(realm, "auth-conf") as server:
        error = refusal(server, Kerberos(host="localhost", ccache=f"FILE:{cache}"))
    assert "expired" in str(error)
    assert error.principal in (None, "alice@HMODEL.TEST")


def test_a_service_the_kdc_does_not_know_is_refused(realm: LoopbackKdc, ticket: str) -> None:
    with kerberized(realm, "auth-conf") as server:
        error = refusal(server, Kerberos(service="nosuch", host="localhost", ccache=ticket))
    assert error.principal == "alice@HMODEL.TEST"
    assert "nosuch/localhost" in str(error)
    assert "not found" in str(error).lower()


def test_a_ticket_for_another_service_is_refused_by_the_server(
    realm: LoopbackKdc, ticket: str
) -> None:
    required = acceptor(realm, "auth-conf")
    with kerberized(realm, "auth-conf", required) as server:
        error = refusal(server, Kerberos(service="other", host="localhost", ccache=ticket))
    assert "the server answered BAD" in str(error)
    assert required.users == []


def test_no_common_qop_is_refused_before_any_call(realm: LoopbackKdc, ticket: str) -> None:
    with kerberized(realm, "auth-conf") as server:
        error = refusal(server, Kerberos(host="localhost", qop=("auth", "auth-int"), ccache=ticket))
    assert "auth-conf" in str(error) and "client accepts" in str(error)


def test_a_client_without_sasl_cannot_talk_to_a_secured_server(realm: LoopbackKdc) -> None:
    with kerberized(realm, "auth-conf") as server:
        backend = ThriftBackend("127.0.0.1", server.port, retries=0)
        try:
            with pytest.raises(ConnectionLostError):
                backend.list_tables()
        finally:
            backend.close()


# --- PLAIN -------------------------------------------------------------------------------


PLAIN_USERS = SaslAcceptor(plain={"gw": "pw"}, qop="auth")


@pytest.fixture
def gateway() -> Iterator[FakeHBaseServer]:
    """A fake server that takes PLAIN from user ``gw`` with password ``pw``."""
    with FakeHBaseServer(thrift2_port=0, sasl=PLAIN_USERS) as server:
        yield server


@pytest.mark.parametrize("kind", sorted(BACKENDS))
def test_plain_authenticates_a_user_and_serves_calls(gateway: FakeHBaseServer, kind: str) -> None:
    backend = BACKENDS[kind](gateway, sasl=Plain("gw", "pw"))
    try:
        assert round_trip(backend) == b"secret value"
    finally:
        for name in backend.list_tables():
            backend.delete_table(name)
        backend.close()
    assert "gw" in PLAIN_USERS.users


def test_plain_with_a_wrong_password_is_refused_naming_the_user(gateway: FakeHBaseServer) -> None:
    error = refusal(gateway, Plain("gw", "wrong"))
    assert error.principal == "gw"
    assert "wrong user name or password" in str(error)
    assert "wrong" not in repr(Plain("gw", "wrong"))  # the password is never shown


# --- arguments ---------------------------------------------------------------------------


def test_sasl_over_the_framed_transport_is_refused_as_hbase_does() -> None:
    with pytest.raises(IllegalArgumentError, match="buffered"):
        ThriftBackend("127.0.0.1", 1, transport="framed", sasl=Plain("u", "p"), autoconnect=False)
    with pytest.raises(IllegalArgumentError, match="buffered"):
        Thrift2Backend("127.0.0.1", 1, transport="framed", sasl=Kerberos(), autoconnect=False)


@pytest.mark.parametrize(
    "build",
    [
        lambda: Kerberos(qop="privacy"),
        lambda: Kerberos(qop=()),
        lambda: Kerberos(service=""),
        lambda: Kerberos(host=""),
        lambda: Plain("", "p"),
    ],
)
def test_bad_sasl_settings_are_refused_naming_the_field(build: Callable[[], object]) -> None:
    with pytest.raises(IllegalArgumentError) as info:
        build()
    assert info.value.field is not None


def test_a_sasl_argument_of_another_type_is_refused() -> None:
    with pytest.raises(IllegalArgumentError, match="Kerberos or Plain"):
        ThriftBackend("127.0.0.1", 1, sasl="kerberos", autoconnect=False)  # type: ignore[arg-type]


def test_a_negotiation_message_over_the_limit_is_refused_before_reading_it() -> None:
    from hmodel.backend.sasl import SaslProtocolError, read_message

    left, right = socket.socketpair()
    with left, right:
        left.sendall(bytes([2]) + (200 * 2**20).to_bytes(4, "big"))
        with pytest.raises(SaslProtocolError, match="limit"):
            read_message(TSocket(sock=right))
        left.sendall(bytes([0x80, 1, 0, 1, 0]))  # a Thrift binary message, not SASL
        with pytest.raises(SaslProtocolError, match="Invalid status 128"):
            read_message(TSocket(sock=right))


def test_a_data_frame_over_the_limit_closes_the_connection_before_it_is_read(
    gateway: FakeHBaseServer,
) -> None:
    """After authentication the fake reads a declared oversized frame's length, not its bytes."""
    from hmodel.backend.sasl import Status, read_message, write_message
    from hmodel.testing.fake.sasl import MAX_DATA_FRAME_BYTES

    sock = TSocket("127.0.0.1", gateway.port, socket_timeout=5_000)
    sock.open()
    try:
        write_message(sock, Status.START, b"PLAIN")
        write_message(sock, Status.COMPLETE, b"\x00gw\x00pw")
        status, _ = read_message(sock)
        assert status == Status.COMPLETE
        sock.write((MAX_DATA_FRAME_BYTES + 1).to_bytes(4, "big") + b"x" * 1024)
        sock.flush()
        # Closed with no answer (a reset: the sent bytes were never read).
        with contextlib.suppress(ConnectionResetError):
            assert sock.sock.recv(1) == b""
    finally:
        sock.close()


@pytest.mark.parametrize("backend_class", [ThriftBackend, Thrift2Backend])
def test_sasl_over_http_is_refused_naming_the_option(backend_class: type[Backend]) -> None:
    """HBase's Thrift HTTP servlet authenticates with SPNEGO, not SASL: refused up front."""
    with pytest.raises(IllegalArgumentError, match="HTTP") as caught:
        backend_class("127.0.0.1", 1, http=True, sasl=Plain("u", "p"), autoconnect=False)  # type: ignore[call-arg]
    assert caught.value.field == "sasl"
