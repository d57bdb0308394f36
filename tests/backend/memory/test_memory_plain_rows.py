"""Plain and rich rows: which form a row is stored in, and that reads agree across forms."""

from __future__ import annotations

from hmodel.backend.base import Cell, Delete, Put
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.memory.store import StoredRow
from hmodel.schema import Family, Table


def _form(engine: MemoryBackend, row: bytes) -> str:
    """``"plain"``, ``"rich"`` or ``"absent"``: how the table ``t`` stores ``row``."""
    rows = engine._tables["t"].rows
    data = rows.get(row)
    if data is None:
        return "absent"
    if type(data) is StoredRow:
        return "rich"
    if type(data) is tuple:  # several columns: the cells, then their names
        assert len(data) == len(data[-1]) + 1 and all(type(c) is Cell for c in data[:-1])
    else:  # one column: a Cell, its names in the chunk
        assert type(data) is Cell and len(rows.names_of(row) or ()) == 1
    return "plain"


def _engine(*families: Family) -> MemoryBackend:
    engine = MemoryBackend()
    engine.create_table(Table("t", list(families) or [Family("f")]))
    return engine


def test_a_row_written_whole_or_rewritten_is_plain() -> None:
    """New rows, rows grown by a column and rows overwritten stay plain."""
    engine = _engine()
    engine.mutate("t", [Put(b"r", b"f:b", b"1", timestamp=1), Put(b"r", b"f:a", b"2", timestamp=1)])
    assert _form(engine, b"r") == "plain"
    engine.mutate("t", [Put(b"r", b"f:c", b"3", timestamp=2)])
    engine.mutate("t", [Put(b"r", b"f:a", b"4", timestamp=3)])
    assert _form(engine, b"r") == "plain"
    assert engine.get("t", [b"r"])[0].cells == {
        b"f:a": Cell(b"4", 3),
        b"f:b": Cell(b"1", 1),
        b"f:c": Cell(b"3", 2),
    }


def test_markers_versions_and_cell_ttls_make_a_row_rich_until_compacted() -> None:
    """A delete marker, a second kept version or a per-cell TTL needs the rich form."""
    engine = _engine(Family("f", versions=2))
    engine.mutate("t", [Put(b"d", b"f:a", b"x", timestamp=5), Put(b"d", b"f:b", b"y", timestamp=5)])
    engine.mutate("t", [Delete(b"d", b"f:a", timestamp=5)])
    engine.mutate("t", [Put(b"v", b"f:a", b"old", timestamp=1)])
    engine.mutate("t", [Put(b"v", b"f:a", b"new", timestamp=2)])
    engine.mutate("t", [Put(b"l", b"f:a", b"x", timestamp=1, ttl=10**15)])
    assert [_form(engine, row) for row in (b"d", b"v", b"l")] == ["rich"] * 3
    assert engine.get("t", [b"d"])[0].cells == {b"f:b": Cell(b"y", 5)}
    assert engine.get_versions("t", b"v", b"f:a", max_versions=3) == [
        Cell(b"new", 2),
        Cell(b"old", 1),
    ]
    engine.major_compact("t")
    assert _form(engine, b"d") == "plain"  # the marker and what it masked are gone
    assert _form(engine, b"v") == "rich"  # two versions are still kept
    assert engine.get("t", [b"d"])[0].cells == {b"f:b": Cell(b"y", 5)}


def test_a_row_deleted_whole_and_compacted_is_gone() -> None:
    """Markers alone keep a (rich) row; compaction drops it."""
    engine = _engine()
    engine.mutate("t", [Put(b"r", b"f:a", b"x", timestamp=1)])
    engine.mutate("t", [Delete(b"r", timestamp=2)])
    assert _form(engine, b"r") == "rich" and engine.get("t", [b"r"]) == []
    engine.major_compact("t")
    assert _form(engine, b"r") == "absent"


def test_wide_rows_are_rich_and_stay_so_when_a_family_is_dropped() -> None:
    """More than Shapes.WIDE columns are never plain, whatever made the row."""
    engine = _engine(Family("a"), Family("b"))
    puts = [Put(b"r", b"a:%02d" % q, b"v", timestamp=1) for q in range(40)]
    engine.mutate("t", [*puts, Put(b"r", b"b:q", b"w", timestamp=1)])
    assert _form(engine, b"r") == "rich"
    engine.alter_table("t", Table("t", [Family("a")]))
    assert _form(engine, b"r") == "rich"
    cells = engine.get("t", [b"r"])[0].cells
    assert list(cells) == [b"a:%02d" % q for q in range(40)]
    assert engine.get("t", [b"r"], columns=[b"a:07"])[0].cells == {b"a:07": Cell(b"v", 1)}


def test_plain_rows_honour_a_family_ttl_and_a_time_range() -> None:
    """A plain row read with a time range or under a family TTL follows the full rules."""
    engine = _engine(Family("f", ttl=1))
    engine.mutate("t", [Put(b"r", b"f:a", b"x", timestamp=1), Put(b"r", b"f:b", b"y", timestamp=1)])
    assert _form(engine, b"r") == "plain"
    assert engine.get("t", [b"r"]) == []  # 1 ms after the epoch: long expired
    other = _engine()
    other.mutate("t", [Put(b"r", b"f:a", b"x", timestamp=5), Put(b"r", b"f:b", b"y", timestamp=9)])
    assert other.get("t", [b"r"], before=6)[0].cells == {b"f:a": Cell(b"x", 5)}
