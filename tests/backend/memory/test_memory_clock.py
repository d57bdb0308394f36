"""Timestamps the engine gives from its injected clock: puts, deletes, increments, appends."""

from __future__ import annotations

from hmodel.backend.base import Cell, Delete, Put
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.schema import Family, Table


def _table(engine: MemoryBackend) -> None:
    engine.create_table(Table("t", [Family("f", versions=5)]))


def test_a_put_without_timestamp_gets_the_clock_time(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """The server stamps the cell with its current time."""
    _table(engine)
    engine.mutate("t", [Put(b"r", b"f:q", b"v")])
    assert engine.get("t", [b"r"])[0].cells[b"f:q"] == Cell(b"v", clock())


def test_puts_in_the_same_millisecond_overwrite_each_other(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """Same row, column and timestamp: the later write wins, one version is kept."""
    _table(engine)
    engine.mutate("t", [Put(b"r", b"f:q", b"one")])
    engine.mutate("t", [Put(b"r", b"f:q", b"two")])
    assert engine.get_versions("t", b"r", b"f:q", max_versions=5) == [Cell(b"two", clock())]
    clock.advance(1)
    engine.mutate("t", [Put(b"r", b"f:q", b"three")])
    assert len(engine.get_versions("t", b"r", b"f:q", max_versions=5)) == 2


def test_a_delete_without_timestamp_spares_cells_stamped_in_the_future(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """ "Now" is the clock: a cell stamped later than now survives the delete."""
    _table(engine)
    now = clock()
    engine.mutate("t", [Put(b"r", b"f:q", b"now"), Put(b"r", b"f:z", b"later", timestamp=now + 5)])
    engine.mutate("t", [Delete(b"r")])
    assert engine.get("t", [b"r"])[0].cells == {b"f:z": Cell(b"later", now + 5)}


def test_a_put_right_after_a_delete_in_the_same_millisecond_is_masked(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """HBase's well-known trap: the marker at now masks a put stamped now."""
    _table(engine)
    engine.mutate("t", [Delete(b"r", b"f:q")])
    engine.mutate("t", [Put(b"r", b"f:q", b"v")])
    assert engine.get("t", [b"r"]) == []
    clock.advance(1)
    engine.mutate("t", [Put(b"r", b"f:q", b"v")])
    assert engine.get("t", [b"r"])[0].value(b"f:q") == b"v"


def test_increments_stamp_now_but_always_newer_than_the_old_cell(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """The new counter cell gets max(now, old timestamp + 1)."""
    _table(engine)
    engine.increment("t", b"r", b"f:n")
    assert engine.get("t", [b"r"])[0].cells[b"f:n"].timestamp == clock()
    engine.increment("t", b"r", b"f:n")
    assert engine.get("t", [b"r"])[0].cells[b"f:n"].timestamp == clock() + 1
    clock.advance(100)
    engine.increment("t", b"r", b"f:n")
    assert engine.get("t", [b"r"])[0].cells[b"f:n"] == Cell((3).to_bytes(8, "big"), clock())


def test_an_append_to_a_future_cell_lands_above_it(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """An append never hides behind a cell stamped later than now."""
    _table(engine)
    future = clock() + 1_000
    engine.mutate("t", [Put(b"r", b"f:q", b"a", timestamp=future)])
    engine.append("t", b"r", {b"f:q": b"b"})
    assert engine.get("t", [b"r"])[0].cells[b"f:q"] == Cell(b"ab", future + 1)


def test_check_and_put_compares_an_empty_expected_like_hbase(engine: MemoryBackend) -> None:
    """HBase treats expected None and b"" alike: both match a missing or an empty cell."""
    _table(engine)
    engine.mutate("t", [Put(b"r", b"f:q", b"")])
    assert engine.check_and_put("t", b"r", b"f:q", None, Put(b"r", b"f:z", b"1"))
    assert engine.check_and_put("t", b"r", b"f:missing", b"", Put(b"r", b"f:z", b"2"))
    assert not engine.check_and_put("t", b"r", b"f:z", b"", Put(b"r", b"f:z", b"3"))
