"""MemoryBackend.round_trips counts what a network backend would send."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from hmodel.backend.base import Delete, Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.schema import Family, Table


@pytest.fixture
def ten_rows(engine: MemoryBackend) -> MemoryBackend:
    """Table t with rows r0..r9."""
    engine.create_table(Table("t", [Family("f")]))
    engine.mutate("t", [Put(b"r%d" % n, b"f:q", b"v", timestamp=1) for n in range(10)])
    return engine


def _cost(engine: MemoryBackend, scan: Scan) -> tuple[int, int]:
    before = engine.round_trips
    rows = len(list(engine.scan("t", scan)))
    return rows, engine.round_trips - before


def test_every_protocol_call_costs_one(ten_rows: MemoryBackend) -> None:
    """Admin calls, reads and single writes are one request each."""
    engine = ten_rows
    calls: list[Callable[[], object]] = [
        lambda: engine.table_exists("t"),
        engine.list_tables,
        lambda: engine.describe_families("t"),
        lambda: engine.regions("t"),
        lambda: engine.get("t", [b"r1", b"r2"]),
        lambda: engine.get_versions("t", b"r1", b"f:q", max_versions=3),
        lambda: engine.increment("t", b"c", b"f:n"),
        lambda: engine.append("t", b"a", {b"f:q": b"x"}),
        lambda: engine.check_and_put("t", b"r1", b"f:q", None, Put(b"r1", b"f:z", b"v")),
        lambda: engine.check_and_delete("t", b"r1", b"f:q", None, Delete(b"r1")),
    ]
    for call in calls:
        before = engine.round_trips
        call()
        assert engine.round_trips - before == 1


def test_mutate_costs_one_per_timestamp_and_ttl_pair(ten_rows: MemoryBackend) -> None:
    """(1, None) twice, (2, None) with a delete, (1, 50) and (None, None): four trips."""
    engine = ten_rows
    before = engine.round_trips
    engine.mutate(
        "t",
        [
            Put(b"a", b"f:q", b"v", timestamp=1),
            Put(b"b", b"f:q", b"v", timestamp=1),
            Put(b"a", b"f:z", b"v", timestamp=2),
            Delete(b"c", timestamp=2),
            Put(b"a", b"f:y", b"v", timestamp=1, ttl=50),
            Put(b"a", b"f:x", b"v"),
        ],
    )
    assert engine.round_trips - before == 4
    engine.mutate("t", [])
    assert engine.round_trips - before == 4


@pytest.mark.parametrize(
    ("scan", "rows", "trips"),
    [
        (Scan(batch_size=3), 10, 1 + 4),  # fetches of 3, 3, 3, 1: the short one ends it
        (Scan(batch_size=5), 10, 1 + 3),  # 5, 5, then an empty fetch finds the end
        (Scan(batch_size=1000), 10, 1 + 1),
        (Scan(batch_size=5, limit=5), 5, 1 + 1),  # the limit is reached: no more fetches
        (Scan(batch_size=3, limit=5), 5, 1 + 2),  # fetches of 3 and 2
        (Scan(limit=0), 0, 0),  # nothing to do: no round trip (the protocol's empty-call rule)
        (Scan(start=b"x"), 0, 1 + 1),
    ],
)
def test_a_scan_costs_one_to_open_plus_one_per_fetch(
    ten_rows: MemoryBackend, scan: Scan, rows: int, trips: int
) -> None:
    """batch_size is rows per round trip; a short fetch or the limit ends the scan."""
    assert _cost(ten_rows, scan) == (rows, trips)


def test_an_abandoned_scan_costs_only_what_it_fetched(ten_rows: MemoryBackend) -> None:
    """Rows are fetched lazily: reading one row of a batch-2 scan costs open + one fetch."""
    before = ten_rows.round_trips
    scanner = ten_rows.scan("t", Scan(batch_size=2))
    assert ten_rows.round_trips - before == 1
    next(scanner)
    scanner.close()  # type: ignore[attr-defined]
    assert ten_rows.round_trips - before == 2


def test_the_test_helpers_cost_nothing(ten_rows: MemoryBackend) -> None:
    """raw and region_of are engine inspection, not requests."""
    before = ten_rows.round_trips
    ten_rows.raw("t", b"r1")
    ten_rows.region_of("t", b"r1")
    assert ten_rows.round_trips == before
