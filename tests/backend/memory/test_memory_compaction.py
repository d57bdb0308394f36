"""Delete markers in the raw view, and what a major compaction purges (F9, seed 001 §42)."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Cell, Delete, Put
from hmodel.backend.memory import CellKind, MemoryBackend, RawCell, VersionDelete
from hmodel.clock import ManualClock
from hmodel.errors import IllegalArgumentError
from hmodel.schema import Family, Table


def _section_42(engine: MemoryBackend, *, keep_deleted_cells: bool) -> None:
    family = Family("e", versions=2_147_483_647, keep_deleted_cells=keep_deleted_cells)
    engine.create_table(Table("test", [family]))
    for stamp in (10, 12, 14):
        engine.mutate("test", [Put(b"r1", b"e:c1", b"value", timestamp=stamp)])
    engine.mutate("test", [Delete(b"r1", b"e:c1", timestamp=11)])


def _put(stamp: int) -> RawCell:
    return RawCell(b"e:c1", stamp, CellKind.PUT, b"value")


#: The seed's ``scan 'test', {RAW=>true, VERSIONS=>1000}`` before any compaction.
RAW_BEFORE = [_put(14), _put(12), RawCell(b"e:c1", 11, CellKind.DELETE_COLUMN), _put(10)]


def test_the_raw_view_shows_puts_and_markers_like_a_raw_scan(engine: MemoryBackend) -> None:
    """The seed's shell session: 14, 12, the DeleteColumn at 11, then 10."""
    _section_42(engine, keep_deleted_cells=False)
    assert engine.raw("test", b"r1") == RAW_BEFORE


def test_major_compaction_purges_markers_and_masked_cells(engine: MemoryBackend) -> None:
    """Without KEEP_DELETED_CELLS only 14 and 12 survive, as in the seed."""
    _section_42(engine, keep_deleted_cells=False)
    engine.major_compact("test")
    assert engine.raw("test", b"r1") == [_put(14), _put(12)]


def test_after_compaction_an_old_put_is_visible_again(engine: MemoryBackend) -> None:
    """The marker is gone, so a put at 5 written now is no longer masked."""
    _section_42(engine, keep_deleted_cells=False)
    engine.mutate("test", [Put(b"r1", b"e:c1", b"early", timestamp=5)])
    assert engine.get_versions("test", b"r1", b"e:c1", max_versions=9, before=12) == []
    engine.major_compact("test")
    engine.mutate("test", [Put(b"r1", b"e:c1", b"early", timestamp=5)])
    assert engine.get_versions("test", b"r1", b"e:c1", max_versions=9, before=12) == [
        Cell(b"early", 5)
    ]


def test_keep_deleted_cells_survive_major_compaction(engine: MemoryBackend) -> None:
    """With KEEP_DELETED_CELLS the raw view is unchanged and time travel still works."""
    _section_42(engine, keep_deleted_cells=True)
    engine.major_compact("test")
    assert engine.raw("test", b"r1") == RAW_BEFORE
    assert engine.get_versions("test", b"r1", b"e:c1", max_versions=9, before=11) == [
        Cell(b"value", 10)
    ]


def test_family_and_row_markers_appear_as_delete_family(engine: MemoryBackend) -> None:
    """A row delete places a DeleteFamily marker in every family, listed first per family."""
    engine.create_table(Table("t", [Family("a"), Family("b")]))
    engine.mutate("t", [Put(b"r", b"a:q", b"v", timestamp=3)])
    engine.mutate("t", [Delete(b"r", timestamp=5)])
    assert engine.raw("t", b"r") == [
        RawCell(b"a", 5, CellKind.DELETE_FAMILY),
        RawCell(b"a:q", 3, CellKind.PUT, b"v"),
        RawCell(b"b", 5, CellKind.DELETE_FAMILY),
    ]


def test_a_compacted_row_with_nothing_left_disappears(engine: MemoryBackend) -> None:
    """Rows holding only deleted cells and markers are dropped by the compaction."""
    engine.create_table(Table("t", [Family("a")]))
    engine.mutate("t", [Put(b"r", b"a:q", b"v", timestamp=3)])
    engine.mutate("t", [Delete(b"r")])
    engine.major_compact("t")
    assert engine.raw("t", b"r") == []


def test_versions_beyond_versions_are_never_stored(engine: MemoryBackend) -> None:
    """VERSIONS=2: the raw view never holds a third version (discarded as at a flush)."""
    engine.create_table(Table("t", [Family("a", versions=2)]))
    for stamp in (1, 3, 2, 4):
        engine.mutate("t", [Put(b"r", b"a:q", b"v%d" % stamp, timestamp=stamp)])
    assert [cell.timestamp for cell in engine.raw("t", b"r")] == [4, 3]


def test_a_marker_and_a_put_of_the_same_timestamp_list_the_marker_first(
    engine: MemoryBackend,
) -> None:
    """HBase sorts a delete before a put of the same timestamp; the put is masked."""
    engine.create_table(Table("t", [Family("a", versions=3)]))
    engine.mutate("t", [Put(b"r", b"a:q", b"v", timestamp=7), Delete(b"r", b"a:q", timestamp=7)])
    assert engine.raw("t", b"r") == [
        RawCell(b"a:q", 7, CellKind.DELETE_COLUMN),
        RawCell(b"a:q", 7, CellKind.PUT, b"v"),
    ]
    assert engine.get("t", [b"r"]) == []


def _single_versions(engine: MemoryBackend, *, keep_deleted_cells: bool) -> None:
    families = [
        Family("e", versions=100, keep_deleted_cells=keep_deleted_cells),
        Family("g", versions=100),
    ]
    engine.create_table(Table("test", families))
    engine.mutate(
        "test",
        [Put(b"r1", b"e:c1", b"value", timestamp=stamp) for stamp in (10, 12, 14)]
        + [Put(b"r1", b"e:c2", b"value", timestamp=12), Put(b"r1", b"g:c1", b"value", 12)],
    )
    engine.mutate("test", [VersionDelete(b"r1", b"e:c1", timestamp=14)])
    engine.mutate("test", [VersionDelete(b"r1", b"e", timestamp=12)])


#: The raw view after :func:`_single_versions`, in HBase's raw order.
SINGLE_RAW = [
    RawCell(b"e", 12, CellKind.DELETE_FAMILY_VERSION),
    RawCell(b"e:c1", 14, CellKind.DELETE),
    _put(14),
    _put(12),
    _put(10),
    RawCell(b"e:c2", 12, CellKind.PUT, b"value"),
    RawCell(b"g:c1", 12, CellKind.PUT, b"value"),
]


def test_single_version_markers_in_the_raw_view(engine: MemoryBackend) -> None:
    """A Delete and a DeleteFamilyVersion marker show in the raw view with their types;
    reads see only the versions at other timestamps."""
    _single_versions(engine, keep_deleted_cells=False)
    assert engine.raw("test", b"r1") == SINGLE_RAW
    assert engine.get_history("test", b"r1", max_versions=9) == [
        (b"e:c1", [Cell(b"value", 10)]),
        (b"g:c1", [Cell(b"value", 12)]),
    ]


def test_major_compaction_purges_single_version_markers_with_their_cells(
    engine: MemoryBackend,
) -> None:
    """Without KEEP_DELETED_CELLS a compaction drops both markers and the versions they
    mask: a put at a masked timestamp afterwards is visible; with it, nothing changes."""
    _single_versions(engine, keep_deleted_cells=False)
    engine.major_compact("test")
    assert engine.raw("test", b"r1") == [_put(10), RawCell(b"g:c1", 12, CellKind.PUT, b"value")]
    engine.mutate("test", [Put(b"r1", b"e:c1", b"again", timestamp=14)])
    assert engine.get_versions("test", b"r1", b"e:c1", max_versions=9) == [
        Cell(b"again", 14),
        Cell(b"value", 10),
    ]


def test_keep_deleted_cells_keeps_single_version_markers(engine: MemoryBackend) -> None:
    """With KEEP_DELETED_CELLS the markers and the versions they mask survive compaction."""
    _single_versions(engine, keep_deleted_cells=True)
    engine.major_compact("test")
    assert engine.raw("test", b"r1") == SINGLE_RAW


def test_a_version_delete_without_a_timestamp_masks_the_newest_visible_version() -> None:
    """Resolved before the call's puts (HBase's prepareDeleteTimestamps): two in one call
    mask the two newest; with nothing visible the marker is stamped now."""
    engine = MemoryBackend(clock=lambda: 1_000)
    engine.create_table(Table("test", [Family("e", versions=100)]))
    engine.mutate("test", [Put(b"r", b"e:c", b"v", timestamp=s) for s in (10, 12, 14)])
    engine.mutate(
        "test",
        [
            Put(b"r", b"e:c", b"new", timestamp=20),
            VersionDelete(b"r", b"e:c"),
            VersionDelete(b"r", b"e:c"),
        ],
    )
    assert engine.get_versions("test", b"r", b"e:c", max_versions=9) == [
        Cell(b"new", 20),
        Cell(b"v", 10),
    ]
    engine.mutate("test", [VersionDelete(b"r", b"e:x")])
    assert RawCell(b"e:x", 1_000, CellKind.DELETE) in engine.raw("test", b"r")


def test_a_version_delete_needs_a_column_and_a_family_one_a_timestamp(
    engine: MemoryBackend,
) -> None:
    """A VersionDelete of a family without a timestamp is refused, naming the column."""
    engine.create_table(Table("test", [Family("e")]))
    with pytest.raises(IllegalArgumentError, match="needs a timestamp"):
        engine.mutate("test", [VersionDelete(b"r", b"e")])


def test_keep_deleted_cells_ttl_purges_only_the_markers_past_the_ttl(
    engine: MemoryBackend, clock: ManualClock
) -> None:
    """KEEP_DELETED_CELLS => TTL (F9): reads see past markers as with TRUE; a major
    compaction drops the markers older than the TTL with what they mask (then expired
    anyway, but for MIN_VERSIONS) and keeps the younger ones with theirs."""
    family = Family("e", versions=100, ttl=60, min_versions=2, keep_deleted_cells="TTL")
    engine.create_table(Table("test", [family]))
    now = clock()
    old, young = now - 120_000, now - 1_000
    engine.mutate("test", [Put(b"r", b"e:c", b"v", timestamp=s) for s in (old - 1, old, young)])
    engine.mutate("test", [VersionDelete(b"r", b"e:c", timestamp=old)])
    engine.mutate("test", [VersionDelete(b"r", b"e:c", timestamp=young)])
    reads = [Cell(b"v", old - 1)]  # MIN_VERSIONS spares it: the two newer ones are masked
    assert engine.get_versions("test", b"r", b"e:c", max_versions=9) == reads
    engine.major_compact("test")
    assert engine.raw("test", b"r") == [
        RawCell(b"e:c", young, CellKind.DELETE),
        RawCell(b"e:c", young, CellKind.PUT, b"v"),
        RawCell(b"e:c", old - 1, CellKind.PUT, b"v"),
    ]
    assert engine.get_versions("test", b"r", b"e:c", max_versions=9) == reads
