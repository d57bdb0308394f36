"""Dropped connections: idempotent Thrift2 calls are retried, the others report an unknown outcome.

Connections are dropped by a small loopback server the tests control, never by patching
hmodel; the backoff pauses are recorded by an injected ``sleep``.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import pytest

from hmodel.backend.base import Put
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import ConnectionLostError, IllegalArgumentError
from hmodel.testing import FakeHBaseServer


class DroppingProxy:
    """Forwards to ``upstream``, but drops the first ``drops`` connections after their request.

    A dropped connection reads the request (so the call has left the client) and closes.
    """

    def __init__(self, upstream: tuple[str, int], drops: int) -> None:
        self.upstream = upstream
        self.drops = drops
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._sockets: list[socket.socket] = []
        self._accepted = threading.Condition()
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            self._sockets.append(client)
            if self.drops > 0:
                self.drops -= 1
                threading.Thread(target=self._drop, args=(client,), daemon=True).start()
                continue
            upstream = socket.create_connection(self.upstream)
            self._sockets.append(upstream)
            for source, target in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()
            with self._accepted:
                self.accepted += 1
                self._accepted.notify_all()

    def wait_accepted(self, count: int) -> None:
        """Block until ``count`` connections are forwarded."""
        with self._accepted:
            assert self._accepted.wait_for(lambda: self.accepted >= count, timeout=30)

    @staticmethod
    def _drop(client: socket.socket) -> None:
        with contextlib.suppress(OSError):
            client.recv(65_536)
            client.shutdown(socket.SHUT_RDWR)
        client.close()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65_536):
                target.sendall(data)
        for end in (source, target):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def sever(self) -> None:
        """Close every connection made so far, as a server does those idle past its timeout."""
        for end in self._sockets:
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()
        self._sockets.clear()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        for end in self._sockets:
            with contextlib.suppress(OSError):
                end.close()


@pytest.fixture
def upstream(server: FakeHBaseServer, thrift2: Thrift2Backend, table: str) -> tuple[str, int]:
    """The module's Thrift2 port, with table ``t`` holding row ``r``."""
    thrift2.mutate(table, [Put(b"r", b"f:q", b"v", timestamp=1)])
    assert server.thrift2_port is not None
    return server.host, server.thrift2_port


def _through(proxy: DroppingProxy, pauses: list[float]) -> Thrift2Backend:
    return Thrift2Backend(
        "127.0.0.1", proxy.port, pool_size=1, retries=3, retry_backoff_ms=10,
        sleep=pauses.append, autoconnect=False, retry_jitter=lambda: 1.0,
    )  # fmt: skip


@pytest.fixture
def proxies() -> Iterator[list[DroppingProxy]]:
    made: list[DroppingProxy] = []
    yield made
    for proxy in made:
        proxy.close()


def test_an_idempotent_read_is_retried_with_backoff(
    upstream: tuple[str, int], table: str, proxies: list[DroppingProxy]
) -> None:
    """Two dropped attempts, then an answer: pauses of 10 and 20 ms, every attempt counted."""
    proxies.append(proxy := DroppingProxy(upstream, drops=2))
    pauses: list[float] = []
    with _through(proxy, pauses) as backend:
        assert backend.get(table, [b"r"])[0].value(b"f:q") == b"v"
        assert pauses == [0.01, 0.02]
        assert backend.round_trips == 3


def test_the_retry_budget_ends_in_connection_lost(
    upstream: tuple[str, int], table: str, proxies: list[DroppingProxy]
) -> None:
    """Every attempt dropped: ConnectionLostError after 1 + retries attempts."""
    proxies.append(proxy := DroppingProxy(upstream, drops=100))
    pauses: list[float] = []
    with _through(proxy, pauses) as backend, pytest.raises(ConnectionLostError) as caught:
        backend.mutate(table, [Put(b"r", b"f:q", b"w", timestamp=2)])
    assert "after 4 attempt(s)" in caught.value.message
    assert pauses == [0.01, 0.02, 0.04]


def test_connections_the_server_closed_while_idle_cost_one_attempt_not_the_budget(
    upstream: tuple[str, int], table: str, proxies: list[DroppingProxy]
) -> None:
    """All pooled connections dead (a server's idle timeout): the retry opens a new one.

    HBase's Thrift servers close connections idle for 60 s; a pool of four then holds four
    dead ones, and retrying on the next idle one each time spent 1 + 3 attempts on them.
    The pool checks an idle connection before lending it, so usually no attempt is spent;
    when the server's close has not reached the client yet, one is, and no more.
    """
    proxies.append(proxy := DroppingProxy(upstream, drops=0))
    pauses: list[float] = []
    backend = Thrift2Backend(
        "127.0.0.1", proxy.port, pool_size=4, retries=3, retry_backoff_ms=10,
        sleep=pauses.append, autoconnect=False, retry_jitter=lambda: 1.0,
    )  # fmt: skip
    with backend:
        lent = [backend._channel._borrow() for _ in range(4)]
        for connection in lent:
            backend._channel._give_back(connection)  # four idle connections ...
        proxy.wait_accepted(4)
        proxy.sever()  # ... all closed by the server
        assert backend.get(table, [b"r"])[0].value(b"f:q") == b"v"
        assert pauses in ([], [0.01])  # at most one dead attempt, then a fresh connection


def test_a_dropped_increment_is_not_retried_and_says_so(
    upstream: tuple[str, int], table: str, proxies: list[DroppingProxy], server: FakeHBaseServer
) -> None:
    """A non-idempotent call that may have left: outcome unknown, never sent twice."""
    proxies.append(proxy := DroppingProxy(upstream, drops=1))
    pauses: list[float] = []
    with _through(proxy, pauses) as backend, pytest.raises(ConnectionLostError) as caught:
        backend.increment(table, b"c", b"f:n")
    assert "may or may not have been applied" in caught.value.message
    assert pauses == []
    assert server.backend.get(table, [b"c"]) == []


def test_an_unreachable_server_fails_at_construction() -> None:
    """autoconnect: the backend fails now, naming the address."""
    with socket.create_server(("127.0.0.1", 0)) as placeholder:
        port = placeholder.getsockname()[1]
    with pytest.raises(ConnectionLostError) as caught:
        Thrift2Backend("127.0.0.1", port, timeout_ms=500)
    assert f"127.0.0.1:{port}" in caught.value.message


def test_options_are_checked() -> None:
    """Bad options are refused before any connection."""
    for options in ({"transport": "http"}, {"protocol": "json"}, {"pool_size": 0}):
        with pytest.raises(IllegalArgumentError):
            Thrift2Backend("127.0.0.1", 1, autoconnect=False, **options)  # type: ignore[arg-type]
