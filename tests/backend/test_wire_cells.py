"""WireCells: a row's cells as the protocol delivered them, a Mapping of Cells like any other."""

from __future__ import annotations

import copy as copy_module
import pickle
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.backend.base import (
    Cell,
    ListCells,
    RowResult,
    WireCells,
    column_order,
    newest_timestamp,
)
from hmodel.backend.thrift2.idl import TColumnValue
from hmodel.backend.wire import lean_spec

COLUMNS = st.binary(max_size=3).map(lambda f: f + b":").flatmap(
    lambda family: st.binary(max_size=3).map(lambda q: family + q)
) | st.sampled_from([b"a:q", b"a-:q", b"a:", b"b:\x00", b"", b":"])
WIRE = st.dictionaries(COLUMNS, st.tuples(st.binary(max_size=3) | st.none(), st.integers(0, 9)))


def wire_of(cells: dict[bytes, tuple[bytes | None, int]]) -> dict[bytes, SimpleNamespace]:
    return {c: SimpleNamespace(value=v, timestamp=t) for c, (v, t) in cells.items()}


@given(WIRE)
def test_wire_cells_read_as_the_dict_of_cells_they_stand_for(
    cells: dict[bytes, tuple[bytes | None, int]],
) -> None:
    wire = WireCells(wire_of(cells))
    expected = {
        c: Cell(v or b"", t)
        for c, (v, t) in sorted(cells.items(), key=lambda i: column_order(i[0]))
    }
    assert list(wire) == list(expected)  # column order: family, then qualifier
    assert dict(wire.items()) == expected
    assert wire == expected and expected == wire
    assert RowResult(b"r", wire) == RowResult(b"r", expected)
    assert len(wire) == len(expected)
    for column, cell in expected.items():
        assert column in wire
        assert wire[column] == cell
        assert wire.get(column) == cell
    assert wire.get(b"\xff:none") is None
    assert b"\xff:none" not in wire
    assert repr(wire) == repr(expected)


@given(WIRE, st.sets(COLUMNS, max_size=3))
def test_newest_is_the_greatest_timestamp_outside_the_skipped_columns(
    cells: dict[bytes, tuple[bytes | None, int]], skip: set[bytes]
) -> None:
    wire = WireCells(wire_of(cells))
    kept = [t for c, (_, t) in cells.items() if c not in skip]
    assert wire.newest(frozenset(skip)) == max(kept, default=0)
    assert wire.newest() == max((t for _, t in cells.values()), default=0)


@given(WIRE, st.sets(COLUMNS, max_size=3))
def test_newest_timestamp_reads_wire_cells_and_dicts_of_cells_alike(
    cells: dict[bytes, tuple[bytes | None, int]], skip: set[bytes]
) -> None:
    as_dict = {c: Cell(v or b"", t) for c, (v, t) in cells.items()}
    expected = max((t for c, (_, t) in cells.items() if c not in skip), default=0)
    assert newest_timestamp(WireCells(wire_of(cells)), frozenset(skip)) == expected
    assert newest_timestamp(as_dict, frozenset(skip)) == expected


LISTED = st.lists(
    st.tuples(
        st.binary(max_size=2), st.binary(max_size=2), st.binary(max_size=3), st.integers(0, 9)
    ),
    max_size=8,
)


def listed_of(cells: list[tuple[bytes, bytes, bytes, int]]) -> list[Any]:
    return [TColumnValue(family=f, qualifier=q, value=v, timestamp=t) for f, q, v, t in cells]


@given(LISTED, st.sets(COLUMNS, max_size=3))
def test_listed_cells_read_as_the_newest_cell_of_each_column(
    cells: list[tuple[bytes, bytes, bytes, int]], skip: set[bytes]
) -> None:
    """Thrift2's list, a column's versions newest first: the first of each column counts."""
    listed = ListCells(listed_of(cells))
    first: dict[bytes, Cell] = {}
    for family, qualifier, value, timestamp in cells:
        first.setdefault(family + b":" + qualifier, Cell(value, timestamp))
    expected = dict(sorted(first.items(), key=lambda i: column_order(i[0])))
    assert list(listed) == list(expected)
    assert listed == expected and len(listed) == len(expected)
    assert RowResult(b"r", listed) == RowResult(b"r", expected)
    wanted = max((c.timestamp for n, c in first.items() if n not in skip), default=0)
    assert newest_timestamp(listed, frozenset(skip)) == wanted
    for copy in (pickle.loads(pickle.dumps(listed)), copy_module.copy(listed)):
        assert type(copy) is ListCells and copy == expected


def test_listed_cells_of_decoded_structs_pickle_after_their_mapping_is_built() -> None:
    lean = lean_spec(TColumnValue)()  # as the wire decodes a TColumnValue
    lean.family, lean.qualifier, lean.value, lean.timestamp = b"p", b"a", b"1", 3
    listed = ListCells([lean])
    assert listed[b"p:a"] == Cell(b"1", 3)  # the mapping is built
    again = pickle.loads(pickle.dumps(RowResult(b"r", listed)))
    assert again == RowResult(b"r", {b"p:a": Cell(b"1", 3)})


def test_listed_cells_build_their_mapping_only_when_asked() -> None:
    listed = ListCells(listed_of([(b"p", b"a", b"1", 3)]))
    assert listed.listed[0].value == b"1"
    with pytest.raises(AttributeError):
        WireCells.__dict__["wire"].__get__(listed)  # not built yet
    assert listed[b"p:a"] == Cell(b"1", 3)
    assert listed.wire is listed.wire  # built once
