"""Contract: get of one or many rows, column selection and ``before=``."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Cell, Put, RowResult
from hmodel.errors import ColumnFamilyNotFoundError


def _fill(backend: Backend, table: str) -> None:
    backend.mutate(
        table,
        [
            Put(b"r1", b"i:b", b"1b", timestamp=10),
            Put(b"r1", b"i:a", b"1a", timestamp=10),
            Put(b"r1", b"d:x", b"1x", timestamp=10),
            Put(b"r2", b"i:a", b"2a", timestamp=10),
        ],
    )


def test_get_returns_the_latest_cell_of_every_column_in_column_order(
    backend: Backend, table: str
) -> None:
    """Cells come family first, then qualifier, as unsigned bytes."""
    _fill(backend, table)
    backend.mutate(table, [Put(b"r1", b"i:a", b"1a-new", timestamp=20)])
    [result] = backend.get(table, [b"r1"])
    assert result.row == b"r1"
    assert list(result.cells) == [b"d:x", b"i:a", b"i:b"]
    assert result.cells[b"i:a"] == Cell(b"1a-new", 20)
    assert result.value(b"d:x") == b"1x"
    assert result.value(b"i:zz") is None


def test_get_many_keeps_the_requested_order_and_skips_missing_rows(
    backend: Backend, table: str
) -> None:
    """One result per existing requested row, in request order, duplicates repeated."""
    _fill(backend, table)
    results = backend.get(table, [b"r2", b"missing", b"r1", b"r2"])
    assert [r.row for r in results] == [b"r2", b"r1", b"r2"]


def test_get_of_no_rows_returns_nothing(backend: Backend, table: str) -> None:
    """An empty request is an empty answer."""
    assert backend.get(table, []) == []


def test_get_selects_single_columns_and_whole_families(backend: Backend, table: str) -> None:
    """columns mixes b"f:q" columns and b"f" families; rows with none of them are left out."""
    _fill(backend, table)
    [only] = backend.get(table, [b"r1"], columns=[b"i:b"])
    assert list(only.cells) == [b"i:b"]
    [family] = backend.get(table, [b"r1"], columns=[b"d"])
    assert list(family.cells) == [b"d:x"]
    [mixed] = backend.get(table, [b"r1"], columns=[b"d", b"i:a"])
    assert list(mixed.cells) == [b"d:x", b"i:a"]
    assert backend.get(table, [b"r2"], columns=[b"d"]) == []


@pytest.mark.parametrize(
    "columns", [[b"i", b"i:a"], [b"i:a", b"i"]], ids=["family-first", "column-first"]
)
def test_a_family_and_one_of_its_columns_read_the_whole_family(
    backend: Backend, table: str, columns: list[bytes]
) -> None:
    """A whole family wins over a column of it, in either order.

    HBase's ``Get`` is order-dependent (``addFamily`` then ``addColumn`` narrows the family
    to that column); the protocol's ``columns`` is a set, so the backends send the families
    after the single columns.
    """
    _fill(backend, table)
    [result] = backend.get(table, [b"r1"], columns=columns)
    assert list(result.cells) == [b"i:a", b"i:b"]


def test_get_with_an_unknown_family_raises(backend: Backend, table: str) -> None:
    """Reading a family the table lacks is NoSuchColumnFamilyException in HBase."""
    _fill(backend, table)
    with pytest.raises(ColumnFamilyNotFoundError):
        backend.get(table, [b"r1"], columns=[b"nope:q"])


def test_get_before_reads_the_newest_version_strictly_older(backend: Backend, table: str) -> None:
    """before=t sees only cells with timestamp < t (Thrift1 getRowTs)."""
    backend.mutate(table, [Put(b"r", b"i:a", b"v10", timestamp=10)])
    backend.mutate(table, [Put(b"r", b"i:a", b"v20", timestamp=20)])
    assert backend.get(table, [b"r"], before=20) == [RowResult(b"r", {b"i:a": Cell(b"v10", 10)})]
    assert backend.get(table, [b"r"], before=21)[0].cells[b"i:a"] == Cell(b"v20", 20)
    assert backend.get(table, [b"r"], before=10) == []


def test_rows_qualifiers_and_values_are_arbitrary_bytes(backend: Backend, table: str) -> None:
    """Every byte value survives in rows, qualifiers (colons included) and values."""
    every = bytes(range(256))
    backend.mutate(table, [Put(b"\x00\xff" + every, b"i:" + every, every, timestamp=1)])
    [result] = backend.get(table, [b"\x00\xff" + every])
    assert result.cells[b"i:" + every] == Cell(every, 1)


def test_the_empty_qualifier_is_a_column_of_its_own(backend: Backend, table: str) -> None:
    """b"f:" is the column with the empty qualifier."""
    backend.mutate(table, [Put(b"r", b"i:", b"empty-q", timestamp=1)])
    [result] = backend.get(table, [b"r"])
    assert result.cells == {b"i:": Cell(b"empty-q", 1)}
