"""Thrift2 mutations to structs and results to rows: the fast paths agree with the plain ones."""

from __future__ import annotations

from types import SimpleNamespace as Struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.backend.base import Cell, Delete, Put
from hmodel.backend.thrift2.mutation import (
    check_mutation,
    check_mutations,
    column_order,
    in_column_order,
    row_result,
    row_results,
    to_tputs,
)
from hmodel.errors import BackendError

_family = st.binary(min_size=1, max_size=3).filter(lambda b: b":" not in b)
_qualifier = st.binary(max_size=3)


@given(st.lists(st.tuples(_family, _qualifier), max_size=8, unique=True))
def test_in_column_order_sorts_as_the_column_order_key(pairs: list[tuple[bytes, bytes]]) -> None:
    columns = [f + b":" + q for f, q in pairs]
    assert in_column_order(columns) == sorted(columns, key=column_order)


@given(
    st.lists(
        st.tuples(
            st.sampled_from([b"a", b"a-", b"b"]), st.sampled_from([b"", b"x", b"y"]),
            st.binary(max_size=2) | st.none(), st.integers(0, 5),
        ),
        max_size=10,
    )
)  # fmt: skip
def test_row_result_keeps_the_first_cell_of_each_column_in_column_order(
    values: list[tuple[bytes, bytes, bytes | None, int]],
) -> None:
    tresult = Struct(
        row=b"r",
        columnValues=[
            Struct(family=f, qualifier=q, value=v, timestamp=ts) for f, q, v, ts in values
        ],
    )
    expected: dict[bytes, Cell] = {}
    for f, q, v, ts in values:
        expected.setdefault(f + b":" + q, Cell(v or b"", ts))
    result = row_result(tresult)
    if not values:
        assert result is None
        return
    assert result is not None
    assert result.row == b"r"
    assert list(result.cells) == sorted(expected, key=column_order)
    assert dict(result.cells) == expected


def test_a_result_without_a_row_or_values_is_no_row() -> None:
    assert row_result(Struct(row=None, columnValues=[Struct()])) is None
    assert row_result(Struct(row=b"r", columnValues=None)) is None
    assert row_result(Struct(row=b"r", columnValues=[])) is None


_tvalues = st.lists(
    st.tuples(
        st.sampled_from([b"a", b"b"]), st.sampled_from([b"", b"x"]),
        st.binary(max_size=2) | st.none(), st.integers(0, 5),
    ),
    max_size=4,
)  # fmt: skip


@given(
    st.lists(
        st.none() | st.tuples(st.binary(max_size=2) | st.none(), _tvalues | st.none()),
        max_size=6,
    )
)
def test_row_results_makes_a_batch_of_what_row_result_makes_row_by_row(
    rows: list[tuple[bytes | None, list[tuple[bytes, bytes, bytes | None, int]] | None] | None],
) -> None:
    """A batch in one call: the rows (and cells, in order) of ``row_result``, ``None`` skipped."""
    tresults = [
        None
        if row is None
        else Struct(
            row=row[0],
            columnValues=None
            if row[1] is None
            else [Struct(family=f, qualifier=q, value=v, timestamp=ts) for f, q, v, ts in row[1]],
        )
        for row in rows
    ]
    made = (None if t is None else row_result(t) for t in tresults)
    want = [result for result in made if result is not None]
    got = row_results(tresults)
    assert got == want
    assert [r.row for r in got] == [r.row for r in want]
    assert [list(r.cells.items()) for r in got] == [list(r.cells.items()) for r in want]


class _Bytes(bytes):
    """A bytes subclass: accepted through the full checks, as ``isinstance`` accepts it."""


@pytest.mark.parametrize(
    "put",
    [
        Put("r", b"f:q", b"v"),  # type: ignore[arg-type]
        Put(b"", b"f:q", b"v"),
        Put(b"r" * 32_768, b"f:q", b"v"),
        Put(b"r", bytearray(b"f:q"), b"v"),  # type: ignore[arg-type]
        Put(b"r", b"f", b"v"),
        Put(b"r", b":q", b"v"),
        Put(b"r", b"f:q", "v"),  # type: ignore[arg-type]
        Put(b"r", b"f:q", b"v", timestamp=True),
        Put(b"r", b"f:q", b"v", timestamp=-1),
        Put(b"r", b"f:q", b"v", timestamp=2**63 - 1),
        Put(b"r", b"f:q", b"v", ttl=-1),
        Put(b"r", b"f:q", b"v", ttl=False),
        Put(b"r", b"f:q", b"v", ttl=2**63),
    ],
    ids=repr,
)
def test_a_bad_put_raises_what_the_full_checks_raise(put: Put) -> None:
    with pytest.raises(BackendError) as expected:
        check_mutation(put, table="t", index=1)
    with pytest.raises(BackendError) as raised:
        check_mutations([Put(b"ok", b"f:q", b"v"), put], table="t")
    assert type(raised.value) is type(expected.value)
    assert str(raised.value) == str(expected.value)


def test_good_mutations_are_returned_in_order() -> None:
    mutations = [
        Put(_Bytes(b"r"), _Bytes(b"f:q"), _Bytes(b"v")),
        Delete(b"r", b"f"),
        Put(b"r" * 32_767, b"f:", b"", timestamp=2**63 - 2, ttl=2**63 - 1),
        Put(b"s", b"f:q", b"v", timestamp=0, ttl=0),
    ]
    assert check_mutations(mutations, table="t") == mutations


_puts = st.lists(
    st.builds(
        Put,
        row=st.sampled_from([b"a", b"b"]),
        column=st.sampled_from([b"f:x", b"g:", b"f"]),
        value=st.binary(max_size=2),
        timestamp=st.none() | st.integers(1, 3),
        ttl=st.none() | st.integers(0, 2) | st.integers(0, 1).map(lambda n: 10**13 + n),
    ),
    max_size=12,
)


@given(_puts)
def test_to_tputs_groups_cells_by_row_and_ttl_in_first_order(puts: list[Put]) -> None:
    """Grouped by (row, ttl); a put is left out when a later one of its cell and timestamp
    has another ttl (its TPut could be applied first and lose the later value)."""
    last_ttl = {(put.row, put.column, put.timestamp): put.ttl for put in puts}
    sent = [put for put in puts if last_ttl[(put.row, put.column, put.timestamp)] == put.ttl]
    expected: dict[tuple[bytes, int | None], list[tuple[bytes, bytes, bytes, int | None]]] = {}
    for put in sent:
        family, _, qualifier = put.column.partition(b":")
        expected.setdefault((put.row, put.ttl), []).append(
            (family, qualifier, put.value, put.timestamp)
        )
    tputs = to_tputs(puts)
    got = {
        (
            tput.row,
            None if tput.attributes is None else int.from_bytes(tput.attributes[b"_ttl"], "big"),
        ): [(v.family, v.qualifier, v.value, v.timestamp) for v in tput.columnValues]
        for tput in tputs
    }
    assert len(tputs) == len(expected)
    assert got == expected
    assert list(got) == list(expected)
