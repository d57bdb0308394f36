"""Thrift1 TRowResult structs (duck-typed here) to RowResults in HBase's column order."""

from __future__ import annotations

from types import SimpleNamespace as Struct

from hypothesis import given
from hypothesis import strategies as st

from hmodel.backend.base import Cell
from hmodel.backend.thrift.result import column_order, row_result


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
