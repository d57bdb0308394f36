"""Contract: filter behaviours measured on a real HBase 2.2.5 (issue 9), on every backend."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Cell, Delete, Mutation, Put, RowResult, Scan
from hmodel.errors import UnsupportedOperationError
from hmodel.schema import Family, Table

WIDE = "wide"


@pytest.fixture
def wide(backend: Backend) -> str:
    """Families ``a`` and ``b``: r1 = a:x a:y a:z b:x, r2 = b:y (issue 9's example), at ts 10."""
    backend.create_table(Table(WIDE, [Family("a"), Family("b")]))
    cells = [(b"r1", b"a:x"), (b"r1", b"a:y"), (b"r1", b"a:z"), (b"r1", b"b:x"), (b"r2", b"b:y")]
    backend.mutate(WIDE, [Put(row, column, b"v", timestamp=10) for row, column in cells])
    return WIDE


def _scan(backend: Backend, table: str, **options: object) -> list[RowResult]:
    return list(backend.scan(table, Scan(**options)))  # type: ignore[arg-type]


def test_column_count_ends_a_family_at_a_cell_not_requested(backend: Backend, wide: str) -> None:
    """HBase: b:x (not asked for) in r1 closes family b's scanner, so r2's b:y never comes."""
    columns = (b"a:x", b"a:y", b"a:z", b"b:y")
    rows = _scan(backend, wide, columns=columns, filter="ColumnCountGetFilter(2)")
    assert rows == [RowResult(b"r1", {b"a:x": Cell(b"v", 10), b"a:y": Cell(b"v", 10)})]


def test_column_count_ends_a_family_at_a_deleted_cell(backend: Backend, wide: str) -> None:
    """A deleted b:x in r1 still closes family b (HBase checks before the delete tracker)."""
    backend.mutate(wide, [Delete(b"r1", b"b:x", timestamp=20)])
    rows = _scan(backend, wide, filter="ColumnCountGetFilter(2)")
    assert [row.row for row in rows] == [b"r1"]


def test_column_count_ends_a_family_at_a_cell_outside_the_time_range(
    backend: Backend, wide: str
) -> None:
    """b:x at ts 50 is outside before=20, yet it closes family b for the rest of the scan."""
    backend.mutate(wide, [Delete(b"r1", b"b:x", timestamp=10), Put(b"r1", b"b:x", b"n", 50)])
    rows = _scan(backend, wide, before=20, filter="ColumnCountGetFilter(2)")
    assert [row.row for row in rows] == [b"r1"]


def test_column_count_spares_a_family_with_no_cell_in_the_row(backend: Backend) -> None:
    """Family b has no cell at all in r1 when the count runs out: its scanner goes on to r2."""
    backend.create_table(Table("narrow", [Family("a"), Family("b")]))
    cells = [(b"r1", b"a:x"), (b"r1", b"a:y"), (b"r1", b"a:z"), (b"r2", b"b:y")]
    backend.mutate("narrow", [Put(row, column, b"v", timestamp=10) for row, column in cells])
    rows = _scan(backend, "narrow", filter="ColumnCountGetFilter(2)")
    assert rows == [
        RowResult(b"r1", {b"a:x": Cell(b"v", 10), b"a:y": Cell(b"v", 10)}),
        RowResult(b"r2", {b"b:y": Cell(b"v", 10)}),
    ]


def test_a_delete_marker_is_a_cell_that_ends_the_count_too(backend: Backend) -> None:
    """A delete marker of family b in r1 (nothing left to read there) still closes b."""
    backend.create_table(Table("marked", [Family("a"), Family("b")]))
    cells = [(b"r1", b"a:x"), (b"r1", b"a:y"), (b"r1", b"a:z"), (b"r2", b"b:y")]
    backend.mutate("marked", [Put(row, column, b"v", timestamp=10) for row, column in cells])
    backend.mutate("marked", [Delete(b"r1", b"b:gone", timestamp=5)])
    rows = _scan(backend, "marked", filter="ColumnCountGetFilter(2)")
    assert [row.row for row in rows] == [b"r1"]


_SCVF = "SingleColumnValueFilter('a', 'x', =, 'binary:v', {missing}, true)"
_REFUSED = "Reverse scan with loading CFs on demand is not supported"


@pytest.mark.parametrize(
    "text",
    [
        _SCVF.format(missing="true"),
        _SCVF.replace("SingleColumnValueFilter", "SingleColumnValueExcludeFilter").format(
            missing="true"
        ),
        f"({_SCVF.format(missing='true')}) AND (ColumnValueFilter('a', 'y', =, 'binary:v'))",
        f"SKIP {_SCVF.format(missing='true')}",
        f"WHILE {_SCVF.format(missing='true')}",
    ],
)
def test_a_reverse_scan_loading_families_on_demand_is_refused(
    backend: Backend, wide: str, text: str
) -> None:
    """HBase 2.2: filterIfMissing over two families in reverse is a DoNotRetryIOException."""
    with pytest.raises(UnsupportedOperationError, match=_REFUSED) as caught:
        list(backend.scan(wide, Scan(reverse=True, filter=text)))
    assert caught.value.table == wide
    with pytest.raises(UnsupportedOperationError, match=_REFUSED):
        list(backend.scan(wide, Scan(reverse=True, filter=text, columns=(b"a:x", b"b:y"))))


@pytest.mark.parametrize(
    ("text", "options"),
    [
        (_SCVF.format(missing="true"), {"columns": (b"a",)}),  # only the filtered family
        (_SCVF.format(missing="true"), {"columns": (b"a:x", b"a:y")}),
        (_SCVF.format(missing="false"), {}),  # every family needed: nothing on demand
        (f"({_SCVF.format(missing='true')}) AND (KeyOnlyFilter())", {}),
        (f"({_SCVF.format(missing='true')}) OR (FamilyFilter(>=, 'binary:'))", {}),
    ],
)
def test_a_reverse_scan_without_families_on_demand_is_accepted(
    backend: Backend, wide: str, text: str, options: dict[str, object]
) -> None:
    """Restricting the columns to the filtered family, or filterIfMissing false, is fine."""
    rows = _scan(backend, wide, reverse=True, filter=text, **options)
    assert [row.row for row in rows][-1:] == [b"r1"]


def test_a_forward_scan_loading_families_on_demand_is_accepted(backend: Backend, wide: str) -> None:
    """Only reversed scans are refused: a forward scan joins the other families."""
    rows = _scan(backend, wide, filter=_SCVF.format(missing="true"))
    assert [row.row for row in rows] == [b"r1"]


def test_qualifier_filter_compares_the_empty_qualifier_too(backend: Backend, wide: str) -> None:
    """HBase 2 compares an empty qualifier like any other (1.x let it pass; 2.6.1 measured)."""
    backend.mutate(wide, [Put(b"r3", b"a:", b"e", timestamp=10)])
    rows = _scan(backend, wide, columns=[b"a"], filter="QualifierFilter(=, 'binary:x')")
    assert rows == [RowResult(b"r1", {b"a:x": Cell(b"v", 10)})]
    rows = _scan(backend, wide, columns=[b"a"], filter="QualifierFilter(<, 'binary:x')")
    assert [row.row for row in rows] == [b"r3"]


@pytest.mark.parametrize(
    "hidden",
    [
        [Put(b"a", b"a:x", b"v", timestamp=10), Delete(b"a", timestamp=20)],
        [Put(b"a", b"a:x", b"v", timestamp=50)],
        [Put(b"a", b"a:y", b"v", timestamp=10)],
    ],
    ids=["deleted", "outside-the-time-range", "column-not-asked-for"],
)
def test_a_row_with_no_visible_cell_still_meets_the_row_filters(
    backend: Backend, wide: str, hidden: list[Mutation]
) -> None:
    """HBase asks ``filterRowKey`` at the first stored cell of every row its scanned stores
    hold, visible or not, so ``WHILE`` ends the scan at such a row (2.6.1 measured)."""
    backend.mutate(wide, [Delete(b"r1", timestamp=10), *hidden])
    scan = {"before": 20, "columns": [b"a:x", b"b"]}
    assert _scan(backend, wide, **scan, filter="WHILE PrefixFilter('r')") == []
    assert _scan(backend, wide, **scan, filter="PrefixFilter('r')") == [
        RowResult(b"r2", {b"b:y": Cell(b"v", 10)})
    ]


def test_a_row_with_no_cell_in_the_scanned_families_is_not_met(backend: Backend, wide: str) -> None:
    """A row whose cells are all in families the scan does not read is never looked at."""
    backend.mutate(wide, [Put(b"a", b"a:x", b"v", timestamp=10)])
    rows = _scan(backend, wide, columns=[b"b"], filter="WHILE PrefixFilter('r')")
    assert [row.row for row in rows] == [b"r1", b"r2"]


def test_families_loaded_on_demand_join_only_rows_the_others_keep(
    backend: Backend, wide: str
) -> None:
    """A forward scan loads the families a filter does not need only for rows it keeps.

    ``SingleColumnValueFilter('a', 'x', ..., filterIfMissing=true)`` needs only family a
    (HBase's ``loadColumnFamiliesOnDemand``, on by default): a row with no cell in a is
    never looked at, and one whose a-cells are all hidden is dropped before b is read.
    ``SKIP`` keeps the rows the bare filter would drop for a missing column, which shows it
    (2.6.1 measured).
    """
    backend.mutate(
        wide,
        [
            Put(b"r3", b"a:x", b"v", timestamp=10),
            Put(b"r3", b"b:x", b"v", timestamp=10),
            Delete(b"r3", b"a", timestamp=10),
            Put(b"r4", b"a:y", b"v", timestamp=10),
            Put(b"r4", b"b:x", b"v", timestamp=10),
        ],
    )
    rows = _scan(
        backend, wide, filter="SKIP SingleColumnValueFilter('a', 'x', =, 'binary:v', true, false)"
    )
    assert [(row.row, list(row.cells)) for row in rows] == [
        (b"r1", [b"a:x", b"a:y", b"a:z", b"b:x"]),
        (b"r4", [b"a:y", b"b:x"]),
    ]
