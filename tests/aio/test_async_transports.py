"""The asyncio Thrift backends over TLS, HTTP and HTTPS: each failure the sync one's typed error.

The same servers and scripted gateway as tests/backend/test_transport_failures.py (the
gateway answers chosen statuses, then forwards to the fake HTTP server); each asyncio
backend is checked with a data call, its pauses between retries recorded by an
injected ``sleep``.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest
from thriftpy2.transport import TTransportException

from hmodel.aio import AsyncBackend, AsyncThrift2Backend, AsyncThriftBackend
from hmodel.backend.base import Put
from hmodel.backend.endpoint import HTTP, TLS
from hmodel.backend.sasl import Plain
from hmodel.errors import (
    AuthenticationError,
    ConnectionLostError,
    HTTPStatusError,
    IllegalArgumentError,
    OutcomeUnknownError,
    TLSError,
)
from hmodel.schema import Family, Table
from hmodel.testing.certs import Certificates, find_openssl, make_certificates
from hmodel.testing.fake import FakeHBaseServer
from hmodel.testing.fake.http_server import HTTPServing
from tests.backend.test_transport_failures import Gateway, _page

pytestmark = pytest.mark.skipif(find_openssl() is None, reason="no openssl for test certificates")

KINDS: dict[str, Any] = {"thrift": AsyncThriftBackend, "thrift2": AsyncThrift2Backend}
T = TypeVar("T")


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    """A throwaway CA with a loopback server certificate and a client certificate."""
    return make_certificates(tmp_path_factory.mktemp("certs"))


def _port(server: FakeHBaseServer, kind: str) -> int:
    return server.port if kind == "thrift" else server.thrift2_server.port  # type: ignore[union-attr]


def _serve(server: FakeHBaseServer) -> FakeHBaseServer:
    server.backend.create_table(Table("t", [Family("f")]))
    return server


class Pauses(list[float]):
    """The injected ``sleep``: records each pause, never waits."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def _backend(kind: str, host: str, port: int, **options: Any) -> AsyncBackend:
    options.setdefault("retry_backoff_ms", 10)
    backend: AsyncBackend = KINDS[kind](host, port, retry_jitter=lambda: 1.0, **options)
    return backend


def run(backend: AsyncBackend, call: Callable[[AsyncBackend], Awaitable[T]]) -> T:
    """``call(backend)`` on a fresh event loop; the backend closed afterwards."""

    async def main() -> T:
        async with backend:
            return await call(backend)

    return asyncio.run(main())


def _get(backend: AsyncBackend) -> Awaitable[list[Any]]:
    return backend.get("t", [b"r"])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("http", [False, True], ids=["tls", "https"])
def test_an_untrusted_certificate_is_a_tls_error_at_once_naming_the_address(
    certs: Certificates, kind: str, http: bool
) -> None:
    pauses = Pauses()
    with FakeHBaseServer(thrift2_port=0, tls=certs.server_context(), http=http) as server:
        port = _port(server, kind)
        backend = _backend(kind, server.host, port, tls=TLS(), http=http, sleep=pauses)
        with pytest.raises(TLSError, match="not accepted") as info:
            run(backend, _get)
    assert f"127.0.0.1:{port}" in str(info.value)
    assert "ca_file" in str(info.value)
    assert isinstance(info.value.__cause__, ssl.SSLCertVerificationError)
    assert pauses == []  # not retried


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("http", [False, True], ids=["tls", "https"])
def test_the_servers_name_is_checked_and_can_be_given(
    certs: Certificates, kind: str, http: bool
) -> None:
    with _serve(FakeHBaseServer(thrift2_port=0, tls=certs.server_context(), http=http)) as server:
        port = _port(server, kind)
        other = _backend(
            kind, "127.0.0.1", port, http=http, tls=certs.client_tls(server_hostname="db.example")
        )
        with pytest.raises(TLSError, match="server_hostname"):
            run(other, _get)
        named = certs.client_tls(server_hostname="localhost")
        assert run(_backend(kind, "127.0.0.1", port, http=http, tls=named), _get) == []
        by_name = _backend(kind, "localhost", port, http=http, tls=certs.client_tls())
        assert run(by_name, _get) == []
        unverified = _backend(kind, "127.0.0.1", port, http=http, tls=TLS(verify=False))
        assert run(unverified, _get) == []


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("http", [False, True], ids=["tls", "https"])
def test_a_server_requiring_a_client_certificate_gets_one_or_refuses(
    certs: Certificates, kind: str, http: bool
) -> None:
    context = certs.server_context(require_client_cert=True)
    # TLS 1.2: the refusal comes in the handshake. With 1.3 it is an alert after the
    # client's first write, which a reset of that write may overtake (a race, not tested).
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    pauses = Pauses()
    with _serve(FakeHBaseServer(thrift2_port=0, tls=context, http=http)) as server:
        port = _port(server, kind)
        anonymous = _backend(
            kind, server.host, port, http=http, tls=certs.client_tls(), sleep=pauses
        )
        with pytest.raises(TLSError, match="client's certificate"):
            run(anonymous, _get)
        assert pauses == []  # a refusal, not a dropped connection
        mutual = certs.client_tls(client_cert=True)
        assert run(_backend(kind, server.host, port, http=http, tls=mutual), _get) == []


# --- HTTP: a gateway's answers --------------------------------------------------------


@pytest.fixture(scope="module")
def http_server() -> Iterator[FakeHBaseServer]:
    """A fake server over plain HTTP (Thrift1, and Thrift2 on its own port), table ``t``."""
    with _serve(FakeHBaseServer(thrift2_port=0, http=True)) as server:
        yield server


class Gateways:
    """Scripted gateways in front of the fake HTTP server, and asyncio backends through them."""

    def __init__(self, server: FakeHBaseServer) -> None:
        self.server = server
        self.pauses = Pauses()
        self._opened: list[Gateway] = []

    def __call__(
        self, kind: str, *script: tuple[int, str, bytes], close_each: bool = False, **options: Any
    ) -> tuple[Gateway, AsyncBackend]:
        """A gateway answering ``script`` first, and a ``kind`` asyncio backend through it."""
        gateway = Gateway(
            (self.server.host, _port(self.server, kind)), script=list(script), close_each=close_each
        )
        self._opened.append(gateway)
        options.setdefault("retries", 2)
        backend = _backend(kind, "127.0.0.1", gateway.port, http=True, sleep=self.pauses, **options)
        return gateway, backend

    def close(self) -> None:
        for gateway in self._opened:
            gateway.close()


@pytest.fixture
def through(http_server: FakeHBaseServer) -> Iterator[Gateways]:
    """Scripted gateways in front of the module's fake HTTP server."""
    gateways = Gateways(http_server)
    try:
        yield gateways
    finally:
        gateways.close()


@pytest.mark.parametrize("kind", KINDS)
def test_a_5xx_is_retried_like_a_failed_connection(through: Gateways, kind: str) -> None:
    _, backend = through(kind, _page(503))
    assert run(backend, _get) == []
    assert backend.round_trips == 2  # the 503 and the retry
    assert through.pauses == [0.01]


@pytest.mark.parametrize("kind", KINDS)
def test_a_5xx_to_a_write_that_is_not_idempotent_says_the_outcome_is_unknown(
    through: Gateways, kind: str
) -> None:
    _, backend = through(kind, _page(502))
    with pytest.raises(OutcomeUnknownError, match="HTTP 502") as info:
        run(backend, lambda b: b.increment("t", b"c", b"f:n"))
    assert info.value.table == "t"
    assert "Error 502 here" in str(info.value)
    assert backend.round_trips == 1
    assert through.pauses == []


@pytest.mark.parametrize("kind", KINDS)
def test_5xx_past_the_retries_is_a_lost_connection_naming_the_url(
    through: Gateways, kind: str
) -> None:
    gateway, backend = through(kind, _page(500), _page(502), _page(504))
    with pytest.raises(ConnectionLostError, match="after 3 attempt") as info:
        run(backend, _get)
    assert f"http://127.0.0.1:{gateway.port}/" in str(info.value)
    assert "HTTP 504" in str(info.value)
    assert through.pauses == [0.01, 0.02]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("status", [401, 403, 407])
def test_refused_credentials_are_an_authentication_error_not_retried(
    through: Gateways, kind: str, status: int
) -> None:
    _, backend = through(kind, _page(status))

    async def twice(b: AsyncBackend) -> list[Any]:
        with pytest.raises(AuthenticationError, match=f"HTTP {status}"):
            await _get(b)
        assert b.round_trips == 1
        return await _get(b)  # the backend goes on (the script is spent)

    assert run(backend, twice) == []
    assert through.pauses == []


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
        run(backend, _get)
    assert info.value.status == status
    assert info.value.url == f"http://127.0.0.1:{gateway.port}/"
    assert through.pauses == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_connection_dropped_without_an_answer_is_retried(through: Gateways, kind: str) -> None:
    _, backend = through(kind, (0, "", b""))
    assert run(backend, _get) == []
    assert backend.round_trips == 2
    assert through.pauses == [0.01]


@pytest.mark.parametrize("kind", KINDS)
def test_calls_share_one_kept_alive_connection(through: Gateways, kind: str) -> None:
    gateway, backend = through(kind, pool_size=1)

    async def calls(b: AsyncBackend) -> int:
        for i in range(5):
            await b.mutate("t", [Put(b"k%d" % i, b"f:q", b"v", timestamp=1)])
        return len(await b.get("t", [b"k%d" % i for i in range(5)]))

    assert run(backend, calls) == 5
    assert gateway.accepted == 1
    assert backend.round_trips == 6


@pytest.mark.parametrize("kind", KINDS)
def test_a_server_closing_after_each_answer_costs_a_reconnection_not_a_retry(
    through: Gateways, kind: str
) -> None:
    gateway, backend = through(kind, close_each=True, pool_size=1)

    async def calls(b: AsyncBackend) -> list[int]:
        return [await b.increment("t", b"c2", b"f:n") for _ in range(3)]

    assert all(n > 0 for n in run(backend, calls))
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
    backend = _backend(kind, http_server.host, _port(http_server, kind), http=True, sleep=pauses)

    async def calls(b: AsyncBackend) -> int:
        await _get(b)
        assert side.close_connections() == 1  # as an idle timeout would, the loop unaware
        return await b.increment("t", b"async-" + kind.encode(), b"f:n")

    assert run(backend, calls) == 1
    assert backend.round_trips == 2
    assert pauses == []


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("http", [False, True], ids=["tls", "https"])
def test_an_idle_tls_connection_the_server_closed_is_replaced_before_a_write(
    certs: Certificates, kind: str, http: bool
) -> None:
    pauses = Pauses()
    with _serve(FakeHBaseServer(thrift2_port=0, tls=certs.server_context(), http=http)) as server:
        side = server if kind == "thrift" else server.thrift2_server
        assert side is not None
        tls = certs.client_tls()
        backend = _backend(kind, server.host, _port(server, kind), http=http, tls=tls, sleep=pauses)

        async def calls(b: AsyncBackend) -> int:
            await _get(b)
            assert side.close_connections() == 1
            return await b.increment("t", b"n", b"f:n")

        assert run(backend, calls) == 1
    assert backend.round_trips == 2
    assert pauses == []


@pytest.mark.parametrize("kind", KINDS)
def test_an_idle_plain_connection_the_server_closed_is_replaced_before_a_write(kind: str) -> None:
    pauses = Pauses()
    with _serve(FakeHBaseServer(thrift2_port=0)) as server:
        side = server if kind == "thrift" else server.thrift2_server
        assert side is not None
        backend = _backend(kind, server.host, _port(server, kind), sleep=pauses)

        async def calls(b: AsyncBackend) -> int:
            await _get(b)
            assert side.close_connections() == 1  # the loop has not seen the end yet
            return await b.increment("t", b"n", b"f:n")

        assert run(backend, calls) == 1
    assert backend.round_trips == 2
    assert pauses == []  # noticed before the write: no retry, no pause


@pytest.mark.parametrize("kind", KINDS)
def test_plain_http_to_an_https_server_is_a_lost_connection_never_a_raw_http_error(
    certs: Certificates, kind: str
) -> None:
    with FakeHBaseServer(thrift2_port=0, tls=certs.server_context(), http=True) as server:
        backend = _backend(kind, server.host, _port(server, kind), http=True, retries=0)
        with pytest.raises(ConnectionLostError) as info:
            run(backend, _get)
    assert isinstance(info.value.__cause__, (TTransportException, OSError))


@pytest.mark.parametrize("kind", KINDS)
def test_a_gateway_path_and_basic_credentials(certs: Certificates, kind: str) -> None:
    serving = HTTPServing(path="/gateway/default/hbase", username="ann", password="s3cret")
    with _serve(
        FakeHBaseServer(thrift2_port=0, tls=certs.server_context(), http=serving)
    ) as server:
        port = _port(server, kind)
        base = f"https://127.0.0.1:{port}/gateway/default/hbase"
        tls = certs.client_tls()
        with_credentials = KINDS[kind].from_url(base.replace("//", "//ann:s3cret@"), tls=tls)
        assert with_credentials.url == base  # never the credentials
        assert run(with_credentials, _get) == []
        gateway = HTTP(path="/gateway/default/hbase", username="ann", password="s3cret")
        assert run(KINDS[kind]("127.0.0.1", port, tls=tls, http=gateway), _get) == []
        with pytest.raises(AuthenticationError, match="HTTP 401"):
            run(KINDS[kind].from_url(base, tls=tls), _get)


@pytest.mark.parametrize("kind", KINDS)
def test_sasl_is_refused_naming_it(kind: str) -> None:
    """SASL is not asynchronous yet: refused when the backend is made, never at a call."""
    with pytest.raises(IllegalArgumentError, match="SASL") as info:
        KINDS[kind]("127.0.0.1", 9090, sasl=Plain("ann", "s3cret"))
    assert info.value.field == "sasl"


@pytest.mark.parametrize("kind", KINDS)
def test_a_socket_wrapper_is_refused_naming_it(kind: str) -> None:
    from hmodel.backend.endpoint import Endpoint

    with pytest.raises(IllegalArgumentError, match="socket wrapper") as info:
        KINDS[kind].from_endpoint(Endpoint("127.0.0.1", 9090, wrap_socket=lambda s: s))
    assert info.value.field == "wrap_socket"
