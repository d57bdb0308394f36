"""The fake servers over HTTP(S) and TLS: HBase's servlet answers, settings checked by name."""

from __future__ import annotations

import http.client
from pathlib import Path

import pytest

from hmodel.backend.thrift import ThriftBackend
from hmodel.errors import ValidationError
from hmodel.testing.certs import find_openssl, make_certificates
from hmodel.testing.fake import FakeHBaseServer
from hmodel.testing.fake.http_server import HTTPServing


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
