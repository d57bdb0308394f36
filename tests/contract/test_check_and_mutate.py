"""Contract: check-and-put, check-and-delete and append, each atomic on one row.

The checked puts carry no timestamp: Thrift1's checkAndPut cannot send one.
"""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Cell, Delete, Put
from hmodel.clock import system_clock
from hmodel.errors import IllegalArgumentError


def _value(backend: Backend, table: str, column: bytes, row: bytes = b"r") -> bytes | None:
    found = backend.get(table, [row], columns=[column])
    return found[0].value(column) if found else None


def test_check_and_put_with_none_applies_only_when_the_cell_is_absent(
    backend: Backend, table: str
) -> None:
    """expected=None: the first put wins, the second finds the cell and is refused."""
    assert backend.check_and_put(table, b"r", b"i:a", None, Put(b"r", b"i:a", b"one"))
    assert not backend.check_and_put(table, b"r", b"i:a", None, Put(b"r", b"i:a", b"two"))
    assert _value(backend, table, b"i:a") == b"one"


def test_check_and_put_applies_when_the_value_is_equal(backend: Backend, table: str) -> None:
    """The put lands when the current value equals the expected one."""
    backend.mutate(table, [Put(b"r", b"i:v", b"1", timestamp=1)])
    assert backend.check_and_put(table, b"r", b"i:v", b"1", Put(b"r", b"i:v", b"2"))
    assert _value(backend, table, b"i:v") == b"2"


def test_check_and_put_refuses_when_the_value_differs(backend: Backend, table: str) -> None:
    """A different value, or no cell at all, leaves everything unchanged."""
    backend.mutate(table, [Put(b"r", b"i:v", b"1", timestamp=1)])
    assert not backend.check_and_put(table, b"r", b"i:v", b"9", Put(b"r", b"i:v", b"2"))
    assert not backend.check_and_put(table, b"r", b"i:missing", b"1", Put(b"r", b"i:v", b"3"))
    assert _value(backend, table, b"i:v") == b"1"


def test_check_and_put_may_write_another_column(backend: Backend, table: str) -> None:
    """The checked column and the written column differ (optimistic locking on a version)."""
    backend.mutate(table, [Put(b"r", b"d:version", b"7", timestamp=1)])
    put = Put(b"r", b"i:name", b"bob")
    assert backend.check_and_put(table, b"r", b"d:version", b"7", put)
    assert _value(backend, table, b"i:name") == b"bob"


def test_check_and_put_checks_the_newest_version(backend: Backend, table: str) -> None:
    """An older version equal to expected does not count."""
    backend.mutate(table, [Put(b"r", b"i:v", b"old", timestamp=1)])
    backend.mutate(table, [Put(b"r", b"i:v", b"new", timestamp=2)])
    assert not backend.check_and_put(table, b"r", b"i:v", b"old", Put(b"r", b"i:v", b"x"))


def test_a_checked_put_is_stamped_no_older_than_the_checked_cell(
    backend: Backend, table: str
) -> None:
    """The server stamps the put ``max(now, checked cell's timestamp)`` (HBASE-14054).

    So a put that passed its check is never hidden behind the cell it checked, even when
    that cell is stamped in the future (measured on HBase 2.6.1 over both protocols).
    """
    future = system_clock() + 86_400_000
    backend.mutate(table, [Put(b"r", b"i:v", b"1", timestamp=future)])
    assert backend.check_and_put(table, b"r", b"i:v", b"1", Put(b"r", b"i:w", b"2"))
    [found] = backend.get(table, [b"r"])
    assert found.cells[b"i:w"] == Cell(b"2", future)
    assert backend.check_and_put(table, b"r", b"i:v", b"1", Put(b"r", b"i:v", b"3"))
    assert backend.get(table, [b"r"])[0].cells[b"i:v"] == Cell(b"3", future)


def test_check_and_put_on_another_row_is_refused(backend: Backend, table: str) -> None:
    """The put must be on the checked row."""
    with pytest.raises(IllegalArgumentError):
        backend.check_and_put(table, b"r", b"i:v", None, Put(b"other", b"i:v", b"x"))


@pytest.mark.requires("check_and_delete")
def test_check_and_delete_deletes_only_on_a_match(backend: Backend, table: str) -> None:
    """With the capability: a matching value deletes, a different one does not."""
    backend.mutate(table, [Put(b"r", b"i:v", b"1", timestamp=1)])
    assert not backend.check_and_delete(table, b"r", b"i:v", b"2", Delete(b"r", b"i:v"))
    assert _value(backend, table, b"i:v") == b"1"
    assert backend.check_and_delete(table, b"r", b"i:v", b"1", Delete(b"r", b"i:v"))
    assert _value(backend, table, b"i:v") is None


def test_append_creates_and_extends_cells_and_returns_the_new_values(
    backend: Backend, table: str
) -> None:
    """A missing cell counts as empty; the result has the new value of every column."""
    backend.mutate(table, [Put(b"r", b"i:log", b"ab", timestamp=1)])
    assert backend.append(table, b"r", {b"i:log": b"cd", b"d:new": b"x"}) == {
        b"i:log": b"abcd",
        b"d:new": b"x",
    }
    assert _value(backend, table, b"i:log") == b"abcd"
    assert backend.append(table, b"r", {b"i:log": b"e"}) == {b"i:log": b"abcde"}


def test_append_writes_a_newer_version(backend: Backend, table: str) -> None:
    """The appended value is a new version above the old one."""
    backend.mutate(table, [Put(b"r", b"i:log", b"ab", timestamp=1)])
    backend.append(table, b"r", {b"i:log": b"c"})
    versions = backend.get_versions(table, b"r", b"i:log", max_versions=3)
    assert [cell.value for cell in versions] == [b"abc", b"ab"]
    assert versions[0].timestamp > 1
    assert versions[1] == Cell(b"ab", 1)
