"""The synchronous driver of the sans-I/O core: its one-call fast path behaves as its loop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from hmodel.backend.op import (
    BACKOFF_CAP_MS,
    Call,
    CloseScan,
    Items,
    Op,
    OpenScan,
    Pause,
    ScanNext,
    aiterate,
    arun,
    backoff_op,
    iterate,
    run,
)


class _Scanner:
    def __init__(self, rows: list[bytes]) -> None:
        self._rows = iter(rows)
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        return self._rows

    def __next__(self) -> bytes:
        return next(self._rows)

    def close(self) -> None:
        self.closed = True


class _Target:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.scanners: list[_Scanner] = []

    def lookup(self, row: bytes, *, twice: bool = False) -> int:
        self.calls.append(("lookup", row, twice))
        return len(row) * (2 if twice else 1)

    def fail(self) -> None:
        self.calls.append(("fail",))
        raise KeyError("refused")

    def scan(self, table: str, scan: object) -> _Scanner:
        scanner = _Scanner([b"a", b"b", b"c"])
        self.scanners.append(scanner)
        return scanner


def test_an_operation_that_yields_nothing_returns_its_value() -> None:
    def op() -> Op[int]:
        return 7
        yield  # pragma: no cover  # a generator

    assert run(op(), _Target()) == 7


def test_a_one_call_operation_gets_the_result_with_its_keywords() -> None:
    target = _Target()

    def op() -> Op[int]:
        got = yield Call("lookup", (b"abc",), {"twice": True})
        return got + 1

    assert run(op(), target) == 7
    assert target.calls == [("lookup", b"abc", True)]


def test_the_first_calls_error_is_thrown_in_at_its_yield() -> None:
    target = _Target()

    def op() -> Op[str]:
        try:
            yield Call("fail")
        except KeyError:
            again = yield Call("lookup", (b"xy",))
            return f"recovered {again}"
        return "not reached"  # pragma: no cover

    assert run(op(), target) == "recovered 2"
    assert target.calls == [("fail",), ("lookup", b"xy", False)]


def test_an_error_the_operation_does_not_catch_is_raised() -> None:
    def op() -> Op[None]:
        yield Call("fail")

    with pytest.raises(KeyError, match="refused"):
        run(op(), _Target())


def test_requests_after_the_first_call_go_through_the_loop_and_scans_are_closed() -> None:
    target = _Target()

    def op() -> Op[list[bytes]]:
        size = yield Call("lookup", (b"ab",))
        handle = yield OpenScan("t", None)
        rows: list[bytes] = yield ScanNext(handle, size)
        return rows  # the scan is left open: the driver closes it

    assert run(op(), target) == [b"a", b"b"]
    assert [s.closed for s in target.scanners] == [True]


def test_a_first_request_that_is_no_call_is_performed_by_the_loop() -> None:
    target = _Target()

    def op() -> Op[list[bytes]]:
        handle = yield OpenScan("t", None)
        rows: list[bytes] = yield ScanNext(handle, 5)
        yield CloseScan(handle)
        return rows

    assert run(op(), target) == [b"a", b"b", b"c"]
    assert [s.closed for s in target.scanners] == [True]


def test_something_that_is_no_request_is_refused() -> None:
    def op() -> Op[None]:
        yield "an item"

    with pytest.raises(TypeError, match="no request"):
        run(op(), _Target())


def test_a_call_compares_by_value_and_shows_its_parts() -> None:
    assert Call("get", (b"r",), {"columns": ()}) == Call("get", (b"r",), {"columns": ()})
    assert Call("get", (b"r",)) != Call("get", (b"s",))
    assert Call("get") != ("get", (), {})
    assert repr(Call("get", (b"r",))) == "Call(method='get', args=(b'r',), kwargs={})"


def _pausing() -> Op[str]:
    first = yield Pause(0.02)
    return f"resumed with {first!r}"


def test_a_pause_sleeps_in_the_sync_driver_and_sends_none_back() -> None:
    started = time.monotonic()
    assert run(_pausing(), _Target()) == "resumed with None"
    assert time.monotonic() - started >= 0.02


def test_a_pause_is_awaited_by_the_async_driver_and_lets_other_tasks_run() -> None:
    ran: list[str] = []

    async def other() -> None:
        ran.append("other")

    async def both() -> str:
        task = asyncio.ensure_future(other())
        got = await arun(_pausing(), _Target())
        await task
        ran.append("op")
        return got

    assert asyncio.run(both()) == "resumed with None"
    assert ran == ["other", "op"]  # the other task ran while the operation paused


def test_stream_drivers_perform_pauses_between_items() -> None:
    def stream() -> Op[None]:
        yield "a"
        yield Pause(0.0)
        yield "b"

    async def items() -> list[Any]:
        return [item async for item in aiterate(stream(), _Target())]

    assert list(iterate(stream(), _Target())) == ["a", "b"]
    assert asyncio.run(items()) == ["a", "b"]


def _pauses(attempt: int, jitter: float) -> list[float]:
    op = backoff_op(attempt, jitter=lambda: jitter)
    return [request.seconds for request in op]


def test_the_first_try_does_not_pause() -> None:
    assert _pauses(0, 0.5) == []
    assert _pauses(-1, 0.5) == []


def test_backoff_doubles_from_one_millisecond_to_its_cap_with_jitter_in_half_to_one() -> None:
    assert _pauses(1, 1.0) == [0.001]
    assert _pauses(1, 0.0) == [0.0005]
    assert _pauses(3, 1.0) == [0.004]
    assert _pauses(7, 1.0) == [0.064]
    assert _pauses(8, 1.0) == [BACKOFF_CAP_MS / 1000]
    assert _pauses(10_000, 0.0) == [BACKOFF_CAP_MS / 2000]  # no overflow far out


def test_twenty_attempts_wait_under_a_second_in_all() -> None:
    total = sum(sum(_pauses(n, 1.0)) for n in range(20))
    assert 1.2 < total < 1.35


def test_stream_drivers_hand_on_the_items_of_a_batch_one_by_one() -> None:
    """A batch of items is given as its items; an item that is a list stays one item."""

    def stream() -> Op[None]:
        yield Items(["a", "b"])
        yield Items()
        yield Pause(0.0)
        yield ["c", "d"]
        yield Items([None])

    async def items() -> list[Any]:
        return [item async for item in aiterate(stream(), _Target())]

    want = ["a", "b", ["c", "d"], None]
    assert list(iterate(stream(), _Target())) == want
    assert asyncio.run(items()) == want


def test_a_stream_pulled_item_by_item_may_not_yield_a_batch() -> None:
    from hmodel.patterns.storelike import pull

    def stream() -> Op[None]:
        yield Items(["a"])

    with pytest.raises(TypeError, match="Items"):
        run(pull(stream()), _Target())
