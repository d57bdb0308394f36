"""Scan filters in the engine (I4): compiled when the scan opens, fresh state per scan."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.errors import FilterError
from hmodel.schema import Family, Table


@pytest.fixture
def five_rows(engine: MemoryBackend) -> MemoryBackend:
    """Table t with rows r0..r4, each with f:q = its index and two versions of f:v."""
    engine.create_table(Table("t", [Family("f", versions=3)]))
    for n in range(5):
        engine.mutate("t", [Put(b"r%d" % n, b"f:q", b"%d" % n, timestamp=1)])
        engine.mutate("t", [Put(b"r%d" % n, b"f:v", b"old", timestamp=1)])
        engine.mutate("t", [Put(b"r%d" % n, b"f:v", b"new", timestamp=2)])
    return engine


def test_a_bad_filter_fails_when_the_scan_opens(five_rows: MemoryBackend) -> None:
    """FilterError comes from scan() itself, before any row is read."""
    with pytest.raises(FilterError):
        five_rows.scan("t", Scan(filter="NoSuchFilter()"))


def test_each_scan_starts_with_fresh_filter_state(five_rows: MemoryBackend) -> None:
    """A PageFilter counts rows per scan, not per engine."""
    scan = Scan(filter="PageFilter(2)")
    assert [r.row for r in five_rows.scan("t", scan)] == [b"r0", b"r1"]
    assert [r.row for r in five_rows.scan("t", scan)] == [b"r0", b"r1"]


def test_a_filter_that_is_done_ends_the_scan_without_another_fetch(
    five_rows: MemoryBackend,
) -> None:
    """PageFilter(2) with batch_size=1: open, fetch r0, fetch r1 (done): three round trips."""
    before = five_rows.round_trips
    rows = [r.row for r in five_rows.scan("t", Scan(filter="PageFilter(2)", batch_size=1))]
    assert rows == [b"r0", b"r1"]
    assert five_rows.round_trips - before == 3


def test_a_scan_returns_the_newest_version_of_what_the_filter_keeps(
    five_rows: MemoryBackend,
) -> None:
    """The scan keeps one version per column; a value filter on the newest one matches."""
    found = list(five_rows.scan("t", Scan(filter="ValueFilter(=, 'binary:new')")))
    assert [r.row for r in found] == [b"r0", b"r1", b"r2", b"r3", b"r4"]
    assert all(r.cells[b"f:v"].timestamp == 2 and list(r.cells) == [b"f:v"] for r in found)


def test_a_filter_given_as_bytes_may_hold_any_byte(engine: MemoryBackend) -> None:
    """Bytes filter strings carry binary operands (HBase parses filters as bytes)."""
    engine.create_table(Table("t", [Family("f")]))
    engine.mutate("t", [Put(b"\xff\x01", b"f:q", b"v"), Put(b"\x01", b"f:q", b"v")])
    found = engine.scan("t", Scan(filter=b"PrefixFilter('\xff')"))
    assert [r.row for r in found] == [b"\xff\x01"]


def test_reverse_scans_pass_their_direction_to_the_filter(five_rows: MemoryBackend) -> None:
    """A PrefixFilter in a reverse scan still returns exactly the matching rows."""
    five_rows.mutate("t", [Put(b"s1", b"f:q", b"x", timestamp=1)])
    found = five_rows.scan("t", Scan(filter="PrefixFilter('r')", reverse=True))
    assert [r.row for r in found] == [b"r4", b"r3", b"r2", b"r1", b"r0"]
