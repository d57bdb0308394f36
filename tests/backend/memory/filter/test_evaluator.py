"""FilterProgram / FilterRun / RowVerdict: the interface the memory engine drives (I4)."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Cell
from hmodel.backend.memory.filter import FilterProgram, RowVerdict, compile_filter
from hmodel.errors import FilterError

from .conftest import Scan, Table

ROW = [(b"f:a", [Cell(b"a2", 2), Cell(b"a1", 1)]), (b"f:b", [Cell(b"b1", 1)])]


def test_a_kept_row_lists_its_kept_columns_and_versions_newest_first() -> None:
    verdict = compile_filter("ValueFilter(!=, 'binary:a2')").start().apply(b"r", ROW)
    assert verdict == RowVerdict([(b"f:a", [Cell(b"a1", 1)]), (b"f:b", [Cell(b"b1", 1)])], False)


def test_a_filtered_row_has_no_columns() -> None:
    verdict = compile_filter("RowFilter(=, 'binary:x')").start().apply(b"r", ROW)
    assert verdict == RowVerdict(None, False)


def test_columns_come_back_in_the_order_given() -> None:
    given = [(b"g:z", [Cell(b"1", 1)]), (b"a1:x", [Cell(b"2", 1)]), (b"a:x", [Cell(b"3", 1)])]
    verdict = compile_filter("KeyOnlyFilter(true)").start().apply(b"r", given)
    assert [column for column, _ in verdict.columns or []] == [b"g:z", b"a1:x", b"a:x"]


def test_a_row_without_cells_is_filtered_out() -> None:
    assert compile_filter("KeyOnlyFilter()").start().apply(b"r", []) == RowVerdict(None, False)


def test_page_filter_says_done_on_the_last_row_of_the_page() -> None:
    run = compile_filter("PageFilter(2)").start()
    assert [run.apply(row, ROW).done for row in (b"r1", b"r2")] == [False, True]
    assert run.done
    assert run.apply(b"r3", ROW) == RowVerdict(None, True)


def test_page_filter_does_not_count_rows_other_filters_emptied() -> None:
    run = compile_filter("ValueFilter(=, 'binary:b1') AND PageFilter(1)").start()
    assert run.apply(b"r1", [(b"f:a", [Cell(b"x", 1)])]) == RowVerdict(None, False)
    assert run.apply(b"r2", ROW) == RowVerdict([(b"f:b", [Cell(b"b1", 1)])], True)


def test_a_rejected_row_can_end_the_scan() -> None:
    run = compile_filter("InclusiveStopFilter('b')").start()
    assert run.apply(b"a", ROW).columns is not None
    assert run.apply(b"c", ROW) == RowVerdict(None, True)


def test_each_start_gives_fresh_state() -> None:
    program = compile_filter("PageFilter(1)")
    first, second = program.start(), program.start()
    assert first.apply(b"r", ROW).done
    assert second.apply(b"r", ROW) == RowVerdict(ROW, True)


VERSIONS: Table = {b"r": {b"f:a": [(30, b"a30"), (20, b"a20"), (10, b"a10")]}}


def test_max_versions_counts_after_the_filter(scan: Scan) -> None:
    """HBase checks the scan's versions among the cells the filter included."""
    assert scan("ValueFilter(!=, 'binary:a30')", VERSIONS, max_versions=1) == {
        b"r": {b"f:a": [b"a20"]}
    }
    assert scan("ValueFilter(!=, 'binary:a30')", VERSIONS, max_versions=2) == {
        b"r": {b"f:a": [b"a20", b"a10"]}
    }


def test_max_versions_hides_versions_past_the_count_from_the_filter(scan: Scan) -> None:
    """Once a column has its versions, HBase seeks past the rest: the filter never sees them."""
    text = "SingleColumnValueFilter('f', 'a', =, 'binary:a10', false, false)"
    assert scan(text, VERSIONS) == {b"r": {b"f:a": [b"a30", b"a20", b"a10"]}}
    assert scan(text, VERSIONS, max_versions=1) == {}
    assert scan(text, VERSIONS, max_versions=3) == {b"r": {b"f:a": [b"a30", b"a20", b"a10"]}}


def test_max_versions_must_be_positive() -> None:
    with pytest.raises(FilterError, match="max_versions must be >= 1"):
        compile_filter("KeyOnlyFilter()").start(max_versions=0)


def test_programs_compare_by_their_parsed_form() -> None:
    assert compile_filter("PageFilter( 1 )") == compile_filter("PageFilter(1)")
    assert compile_filter("PageFilter(1)") != compile_filter("PageFilter(2)")
    assert isinstance(compile_filter(b"PageFilter(1)"), FilterProgram)


def test_a_program_is_reusable_across_scans(scan: Scan) -> None:
    table: Table = {b"r1": {b"f:a": b"1"}, b"r2": {b"f:a": b"2"}}
    assert scan("PageFilter(1)", table) == scan("PageFilter(1)", table) == {b"r1": {b"f:a": [b"1"]}}
