"""Multi-version scans of the engine (``scan_versions``), against its newest-version scan (I4)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel.backend.base import Cell, Delete, Put, Scan
from hmodel.backend.memory import MemoryBackend, VersionDelete
from hmodel.schema import Family, Table

_FILTERS = [
    None,
    "ValueFilter(=, 'binary:1')",
    "QualifierFilter(=, 'binary:a')",
    "FirstKeyOnlyFilter()",
    "ColumnCountGetFilter(1)",
    "TimestampsFilter(2, 4)",
    "PageFilter(1)",
    "SingleColumnValueFilter('f', 'a', =, 'binary:1')",
]

_writes = st.lists(
    st.tuples(
        st.sampled_from([b"r1", b"r2", b"r3"]),
        st.sampled_from([b"f:a", b"f:b", b"g:a"]),
        st.sampled_from([b"1", b"2"]),
        st.integers(1, 6),
        st.sampled_from(["put", "put", "delete", "version"]),
    ),
    max_size=25,
)


def _engine(writes: list[tuple[bytes, bytes, bytes, int, str]]) -> MemoryBackend:
    engine = MemoryBackend(clock=lambda: 1_000)
    engine.create_table(Table("t", [Family("f", versions=10), Family("g", versions=10)]))
    for row, column, value, stamp, kind in writes:
        if kind == "put":
            engine.mutate("t", [Put(row, column, value, timestamp=stamp)])
        elif kind == "delete":
            engine.mutate("t", [Delete(row, column, timestamp=stamp)])
        else:
            engine.mutate("t", [VersionDelete(row, column, timestamp=stamp)])
    return engine


@settings(max_examples=150, deadline=None)
@given(_writes, st.sampled_from(_FILTERS), st.sampled_from([None, 4, 6]))
def test_one_version_is_the_newest_version_scan(
    writes: list[tuple[bytes, bytes, bytes, int, str]], text: str | None, before: int | None
) -> None:
    """``scan_versions`` of one version returns what ``scan`` returns, for any table,
    filter and time range."""
    engine = _engine(writes)
    scan = Scan(filter=text, before=before)
    newest = [(r.row, [(c, [cell]) for c, cell in r.cells.items()]) for r in engine.scan("t", scan)]
    assert list(engine.scan_versions("t", scan, max_versions=1)) == newest


@settings(max_examples=150, deadline=None)
@given(_writes, st.integers(1, 4), st.integers(0, 5))
def test_without_a_filter_each_column_keeps_its_newest_versions_in_the_range(
    writes: list[tuple[bytes, bytes, bytes, int, str]], versions: int, minimum: int
) -> None:
    """Without a filter: each column's ``get_history`` versions ``>= minimum``, the newest
    ``versions`` of them."""
    engine = _engine(writes)
    found = list(engine.scan_versions("t", Scan(), max_versions=versions, minimum=minimum))
    expected = []
    for row in (b"r1", b"r2", b"r3"):
        history = engine.get_history("t", row, max_versions=100)
        columns = [
            (c, [v for v in cells if v.timestamp >= minimum][:versions]) for c, cells in history
        ]
        columns = [(c, cells) for c, cells in columns if cells]
        if columns:
            expected.append((row, columns))
    assert found == expected


def test_a_filter_counts_the_versions_it_includes() -> None:
    """With a ValueFilter and two versions, the two newest passing versions come back,
    skipping the one between them that fails."""
    engine = _engine(
        [(b"r1", b"f:a", v, s, "put") for v, s in [(b"1", 5), (b"2", 4), (b"1", 3), (b"1", 2)]]
    )
    scan = Scan(filter="ValueFilter(=, 'binary:1')")
    assert list(engine.scan_versions("t", scan, max_versions=2)) == [
        (b"r1", [(b"f:a", [Cell(b"1", 5), Cell(b"1", 3)])])
    ]
