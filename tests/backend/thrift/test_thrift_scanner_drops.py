"""Scanners over a network that drops chosen calls: nothing leaks, reads say they were reads.

The fake server's call hook drops a client's connection before or after a chosen call
runs (injected, no patching, no sleeps); the backend's pauses go to an injected ``sleep``.
"""

from __future__ import annotations

import logging

import pytest

from hmodel.backend.base import Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift import ThriftBackend
from hmodel.errors import ConnectionLostError, ReadInterruptedError
from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer
from hmodel.testing.fake.thrift1_processor import Drop

ROWS = [b"r%d" % i for i in range(7)]


class DropCalls:
    """A call hook dropping the connection at the given calls of one method (1-based)."""

    def __init__(self, method: str, calls: set[int] | None, how: Drop) -> None:
        self.method = method
        self.calls = calls  # None: every call
        self.how = how
        self.seen = 0

    def __call__(self, method: str) -> Drop | None:
        if method != self.method:
            return None
        self.seen += 1
        return self.how if self.calls is None or self.seen in self.calls else None


def _serve(hook: DropCalls) -> FakeHBaseServer:
    engine = MemoryBackend()
    engine.create_table(Table("t", [Family("f")]))
    engine.mutate("t", [Put(row, b"f:q", row, timestamp=1) for row in ROWS])
    return FakeHBaseServer(engine, hook=hook).start()


@pytest.fixture
def pauses() -> list[float]:
    return []


def _backend(server: FakeHBaseServer, pauses: list[float], *, retries: int) -> ThriftBackend:
    return ThriftBackend(
        server.host,
        server.port,
        retries=retries,
        retry_backoff_ms=1,
        sleep=pauses.append,
        retry_jitter=lambda: 1.0,
    )


@pytest.fixture(params=[Drop.BEFORE, Drop.AFTER], ids=["before", "after"])
def how(request: pytest.FixtureRequest) -> Drop:
    return request.param  # type: ignore[no-any-return]


def test_a_dropped_close_is_sent_again_and_leaks_no_scanner(
    how: Drop, pauses: list[float], caplog: pytest.LogCaptureFixture
) -> None:
    """Closing is idempotent: retried; a close that had already run answers an unknown id."""
    hook = DropCalls("scannerClose", {1}, how)
    server = _serve(hook)
    backend = _backend(server, pauses, retries=2)
    try:
        with caplog.at_level(logging.WARNING):
            assert [r.row for r in backend.scan("t", Scan(batch_size=3))] == ROWS
        assert hook.seen == 2  # the dropped close and its retry
        assert len(server.handler.scanners) == 0
        assert caplog.records == []  # an unknown id on the retry means: already closed
    finally:
        backend.close()
        server.stop()


def test_a_fetch_dropped_once_resumes_and_closes_the_abandoned_scanner(
    how: Drop, pauses: list[float]
) -> None:
    hook = DropCalls("scannerGetList", {2}, how)
    server = _serve(hook)
    backend = _backend(server, pauses, retries=1)
    try:
        for reverse in (False, True):
            hook.seen = 0
            rows = [r.row for r in backend.scan("t", Scan(batch_size=3, reverse=reverse))]
            assert rows == (ROWS[::-1] if reverse else ROWS)
            assert len(server.handler.scanners) == 0
    finally:
        backend.close()
        server.stop()


def test_a_fetch_dropped_past_the_retries_says_a_read_was_interrupted(
    how: Drop, pauses: list[float]
) -> None:
    """Not the "may or may not have been applied" of a lost write: a typed read error."""
    hook = DropCalls("scannerGetList", None, how)
    server = _serve(hook)
    backend = _backend(server, pauses, retries=2)
    try:
        scanning = backend.scan("t", Scan(batch_size=3))
        with pytest.raises(ReadInterruptedError, match="interrupted") as caught:
            next(scanning)
        message = str(caught.value)
        assert "nothing was written" in message
        assert "may or may not have been applied" not in message
        assert isinstance(caught.value, ConnectionLostError)
        assert caught.value.table == "t"
        assert hook.seen == 3  # the first fetch and one per reopening, never re-sent
        assert len(server.handler.scanners) == 0  # every abandoned scanner was closed
        assert list(scanning) == []
    finally:
        backend.close()
        server.stop()


def test_an_abandoned_scanner_expires_on_the_server(pauses: list[float]) -> None:
    """A client that never closes (its process died): the lease frees the scanner."""
    from hmodel.clock import ManualClock

    clock = ManualClock(0)
    engine = MemoryBackend(clock=clock)
    engine.create_table(Table("t", [Family("f")]))
    engine.mutate("t", [Put(row, b"f:q", row, timestamp=1) for row in ROWS])
    hook = DropCalls("scannerClose", None, Drop.BEFORE)  # every close is lost
    server = FakeHBaseServer(engine, hook=hook).start()
    backend = _backend(server, pauses, retries=1)
    try:
        assert [r.row for r in backend.scan("t", Scan(batch_size=3))] == ROWS
        assert len(server.handler.scanners) == 1
        clock.advance(120_000)
        assert len(server.handler.scanners) == 0
    finally:
        backend.close()
        server.stop()


def test_a_scan_slower_than_the_server_lease_reopens_past_its_last_row(
    pauses: list[float],
) -> None:
    """The server expired the scanner between two fetches: the scan goes on where it was."""
    from hmodel.clock import ManualClock

    clock = ManualClock(0)
    engine = MemoryBackend(clock=clock)
    engine.create_table(Table("t", [Family("f")]))
    engine.mutate("t", [Put(row, b"f:q", row, timestamp=1) for row in ROWS])
    server = FakeHBaseServer(engine, scanner_lease_ms=1_000).start()
    backend = _backend(server, pauses, retries=0)
    try:
        for reverse in (False, True):
            scanning = backend.scan("t", Scan(batch_size=2, reverse=reverse))
            seen = [next(scanning).row for _ in range(2)]
            clock.advance(1_000)  # the caller was slow: the server's lease ran out
            seen += [r.row for r in scanning]
            assert seen == (ROWS[::-1] if reverse else ROWS)
            assert len(server.handler.scanners) == 0
        assert pauses == []
    finally:
        backend.close()
        server.stop()
