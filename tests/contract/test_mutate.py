"""Contract: puts and deletes (delete markers) through mutate."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Cell, Delete, Mutation, Put
from hmodel.errors import ColumnFamilyNotFoundError, IllegalArgumentError


def _row(backend: Backend, table: str, row: bytes = b"r") -> dict[bytes, Cell]:
    found = backend.get(table, [row])
    return dict(found[0].cells) if found else {}


def _seed(backend: Backend, table: str) -> None:
    backend.mutate(
        table,
        [
            Put(b"r", b"i:a", b"a10", timestamp=10),
            Put(b"r", b"i:b", b"b10", timestamp=10),
            Put(b"r", b"d:x", b"x10", timestamp=10),
        ],
    )
    backend.mutate(table, [Put(b"r", b"i:a", b"a20", timestamp=20)])


def test_puts_of_several_rows_in_one_call_all_land(backend: Backend, table: str) -> None:
    """One call may write any number of rows."""
    backend.mutate(table, [Put(b"r%d" % n, b"i:a", b"v", timestamp=1) for n in range(5)])
    assert len(backend.get(table, [b"r%d" % n for n in range(5)])) == 5


def test_a_put_without_timestamp_is_stamped_by_the_server(backend: Backend, table: str) -> None:
    """The server stamps the cell with its clock; the stamp is a positive epoch-ms integer."""
    backend.mutate(table, [Put(b"r", b"i:a", b"v")])
    cell = _row(backend, table)[b"i:a"]
    assert cell.value == b"v"
    assert cell.timestamp > 1_000_000_000_000


def test_a_column_delete_with_timestamp_masks_only_versions_up_to_it(
    backend: Backend, table: str
) -> None:
    """Delete(column, ts) is HBase's addColumns: versions <= ts go, newer ones stay."""
    _seed(backend, table)
    backend.mutate(table, [Delete(b"r", b"i:a", timestamp=15)])
    assert backend.get_versions(table, b"r", b"i:a", max_versions=5) == [Cell(b"a20", 20)]
    assert _row(backend, table)[b"i:b"] == Cell(b"b10", 10)


def test_a_column_delete_without_timestamp_removes_every_version(
    backend: Backend, table: str
) -> None:
    """No timestamp means "now": everything stored so far goes; other columns stay."""
    _seed(backend, table)
    backend.mutate(table, [Delete(b"r", b"i:a")])
    assert backend.get_versions(table, b"r", b"i:a", max_versions=5) == []
    assert set(_row(backend, table)) == {b"d:x", b"i:b"}


def test_a_family_delete_removes_the_family_only(backend: Backend, table: str) -> None:
    """Delete(b"f") is addFamily: every column of f, no other family."""
    _seed(backend, table)
    backend.mutate(table, [Delete(b"r", b"i")])
    assert set(_row(backend, table)) == {b"d:x"}


def test_a_family_delete_with_timestamp_keeps_newer_cells(backend: Backend, table: str) -> None:
    """A family marker at 15 masks versions <= 15 of every column of the family."""
    _seed(backend, table)
    backend.mutate(table, [Delete(b"r", b"i", timestamp=15)])
    assert _row(backend, table) == {b"d:x": Cell(b"x10", 10), b"i:a": Cell(b"a20", 20)}


def test_a_row_delete_removes_every_family(backend: Backend, table: str) -> None:
    """Delete(row) without column removes the whole row."""
    _seed(backend, table)
    backend.mutate(table, [Delete(b"r")])
    assert backend.get(table, [b"r"]) == []


def test_a_row_delete_with_timestamp_keeps_newer_cells(backend: Backend, table: str) -> None:
    """A row delete at 15 leaves the version at 20."""
    _seed(backend, table)
    backend.mutate(table, [Delete(b"r", timestamp=15)])
    assert _row(backend, table) == {b"i:a": Cell(b"a20", 20)}


def test_a_delete_marker_hides_later_puts_with_older_timestamps(
    backend: Backend, table: str
) -> None:
    """Markers outlive the cells they deleted: a late put stamped before the marker is hidden."""
    backend.mutate(table, [Delete(b"r", b"i:a", timestamp=100)])
    backend.mutate(table, [Put(b"r", b"i:a", b"late", timestamp=50)])
    assert backend.get(table, [b"r"]) == []
    backend.mutate(table, [Put(b"r", b"i:a", b"newer", timestamp=101)])
    assert _row(backend, table) == {b"i:a": Cell(b"newer", 101)}


def test_a_delete_of_a_missing_row_is_harmless(backend: Backend, table: str) -> None:
    """Deleting what is not there succeeds and leaves nothing behind."""
    backend.mutate(table, [Delete(b"ghost"), Delete(b"ghost", b"i:a"), Delete(b"ghost", b"d")])
    assert backend.get(table, [b"ghost"]) == []


@pytest.mark.parametrize("delete_first", [False, True])
def test_puts_are_applied_before_deletes_within_one_call(
    backend: Backend, table: str, delete_first: bool
) -> None:
    """A put and a delete of the same cell and timestamp in one call: the cell ends deleted."""
    put = Put(b"r", b"i:a", b"v", timestamp=5)
    delete = Delete(b"r", b"i:a", timestamp=5)
    backend.mutate(table, [delete, put] if delete_first else [put, delete])
    assert backend.get(table, [b"r"]) == []


def test_an_unknown_family_rejects_the_whole_call(backend: Backend, table: str) -> None:
    """Validation comes first: nothing of a call with a bad family is applied."""
    with pytest.raises(ColumnFamilyNotFoundError) as caught:
        backend.mutate(
            table,
            [Put(b"r", b"i:a", b"v", timestamp=1), Put(b"r", b"nope:a", b"v", timestamp=1)],
        )
    assert caught.value.table == table
    assert backend.get(table, [b"r"]) == []


@pytest.mark.parametrize(
    "mutations",
    [
        [Delete(b"r", b"nope:a"), Put(b"r", b"i:a", b"v")],
        [Put(b"r", b"i:a", b"v"), Put(b"s", b"nope:a", b"v")],
        [Put(b"r", b"i:a", b"v"), Delete(b"s", b"nope")],
    ],
    ids=["delete-and-put-of-a-row", "puts-of-two-rows", "put-and-delete-of-two-rows"],
)
def test_an_unknown_family_rejects_a_call_of_one_timestamp(
    backend: Backend, table: str, mutations: list[Mutation]
) -> None:
    """Nothing is applied, even where one server call would carry every mutation.

    HBase's Thrift1 ``mutateRows`` applies a call's puts, then its deletes, each row on its
    own: sent as is, the put of a good row or the puts before a bad delete would land
    (measured on HBase 2.6.1).
    """
    with pytest.raises(ColumnFamilyNotFoundError):
        backend.mutate(table, mutations)
    assert backend.get(table, [b"r", b"s"]) == []


def test_a_delete_of_an_unknown_family_is_rejected(backend: Backend, table: str) -> None:
    """Deletes name families too; an unknown one raises."""
    with pytest.raises(ColumnFamilyNotFoundError):
        backend.mutate(table, [Delete(b"r", b"nope")])


def test_a_put_needs_a_qualified_column(backend: Backend, table: str) -> None:
    """A bare family as the column of a put is an illegal argument."""
    with pytest.raises(IllegalArgumentError):
        backend.mutate(table, [Put(b"r", b"i", b"v", timestamp=1)])


@pytest.mark.parametrize("timestamp", [None, 5], ids=["now", "explicit"])
def test_the_last_put_of_a_cell_wins_whatever_the_ttls(
    backend: Backend, table: str, timestamp: int | None
) -> None:
    """Puts of one cell at one timestamp in one call: the last one's value is kept.

    Protocols carry a ttl per request (Thrift1) or per ``TPut`` (Thrift2), so puts with
    other ttls travel apart; HBase keeps the one it applies last.
    """
    long = 10**14  # ms: no cell here outlives it
    backend.mutate(
        table,
        [
            Put(b"r", b"i:a", b"1", timestamp=timestamp, ttl=long),
            Put(b"r", b"i:a", b"2", timestamp=timestamp),
            Put(b"r", b"i:a", b"3", timestamp=timestamp, ttl=long),
        ],
    )
    assert backend.get(table, [b"r"])[0].value(b"i:a") == b"3"
    backend.mutate(
        table,
        [
            Put(b"s", b"i:a", b"1", timestamp=timestamp),
            Put(b"s", b"i:a", b"2", timestamp=timestamp, ttl=long),
            Put(b"s", b"i:a", b"3", timestamp=timestamp),
        ],
    )
    assert backend.get(table, [b"s"])[0].value(b"i:a") == b"3"


def test_two_family_deletes_of_one_family_in_one_call_both_apply(
    backend: Backend, table: str
) -> None:
    """Each delete places its marker; the newer one masks the cell.

    HBase's ``Delete.addFamily`` replaces an earlier family delete of the same family in
    one ``Delete``, so such deletes must travel apart (Thrift2 measured on 2.6.1).
    """
    backend.mutate(table, [Put(b"r", b"d:x", b"v", timestamp=10)])
    backend.mutate(table, [Delete(b"r", b"d", timestamp=20), Delete(b"r", b"d", timestamp=5)])
    assert backend.get(table, [b"r"]) == []
    backend.mutate(table, [Put(b"s", b"d:x", b"v", timestamp=10)])
    backend.mutate(table, [Delete(b"s", b"d"), Delete(b"s", b"d", timestamp=5)])
    assert backend.get(table, [b"s"]) == []
