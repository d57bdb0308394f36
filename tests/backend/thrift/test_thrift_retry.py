"""Dropped connections: idempotent requests are retried, the others report an unknown outcome.

Connections are cut by a small TCP proxy the tests control (or by stopping the server),
never by patching hmodel; the backoff pauses are recorded by an injected ``sleep``.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator

import pytest

from hmodel.backend.base import Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift import ThriftBackend
from hmodel.errors import ConnectionLostError
from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer

_COUNTER = (b"c", b"f:n")


class CuttingProxy:
    """A loopback TCP proxy to ``upstream`` whose connections the test can cut.

    :meth:`cut` drops every open connection (both directions); :meth:`refuse` stops
    listening so new connections are refused; :meth:`listen` listens again on the same
    port. Every thread is a daemon and :meth:`close` ends them all.
    """

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = 0
        self._listener: socket.socket | None = None
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._lock = threading.Lock()
        self.listen()

    def listen(self) -> None:
        """Accept connections (again) on the proxy's port."""
        listener = socket.create_server(("127.0.0.1", self.port))
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # the listener was closed
            upstream = socket.create_connection(self.upstream)
            with self._lock:
                self._pairs.append((client, upstream))
            for source, target in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65_536):
                target.sendall(data)
        for end in (source, target):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        """Drop every connection open through the proxy."""
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for pair in pairs:
            for end in pair:
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
                end.close()

    def refuse(self) -> None:
        """Stop listening: new connections are refused until :meth:`listen`."""
        if self._listener is not None:
            # shutdown() wakes the thread blocked in accept(); close() alone would not.
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None

    def close(self) -> None:
        """Stop listening and drop every connection."""
        self.refuse()
        self.cut()


@pytest.fixture
def proxy(server: FakeHBaseServer) -> Iterator[CuttingProxy]:
    """A cutting proxy in front of the module's server."""
    cutting = CuttingProxy(server.address)
    try:
        yield cutting
    finally:
        cutting.close()


class Pauses:
    """The injected ``sleep``: records each pause and runs an optional action on the first."""

    def __init__(self) -> None:
        self.seconds: list[float] = []
        self.on_first: Callable[[], None] | None = None

    def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)
        if self.on_first is not None:
            action, self.on_first = self.on_first, None
            action()


@pytest.fixture
def pauses() -> Pauses:
    """A fresh pause recorder."""
    return Pauses()


@pytest.fixture
def through(
    proxy: CuttingProxy, pauses: Pauses, thrift: ThriftBackend, table: str
) -> Iterator[ThriftBackend]:
    """A backend with one pooled connection, through the proxy, to a table holding ``r``."""
    thrift.mutate(table, [Put(b"r", b"f:q", b"v", timestamp=1)])
    backend = ThriftBackend(
        "127.0.0.1",
        proxy.port,
        pool_size=1,
        retries=3,
        retry_backoff_ms=10,
        sleep=pauses,
        retry_jitter=lambda: 1.0,
    )
    try:
        yield backend
    finally:
        backend.close()


def _counter(server: FakeHBaseServer) -> bytes | None:
    results = server.backend.get("t", [_COUNTER[0]])
    return results[0].value(_COUNTER[1]) if results else None


def test_a_read_is_retried_on_a_new_connection_after_a_drop(
    proxy: CuttingProxy, pauses: Pauses, through: ThriftBackend
) -> None:
    assert through.get("t", [b"r"])[0].value(b"f:q") == b"v"
    proxy.cut()
    before = through.round_trips
    assert through.get("t", [b"r"])[0].value(b"f:q") == b"v"
    assert through.round_trips == before + 2  # the lost attempt and the retry
    assert pauses.seconds == [0.01]


def test_a_put_is_retried_after_a_drop(
    server: FakeHBaseServer, proxy: CuttingProxy, through: ThriftBackend
) -> None:
    through.list_tables()
    proxy.cut()
    through.mutate("t", [Put(b"p", b"f:q", b"written", timestamp=3)])
    assert server.backend.get("t", [b"p"])[0].value(b"f:q") == b"written"


@pytest.mark.parametrize(
    "call",
    [
        lambda b: b.increment("t", *_COUNTER),
        lambda b: b.append("t", b"c", {b"f:n": b"x"}),
        lambda b: b.check_and_put("t", b"c", b"f:n", None, Put(b"c", b"f:n", b"x")),
    ],
    ids=["increment", "append", "check_and_put"],
)
def test_a_sent_non_idempotent_request_is_not_retried_and_says_the_outcome_is_unknown(
    server: FakeHBaseServer,
    proxy: CuttingProxy,
    pauses: Pauses,
    through: ThriftBackend,
    call: Callable[[ThriftBackend], object],
) -> None:
    through.list_tables()
    proxy.cut()
    before = through.round_trips
    with pytest.raises(ConnectionLostError, match="may or may not have been applied") as info:
        call(through)
    assert info.value.table == "t"
    assert isinstance(info.value.__cause__, Exception)
    assert through.round_trips == before + 1
    assert pauses.seconds == []
    assert _counter(server) is None  # here the proxy cut it before the server saw it


def test_a_request_that_never_left_is_retried_even_when_not_idempotent(
    server: FakeHBaseServer, proxy: CuttingProxy, pauses: Pauses, table: str
) -> None:
    proxy.refuse()
    pauses.on_first = proxy.listen
    lazy = ThriftBackend(
        "127.0.0.1",
        proxy.port,
        autoconnect=False,
        retry_backoff_ms=10,
        sleep=pauses,
        retry_jitter=lambda: 1.0,
    )
    try:
        assert lazy.increment(table, *_COUNTER) == 1
        assert lazy.round_trips == 1  # the refused connect sent nothing
        assert pauses.seconds == [0.01]
    finally:
        lazy.close()


def test_retries_are_bounded_with_exponential_backoff(
    proxy: CuttingProxy, pauses: Pauses, through: ThriftBackend
) -> None:
    through.list_tables()
    proxy.refuse()
    proxy.cut()
    with pytest.raises(ConnectionLostError, match="after 4 attempt") as info:
        through.get("t", [b"r"])
    assert pauses.seconds == [0.01, 0.02, 0.04]
    assert info.value.table == "t"


def test_a_scan_resumes_after_its_last_row_when_dropped_between_batches(
    proxy: CuttingProxy, through: ThriftBackend
) -> None:
    through.mutate("t", [Put(b"s%d" % i, b"f:q", b"x", timestamp=1) for i in range(7)])
    for reverse in (False, True):
        expected = [b"s%d" % i for i in range(7)]
        expected = expected[::-1] if reverse else expected
        scanning = through.scan("t", Scan(start=b"s", stop=b"t", batch_size=2, reverse=reverse))
        seen = [next(scanning).row for _ in range(3)]
        proxy.cut()
        seen += [result.row for result in scanning]
        assert seen == expected


def test_idempotent_requests_survive_a_server_restart(table: str) -> None:
    engine = MemoryBackend()
    engine.create_table(Table("t", [Family("f")]))
    first = FakeHBaseServer(engine).start()
    replacement: list[FakeHBaseServer] = []
    pauses = Pauses()
    pauses.on_first = lambda: replacement.append(FakeHBaseServer(engine, port=first.port).start())
    backend = ThriftBackend(
        first.host, first.port, retry_backoff_ms=10, sleep=pauses, retry_jitter=lambda: 1.0
    )
    try:
        backend.mutate("t", [Put(b"r", b"f:q", b"v", timestamp=1)])
        first.stop()
        assert backend.get("t", [b"r"])[0].value(b"f:q") == b"v"
        assert pauses.seconds == [0.01]
    finally:
        backend.close()
        for server in replacement:
            server.stop()
