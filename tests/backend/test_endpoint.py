"""Endpoint, TLS and HTTP settings: URLs read, bad settings and combinations refused by name."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

from hmodel.backend import HTTP, TLS
from hmodel.backend.endpoint import Endpoint, as_http, as_tls, redact
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import IllegalArgumentError


@pytest.mark.parametrize(
    ("url", "scheme", "host", "port", "path"),
    [
        ("thrift://hbase-1:9091", "thrift", "hbase-1", 9091, None),
        ("thrift://hbase-1", "thrift", "hbase-1", 9090, None),
        ("thrift+tls://proxy:9443", "thrift+tls", "proxy", 9443, None),
        ("http://h:9090/", "http", "h", 9090, "/"),
        ("http://h:9090", "http", "h", 9090, "/"),
        ("https://gw/gateway/default/hbase", "https", "gw", 443, "/gateway/default/hbase"),
        ("https://[::1]:8443/x?doAs=bob", "https", "::1", 8443, "/x?doAs=bob"),
    ],
)
def test_a_url_names_scheme_host_port_and_path(
    url: str, scheme: str, host: str, port: int, path: str | None
) -> None:
    endpoint = Endpoint.from_url(url)
    assert (endpoint.scheme, endpoint.host, endpoint.port) == (scheme, host, port)
    assert (endpoint.http.path if endpoint.http else None) == path
    assert (endpoint.tls is not None) == scheme.endswith(("tls", "https"))


def test_url_credentials_become_basic_authentication_and_never_reach_the_url() -> None:
    endpoint = Endpoint.from_url("https://ann:s%3Acret@gw:8443/gateway/default/hbase")
    assert endpoint.http is not None
    assert (endpoint.http.username, endpoint.http.password) == ("ann", "s:cret")
    assert ("Authorization", "Basic YW5uOnM6Y3JldA==") in endpoint.http.request_headers()
    assert endpoint.url == "https://gw:8443/gateway/default/hbase"
    assert "s:cret" not in repr(endpoint.http)
    assert redact("https://ann:pw@gw:8443/p") == "https://***@gw:8443/p"


@pytest.mark.parametrize(
    ("url", "kwargs", "field"),
    [
        ("ftp://h:1", {}, "url"),
        ("http://:9090/", {}, "url"),
        ("http://h:99999/", {}, "url"),
        ("thrift://u:p@h:9090", {}, "url"),
        ("thrift://h:9090/path", {}, "url"),
        ("thrift://h:9090", {"tls": True}, "tls"),
        ("http://h:9090/", {"tls": TLS()}, "tls"),
        ("https://h:9090/", {"tls": False}, "tls"),
        ("thrift://h:9090", {"headers": {"X-A": "1"}}, "headers"),
        ("https://h/", {"transport": "framed"}, "transport"),
        ("https://h/", {"protocol": "compact"}, "protocol"),
        ("https://h/", {"wrap_socket": lambda t: t}, "wrap_socket"),
    ],
)
def test_a_url_or_option_that_cannot_be_served_is_refused_naming_it(
    url: str, kwargs: dict[str, object], field: str
) -> None:
    with pytest.raises(IllegalArgumentError) as info:
        Endpoint.from_url(url, **kwargs)  # type: ignore[arg-type]
    assert info.value.field == field


def test_a_refused_url_is_quoted_without_its_password() -> None:
    with pytest.raises(IllegalArgumentError) as info:
        Endpoint.from_url("ftp://ann:secret@h/")
    assert "secret" not in str(info.value)


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"key_file": "k.pem"}, "key_file"),
        ({"ca_file": 3}, "ca_file"),
        ({"server_hostname": ""}, "server_hostname"),
        ({"verify": "yes"}, "verify"),
        ({"context": "ctx"}, "context"),
        ({"context": ssl.create_default_context(), "ca_file": "ca.pem"}, "ca_file"),
        ({"context": ssl.create_default_context(), "verify": False}, "verify"),
    ],
)
def test_bad_tls_settings_are_refused_naming_the_setting(
    settings: dict[str, object], field: str
) -> None:
    with pytest.raises(IllegalArgumentError) as info:
        TLS(**settings)  # type: ignore[arg-type]
    assert info.value.field == field


def test_a_ca_file_that_cannot_be_read_is_refused_when_the_backend_is_made(tmp_path: Path) -> None:
    missing = tmp_path / "missing.pem"
    with pytest.raises(IllegalArgumentError, match="ca_file cannot be loaded") as info:
        ThriftBackend("localhost", 1, tls=TLS(ca_file=missing), autoconnect=False)
    assert info.value.field == "ca_file"


def test_tls_verifies_certificates_and_names_by_default() -> None:
    context = TLS().ssl_context()
    assert context.verify_mode is ssl.CERT_REQUIRED
    assert context.check_hostname
    unverified = TLS(verify=False).ssl_context()
    assert unverified.verify_mode is ssl.CERT_NONE
    assert not unverified.check_hostname
    ready = ssl.create_default_context()
    assert TLS(context=ready).ssl_context() is ready


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"path": "gateway"}, "path"),
        ({"path": "/a b"}, "path"),
        ({"username": "ann"}, "username"),
        ({"username": "a:b", "password": "p"}, "username"),
        ({"headers": {"Bad Name": "1"}}, "headers"),
        ({"headers": {"X-A": "1\r\nX-B: 2"}}, "headers"),
        ({"headers": {"Content-Length": "1"}}, "headers"),
        ({"headers": 3}, "headers"),
    ],
)
def test_bad_http_settings_are_refused_naming_the_setting(
    settings: dict[str, object], field: str
) -> None:
    with pytest.raises(IllegalArgumentError) as info:
        HTTP(**settings)  # type: ignore[arg-type]
    assert info.value.field == field


def test_the_backend_options_take_settings_a_context_a_path_or_a_bool() -> None:
    context = ssl.create_default_context()
    assert as_tls(True) == TLS()
    assert as_tls(context) == TLS(context=context)
    assert as_tls(False) is None
    assert as_http("/p") == HTTP(path="/p")
    assert as_http(True) == HTTP()
    assert as_http(None) is None
    with pytest.raises(IllegalArgumentError) as info:
        as_tls("yes")
    assert info.value.field == "tls"
    with pytest.raises(IllegalArgumentError) as info:
        as_http(3)
    assert info.value.field == "http"


@pytest.mark.parametrize("kind", [ThriftBackend, Thrift2Backend])
def test_framed_over_http_is_refused_by_the_backends(
    kind: type[ThriftBackend] | type[Thrift2Backend],
) -> None:
    with pytest.raises(IllegalArgumentError, match="framed") as info:
        kind("localhost", 9090, http=True, transport="framed", autoconnect=False)
    assert info.value.field == "transport"


@pytest.mark.parametrize("kind", [ThriftBackend, Thrift2Backend])
def test_a_backend_made_from_a_url_says_where_it_goes(
    kind: type[ThriftBackend] | type[Thrift2Backend],
) -> None:
    backend = kind.from_url("https://gw:8443/gateway/default/hbase", autoconnect=False)
    assert backend.url == "https://gw:8443/gateway/default/hbase"
    assert (backend.host, backend.port) == ("gw", 8443)
    assert repr(backend) == f"{kind.__name__}.from_url('https://gw:8443/gateway/default/hbase')"
    plain = kind("h", 9090, autoconnect=False)
    assert plain.url == "thrift://h:9090"
    assert repr(plain) == f"{kind.__name__}('h', 9090)"


def test_a_socket_wrapper_gets_the_open_socket_transport_and_carries_the_calls() -> None:
    """The hook a SASL transport uses: it wraps the socket before Thrift's transport."""
    from thriftpy2.transport import TSocket

    from hmodel.backend.connection import Connector
    from hmodel.backend.thrift.idl import Hbase
    from hmodel.testing.fake import FakeHBaseServer

    wrapped: list[object] = []

    def wrap(transport: object) -> object:
        wrapped.append(transport)
        return transport

    with FakeHBaseServer() as server:
        endpoint = Endpoint(server.host, server.port, wrap_socket=wrap)
        connection = Connector(endpoint, Hbase, decode_response=False).open()
        try:
            assert connection.client.getTableNames() == []
        finally:
            connection.close()
    assert len(wrapped) == 1
    assert isinstance(wrapped[0], TSocket)
