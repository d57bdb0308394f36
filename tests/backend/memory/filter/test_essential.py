"""Which families a filter needs (HBase ``isFamilyEssential``): the rest load on demand."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Cell
from hmodel.backend.memory.filter import compile_filter

SCVF = "SingleColumnValueFilter('a', 'x', =, 'binary:v', {missing}, true)"
FAMILIES = (b"a", b"b", b"c")


@pytest.mark.parametrize(
    ("text", "lazy"),
    [
        (SCVF.format(missing="true"), [b"b", b"c"]),
        (SCVF.format(missing="false"), []),
        (SCVF.replace("Filter(", "ExcludeFilter(").format(missing="true"), [b"b", b"c"]),
        ("ColumnValueFilter('b', 'x', =, 'binary:v')", [b"a", b"c"]),
        (f"SKIP {SCVF.format(missing='true')}", [b"b", b"c"]),
        (f"WHILE {SCVF.format(missing='true')}", [b"b", b"c"]),
        (
            f"({SCVF.format(missing='true')}) OR "
            "(SingleColumnValueFilter('b', 'y', =, 'binary:v', true, true))",
            [b"c"],
        ),
        (f"({SCVF.format(missing='true')}) AND (KeyOnlyFilter())", []),
        (f"({SCVF.format(missing='true')}) AND (FamilyFilter(>=, 'binary:'))", []),
        ("PrefixFilter('r')", []),
        ("PageFilter(1)", []),
    ],
)
def test_only_single_column_filters_leave_families_to_load_on_demand(
    text: str, lazy: list[bytes]
) -> None:
    assert compile_filter(text).on_demand(FAMILIES) == lazy


def test_families_not_scanned_are_never_on_demand() -> None:
    assert compile_filter(SCVF.format(missing="true")).on_demand([b"a"]) == []


def test_a_closed_family_stays_closed_whatever_the_row_shows() -> None:
    """FilterRun.apply: the families stored in a row (visible or not) close once counted out."""
    run = compile_filter("ColumnCountGetFilter(1)").start(max_versions=1)
    cell = [Cell(b"v", 1)]
    first = run.apply(b"r1", [(b"a:x", cell), (b"a:y", cell)], {b"a", b"b"})
    assert first.columns == [(b"a:x", cell)]
    later = run.apply(b"r2", [(b"b:z", cell), (b"c:z", cell)], {b"b", b"c"})
    assert later.columns == [(b"c:z", cell)]  # b closed at r1's hidden cell; c had none
