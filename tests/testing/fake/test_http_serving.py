"""The fake servers over HTTP(S) and TLS: HBase's servlet answers, settings checked by name."""

from __future__ import annotations

import contextlib
import http.client
import socket
import struct
from pathlib import Path

import pytest

from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import ValidationError
from hmodel.testing.certs import find_openssl, make_certificates
from hmodel.testing.fake import FakeHBaseServer, FakeThrift2Server
from hmodel.testing.fake.http_server import HTTPServing
from hmodel.testing.fake.sasl import SaslAcceptor

_WAIT = 10.0  # seconds a socket waits for the server's close: a bound, not a measurement


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"http": True, "transport": "framed"}, "transport"),
        ({"http": True, "protocol": "compact"}, "protocol"),
        ({"tls": "cert.pem"}, "tls"),
        ({"http": "yes"}, "http"),
    ],
)
def test_settings_hbase_cannot_serve_are_refused_naming_them(
    options: dict[str, object], field: str
) -> None:
    with pytest.raises(ValidationError) as info:
        FakeHBaseServer(**options)  # type: ignore[arg-type]
    assert info.value.field == field


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"path": "gateway"}, "path"),
        ({"username": "ann"}, "username"),
        ({"idle_timeout_s": 0}, "idle_timeout_s"),
    ],
)
def test_bad_http_serving_settings_are_refused_naming_them(
    options: dict[str, object], field: str
) -> None:
    with pytest.raises(ValidationError) as info:
        HTTPServing(**options)  # type: ignore[arg-type]
    assert info.value.field == field


def _post(server: FakeHBaseServer, body: bytes, **headers: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection(server.host, server.port)
    connection.putrequest("POST", "/any/path")
    for name, value in headers.items():
        connection.putheader(name.replace("_", "-"), value)
    connection.endheaders(body)
    return connection.getresponse()


def test_http_answers_as_hbase_s_servlet_does() -> None:
    with FakeHBaseServer(http=True) as server:
        assert server.url == f"http://127.0.0.1:{server.port}/"
        with ThriftBackend.from_url(server.url) as backend:  # any path: HBase's servlet is /*
            assert backend.list_tables() == []
            assert server.client_count() == 1
        garbage = _post(server, b"\x00\x01", Content_Length="2")
        assert garbage.status == 500  # Jetty's answer to the servlet's TTransportException
        assert garbage.getheader("Connection") == "close"
        assert _post(server, b"").status == 411
        connection = http.client.HTTPConnection(server.host, server.port)
        connection.request("GET", "/")
        assert connection.getresponse().status == 405


@pytest.mark.skipif(find_openssl() is None, reason="no openssl for test certificates")
def test_tls_over_a_socket_and_https_name_their_scheme(tmp_path: Path) -> None:
    certs = make_certificates(tmp_path)
    with FakeHBaseServer(tls=certs.server_context(), thrift2_port=0) as server:
        assert server.url == f"thrift+tls://127.0.0.1:{server.port}"
        assert server.thrift2_server is not None
        assert server.thrift2_server.url.startswith("thrift+tls://")
        with ThriftBackend.from_url(server.url, tls=certs.client_tls()) as backend:
            assert backend.list_tables() == []
    with FakeHBaseServer(tls=certs.server_context(), http=True) as server:
        assert server.url == f"https://127.0.0.1:{server.port}/"


# --- HTTP and TLS within the serving core's bounds (both ports) -------------------------------

_CALL = -2147418111  # 0x80010001: binary protocol, version 1, a CALL


def _call(name: bytes) -> bytes:
    """The start of a binary-protocol call of ``name`` (sequence id 1), before its arguments."""
    return struct.pack("!ii", _CALL, len(name)) + name + struct.pack("!i", 1)


def _sides(server: FakeHBaseServer) -> list[tuple[str, int]]:
    assert server.thrift2_port is not None
    return [(server.host, server.port), (server.host, server.thrift2_port)]


@pytest.mark.parametrize("server_class", [FakeHBaseServer, FakeThrift2Server])
def test_sasl_over_http_is_refused_on_either_server(server_class: type[FakeThrift2Server]) -> None:
    """HBase authenticates HTTP clients with SPNEGO, never SASL."""
    with pytest.raises(ValidationError) as info:
        server_class(http=True, sasl=SaslAcceptor(plain={"app": "s3cret"}))
    assert info.value.field == "http"


def test_http_serves_both_ports_and_both_name_their_url() -> None:
    with FakeHBaseServer(http=HTTPServing(path="/hbase"), thrift2_port=0) as server:
        assert server.thrift2_server is not None
        assert server.thrift2_server.url == f"http://127.0.0.1:{server.thrift2_port}/hbase"
        assert server.thrift2_server.http == HTTPServing(path="/hbase")
        with Thrift2Backend.from_url(server.thrift2_server.url) as backend:
            assert backend.list_tables() == []


def test_a_content_length_over_the_message_bound_is_refused_before_the_body() -> None:
    """The body is never received: the answer comes with only the headers sent."""
    with FakeHBaseServer(http=True, thrift2_port=0, max_message_bytes=1024) as server:
        for address in _sides(server):
            connection = http.client.HTTPConnection(*address)
            connection.putrequest("POST", "/")
            connection.putheader("Content-Length", "1025")
            connection.endheaders()  # and no body at all
            answer = connection.getresponse()
            assert answer.status == 413
            assert b"MaxMessageSize reached" in answer.read()
            assert answer.getheader("Connection") == "close"
            connection.close()


def test_a_body_declaring_more_than_the_bound_is_refused_as_hbase_s_servlet_fails() -> None:
    """A 20-byte body declaring a 2 KiB string: RequestReader refuses it (a 500 page)."""
    body = _call(b"getRows") + struct.pack("!bhi", 11, 1, 2048)
    with FakeHBaseServer(http=True, thrift2_port=0, max_message_bytes=1024) as server:
        for address in _sides(server):
            connection = http.client.HTTPConnection(*address)
            connection.request("POST", "/", body)
            answer = connection.getresponse()
            assert answer.status == 500
            assert b"MaxMessageSize reached" in answer.read()
            connection.close()


def test_http_connections_share_the_workers_and_the_queue() -> None:
    with FakeHBaseServer(http=True, max_workers=1, max_queued=0) as server:
        with ThriftBackend.from_url(server.url, pool_size=1) as backend:
            assert backend.list_tables() == []  # one kept-alive connection holds the worker
            with socket.create_connection(server.address) as refused:
                refused.settimeout(_WAIT)
                assert refused.recv(1) == b""  # "Queue is full, closing connection"
            assert server.client_count() == 1
        assert server.close_connections() in (0, 1)


def test_stop_closes_kept_alive_http_connections() -> None:
    server = FakeHBaseServer(http=True, thrift2_port=0).start()
    with Thrift2Backend.from_url(f"http://127.0.0.1:{server.thrift2_port}/", pool_size=1) as b:
        assert b.list_tables() == []
        assert server.thrift2_server is not None
        assert server.thrift2_server.client_count() == 1
        server.stop()
        assert server.thrift2_server.client_count() == 0
        assert server.client_count() == 0


@pytest.mark.skipif(find_openssl() is None, reason="no openssl for test certificates")
def test_a_failed_tls_handshake_frees_its_worker_for_the_next_client(tmp_path: Path) -> None:
    certs = make_certificates(tmp_path)
    with FakeHBaseServer(tls=certs.server_context(), max_workers=1, max_queued=1) as server:
        with socket.create_connection(server.address) as plain:
            plain.sendall(_call(b"getTableNames") + b"\x00")  # no TLS: the handshake fails
            plain.settimeout(_WAIT)
            with contextlib.suppress(ConnectionResetError):
                plain.recv(64)
        with ThriftBackend.from_url(server.url, tls=certs.client_tls()) as backend:
            assert backend.list_tables() == []
