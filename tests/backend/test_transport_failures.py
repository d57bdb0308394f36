"""TLS and HTTP(S) transports against the fake servers: each failure a typed, named error.

Both backends, over a socket in TLS (``tls``), HTTP and HTTPS. A scripted gateway in front
of the fake HTTP server answers chosen statuses (then forwards), as a gateway or a failing
server would; pauses between retries are recorded by an injected ``sleep``.
"""

from __future__ import annotations

import http.client
import http.server
import ssl
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from thriftpy2.transport import TTransportException

from hmodel.backend.base import Backend, Put
from hmodel.backend.connection import tls_refusal
from hmodel.backend.endpoint import HTTP, TLS
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import (
    AuthenticationError,
    ConnectionLostError,
    HTTPStatusError,
    OutcomeUnknownError,
    TLSError,
)
from hmodel.schema import Family, Table
from hmodel.testing.certs import Certificates, find_openssl, make_certificates
from hmodel.testing.fake import FakeHBaseServer
from hmodel.testing.fake.http_server import HTTPServing

pytestmark = pytest.mark.skipif(find_openssl() is None, reason="no openssl for test certificates")

KINDS = {"thrift": ThriftBackend, "thrift2": Thrift2Backend}


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    """A throwaway CA with a loopback server certificate and a client certificate."""
    return make_certificates(tmp_path_factory.mktemp("certs"))


def _port(server: FakeHBaseServer, kind: str) -> int:
    return server.port if kind == "thrift" else server.thrift2_server.port  # type: ignore[union-attr]


class Pauses(list[float]):
    """The injected ``sleep``: records each pause."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def _backend(kind: str, host: str, port: int, **options: Any) -> Backend:
    options.setdefault("retry_backoff_ms", 10)
    backend: Backend = KINDS[kind](host, port, retry_jitter=lambda: 1.0, **options)
    return backend


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("http", [False, True], ids=["tls", "https"])
def test_an_untrusted_certificate_is_a_tls_error_at_once_naming_the_address(
    certs: Certificates, kind: str, http: bool
) -> None:
    pauses = Pauses()
    with (
        FakeHBaseServer(thrift2_port=0, tls=certs.server_context(), http=http) as server,
        pytest.raises(TLSError, match="not accepted") as info,
    ):
        _backend(kind, server.host, _port(server, kind), tls=TLS(), http=http, sleep=pauses)
    assert f"127.0.0.1:{_port(server, kind)}" in str(info.value)
    assert "ca_file" in str(info.value)
    assert isinstance(info.value.__cause__, ssl.SSLCertVerificationError)
    assert pauses == []  # not retried


@pytest.mark.parametrize("kind", KINDS)
def test_a_certificate_for_another_name_is_refused_and_the_name_can_be_given(
    certs: Certificates, kind: str
) -> None:
    with FakeHBaseServer(thrift2_port=0, tls=certs.server_context(), http=True) as server:
        port = _port(server, kind)
        with pytest.raises(TLSError, match="server_hostname"):
            _backend(
                kind,
                "127.0.0.1",
                port,
                http=True,
                tls=certs.client_tls(server_hostname="db.example"),
            )
        with _backend(
            kind, "127.0.0.1", port, http=True, tls=certs.client_tls(server_hostname="localhost")
        ) as named:
            assert named.list_tables() == []
        with _backend(kind, "localhost", port, http=True, tls=certs.client_tls()) as by_name:
            assert by_name.list_tables() == []


@pytest.mark.parametrize("kind", KINDS)
def test_verification_can_be_turned_off_for_a_throwaway_server(
    certs: Certificates, kind: str
) -> None:
    with (
        FakeHBaseServer(thrift2_port=0, tls=certs.server_context()) as server,
        _backend(kind, server.host, _port(server, kind), tls=TLS(verify=False)) as backend,
    ):
        assert backend.list_tables() == []


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("http", [False, True], ids=["tls", "https"])
def test_a_server_requiring_a_client_certificate_gets_one_or_refuses(
    certs: Certificates, kind: str, http: bool
) -> None:
    context = certs.server_context(require_client_cert=True)
    # TLS 1.2: the refusal comes in the handshake (with 1.3 at the first read: tls_refusal).
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    with FakeHBaseServer(thrift2_port=0, tls=context, http=http) as server:
        port = _port(server, kind)
        with pytest.raises(TLSError, match="client's certificate"):
            _backend(kind, server.host, port, http=http, tls=certs.client_tls())
        with _backend(
            kind, server.host, port, http=http, tls=certs.client_tls(client_cert=True)
        ) as mutual:
            assert mutual.list_tables() == []


def test_a_tls_alert_during_a_call_is_a_tls_error_and_an_end_of_stream_is_not() -> None:
    alert = ssl.SSLError(1, "[SSL: TLSV13_ALERT_CERTIFICATE_REQUIRED] alert (_ssl.c:2580)")
    refused = tls_refusal(alert, "https://h:1/")
    assert isinstance(refused, TLSError)
    assert "client certificate" in str(refused)
    assert tls_refusal(ssl.SSLEOFError(8, "EOF occurred"), "h:1") is None
    assert tls_refusal(ConnectionResetError(), "h:1") is None


# --- HTTP: a gateway's answers --------------------------------------------------------


class Gateway(http.server.ThreadingHTTPServer):
    """Answers the statuses of ``script`` in turn, then forwards calls to ``upstream``.

    Counts the TCP connections it accepted; ``close_each`` answers every call with
    ``Connection: close``.
    """

    daemon_threads = True

    def __init__(
        self,
        upstream: tuple[str, int],
        *,
        script: list[tuple[int, str, bytes]] | None = None,
        close_each: bool = False,
    ) -> None:
        self.upstream = upstream
        self.script = list(script or [])
        self.close_each = close_each
        self.accepted = 0
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _GatewayHandler)
        threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def get_request(self) -> tuple[Any, Any]:
        with self.lock:
            self.accepted += 1
        return super().get_request()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def close(self) -> None:
        self.shutdown()
        self.server_close()


class _GatewayHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Gateway

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with self.server.lock:
            scripted = self.server.script.pop(0) if self.server.script else None
        if scripted is not None:
            status, kind, payload = scripted
            if status == 0:  # drop the connection without an answer
                self.close_connection = True
                return
            self._answer(status, kind, payload)
            return
        upstream = http.client.HTTPConnection(*self.server.upstream)
        upstream.request("POST", "/", body, {"Content-Type": "application/x-thrift"})
        answer = upstream.getresponse()
        self._answer(answer.status, answer.getheader("Content-Type") or "", answer.read())
        upstream.close()

    def _answer(self, status: int, kind: str, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        if status == 302:
            self.send_header("Location", "https://login.example/")
        if self.server.close_each:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture(scope="module")
def http_server() -> Iterator[FakeHBaseServer]:
    """A fake server over plain HTTP (Thrift1, and Thrift2 on its own port), table ``t``."""
    with FakeHBaseServer(thrift2_port=0, http=True) as server:
        server.backend.create_table(Table("t", [Family("f")]))
        yield server


class Gateways:
    """Makes scripted gateways in front of the fake HTTP server, and backends through them."""

    def __init__(self, server: FakeHBaseServer) -> None:
        self.server = server
        self.pauses = Pauses()
        self._opened: list[Gateway | Backend] = []

    def __call__(
        self,
        kind: str,
        *script: tuple[int, str, bytes],
        close_each: bool = False,
        **options: Any,
    ) -> tuple[Gateway, Backend]:
        """A gateway answering ``script`` first, and a ``kind`` backend through it."""
        gateway = Gateway(
            (self.server.host, _port(self.server, kind)), script=list(script), close_each=close_each
        )
        self._opened.append(gateway)
        backend = KINDS[kind](
            "127.0.0.1",
            gateway.port,
            http=options.pop("http", True),
            retries=options.pop("retries", 2),
            retry_backoff_ms=10,
            retry_jitter=lambda: 1.0,
            sleep=self.pauses,
            **options,
        )
        self._opened.append(backend)
        return gateway, backend

    def close(self) -> None:
        for opened in reversed(self._opened):
            opened.close()


@pytest.fixture
def through(http_server: FakeHBaseServer) -> Iterator[Gateways]:
    """Scripted gateways in front of the module's fake HTTP server."""
    gateways = Gateways(http_server)
    try:
        yield gateways
    finally:
        gateways.close()


def _page(status: int, kind: str = "text/html") -> tuple[int, str, bytes]:
    return status, kind, f"<html><title>Error {status} here</title><p>x</p></html>".encode()


@pytest.mark.parametrize("kind", KINDS)
def test_a_5xx_is_retried_like_a_failed_connection(through: Gateways, kind: str) -> None:
    _, backend = through(kind, _page(503))
    assert backend.list_tables() == ["t"]
    assert backend.round_trips == 2  # the 503 and the retry
    assert through.pauses == [0.01]


@pytest.mark.parametrize("kind", KINDS)
def test_a_5xx_to_a_write_that_is_not_idempotent_says_the_outcome_is_unknown(
    through: Gateways, kind: str
) -> None:
    _, backend = through(kind, _page(502))
    with pytest.raises(OutcomeUnknownError, match="HTTP 502") as info:
        backend.increment("t", b"c", b"f:n")
    assert info.value.table == "t"
    assert "Error 502 here" in str(info.value)  # the page's title, quoted
    assert backend.round_trips == 1
    assert through.pauses == []


@pytest.mark.parametrize("kind", KINDS)
def test_5xx_past_the_retries_is_a_lost_connection_naming_the_url(
    through: Gateways, kind: str
) -> None:
    gateway, backend = through(kind, _page(500), _page(502), _page(504))
    with pytest.raises(ConnectionLostError, match="after 3 attempt") as info:
        backend.get("t", [b"r"])
    assert f"http://127.0.0.1:{gateway.port}/" in str(info.value)
    assert "HTTP 504" in str(info.value)
    assert through.pauses == [0.01, 0.02]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("status", [401, 403, 407])
def test_refused_credentials_are_an_authentication_error_not_retried(
    through: Gateways, kind: str, status: int
) -> None:
    _, backend = through(kind, _page(status))
    with pytest.raises(AuthenticationError, match=f"HTTP {status}"):
        backend.list_tables()
    assert backend.round_trips == 1
    assert through.pauses == []
    assert backend.list_tables() == ["t"]  # the backend goes on (the script is spent)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("answer", "status"),
    [(_page(404), 404), (_page(302), 302), (_page(200), 200)],
    ids=["not-found", "redirect", "html-page"],
)
def test_an_answer_that_is_not_thrift_is_an_http_status_error_naming_the_url(
    through: Gateways, kind: str, answer: tuple[int, str, bytes], status: int
) -> None:
    gateway, backend = through(kind, answer)
    with pytest.raises(HTTPStatusError) as info:
        backend.list_tables()
    assert info.value.status == status
    assert info.value.url == f"http://127.0.0.1:{gateway.port}/"
    assert through.pauses == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_connection_dropped_without_an_answer_is_retried(through: Gateways, kind: str) -> None:
    _, backend = through(kind, (0, "", b""))
    assert backend.list_tables() == ["t"]
    assert backend.round_trips == 2
    assert through.pauses == [0.01]


@pytest.mark.parametrize("kind", KINDS)
def test_calls_share_one_kept_alive_connection(through: Gateways, kind: str) -> None:
    gateway, backend = through(kind, pool_size=1)
    for i in range(5):
        backend.mutate("t", [Put(b"k%d" % i, b"f:q", b"v", timestamp=1)])
    assert len(backend.get("t", [b"k%d" % i for i in range(5)])) == 5
    assert gateway.accepted == 1
    assert backend.round_trips == 6


@pytest.mark.parametrize("kind", KINDS)
def test_a_server_closing_after_each_answer_costs_a_reconnection_not_a_retry(
    through: Gateways, kind: str
) -> None:
    gateway, backend = through(kind, close_each=True, pool_size=1)
    for _ in range(3):
        assert backend.increment("t", b"c2", b"f:n") > 0
    assert gateway.accepted == 3
    assert backend.round_trips == 3
    assert through.pauses == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_kept_alive_connection_the_server_closed_is_replaced_before_a_write(
    http_server: FakeHBaseServer, kind: str
) -> None:
    pauses = Pauses()
    side = http_server if kind == "thrift" else http_server.thrift2_server
    assert side is not None
    with _backend(
        kind, http_server.host, _port(http_server, kind), http=True, sleep=pauses
    ) as backend:
        backend.list_tables()
        assert side.close_connections() == 1  # as an idle timeout would
        assert backend.increment("t", kind.encode(), b"f:n") == 1  # one row per kind
        assert backend.round_trips == 2
        assert pauses == []


@pytest.mark.parametrize("kind", KINDS)
def test_plain_http_to_an_https_server_is_a_lost_connection_never_a_raw_http_error(
    certs: Certificates, kind: str
) -> None:
    with FakeHBaseServer(thrift2_port=0, tls=certs.server_context(), http=True) as server:
        backend = _backend(kind, server.host, _port(server, kind), http=True, retries=0)
        with backend, pytest.raises(ConnectionLostError) as info:
            backend.list_tables()
    # The server hung up (during the request or before the answer): no http.client error.
    assert isinstance(info.value.__cause__, (TTransportException, OSError))


@pytest.mark.parametrize("kind", KINDS)
def test_a_gateway_path_and_basic_credentials(certs: Certificates, kind: str) -> None:
    serving = HTTPServing(path="/gateway/default/hbase", username="ann", password="s3cret")
    with FakeHBaseServer(thrift2_port=0, tls=certs.server_context(), http=serving) as server:
        port = _port(server, kind)
        base = f"https://127.0.0.1:{port}/gateway/default/hbase"
        tls = certs.client_tls()
        with KINDS[kind].from_url(base.replace("//", "//ann:s3cret@"), tls=tls) as backend:
            assert backend.list_tables() == []
        gateway = HTTP(path="/gateway/default/hbase", username="ann", password="s3cret")
        with KINDS[kind]("127.0.0.1", port, tls=tls, http=gateway) as backend:
            assert backend.list_tables() == []
        with (
            KINDS[kind].from_url(base, tls=tls) as anonymous,
            pytest.raises(AuthenticationError, match="HTTP 401"),
        ):
            anonymous.list_tables()
        with (
            KINDS[kind].from_url(base.replace("//", "//ann:wrong@"), tls=tls) as wrong,
            pytest.raises(AuthenticationError, match="HTTP 403"),
        ):
            wrong.list_tables()
        with KINDS[kind].from_url(base.replace("default", "other"), tls=tls) as lost:
            with pytest.raises(HTTPStatusError, match="404") as info:
                lost.list_tables()
            assert info.value.url == base.replace("default", "other")


def test_a_call_hook_drops_an_http_connection_after_the_call_ran() -> None:
    """Drop.AFTER over HTTP: the increment was applied, the client cannot know."""
    from hmodel.testing.fake.thrift1_processor import Drop

    def hook(api: str) -> Drop | None:
        return Drop.AFTER if api == "atomicIncrement" else None

    with FakeHBaseServer(http=True, hook=hook) as server:
        server.backend.create_table(Table("t", [Family("f")]))
        with _backend("thrift", server.host, server.port, http=True) as backend:
            with pytest.raises(OutcomeUnknownError):
                backend.increment("t", b"c", b"f:n")
            assert backend.get("t", [b"c"])[0].value(b"f:n") == (1).to_bytes(8, "big")
