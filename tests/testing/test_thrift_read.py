"""Reads over Thrift1 with plain happybase: row, rows, cells, versions and timestamps."""

from __future__ import annotations

import happybase
import pytest
from thriftpy2.thrift import TApplicationException

from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT

IOError_ = HBASE_THRIFT.IOError


@pytest.fixture
def history(table: happybase.Table) -> happybase.Table:
    """Row ``r`` with ``f:a`` at timestamps 10, 20, 30, ``f:b`` at 15 and ``g:c`` at 25."""
    for ts, value in ((10, b"a10"), (20, b"a20"), (30, b"a30")):
        table.put(b"r", {b"f:a": value}, timestamp=ts)
    table.put(b"r", {b"f:b": b"b15"}, timestamp=15)
    table.put(b"r", {b"g:c": b"c25"}, timestamp=25)
    return table


def test_row_returns_the_latest_value_of_each_column(history: happybase.Table) -> None:
    assert history.row(b"r") == {b"f:a": b"a30", b"f:b": b"b15", b"g:c": b"c25"}


def test_row_with_include_timestamp_pairs_values_with_timestamps(history: happybase.Table) -> None:
    assert history.row(b"r", include_timestamp=True) == {
        b"f:a": (b"a30", 30),
        b"f:b": (b"b15", 15),
        b"g:c": (b"c25", 25),
    }


def test_row_columns_select_columns_and_whole_families(history: happybase.Table) -> None:
    assert history.row(b"r", columns=[b"f:b"]) == {b"f:b": b"b15"}
    assert history.row(b"r", columns=[b"g"]) == {b"g:c": b"c25"}
    assert history.row(b"r", columns=[b"f:b", b"g"]) == {b"f:b": b"b15", b"g:c": b"c25"}


def test_row_columns_are_order_dependent_as_in_hbase(history: happybase.Table) -> None:
    """[family, family:qual] reads that qualifier; [family:qual, family] the whole family.

    HBase's Thrift1 server adds each name to its ``Get`` in order, and ``addColumn`` after
    ``addFamily`` narrows the family to that column (measured on HBase 2.6.1).
    """
    assert history.row(b"r", columns=[b"f", b"f:b"]) == {b"f:b": b"b15"}
    assert history.row(b"r", columns=[b"f:b", b"f"]) == {b"f:a": b"a30", b"f:b": b"b15"}
    assert dict(history.scan(columns=[b"f", b"f:b"])) == {b"r": {b"f:b": b"b15"}}


def test_row_timestamp_sees_only_cells_strictly_older(history: happybase.Table) -> None:
    assert history.row(b"r", timestamp=30) == {b"f:a": b"a20", b"f:b": b"b15", b"g:c": b"c25"}
    assert history.row(b"r", timestamp=20, include_timestamp=True) == {
        b"f:a": (b"a10", 10),
        b"f:b": (b"b15", 15),
    }
    assert history.row(b"r", timestamp=10) == {}


def test_row_timestamp_with_columns(history: happybase.Table) -> None:
    assert history.row(b"r", columns=[b"f:a"], timestamp=25) == {b"f:a": b"a20"}


def test_a_missing_row_reads_as_empty(table: happybase.Table) -> None:
    assert table.row(b"missing") == {}


def test_rows_come_back_in_the_order_asked_without_missing_ones(table: happybase.Table) -> None:
    table.put(b"a", {b"f:q": b"1"})
    table.put(b"b", {b"f:q": b"2"})
    assert table.rows([b"b", b"missing", b"a"]) == [(b"b", {b"f:q": b"2"}), (b"a", {b"f:q": b"1"})]


def test_rows_with_columns_timestamp_and_include_timestamp(history: happybase.Table) -> None:
    history.put(b"s", {b"f:a": b"s5"}, timestamp=5)
    assert history.rows([b"r", b"s"], columns=[b"f:a"], timestamp=11, include_timestamp=True) == [
        (b"r", {b"f:a": (b"a10", 10)}),
        (b"s", {b"f:a": (b"s5", 5)}),
    ]


def test_getRows_of_no_rows_is_empty(table: happybase.Table, client: object) -> None:
    assert client.getRows(b"t", [], {}) == []  # type: ignore[attr-defined]


def test_cells_returns_versions_newest_first(history: happybase.Table) -> None:
    assert history.cells(b"r", b"f:a") == [b"a30", b"a20", b"a10"]
    assert history.cells(b"r", b"f:a", versions=2, include_timestamp=True) == [
        (b"a30", 30),
        (b"a20", 20),
    ]


def test_cells_timestamp_sees_only_versions_strictly_older(history: happybase.Table) -> None:
    assert history.cells(b"r", b"f:a", timestamp=30, include_timestamp=True) == [
        (b"a20", 20),
        (b"a10", 10),
    ]


def test_family_versions_cap_what_is_kept(table: happybase.Table) -> None:
    for ts in range(1, 6):
        table.put(b"r", {b"g:q": str(ts).encode()}, timestamp=ts)
    assert table.cells(b"r", b"g:q", versions=10) == [b"5"]


def test_getVer_of_a_bare_family_returns_every_column_newest_first(
    history: happybase.Table, client: object
) -> None:
    cells = client.getVer(b"t", b"r", b"f", 2, {})  # type: ignore[attr-defined]
    assert [(c.value, c.timestamp) for c in cells] == [(b"a30", 30), (b"a20", 20), (b"b15", 15)]


def test_getVerTs_of_a_bare_family_honours_the_timestamp(
    history: happybase.Table, client: object
) -> None:
    cells = client.getVerTs(b"t", b"r", b"f", 16, 5, {})  # type: ignore[attr-defined]
    assert [(c.value, c.timestamp) for c in cells] == [(b"a10", 10), (b"b15", 15)]


def test_getVer_with_no_versions_raises_IOError(history: happybase.Table, client: object) -> None:
    with pytest.raises(IOError_, match="maxVersions must be positive"):
        client.getVer(b"t", b"r", b"f:a", 0, {})  # type: ignore[attr-defined]


def test_get_returns_the_latest_cell_of_a_column_or_family(
    history: happybase.Table, client: object
) -> None:
    [cell] = client.get(b"t", b"r", b"f:a", {})  # type: ignore[attr-defined]
    assert (cell.value, cell.timestamp) == (b"a30", 30)
    family = client.get(b"t", b"r", b"f", {})  # type: ignore[attr-defined]
    assert [c.value for c in family] == [b"a30", b"b15"]


def test_getRowTs_and_getRowsTs_read_before_the_timestamp(
    history: happybase.Table, client: object
) -> None:
    [row] = client.getRowTs(b"t", b"r", 16, {})  # type: ignore[attr-defined]
    assert {k: v.value for k, v in row.columns.items()} == {b"f:a": b"a10", b"f:b": b"b15"}
    [row] = client.getRowsTs(b"t", [b"r"], 11, {})  # type: ignore[attr-defined]
    assert {k: v.value for k, v in row.columns.items()} == {b"f:a": b"a10"}


def test_getRow_and_getRows_read_every_column(history: happybase.Table, client: object) -> None:
    [row] = client.getRow(b"t", b"r", {})  # type: ignore[attr-defined]
    assert row.row == b"r" and set(row.columns) == {b"f:a", b"f:b", b"g:c"}
    assert [r.row for r in client.getRows(b"t", [b"r", b"x"], {})] == [b"r"]  # type: ignore[attr-defined]


def test_getRowOrBefore_returns_the_row_or_the_greatest_before_it(
    table: happybase.Table, client: object
) -> None:
    table.put(b"b", {b"f:q": b"B", b"g:q": b"other"})
    table.put(b"d", {b"f:q": b"D"})
    exact = client.getRowOrBefore(b"t", b"d", b"f")  # type: ignore[attr-defined]
    before = client.getRowOrBefore(b"t", b"c", b"f:")  # type: ignore[attr-defined]
    none = client.getRowOrBefore(b"t", b"a", b"f")  # type: ignore[attr-defined]
    assert [c.value for c in exact] == [b"D"]
    assert [c.value for c in before] == [b"B"]
    assert none == []


def test_reading_a_missing_table_raises_TableNotFoundException(
    connection: happybase.Connection,
) -> None:
    with pytest.raises(IOError_, match="TableNotFoundException"):
        connection.table("nope").row(b"r")


def test_reading_an_unknown_family_raises_NoSuchColumnFamilyException(
    table: happybase.Table,
) -> None:
    with pytest.raises(IOError_, match="NoSuchColumnFamilyException"):
        table.row(b"r", columns=[b"zz:q"])


def test_an_empty_row_key_is_an_internal_error_as_in_hbase(table: happybase.Table) -> None:
    with pytest.raises(TApplicationException):
        table.row(b"")
