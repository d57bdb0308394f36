"""AND / OR lists, SKIP and WHILE: HBase's FilterList, SkipFilter and WhileMatchFilter (I4)."""

from __future__ import annotations

import pytest

from hmodel.backend.memory.filter.combinator import merge_all, merge_one
from hmodel.backend.memory.filter.runtime import ReturnCode

from .conftest import Result, Scan, Table
from .test_leaf import FRUIT, ROW1, ROW2, ROW3, SOW1, only

IN, INC, INR, S, NC, NR, H = (
    ReturnCode.INCLUDE,
    ReturnCode.INCLUDE_AND_NEXT_COL,
    ReturnCode.INCLUDE_AND_SEEK_NEXT_ROW,
    ReturnCode.SKIP,
    ReturnCode.NEXT_COL,
    ReturnCode.NEXT_ROW,
    ReturnCode.SEEK_NEXT_USING_HINT,
)
CODES = (IN, INC, INR, S, NC, NR, H)

# The matrices in FilterListWithAND / FilterListWithOR's javadoc: row = the new child's
# code, column = the code merged so far, in the order of CODES.
MUST_PASS_ALL = {
    IN: (IN, INC, INR, S, NC, NR, H),
    INC: (INC, INC, INR, NC, NC, NR, H),
    INR: (INR, INR, INR, NR, NR, NR, H),
    S: (S, NC, NR, S, NC, NR, H),
    NC: (NC, NC, NR, NC, NC, NR, H),
    NR: (NR, NR, NR, NR, NR, NR, H),
    H: (H, H, H, H, H, H, H),
}
MUST_PASS_ONE = {
    IN: (IN, IN, IN, IN, IN, IN, IN),
    INC: (IN, INC, INC, IN, INC, INC, IN),
    INR: (IN, INC, INR, IN, INC, INR, IN),
    S: (IN, IN, IN, S, S, S, S),
    NC: (IN, INC, INC, S, NC, NC, S),
    NR: (IN, INC, INR, S, NC, NR, S),
    H: (IN, IN, IN, S, S, S, H),
}


@pytest.mark.parametrize("local", CODES)
def test_must_pass_all_merges_as_hbase_tabulates(local: ReturnCode) -> None:
    assert tuple(merge_all(so_far, local) for so_far in CODES) == MUST_PASS_ALL[local]


@pytest.mark.parametrize("local", CODES)
def test_must_pass_one_merges_as_hbase_tabulates(local: ReturnCode) -> None:
    assert tuple(merge_one(so_far, local) for so_far in CODES) == MUST_PASS_ONE[local]
    assert merge_one(None, local) is local


ZEROS: Table = {
    b"w1": {b"f:a": b"0", b"f:b": b"1"},
    b"w2": {b"f:a": b"2", b"f:b": b"3"},
    b"w3": {b"f:a": b"4", b"f:b": b"0"},
    b"w4": {b"f:a": b"5"},
}


@pytest.mark.parametrize(
    ("text", "table", "expected"),
    [
        # SkipFilter's javadoc example: drop every row with a zero value.
        (
            "SKIP ValueFilter(!=, 'binary:0')",
            ZEROS,
            {b"w2": {b"f:a": [b"2"], b"f:b": [b"3"]}, b"w4": {b"f:a": [b"5"]}},
        ),
        # Without SKIP only the zero cells go.
        (
            "ValueFilter(!=, 'binary:0')",
            ZEROS,
            {
                b"w1": {b"f:b": [b"1"]},
                b"w2": {b"f:a": [b"2"], b"f:b": [b"3"]},
                b"w3": {b"f:a": [b"4"]},
                b"w4": {b"f:a": [b"5"]},
            },
        ),
        # WHILE: the scan ends at the first rejected row key ...
        ("WHILE RowFilter(!=, 'binary:row3')", FRUIT, only(row1=ROW1, row2=ROW2)),
        # ... or at the first rejected cell; that row keeps the cells before it.
        ("WHILE ValueFilter(!=, 'binary:banana')", FRUIT, only(row1={"f:a": "apple"})),
        ("WHILE ValueFilter(!=, 'binary:0')", ZEROS, {}),
        (
            "WHILE ValueFilter(<, 'binary:4')",
            ZEROS,
            {b"w1": {b"f:a": [b"0"], b"f:b": [b"1"]}, b"w2": {b"f:a": [b"2"], b"f:b": [b"3"]}},
        ),
        # AND / OR.
        (
            "PrefixFilter('row') AND ValueFilter(=, 'binaryprefix:b')",
            FRUIT,
            only(row1={"f:b": "banana"}, row2={"f:bb": "blueberry"}, row3={"f:b": "beet"}),
        ),
        (
            "FamilyFilter(=, 'binary:g') OR ValueFilter(=, 'binary:apple')",
            FRUIT,
            only(row1={"f:a": "apple", "g:c": "cherry"}, row3={"g:a": "artichoke"}),
        ),
        ("PrefixFilter('sow') OR RowFilter(=, 'binary:row2')", FRUIT, only(row2=ROW2, sow1=SOW1)),
        ("PrefixFilter('row') AND PrefixFilter('sow')", FRUIT, {}),
        (
            "PrefixFilter('row') AND PageFilter(1) AND FirstKeyOnlyFilter()",
            FRUIT,
            only(row1={"f:a": "apple"}),
        ),
        # A later AND child only sees cells the earlier ones include (HBASE-20565) ...
        (
            "ValueFilter(=, 'binaryprefix:b') AND ColumnPaginationFilter(1, 0)",
            FRUIT,
            only(row1={"f:b": "banana"}, row2={"f:bb": "blueberry"}, row3={"f:b": "beet"}),
        ),
        # ... so the order of the children matters to counting filters.
        (
            "ColumnPaginationFilter(1, 0) AND ValueFilter(=, 'binaryprefix:b')",
            FRUIT,
            only(row3={"f:b": "beet"}),
        ),
        # PageFilter counts rows that reach the end, whatever filtered them earlier.
        (
            "ValueFilter(=, 'substring:e') AND PageFilter(2)",
            FRUIT,
            only(row1={"f:a": "apple", "g:c": "cherry"}, row2={"f:bb": "blueberry"}),
        ),
        # Transformations come from the children that included the cell.
        ("ValueFilter(=, 'binary:apple') AND KeyOnlyFilter()", FRUIT, only(row1={"f:a": ""})),
        (
            "(KeyOnlyFilter() AND ValueFilter(=, 'binary:apple'))"
            " OR ValueFilter(=, 'binary:banana')",
            FRUIT,
            only(row1={"f:a": "", "f:b": "banana"}),
        ),
        # Precedence: SKIP binds tighter than OR; parentheses widen it.
        (
            "SKIP ValueFilter(!=, 'binary:banana') OR FamilyFilter(=, 'binary:g')",
            FRUIT,
            only(row1={"f:a": "apple", "g:c": "cherry"}, row2=ROW2, row3=ROW3, sow1=SOW1),
        ),
        (
            "SKIP (ValueFilter(!=, 'binary:banana') OR FamilyFilter(=, 'binary:g'))",
            FRUIT,
            only(row2=ROW2, row3=ROW3, sow1=SOW1),
        ),
        (
            "ValueFilter(=, 'binary:apple') OR ValueFilter(=, 'binary:beet')"
            " AND RowFilter(=, 'binary:row1')",
            FRUIT,
            only(row1={"f:a": "apple"}),
        ),
        (
            "(ValueFilter(=, 'binary:apple') OR ValueFilter(=, 'binary:beet'))"
            " AND RowFilter(!=, 'binary:row1')",
            FRUIT,
            only(row3={"f:b": "beet"}),
        ),
        # HBase quirks kept: SkipFilter never passes the row key on, so a row-key filter
        # under SKIP either drops every row (PrefixFilter) or none (RowFilter).
        ("SKIP PrefixFilter('row')", FRUIT, {}),
        (
            "SKIP RowFilter(=, 'binary:row2')",
            FRUIT,
            only(row1=ROW1, row2=ROW2, row3=ROW3, sow1=SOW1),
        ),
        ("WHILE PrefixFilter('row')", FRUIT, only(row1=ROW1, row2=ROW2, row3=ROW3)),
        # A column filter's skip hint must not hide cells from an OR sibling.
        (
            "ColumnPrefixFilter('c') OR ValueFilter(=, 'binary:apple')",
            FRUIT,
            only(row1={"f:a": "apple", "g:c": "cherry"}),
        ),
        (
            "ColumnRangeFilter('b', true, 'b', true) AND ColumnPrefixFilter('b')",
            FRUIT,
            only(row1={"f:b": "banana"}, row3={"f:b": "beet"}),
        ),
    ],
)
def test_operators_combine_as_hbase_does(
    scan: Scan, text: str, table: Table, expected: Result
) -> None:
    assert scan(text, table) == expected


def test_the_reference_guide_timestamp_example(scan: Scan) -> None:
    """(RowFilter AND TimestampsFilter) OR ColumnRangeFilter, from the reference guide."""
    table: Table = {
        b"Row 1": {b"f:abc": [(74689, b"1a"), (5, b"1b")], b"f:zzz": [(89734, b"1c"), (6, b"1d")]},
        b"Row 2": {b"f:abc": [(74689, b"2a")], b"f:zzz": [(89734, b"2b")]},
    }
    text = (
        "(RowFilter (=, 'binary:Row 1') AND TimestampsFilter (74689, 89734)) "
        "OR ColumnRangeFilter ('abc', true, 'xyz', false)"
    )
    assert scan(text, table) == {
        b"Row 1": {b"f:abc": [b"1a", b"1b"], b"f:zzz": [b"1c"]},
        b"Row 2": {b"f:abc": [b"2a"]},
    }
