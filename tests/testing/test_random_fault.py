"""RandomFaultBackend: every kind of fault, seeded, counted, and how callers see it."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from hmodel.backend.base import Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.errors import (
    BackendError,
    ConnectionLostError,
    OutcomeUnknownError,
    ReadInterruptedError,
)
from hmodel.patterns.index_repository import IndexedRepository
from hmodel.repository import Repository
from hmodel.testing.random_fault import KINDS, RandomFaultBackend
from tests.patterns.index_models import Order, status_index

ROWS = [f"r{i:02d}".encode() for i in range(20)]


def filled() -> MemoryBackend:
    backend = MemoryBackend()
    repo = Repository(Order, backend, clock=ManualClock())
    repo.create_table()
    backend.mutate("order", [Put(row, b"o:s", b"x", 1) for row in ROWS])
    return backend


def only(kind: str) -> dict[str, float]:
    return {k: float(k == kind) for k in KINDS}


def test_a_stall_advances_the_shared_clock_and_lets_the_call_through() -> None:
    clock = ManualClock(1_000)
    faulty = RandomFaultBackend(
        filled(),
        rate=1.0,
        methods=frozenset({"get"}),
        clock=clock,
        stall=timedelta(seconds=6.5),
        weights=only("stall"),
    )
    got = faulty.get("order", [ROWS[0]])
    assert [r.row for r in got] == [ROWS[0]]
    assert clock() == 7_500
    assert faulty.injected == {"before": 0, "after": 0, "inside": 0, "stall": 1, "drop": 0}
    assert faulty.faults_here == 1


def test_a_dropped_scan_yields_some_rows_then_a_read_interrupted_error() -> None:
    faulty = RandomFaultBackend(filled(), seed=3, rate=1.0, methods=frozenset({"scan"}))
    faulty.weights["before"] = 0
    yielded: list[bytes] = []
    with pytest.raises(ReadInterruptedError, match="dropped midway") as caught:
        for result in faulty.scan("order", Scan()):
            yielded.append(result.row)
    assert caught.value.table == "order"
    assert yielded == ROWS[: len(yielded)] and len(yielded) < 10  # valid rows, in order
    assert faulty.injected["drop"] == 1


def test_a_dropped_scan_surfaces_as_a_backend_error_from_repositories_and_index_reads() -> None:
    backend = MemoryBackend()
    clock = ManualClock()
    indexed = IndexedRepository(Repository(Order, backend, clock=clock), [status_index()])
    indexed.create_tables()
    for i in range(30):
        indexed.save(Order(order_id=f"o{i:02d}", status="new", total=i))
    faulty = RandomFaultBackend(
        backend, seed=1, rate=1.0, methods=frozenset({"scan"}), weights=only("drop")
    )
    reader = IndexedRepository(Repository(Order, faulty, clock=clock), [status_index()])
    with pytest.raises(ReadInterruptedError):
        reader.find("order_by_status", {"status": "new"})
    with pytest.raises(BackendError):
        list(reader.repository.scan())
    assert faulty.injected["drop"] == 2
    faulty.enabled = False
    assert len(reader.find("order_by_status", {"status": "new"})) == 30


def test_writes_fail_before_after_and_inside_as_before() -> None:
    backend = filled()
    faulty = RandomFaultBackend(backend, seed=5, rate=1.0, weights={"stall": 5})  # no clock
    seen: set[type[BaseException]] = set()
    for i in range(40):
        with pytest.raises(ConnectionLostError) as caught:
            faulty.mutate("order", [Put(f"w{i}".encode(), b"o:s", b"y", 1)])
        seen.add(type(caught.value))
    assert seen == {ConnectionLostError, OutcomeUnknownError}
    assert faulty.injected["stall"] == 0 and faulty.injected["drop"] == 0
    assert faulty.faults == 40


def test_faults_are_counted_per_thread_too() -> None:
    faulty = RandomFaultBackend(filled(), rate=1.0, methods=frozenset({"get"}))
    counts: list[int] = []

    def other() -> None:
        for _ in range(3):
            with pytest.raises(ConnectionLostError):
                faulty.get("order", [ROWS[0]])
        counts.append(faulty.faults_here)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert counts == [3] and faulty.faults_here == 0 and faulty.faults == 3


@pytest.mark.parametrize(
    "options",
    [
        {"rate": 1.5},
        {"clock": ManualClock()},
        {"stall": timedelta(seconds=1)},
        {"weights": {"sideways": 1.0}},
        {"weights": {"before": -1.0}},
    ],
)
def test_bad_options_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        RandomFaultBackend(MemoryBackend(), **options)  # type: ignore[arg-type]
