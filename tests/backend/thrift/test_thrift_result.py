"""Thrift1 TRowResult structs (duck-typed here) to RowResults in HBase's column order."""

from __future__ import annotations

from types import SimpleNamespace as Struct

from hypothesis import given
from hypothesis import strategies as st

from hmodel.backend.base import Cell
from hmodel.backend.thrift.result import (
    cell,
    column_order,
    in_column_order,
    kept_row_result,
    kept_rows,
    row_result,
    row_results,
)


def test_cells_are_ordered_by_family_then_qualifier_not_by_joined_bytes() -> None:
    tresult = Struct(
        row=b"r",
        columns={
            b"a:q": Struct(value=b"1", timestamp=1),
            b"a-:q": Struct(value=b"2", timestamp=2),
            b"a:p": Struct(value=b"3", timestamp=3),
        },
    )
    result = row_result(tresult)
    assert result is not None
    assert list(result.cells) == [b"a:p", b"a:q", b"a-:q"]
    assert result.cells[b"a-:q"] == Cell(b"2", 2)


def test_a_row_without_cells_is_no_result() -> None:
    assert row_result(Struct(row=b"r", columns={})) is None
    assert row_result(Struct(row=b"r", columns=None)) is None


_family = st.binary(min_size=1, max_size=3).filter(lambda b: b":" not in b)


@given(st.lists(st.tuples(_family, st.binary(max_size=3)), min_size=2, max_size=8))
def test_column_order_is_hbases_family_then_qualifier_order(
    pairs: list[tuple[bytes, bytes]],
) -> None:
    columns = [f + b":" + q for f, q in pairs]
    assert sorted(columns, key=column_order) == [f + b":" + q for f, q in sorted(pairs)]


_column = st.tuples(_family, st.binary(max_size=3)).map(lambda fq: fq[0] + b":" + fq[1])


@given(st.lists(_column, min_size=1, max_size=8, unique=True))
def test_in_column_order_sorts_as_the_column_order_key(columns: list[bytes]) -> None:
    assert in_column_order(columns) == sorted(columns, key=column_order)


@given(st.lists(st.binary(max_size=4), max_size=8, unique=True))
def test_in_column_order_sorts_names_without_a_colon_as_the_column_order_key(
    columns: list[bytes],
) -> None:
    assert in_column_order(columns) == sorted(columns, key=column_order)


@given(st.dictionaries(_column, st.tuples(st.binary(max_size=3) | st.none(), st.integers(0, 9))))
def test_row_result_holds_every_cell_in_column_order(
    cells: dict[bytes, tuple[bytes | None, int]],
) -> None:
    tresult = Struct(
        row=b"r", columns={c: Struct(value=v, timestamp=ts) for c, (v, ts) in cells.items()}
    )
    result = row_result(tresult)
    if not cells:
        assert result is None
        return
    assert result is not None
    assert result.row == b"r"
    assert list(result.cells) == sorted(cells, key=column_order)
    assert result.cells == {c: Cell(v or b"", ts) for c, (v, ts) in cells.items()}
    assert all(type(c) is Cell for c in result.cells.values())


def test_a_cell_without_a_value_reads_as_empty_bytes() -> None:
    assert cell(Struct(value=None, timestamp=7)) == Cell(b"", 7)
    assert cell(Struct(value=b"v", timestamp=8)) == Cell(b"v", 8)


@given(
    st.dictionaries(_column, st.tuples(st.binary(max_size=3) | st.none(), st.integers(0, 9))),
    st.frozensets(_column, max_size=6),
)
def test_kept_rows_makes_what_kept_row_result_makes(
    cells: dict[bytes, tuple[bytes | None, int]], keep: frozenset[bytes]
) -> None:
    """The scanners' one-call version keeps the same cells, in the same order (a family read)."""
    keep = keep | frozenset(list(cells)[: len(cells) // 2])  # often every column, often not
    tresult = Struct(
        row=b"r", columns={c: Struct(value=v, timestamp=ts) for c, (v, ts) in cells.items()}
    )
    want = kept_row_result(tresult, keep)
    got = kept_rows(keep)(tresult)
    if want is None:
        assert got is None
        return
    assert got is not None
    assert got == want
    assert got.row == want.row
    assert list(got.cells) == list(want.cells)
    assert set(got.cells) <= keep


_tcells = st.dictionaries(
    _column, st.tuples(st.binary(max_size=3) | st.none(), st.integers(0, 9)), max_size=5
)


@given(
    st.lists(st.tuples(st.binary(max_size=3), _tcells | st.none()), max_size=6),
    st.frozensets(_column, max_size=6) | st.none(),
)
def test_row_results_makes_a_batch_of_what_row_result_makes_row_by_row(
    rows: list[tuple[bytes, dict[bytes, tuple[bytes | None, int]] | None]],
    keep: frozenset[bytes] | None,
) -> None:
    """A batch in one call: the rows (and cells, in order) of the row-by-row functions."""
    if keep is not None:  # often every column of a row, often not
        keep |= frozenset(c for _, cells in rows[::2] for c in (cells or {}))
    tresults = [
        Struct(
            row=row,
            columns=None
            if cells is None
            else {c: Struct(value=v, timestamp=ts) for c, (v, ts) in cells.items()},
        )
        for row, cells in rows
    ]
    made = (row_result(t) if keep is None else kept_row_result(t, keep) for t in tresults)
    want = [result for result in made if result is not None]
    got = row_results(tresults, keep)
    assert got == want
    assert [r.row for r in got] == [r.row for r in want]
    assert [list(r.cells) for r in got] == [list(r.cells) for r in want]
    assert [list(r.cells.values()) for r in got] == [list(r.cells.values()) for r in want]
