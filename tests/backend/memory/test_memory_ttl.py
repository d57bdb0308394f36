"""TTL per family and per cell, judged by the injected clock at read time (F8, F7)."""

from __future__ import annotations

from hmodel.backend.base import Cell, Delete, Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.schema import Family, Table


def _make(engine: MemoryBackend, family: Family) -> str:
    engine.create_table(Table("t", [family]))
    return "t"


def _visible(engine: MemoryBackend, column: bytes = b"f:q") -> list[int]:
    return [c.timestamp for c in engine.get_versions("t", b"r", column, max_versions=10)]


def test_a_family_ttl_hides_cells_once_it_has_run_out(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """TTL=10 s: visible at exactly ts + 10 000 ms, gone one millisecond later (HBase's `<`)."""
    start = clock()
    _make(engine, Family("f", ttl=10))
    engine.mutate("t", [Put(b"r", b"f:q", b"v")])
    clock.advance(10_000)
    assert engine.get("t", [b"r"])[0].cells[b"f:q"] == Cell(b"v", start)
    clock.advance(1)
    assert engine.get("t", [b"r"]) == []
    assert list(engine.scan("t", Scan())) == []


def test_the_ttl_counts_from_the_cell_timestamp_not_the_write(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """A cell written with an old timestamp is born expired."""
    start = clock()
    _make(engine, Family("f", ttl=10))
    engine.mutate("t", [Put(b"r", b"f:q", b"old", timestamp=start - 10_001)])
    engine.mutate("t", [Put(b"r", b"f:z", b"fresh", timestamp=start - 10_000)])
    assert list(engine.get("t", [b"r"])[0].cells) == [b"f:z"]


def test_a_cell_ttl_expires_the_cell_in_milliseconds(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """Put.ttl=500: visible at ts + 500, gone at ts + 501; other cells unaffected."""
    _make(engine, Family("f"))
    engine.mutate("t", [Put(b"r", b"f:q", b"short", ttl=500), Put(b"r", b"f:z", b"forever")])
    clock.advance(500)
    assert set(engine.get("t", [b"r"])[0].cells) == {b"f:q", b"f:z"}
    clock.advance(1)
    assert set(engine.get("t", [b"r"])[0].cells) == {b"f:z"}


def test_a_cell_ttl_never_outlives_the_family_ttl(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """Expiry is min(ts + cell ttl, ts + family ttl * 1000)."""
    _make(engine, Family("f", ttl=1))
    engine.mutate("t", [Put(b"r", b"f:q", b"v", ttl=60_000)])
    clock.advance(1_001)
    assert engine.get("t", [b"r"]) == []


def test_expiry_applies_to_each_version_by_its_own_timestamp(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """Older versions expire first; newer ones stay visible."""
    start = clock()
    _make(engine, Family("f", versions=5, ttl=10))
    for offset in (0, 5_000, 8_000):
        engine.mutate("t", [Put(b"r", b"f:q", b"v", timestamp=start + offset)])
    clock.advance(12_000)
    assert _visible(engine) == [start + 8_000, start + 5_000]


def test_min_versions_keeps_the_newest_versions_past_the_ttl(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """MIN_VERSIONS=2 with a TTL: the two newest versions survive expiry, older ones do not."""
    start = clock()
    _make(engine, Family("f", versions=5, min_versions=2, ttl=10))
    for offset in (0, 1, 2, 3):
        engine.mutate("t", [Put(b"r", b"f:q", b"v%d" % offset, timestamp=start + offset)])
    clock.advance(3_600_000)
    assert _visible(engine) == [start + 3, start + 2]
    assert engine.get("t", [b"r"])[0].cells[b"f:q"] == Cell(b"v3", start + 3)


def test_min_versions_does_not_protect_from_a_cell_ttl(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """HBase checks the per-cell TTL before counting versions, so MIN_VERSIONS cannot save it."""
    _make(engine, Family("f", versions=3, min_versions=1, ttl=10))
    engine.mutate("t", [Put(b"r", b"f:q", b"v", ttl=100)])
    clock.advance(101)
    assert engine.get("t", [b"r"]) == []


def test_an_expired_counter_starts_again_from_zero(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """An increment sees no cell once the old one expired (F10 with F8)."""
    _make(engine, Family("f", ttl=1))
    assert engine.increment("t", b"r", b"f:c", 5) == 5
    clock.advance(5_000)
    assert engine.increment("t", b"r", b"f:c", 1) == 1


def test_an_increment_keeps_the_cell_ttl_of_the_counter(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """HBase carries the TTL tag forward: the new counter cell expires like the old one."""
    _make(engine, Family("f"))
    engine.mutate("t", [Put(b"r", b"f:c", (1).to_bytes(8, "big"), ttl=1_000)])
    assert engine.increment("t", b"r", b"f:c") == 2
    clock.advance(1_002)
    assert engine.get("t", [b"r"]) == []


def test_major_compaction_purges_expired_cells(engine: MemoryBackend, clock: ManualClock) -> None:
    """Expired cells stay stored until a major compaction removes them."""
    _make(engine, Family("f", ttl=1))
    engine.mutate("t", [Put(b"r", b"f:q", b"v")])
    clock.advance(2_000)
    assert len(engine.raw("t", b"r")) == 1
    engine.major_compact("t")
    assert engine.raw("t", b"r") == []


def test_deleted_cells_kept_by_keep_deleted_cells_still_expire(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """KEEP_DELETED_CELLS does not stop the TTL (seed 001 §42)."""
    start = clock()
    _make(engine, Family("f", versions=3, ttl=10, keep_deleted_cells=True))
    engine.mutate("t", [Put(b"r", b"f:q", b"v", timestamp=start)])
    engine.mutate("t", [Delete(b"r", b"f:q", timestamp=start + 1)])
    assert _visible_before(engine, start + 1) == [start]
    clock.advance(10_001)
    assert _visible_before(engine, start + 1) == []


def _visible_before(engine: MemoryBackend, before: int) -> list[int]:
    cells = engine.get_versions("t", b"r", b"f:q", max_versions=10, before=before)
    return [c.timestamp for c in cells]
