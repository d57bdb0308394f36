"""ScannerIterator alone, with a scripted Rpc injected: the TScan it sends and its cursor."""

from __future__ import annotations

from collections import deque
from types import SimpleNamespace as Struct
from typing import Any

import pytest

from hmodel.backend.base import Scan
from hmodel.backend.thrift.channel import Retry
from hmodel.backend.thrift.scanner import ScannerIterator, close_scanner
from hmodel.errors import ConnectionLostError, IllegalArgumentError, ReadInterruptedError

_ROWS = [b"a", b"b", b"c", b"d", b"e"]


class ScriptedServer:
    """An Rpc that serves :data:`_ROWS` like HBase's scanner, and records what it is sent.

    ``drop_fetches`` lists fetch numbers (1-based) that fail with ConnectionLostError
    after the server has advanced its scanner, as a connection dropped mid-answer does.
    """

    def __init__(self, *, drop_fetches: tuple[int, ...] = ()) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], Retry]] = []
        self.tscans: list[Any] = []
        self.open: dict[int, deque[bytes]] = {}
        self.fetches = 0
        self.drop_fetches = drop_fetches

    def __call__(self, method: str, *args: Any, retry: Retry, table: str, **_: object) -> Any:
        self.calls.append((method, args, retry))
        if method == "scannerOpenWithScan":
            tscan = args[1]
            self.tscans.append(tscan)
            rows = sorted(_ROWS, reverse=bool(tscan.reversed))
            if tscan.reversed:
                rows = [r for r in rows if (not tscan.startRow or r <= tscan.startRow)]
                rows = [r for r in rows if (not tscan.stopRow or r > tscan.stopRow)]
            else:
                rows = [r for r in rows if (not tscan.startRow or r >= tscan.startRow)]
                rows = [r for r in rows if (not tscan.stopRow or r < tscan.stopRow)]
            scanner = len(self.tscans)
            self.open[scanner] = deque(rows)
            return scanner
        if method == "scannerGetList":
            scanner, count = args
            self.fetches += 1
            queue = self.open[scanner]
            batch = [queue.popleft() for _ in range(min(count, len(queue)))]
            if self.fetches in self.drop_fetches:
                raise ConnectionLostError("dropped")
            return [Struct(row=r, columns={b"f:q": Struct(value=r, timestamp=1)}) for r in batch]
        if method == "scannerClose":
            del self.open[args[0]]
            return None
        raise AssertionError(method)


def _iterator(
    rpc: ScriptedServer, scan: Scan, *, busy: bool = False
) -> tuple[ScannerIterator, list[int]]:
    deferred: list[int] = []
    iterator = ScannerIterator(
        rpc=rpc,
        table="t",
        server_table=b"p_t",
        scan=scan,
        retries=2,
        busy_here=lambda: busy,
        defer_close=deferred.append,
    )
    return iterator, deferred


def test_a_reverse_scan_sends_stop_as_start_row_and_start_minus_a_byte_as_stop_row() -> None:
    server = ScriptedServer()
    iterator, _ = _iterator(server, Scan(start=b"bz", stop=b"d", reverse=True, batch_size=7))
    tscan = server.tscans[0]
    assert (tscan.startRow, tscan.stopRow, tscan.reversed) == (b"d", b"b", True)
    assert tscan.caching == 7
    assert [r.row for r in iterator] == [b"c"]  # d dropped (exclusive), b below start


def test_a_forward_scan_sends_its_bounds_and_options_as_they_are() -> None:
    server = ScriptedServer()
    scan = Scan(start=b"b", stop=b"d", columns=[b"f"], filter="KeyOnlyFilter()", before=9, limit=2)
    list(_iterator(server, scan)[0])
    tscan = server.tscans[0]
    assert (tscan.startRow, tscan.stopRow, tscan.reversed) == (b"b", b"d", None)
    assert (tscan.columns, tscan.filterString, tscan.timestamp) == ([b"f"], b"KeyOnlyFilter()", 9)
    assert tscan.caching == 2  # never more than the limit
    assert server.calls[0][1][0] == b"p_t"


def test_open_and_close_are_idempotent_and_fetches_are_never_blindly_resent() -> None:
    """A fetch moves the scanner (read, never re-sent); closing twice closes once."""
    server = ScriptedServer()
    list(_iterator(server, Scan(batch_size=2))[0])
    policies = {method: retry for method, _, retry in server.calls}
    assert policies == {
        "scannerOpenWithScan": Retry.IDEMPOTENT,
        "scannerGetList": Retry.READ_UNSENT,
        "scannerClose": Retry.IDEMPOTENT,
    }


@pytest.mark.parametrize("reverse", [False, True])
def test_a_fetch_lost_mid_answer_reopens_after_the_last_row_returned(reverse: bool) -> None:
    server = ScriptedServer(drop_fetches=(2,))
    iterator, _ = _iterator(server, Scan(batch_size=2, reverse=reverse))
    assert [r.row for r in iterator] == sorted(_ROWS, reverse=reverse)
    resumed = server.tscans[1]
    assert (resumed.startRow, resumed.stopRow) == ((b"d", None) if reverse else (b"b\x00", None))


def test_too_many_lost_fetches_in_a_row_give_up_saying_a_read_was_interrupted() -> None:
    server = ScriptedServer(drop_fetches=(1, 2, 3))
    iterator, _ = _iterator(server, Scan(batch_size=2))
    with pytest.raises(ReadInterruptedError, match="nothing was written") as caught:
        next(iterator)
    assert "may or may not have been applied" not in str(caught.value)
    assert isinstance(caught.value, ConnectionLostError)
    assert len(server.tscans) == 3  # the first open and two reopenings (retries=2)
    assert server.open == {}  # every abandoned server scanner was closed
    assert list(iterator) == []


def test_a_lost_fetch_closes_the_abandoned_scanner_before_reopening() -> None:
    server = ScriptedServer(drop_fetches=(1,))
    iterator, _ = _iterator(server, Scan(batch_size=10))
    assert [r.row for r in iterator] == _ROWS
    methods = [(method, args[0]) for method, args, _ in server.calls if method != "scannerGetList"]
    assert methods == [
        ("scannerOpenWithScan", b"p_t"),
        ("scannerClose", 1),
        ("scannerOpenWithScan", b"p_t"),
        ("scannerClose", 2),
    ]


def test_a_close_answered_with_an_unknown_id_counts_as_closed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A retried close whose first attempt did close it, or an expired lease: no warning."""
    calls: list[str] = []

    def rpc(method: str, *args: Any, retry: Retry, table: str | None, **_: object) -> Any:
        calls.append(method)
        raise IllegalArgumentError("scannerClose failed: scanner ID is invalid")

    with caplog.at_level("WARNING"):
        close_scanner(rpc, 3, table="t")
    assert calls == ["scannerClose"]
    assert caplog.records == []


def test_a_close_that_fails_otherwise_is_logged_not_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def rpc(method: str, *args: Any, retry: Retry, table: str | None, **_: object) -> Any:
        raise ConnectionLostError("gone")

    with caplog.at_level("WARNING"):
        close_scanner(rpc, 3, table="t")
    assert "could not close scanner 3" in caplog.text


def test_a_close_requested_during_an_rpc_is_deferred_not_sent() -> None:
    server = ScriptedServer()
    iterator, deferred = _iterator(server, Scan(batch_size=2), busy=True)
    next(iterator)
    iterator.close()
    assert deferred == [1]
    assert [method for method, _, _ in server.calls].count("scannerClose") == 0


class ExpiringServer(ScriptedServer):
    """Answers ``scanner ID is invalid`` to the fetches listed, as for an expired lease."""

    def __init__(self, *, expire_fetches: tuple[int, ...]) -> None:
        super().__init__()
        self.expire_fetches = expire_fetches

    def __call__(self, method: str, *args: Any, retry: Retry, table: str, **_: object) -> Any:
        if method == "scannerGetList" and self.fetches + 1 in self.expire_fetches:
            self.fetches += 1
            self.calls.append((method, args, retry))
            del self.open[args[0]]
            raise IllegalArgumentError("scannerGetList failed: scanner ID is invalid")
        return super().__call__(method, *args, retry=retry, table=table)


def test_an_expired_scanner_is_reopened_past_the_last_row_once_per_fetch() -> None:
    server = ExpiringServer(expire_fetches=(2,))
    iterator, _ = _iterator(server, Scan(batch_size=2))
    assert [r.row for r in iterator] == _ROWS
    assert server.tscans[1].startRow == b"b\x00"
    closes = [args[0] for method, args, _ in server.calls if method == "scannerClose"]
    assert closes == [2]  # the expired one is gone already: only the reopened one is closed


def test_a_scanner_that_expires_again_at_once_raises() -> None:
    server = ExpiringServer(expire_fetches=(2, 3))
    iterator, _ = _iterator(server, Scan(batch_size=2))
    assert [next(iterator).row for _ in range(2)] == [b"a", b"b"]
    with pytest.raises(IllegalArgumentError, match="scanner ID is invalid"):
        next(iterator)
