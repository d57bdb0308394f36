"""Contract: scans (byte order, bounds, reverse, prefix, limit, columns, batches, filters)."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Cell, Delete, Put, RowResult, Scan
from hmodel.errors import (
    ColumnFamilyNotFoundError,
    FilterError,
    IllegalArgumentError,
    TableNotFoundError,
)

#: Rows chosen so that unsigned byte order differs from signed order and from length order.
ROWS = [b"\x00", b"\x7f", b"\x80", b"\xff", b"\xff\x00", b"a", b"ab", b"abc", b"b", b"ba", b"c"]
#: Rows that also have a cell in family d.
WITH_D = {b"ab", b"ba", b"\x80"}


@pytest.fixture
def filled(backend: Backend, table: str) -> str:
    """The table with every row of ROWS: i:n = the row, d:x on WITH_D, all at ts 10."""
    mutations = [Put(row, b"i:n", row, timestamp=10) for row in reversed(ROWS)]
    mutations += [Put(row, b"d:x", b"x", timestamp=10) for row in WITH_D]
    backend.mutate(table, mutations)
    return table


def _rows(backend: Backend, table: str, scan: Scan) -> list[bytes]:
    return [result.row for result in backend.scan(table, scan)]


def test_a_full_scan_returns_rows_in_unsigned_byte_order(backend: Backend, filled: str) -> None:
    """Unsigned: b"\\x80" sorts after b"\\x7f" and both after b"c"; b"a" < b"ab" < b"b" (K2)."""
    assert _rows(backend, filled, Scan()) == sorted(ROWS)


def test_start_is_inclusive_and_stop_exclusive(backend: Backend, filled: str) -> None:
    """[start, stop): the start row is returned, the stop row is not."""
    assert _rows(backend, filled, Scan(start=b"ab", stop=b"ba")) == [b"ab", b"abc", b"b"]
    assert _rows(backend, filled, Scan(start=b"aa", stop=b"b")) == [b"ab", b"abc"]
    assert _rows(backend, filled, Scan(start=b"c", stop=b"\xff")) == [b"c", b"\x7f", b"\x80"]
    assert _rows(backend, filled, Scan(start=b"\x80")) == [b"\x80", b"\xff", b"\xff\x00"]
    assert _rows(backend, filled, Scan(stop=b"a")) == [b"\x00"]


def test_an_empty_range_returns_nothing(backend: Backend, filled: str) -> None:
    """start == stop selects no row, in both directions, on every backend.

    The protocol's range is [start, stop) everywhere. HBase's Thrift1 server reads the row
    itself when startRow equals stopRow (its deprecated setStopRow makes it a get), so
    the Thrift backend drops what lies at or past ``stop``.
    """
    for start in (b"b", b"ab", b"a\x00", b"\xff\x00", b"zz"):
        for reverse in (False, True):
            scan = Scan(start=start, stop=start, reverse=reverse)
            assert _rows(backend, filled, scan) == [], scan
            filtered = Scan(start=start, stop=start, reverse=reverse, filter="KeyOnlyFilter()")
            assert _rows(backend, filled, filtered) == [], filtered


def test_an_empty_range_still_checks_the_table(backend: Backend) -> None:
    """A scan of [x, x) on a missing table fails like any other scan."""
    with pytest.raises(TableNotFoundError):
        list(backend.scan("missing", Scan(start=b"b", stop=b"b")))


def test_a_reverse_scan_walks_the_same_range_backwards(backend: Backend, filled: str) -> None:
    """Bounds stay in forward order; rows come from the highest down."""
    assert _rows(backend, filled, Scan(reverse=True)) == sorted(ROWS, reverse=True)
    reverse = Scan(start=b"ab", stop=b"ba", reverse=True)
    assert _rows(backend, filled, reverse) == [b"b", b"abc", b"ab"]


def test_a_prefix_scan_returns_exactly_the_rows_with_that_prefix(
    backend: Backend, filled: str
) -> None:
    """Scan.prefix works for ordinary prefixes and for prefixes ending in 0xff."""
    assert _rows(backend, filled, Scan.prefix(b"a")) == [b"a", b"ab", b"abc"]
    assert _rows(backend, filled, Scan.prefix(b"ab")) == [b"ab", b"abc"]
    assert _rows(backend, filled, Scan.prefix(b"\xff")) == [b"\xff", b"\xff\x00"]
    assert _rows(backend, filled, Scan.prefix(b"a", reverse=True)) == [b"abc", b"ab", b"a"]


def test_limit_caps_the_rows_in_either_direction(backend: Backend, filled: str) -> None:
    """limit=n returns the first n rows of the scan's order (R8)."""
    assert _rows(backend, filled, Scan(start=b"a", limit=2)) == [b"a", b"ab"]
    assert _rows(backend, filled, Scan(limit=2, reverse=True)) == [b"\xff\x00", b"\xff"]
    assert _rows(backend, filled, Scan(limit=0)) == []
    assert _rows(backend, filled, Scan(limit=100)) == sorted(ROWS)


@pytest.mark.parametrize("batch_size", [1, 2, 3, 11, 1000])
def test_every_batch_size_returns_the_same_rows(
    backend: Backend, filled: str, batch_size: int
) -> None:
    """batch_size changes the round trips, never the result, with or without a limit."""
    assert _rows(backend, filled, Scan(batch_size=batch_size)) == sorted(ROWS)
    limited = Scan(batch_size=batch_size, limit=5, reverse=True)
    assert _rows(backend, filled, limited) == sorted(ROWS, reverse=True)[:5]


def test_a_column_selection_leaves_out_rows_without_those_columns(
    backend: Backend, filled: str
) -> None:
    """Rows with no visible cell after selection are not returned."""
    results = list(backend.scan(filled, Scan(columns=[b"d"])))
    assert [r.row for r in results] == sorted(WITH_D)
    assert all(list(r.cells) == [b"d:x"] for r in results)
    assert _rows(backend, filled, Scan(columns=[b"d:x", b"i:n"])) == sorted(ROWS)


@pytest.mark.parametrize(
    "columns", [[b"i", b"i:x"], [b"i:x", b"i"]], ids=["family-first", "column-first"]
)
def test_a_family_and_one_of_its_columns_scan_the_whole_family(
    backend: Backend, filled: str, columns: list[bytes]
) -> None:
    """A whole family wins over a column of it, in either order (HBase's ``Scan`` would
    narrow the family to the column when the family comes first)."""
    assert _rows(backend, filled, Scan(columns=columns)) == sorted(ROWS)


def test_a_scan_returns_the_latest_version_and_honours_before(backend: Backend, table: str) -> None:
    """Scans return one version per column; before=t reads the state strictly before t."""
    backend.mutate(table, [Put(b"r", b"i:n", b"old", timestamp=10)])
    backend.mutate(table, [Put(b"r", b"i:n", b"new", timestamp=20)])
    backend.mutate(table, [Put(b"s", b"i:n", b"late", timestamp=30)])
    assert list(backend.scan(table, Scan())) == [
        RowResult(b"r", {b"i:n": Cell(b"new", 20)}),
        RowResult(b"s", {b"i:n": Cell(b"late", 30)}),
    ]
    assert list(backend.scan(table, Scan(before=20))) == [
        RowResult(b"r", {b"i:n": Cell(b"old", 10)})
    ]


def test_deleted_rows_are_not_scanned(backend: Backend, filled: str) -> None:
    """A row whose cells are all deleted disappears from scans."""
    backend.mutate(filled, [Delete(b"ab"), Delete(b"b", b"i")])
    assert _rows(backend, filled, Scan.prefix(b"a")) == [b"a", b"abc"]
    assert b"b" not in _rows(backend, filled, Scan())


def test_a_scan_of_an_unknown_family_raises(backend: Backend, filled: str) -> None:
    """Selecting a family the table lacks raises (when the scan is opened or first read)."""
    with pytest.raises(ColumnFamilyNotFoundError):
        list(backend.scan(filled, Scan(columns=[b"zz"])))


# --- filters (I4) ------------------------------------------------------------------------------


def _filtered(backend: Backend, table: str, text: str, **options: object) -> list[RowResult]:
    return list(backend.scan(table, Scan(filter=text, **options)))  # type: ignore[arg-type]


def test_prefix_filter_keeps_rows_with_the_prefix(backend: Backend, filled: str) -> None:
    """PrefixFilter('ab') keeps ab and abc."""
    assert [r.row for r in _filtered(backend, filled, "PrefixFilter('ab')")] == [b"ab", b"abc"]


def test_row_filter_compares_the_rowkey(backend: Backend, filled: str) -> None:
    """RowFilter with a binary comparator selects by rowkey."""
    found = _filtered(backend, filled, "RowFilter(=, 'binary:ba')")
    assert [r.row for r in found] == [b"ba"]
    greater = _filtered(backend, filled, "RowFilter(>=, 'binary:b')")
    assert [r.row for r in greater] == [b"b", b"ba", b"c", b"\x7f", b"\x80", b"\xff", b"\xff\x00"]


def test_single_column_value_filter_selects_rows_by_a_cell(backend: Backend, filled: str) -> None:
    """SingleColumnValueFilter returns the whole matching row."""
    found = _filtered(
        backend, filled, "SingleColumnValueFilter('i', 'n', =, 'binary:ba', true, true)"
    )
    assert found == [RowResult(b"ba", {b"d:x": Cell(b"x", 10), b"i:n": Cell(b"ba", 10)})]


def test_value_filter_keeps_only_matching_cells(backend: Backend, filled: str) -> None:
    """ValueFilter drops the cells that do not match, and rows left without cells."""
    found = _filtered(backend, filled, "ValueFilter(=, 'binary:x')")
    assert [r.row for r in found] == sorted(WITH_D)
    assert all(list(r.cells) == [b"d:x"] for r in found)


def test_column_prefix_filter_keeps_matching_qualifiers(backend: Backend, filled: str) -> None:
    """ColumnPrefixFilter('x') keeps d:x only."""
    found = _filtered(backend, filled, "ColumnPrefixFilter('x')")
    assert [(r.row, list(r.cells)) for r in found] == [(row, [b"d:x"]) for row in sorted(WITH_D)]


def test_key_only_filter_empties_the_values(backend: Backend, filled: str) -> None:
    """KeyOnlyFilter returns the cells with empty values and their timestamps."""
    found = _filtered(backend, filled, "KeyOnlyFilter()", start=b"ab", stop=b"abc")
    assert found == [RowResult(b"ab", {b"d:x": Cell(b"", 10), b"i:n": Cell(b"", 10)})]


def test_first_key_only_filter_returns_one_cell_per_row(backend: Backend, filled: str) -> None:
    """FirstKeyOnlyFilter keeps each row's first column."""
    found = _filtered(backend, filled, "FirstKeyOnlyFilter()")
    assert [r.row for r in found] == sorted(ROWS)
    assert all(len(r.cells) == 1 for r in found)


def test_page_filter_stops_after_the_page(backend: Backend, filled: str) -> None:
    """PageFilter(3) returns 3 rows from a single-region table."""
    assert len(_filtered(backend, filled, "PageFilter(3)")) == 3


def test_filter_lists_combine_with_and_and_or(backend: Backend, filled: str) -> None:
    """AND keeps rows passing both filters, OR rows passing either."""
    both = _filtered(backend, filled, "PrefixFilter('a') AND ValueFilter(=, 'binary:x')")
    assert [r.row for r in both] == [b"ab"]
    either = _filtered(backend, filled, "PrefixFilter('ab') OR RowFilter(=, 'binary:c')")
    assert [r.row for r in either] == [b"ab", b"abc", b"c"]


def test_filters_compose_with_bounds_and_reverse(backend: Backend, filled: str) -> None:
    """A filter applies within the scan's range and direction."""
    found = _filtered(backend, filled, "PrefixFilter('a')", start=b"ab", reverse=True)
    assert [r.row for r in found] == [b"abc", b"ab"]


def test_a_malformed_filter_raises_filter_error(backend: Backend, filled: str) -> None:
    """A filter string that does not parse is refused."""
    with pytest.raises(FilterError):
        _filtered(backend, filled, "PrefixFilter('a'")


def test_adaptive_caching_doubles_each_fetch_up_to_its_bound(backend: Backend, table: str) -> None:
    """max_batch_size: fetches of 2, 4, 8, 8, ... rows; the rows are those of any batch size.

    29 rows: with batch_size=8 the fetches are 8, 8, 8, 5; growing from 2 they are 2, 4, 8,
    8, 7: one fetch more, whatever a backend adds per scan (an open, a close). From 1 row a
    fetch, 29 rows take 30 fetches (the last finds none); growing up to 1000 (1, 2, 4, 8,
    14 of 16) they take 5.
    """
    rows = [b"r%02d" % n for n in range(29)]
    backend.mutate(table, [Put(row, b"i:n", row, timestamp=10) for row in rows])

    def trips(scan: Scan) -> tuple[int, list[bytes]]:
        before = backend.round_trips
        found = _rows(backend, table, scan)
        return backend.round_trips - before, found

    fixed, fixed_rows = trips(Scan(batch_size=8))
    growing, growing_rows = trips(Scan(batch_size=2, max_batch_size=8))
    assert fixed_rows == growing_rows == rows
    assert growing == fixed + 1
    ones, _ = trips(Scan(batch_size=1))
    doubling, doubling_rows = trips(Scan(batch_size=1, max_batch_size=1000))
    assert doubling_rows == rows
    assert ones - doubling == 30 - 5
    reverse = trips(Scan(batch_size=2, max_batch_size=8, reverse=True, limit=20))[1]
    assert reverse == rows[::-1][:20]


def test_a_max_batch_size_below_the_batch_size_is_refused() -> None:
    with pytest.raises(IllegalArgumentError, match="max_batch_size"):
        Scan(batch_size=10, max_batch_size=5)
    with pytest.raises(IllegalArgumentError, match="must be an int"):
        Scan(max_batch_size=True)  # type: ignore[arg-type]
