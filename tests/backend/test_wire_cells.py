"""WireCells: a row's cells as the protocol delivered them, a Mapping of Cells like any other."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from hmodel.backend.base import Cell, RowResult, WireCells, column_order, newest_timestamp

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
