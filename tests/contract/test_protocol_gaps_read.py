"""Contract gaps: reads combining options the existing contract tests exercise one at a time."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Cell, Put, RowResult, Scan
from hmodel.errors import ColumnFamilyNotFoundError, IllegalArgumentError


@pytest.fixture
def history(backend: Backend, table: str) -> str:
    """Rows a, b, c; each has i:n at ts 10 and 20 and d:x at ts 15."""
    rows = (b"a", b"b", b"c")
    for stamp in (10, 20):
        backend.mutate(
            table, [Put(row, b"i:n", b"%s%d" % (row, stamp), timestamp=stamp) for row in rows]
        )
    backend.mutate(table, [Put(row, b"d:x", b"x", timestamp=15) for row in rows])
    return table


def _rows(backend: Backend, table: str, scan: Scan) -> list[bytes]:
    return [result.row for result in backend.scan(table, scan)]


def test_get_with_columns_and_before_reads_the_selected_cells_strictly_older(
    backend: Backend, history: str
) -> None:
    """columns and before=t together: only the selected columns, only cells older than t."""
    assert backend.get(history, [b"a", b"b"], columns=[b"i:n"], before=20) == [
        RowResult(b"a", {b"i:n": Cell(b"a10", 10)}),
        RowResult(b"b", {b"i:n": Cell(b"b10", 10)}),
    ]
    assert backend.get(history, [b"a"], columns=[b"d"], before=15) == []


def test_get_versions_of_an_unknown_family_raises(backend: Backend, history: str) -> None:
    """get_versions names its family like get does: an unknown one is NoSuchColumnFamily."""
    with pytest.raises(ColumnFamilyNotFoundError):
        backend.get_versions(history, b"a", b"nope:n", max_versions=1)


def test_get_versions_needs_a_qualified_column(backend: Backend, history: str) -> None:
    """A bare family is not a cell: get_versions refuses it."""
    with pytest.raises(IllegalArgumentError):
        backend.get_versions(history, b"a", b"i", max_versions=1)


def test_scanned_cells_come_in_column_order(backend: Backend, table: str) -> None:
    """A scanned row lists its cells family first, then qualifier, as unsigned bytes."""
    backend.mutate(
        table,
        [
            Put(b"r", b"i:\xff", b"1", timestamp=1),
            Put(b"r", b"i:b", b"2", timestamp=1),
            Put(b"r", b"d:z", b"3", timestamp=1),
            Put(b"r", b"i:", b"4", timestamp=1),
        ],
    )
    [result] = backend.scan(table, Scan())
    assert list(result.cells) == [b"d:z", b"i:", b"i:b", b"i:\xff"]


def test_a_reverse_scan_honours_before(backend: Backend, history: str) -> None:
    """before=t applies in either direction."""
    found = list(backend.scan(history, Scan(columns=[b"i:n"], before=20, reverse=True)))
    assert [(r.row, r.value(b"i:n")) for r in found] == [
        (b"c", b"c10"),
        (b"b", b"b10"),
        (b"a", b"a10"),
    ]


def test_a_filter_applies_to_the_selected_columns_and_before(
    backend: Backend, history: str
) -> None:
    """A ValueFilter sees only what columns and before leave."""
    found = list(
        backend.scan(
            history, Scan(columns=[b"i"], before=20, filter="ValueFilter(=, 'binary:b10')")
        )
    )
    assert found == [RowResult(b"b", {b"i:n": Cell(b"b10", 10)})]


def test_limit_counts_the_rows_the_filter_keeps(backend: Backend, history: str) -> None:
    """limit=n returns the first n rows that pass the filter, not of the range."""
    scan = Scan(filter="RowFilter(!=, 'binary:a')", limit=1)
    assert _rows(backend, history, scan) == [b"b"]
    reverse = Scan(filter="RowFilter(!=, 'binary:c')", limit=1, reverse=True)
    assert _rows(backend, history, reverse) == [b"b"]


def test_a_bytes_filter_may_carry_any_byte(backend: Backend, table: str) -> None:
    """Scan.filter as bytes carries 0x00 and 0xff inside quoted literals."""
    backend.mutate(
        table, [Put(row, b"i:n", b"v", timestamp=1) for row in (b"\xff\x00", b"\xff", b"\x00\xff")]
    )
    scan = Scan(filter=b"PrefixFilter('\xff')")
    assert _rows(backend, table, scan) == [b"\xff", b"\xff\x00"]


def test_a_reverse_scan_stops_before_its_stop_row_for_page_filters(
    backend: Backend, history: str
) -> None:
    """The stop row is outside a reverse scan: PageFilter(1) returns the row below it."""
    assert _rows(backend, history, Scan(stop=b"c", reverse=True, filter="PageFilter(1)")) == [b"b"]
    assert _rows(backend, history, Scan(stop=b"c\x00", reverse=True, filter="PageFilter(1)")) == [
        b"c"
    ]
    while_ = "WHILE RowFilter(!=, 'binary:c')"
    assert _rows(backend, history, Scan(stop=b"c", reverse=True, filter=while_))[:1] == [b"b"]
