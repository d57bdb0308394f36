"""The engine under concurrent use: atomic counters and check-and-put, scans during writes."""

from __future__ import annotations

import threading
from collections.abc import Callable

from hmodel.backend.base import Delete, Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.schema import Family, Table

THREADS = 8


def _run(work: Callable[[int], None]) -> None:
    """Run work(0..THREADS-1) in threads released together; re-raise the first failure."""
    gate = threading.Barrier(THREADS)
    errors: list[BaseException] = []

    def body(index: int) -> None:
        gate.wait()
        try:
            work(index)
        except BaseException as exc:  # collected and re-raised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def test_concurrent_increments_and_puts_lose_nothing() -> None:
    """8 threads x 300 increments of one counter, while also putting rows: the sum is exact."""
    engine = MemoryBackend()
    engine.create_table(Table("t", [Family("f")]))

    def work(index: int) -> None:
        for n in range(300):
            engine.increment("t", b"counter", b"f:n")
            engine.mutate("t", [Put(b"row-%d-%03d" % (index, n), b"f:q", b"v")])

    _run(work)
    assert engine.get("t", [b"counter"])[0].value(b"f:n") == (THREADS * 300).to_bytes(8, "big")
    assert len(list(engine.scan("t", Scan(start=b"row-")))) == THREADS * 300


def test_exactly_one_concurrent_check_and_put_wins() -> None:
    """Check-and-put with expected=None is a lock: one thread gets it."""
    engine = MemoryBackend()
    engine.create_table(Table("t", [Family("f")]))
    winners: list[int] = []

    def work(index: int) -> None:
        put = Put(b"lock", b"f:owner", b"%d" % index)
        if engine.check_and_put("t", b"lock", b"f:owner", None, put):
            winners.append(index)

    _run(work)
    assert len(winners) == 1
    assert engine.get("t", [b"lock"])[0].value(b"f:owner") == b"%d" % winners[0]


def test_scans_survive_concurrent_writes_and_stay_ordered() -> None:
    """Scans in small batches while writers insert and delete: rows come strictly increasing."""
    engine = MemoryBackend()
    engine.create_table(Table("t", [Family("f")]))
    engine.mutate("t", [Put(b"k%04d" % n, b"f:q", b"v") for n in range(0, 2000, 2)])

    def work(index: int) -> None:
        if index % 2:
            for n in range(index, 2000, THREADS):
                engine.mutate("t", [Put(b"k%04d" % n, b"f:q", b"w")])
                engine.mutate("t", [Delete(b"k%04d" % (n - 1))])
            return
        for _ in range(5):
            rows = [r.row for r in engine.scan("t", Scan(batch_size=7, reverse=index == 2))]
            expected = sorted(rows, reverse=index == 2)
            assert rows == expected
            assert len(set(rows)) == len(rows)

    _run(work)
