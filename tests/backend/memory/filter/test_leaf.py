"""Each filter's effect on a scan, following its HBase class cell by cell (I4)."""

from __future__ import annotations

import pytest

from .conftest import Result, Scan, Table

#: Two families; qualifiers chosen so prefixes and ranges cut between columns.
FRUIT: Table = {
    b"row1": {b"f:a": b"apple", b"f:b": b"banana", b"g:c": b"cherry"},
    b"row2": {b"f:a": b"avocado", b"f:bb": b"blueberry"},
    b"row3": {b"f:b": b"beet", b"g:a": b"artichoke"},
    b"sow1": {b"f:a": b"sorrel"},
}


def only(**rows: dict[str, str]) -> Result:
    """Expected result written compactly: only(row1={"f:a": "apple"})."""
    return {
        row.encode(): {col.encode(): [value.encode()] for col, value in cols.items()}
        for row, cols in rows.items()
    }


ROW1 = {"f:a": "apple", "f:b": "banana", "g:c": "cherry"}
ROW2 = {"f:a": "avocado", "f:bb": "blueberry"}
ROW3 = {"f:b": "beet", "g:a": "artichoke"}
SOW1 = {"f:a": "sorrel"}
ALL = only(row1=ROW1, row2=ROW2, row3=ROW3, sow1=SOW1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # PrefixFilter: rows starting with the prefix; the scan stops once past it.
        ("PrefixFilter('row')", only(row1=ROW1, row2=ROW2, row3=ROW3)),
        ("PrefixFilter('row2')", only(row2=ROW2)),
        ("PrefixFilter('rox')", {}),
        ("PrefixFilter('')", ALL),
        # FirstKeyOnlyFilter: the first cell (first column, newest version) of each row.
        (
            "FirstKeyOnlyFilter()",
            only(row1={"f:a": "apple"}, row2={"f:a": "avocado"}, row3={"f:b": "beet"}, sow1=SOW1),
        ),
        # PageFilter: the first n rows that pass.
        ("PageFilter(2)", only(row1=ROW1, row2=ROW2)),
        ("PageFilter(0)", {}),
        ("PageFilter(10)", ALL),
        # ColumnPrefixFilter: qualifiers with the prefix, in every family.
        (
            "ColumnPrefixFilter('b')",
            only(row1={"f:b": "banana"}, row2={"f:bb": "blueberry"}, row3={"f:b": "beet"}),
        ),
        ("ColumnPrefixFilter('bb')", only(row2={"f:bb": "blueberry"})),
        (
            "ColumnPrefixFilter('a')",
            only(
                row1={"f:a": "apple"}, row2={"f:a": "avocado"}, row3={"g:a": "artichoke"}, sow1=SOW1
            ),
        ),
        ("ColumnPrefixFilter('')", ALL),
        # MultipleColumnPrefixFilter: any of the prefixes.
        (
            "MultipleColumnPrefixFilter('c', 'a')",
            only(
                row1={"f:a": "apple", "g:c": "cherry"},
                row2={"f:a": "avocado"},
                row3={"g:a": "artichoke"},
                sow1=SOW1,
            ),
        ),
        (
            "MultipleColumnPrefixFilter('bb', 'c')",
            only(row1={"g:c": "cherry"}, row2={"f:bb": "blueberry"}),
        ),
        ("MultipleColumnPrefixFilter()", ALL),
        # ColumnRangeFilter: bounds inclusive or exclusive as flagged; '' is unbounded.
        (
            "ColumnRangeFilter('a', false, 'b', true)",
            only(row1={"f:b": "banana"}, row3={"f:b": "beet"}),
        ),
        (
            "ColumnRangeFilter('a', true, 'b', false)",
            only(
                row1={"f:a": "apple"}, row2={"f:a": "avocado"}, row3={"g:a": "artichoke"}, sow1=SOW1
            ),
        ),
        (
            "ColumnRangeFilter('b', true, '', false)",
            only(
                row1={"f:b": "banana", "g:c": "cherry"},
                row2={"f:bb": "blueberry"},
                row3={"f:b": "beet"},
            ),
        ),
        (
            "ColumnRangeFilter('', false, 'a', true)",
            only(
                row1={"f:a": "apple"}, row2={"f:a": "avocado"}, row3={"g:a": "artichoke"}, sow1=SOW1
            ),
        ),
        ("ColumnRangeFilter('', true, '', true)", ALL),
        # RowFilter: decides on the row key.
        ("RowFilter(<=, 'binary:row2')", only(row1=ROW1, row2=ROW2)),
        ("RowFilter(>, 'binary:row2')", only(row3=ROW3, sow1=SOW1)),
        ("RowFilter(=, 'binaryprefix:s')", only(sow1=SOW1)),
        ("RowFilter(=, 'regexstring:^r.w[13]$')", only(row1=ROW1, row3=ROW3)),
        ("RowFilter(!=, 'substring:OW1')", only(row2=ROW2, row3=ROW3)),
        # FamilyFilter: whole families.
        ("FamilyFilter(=, 'binary:g')", only(row1={"g:c": "cherry"}, row3={"g:a": "artichoke"})),
        (
            "FamilyFilter(<, 'binary:g')",
            only(
                row1={"f:a": "apple", "f:b": "banana"}, row2=ROW2, row3={"f:b": "beet"}, sow1=SOW1
            ),
        ),
        # QualifierFilter: cells by qualifier.
        (
            "QualifierFilter(=, 'binary:a')",
            only(
                row1={"f:a": "apple"}, row2={"f:a": "avocado"}, row3={"g:a": "artichoke"}, sow1=SOW1
            ),
        ),
        (
            "QualifierFilter(>=, 'binaryprefix:b')",
            only(
                row1={"f:b": "banana", "g:c": "cherry"},
                row2={"f:bb": "blueberry"},
                row3={"f:b": "beet"},
            ),
        ),
        (
            "QualifierFilter(=, 'regexstring:^b+$')",
            only(row1={"f:b": "banana"}, row2={"f:bb": "blueberry"}, row3={"f:b": "beet"}),
        ),
        # ValueFilter: cells by value.
        ("ValueFilter(=, 'substring:AN')", only(row1={"f:b": "banana"})),
        (
            "ValueFilter(<, 'binary:b')",
            only(row1={"f:a": "apple"}, row2={"f:a": "avocado"}, row3={"g:a": "artichoke"}),
        ),
        (
            "ValueFilter(=, 'binaryprefix:b')",
            only(row1={"f:b": "banana"}, row2={"f:bb": "blueberry"}, row3={"f:b": "beet"}),
        ),
        ("ValueFilter(!=, 'regexstring:e')", only(row1={"f:b": "banana"}, row2={"f:a": "avocado"})),
        ("ValueFilter(=, 'binary:nothing')", {}),
        # SingleColumnValueFilter: whole rows on one column; missing column keeps the row.
        ("SingleColumnValueFilter('f', 'a', =, 'binary:apple')", only(row1=ROW1, row3=ROW3)),
        ("SingleColumnValueFilter('f', 'a', =, 'binary:apple', true, true)", only(row1=ROW1)),
        (
            "SingleColumnValueFilter('f', 'a', !=, 'binary:apple', false, true)",
            only(row2=ROW2, row3=ROW3, sow1=SOW1),
        ),
        ("SingleColumnValueFilter('g', 'a', =, 'substring:CHOKE', true, true)", only(row3=ROW3)),
        ("SingleColumnValueFilter('f', 'zz', =, 'binary:x', true, false)", {}),
        # SingleColumnValueExcludeFilter: the same rows, without the tested column.
        (
            "SingleColumnValueExcludeFilter('f', 'a', =, 'binary:apple')",
            only(row1={"f:b": "banana", "g:c": "cherry"}, row3=ROW3),
        ),
        (
            "SingleColumnValueExcludeFilter('f', 'a', <, 'binary:b', true, true)",
            only(row1={"f:b": "banana", "g:c": "cherry"}, row2={"f:bb": "blueberry"}),
        ),
        # A row left with no cell once the tested column is removed is not returned.
        ("SingleColumnValueExcludeFilter('f', 'a', =, 'binary:sorrel')", only(row3=ROW3)),
        # InclusiveStopFilter: up to and including the stop row.
        ("InclusiveStopFilter('row2')", only(row1=ROW1, row2=ROW2)),
        ("InclusiveStopFilter('row0')", {}),
        ("InclusiveStopFilter('zzz')", ALL),
        # ColumnPaginationFilter(limit, offset): columns counted across families.
        (
            "ColumnPaginationFilter(2, 0)",
            only(row1={"f:a": "apple", "f:b": "banana"}, row2=ROW2, row3=ROW3, sow1=SOW1),
        ),
        (
            "ColumnPaginationFilter(1, 1)",
            only(row1={"f:b": "banana"}, row2={"f:bb": "blueberry"}, row3={"g:a": "artichoke"}),
        ),
        ("ColumnPaginationFilter(5, 2)", only(row1={"g:c": "cherry"})),
        ("ColumnPaginationFilter(0, 0)", {}),
        # ColumnValueFilter: only the passing versions of the one column.
        ("ColumnValueFilter('f', 'a', >=, 'binary:b')", only(sow1=SOW1)),
        (
            "ColumnValueFilter('f', 'b', =, 'binaryprefix:b')",
            only(row1={"f:b": "banana"}, row3={"f:b": "beet"}),
        ),
    ],
)
def test_filter_keeps_what_hbase_keeps(scan: Scan, text: str, expected: Result) -> None:
    assert scan(text, FRUIT) == expected


def test_key_only_filter_empties_every_value(scan: Scan) -> None:
    result = scan("KeyOnlyFilter()", FRUIT)
    assert {row: set(cols) for row, cols in result.items()} == {
        row: set(cols) for row, cols in FRUIT.items()
    }
    assert {v for cols in result.values() for vs in cols.values() for v in vs} == {b""}


def test_key_only_filter_true_gives_the_value_length_as_a_4_byte_big_endian_int(scan: Scan) -> None:
    result = scan("KeyOnlyFilter(true)", {b"r": {b"f:a": b"x" * 300, b"f:b": b""}})
    assert result == {b"r": {b"f:a": [b"\x00\x00\x01\x2c"], b"f:b": [b"\x00\x00\x00\x00"]}}


VERSIONED: Table = {
    b"r1": {b"f:a": [(30, b"a30"), (20, b"a20"), (10, b"a10")], b"f:b": [(20, b"b20")]},
    b"r2": {b"f:a": [(10, b"x10")], b"f:b": [(30, b"y30"), (10, b"y10")]},
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("TimestampsFilter(20)", {b"r1": {b"f:a": [b"a20"], b"f:b": [b"b20"]}}),
        (
            "TimestampsFilter(10, 30)",
            {
                b"r1": {b"f:a": [b"a30", b"a10"]},
                b"r2": {b"f:a": [b"x10"], b"f:b": [b"y30", b"y10"]},
            },
        ),
        ("TimestampsFilter(5)", {}),
        ("TimestampsFilter()", {}),
        # Versions are filtered one by one: an older matching version is returned.
        ("ValueFilter(=, 'binary:a20')", {b"r1": {b"f:a": [b"a20"]}}),
        ("FirstKeyOnlyFilter()", {b"r1": {b"f:a": [b"a30"]}, b"r2": {b"f:a": [b"x10"]}}),
        (
            "KeyOnlyFilter() AND TimestampsFilter(30)",
            {b"r1": {b"f:a": [b""]}, b"r2": {b"f:b": [b""]}},
        ),
        # latestVersionOnly (the default) tests the newest version only ...
        ("SingleColumnValueFilter('f', 'a', =, 'binary:a20')", {}),
        # ... and false lets any version of the column keep the row.
        (
            "SingleColumnValueFilter('f', 'a', =, 'binary:a20', false, false)",
            {b"r1": {b"f:a": [b"a30", b"a20", b"a10"], b"f:b": [b"b20"]}},
        ),
        # ColumnCountGetFilter and ColumnPaginationFilter count columns: newest version each.
        (
            "ColumnCountGetFilter(5)",
            {
                b"r1": {b"f:a": [b"a30"], b"f:b": [b"b20"]},
                b"r2": {b"f:a": [b"x10"], b"f:b": [b"y30"]},
            },
        ),
        ("ColumnPaginationFilter(1, 1)", {b"r1": {b"f:b": [b"b20"]}, b"r2": {b"f:b": [b"y30"]}}),
        # DependentColumnFilter: cells sharing a timestamp with the reference column.
        (
            "DependentColumnFilter('f', 'b')",
            {
                b"r1": {b"f:a": [b"a20"], b"f:b": [b"b20"]},
                b"r2": {b"f:a": [b"x10"], b"f:b": [b"y30", b"y10"]},
            },
        ),
        (
            "DependentColumnFilter('f', 'b', true)",
            {b"r1": {b"f:a": [b"a20"]}, b"r2": {b"f:a": [b"x10"]}},
        ),
        (
            "DependentColumnFilter('f', 'b', false, =, 'binary:y10')",
            {b"r2": {b"f:a": [b"x10"], b"f:b": [b"y10"]}},
        ),
        ("DependentColumnFilter('f', 'zz')", {}),
        ("ColumnValueFilter('f', 'a', <, 'binary:a3')", {b"r1": {b"f:a": [b"a20", b"a10"]}}),
    ],
)
def test_filters_see_every_version(scan: Scan, text: str, expected: Result) -> None:
    assert scan(text, VERSIONED) == expected


def test_column_count_get_filter_ends_a_single_family_scan_at_the_first_wide_row(
    scan: Scan,
) -> None:
    """Made for gets: once a row has more than n columns, HBase's scanner closes."""
    table: Table = {
        b"r1": {b"f:a": b"1", b"f:b": b"2"},
        b"r2": {b"f:a": b"3", b"f:b": b"4", b"f:c": b"5"},
        b"r3": {b"f:a": b"6"},
    }
    assert scan("ColumnCountGetFilter(2)", table) == {
        b"r1": {b"f:a": [b"1"], b"f:b": [b"2"]},
        b"r2": {b"f:a": [b"3"], b"f:b": [b"4"]},
    }


def test_column_count_get_filter_closes_only_the_families_that_saw_it_over(scan: Scan) -> None:
    """Each family is its own store scanner; the one that overflowed closes, f goes on."""
    assert scan("ColumnCountGetFilter(2)", FRUIT) == only(
        row1={"f:a": "apple", "f:b": "banana"}, row2=ROW2, row3={"f:b": "beet"}, sow1=SOW1
    )


def test_multiple_column_prefix_filter_tests_only_the_largest_smaller_prefix(scan: Scan) -> None:
    """HBase quirk kept: with prefixes 'a' and 'ab', qualifier 'ac' is not matched."""
    table: Table = {b"r": {b"f:aa": b"1", b"f:ab": b"2", b"f:ac": b"3"}}
    assert scan("MultipleColumnPrefixFilter('a', 'ab')", table) == {
        b"r": {b"f:aa": [b"1"], b"f:ab": [b"2"]}
    }


def test_qualifier_filter_compares_the_empty_qualifier_like_any_other(scan: Scan) -> None:
    """HBase 2 (2.6.1 measured); HBase 1.x let an empty qualifier pass unexamined."""
    table: Table = {b"r": {b"f:": b"empty", b"f:q": b"q"}}
    assert scan("QualifierFilter(=, 'binary:zzz')", table) == {}
    assert scan("QualifierFilter(<, 'binary:q')", table) == {b"r": {b"f:": [b"empty"]}}


def test_prefix_filter_skips_rows_shorter_than_the_prefix(scan: Scan) -> None:
    table: Table = {b"ab": {b"f:a": b"1"}, b"abc": {b"f:a": b"2"}, b"b": {b"f:a": b"3"}}
    assert scan("PrefixFilter('abc')", table) == {b"abc": {b"f:a": [b"2"]}}


def test_prefix_and_inclusive_stop_end_a_reversed_scan_on_the_low_side(scan: Scan) -> None:
    assert scan("PrefixFilter('row')", FRUIT, reverse=True) == only(row3=ROW3, row2=ROW2, row1=ROW1)
    assert scan("InclusiveStopFilter('row2')", FRUIT, reverse=True) == only(
        sow1=SOW1, row3=ROW3, row2=ROW2
    )


def test_families_are_compared_as_bytes_not_as_column_strings(scan: Scan) -> None:
    """Family 'a' sorts before 'a1' although b'a1:x' < b'a:x'."""
    table: Table = {b"r": {b"a1:x": b"second", b"a:x": b"first"}}
    assert scan("FirstKeyOnlyFilter()", table) == {b"r": {b"a:x": [b"first"]}}
