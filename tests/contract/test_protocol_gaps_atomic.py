"""Contract gaps: counters (F10), check-and-put, check-and-delete and append at their edges."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Cell, Delete, Increment, Put, Scan
from hmodel.errors import ColumnFamilyNotFoundError, CounterError, UnsupportedOperationError

#: A timestamp far in the future of any clock.
FUTURE = 2**62


def _long(value: int) -> bytes:
    return value.to_bytes(8, "big", signed=True)


def _value(backend: Backend, table: str, column: bytes, row: bytes = b"r") -> bytes | None:
    found = backend.get(table, [row], columns=[column])
    return found[0].value(column) if found else None


def test_incrementing_an_unknown_family_raises(backend: Backend, table: str) -> None:
    """increment names a family like a put does."""
    with pytest.raises(ColumnFamilyNotFoundError):
        backend.increment(table, b"r", b"nope:c")


def test_an_unknown_family_anywhere_in_increment_many_applies_nothing(
    backend: Backend, table: str
) -> None:
    """Families are checked before any increment is applied, on every backend."""
    with pytest.raises(ColumnFamilyNotFoundError):
        backend.increment_many(table, [Increment(b"r", b"i:c", 5), Increment(b"r", b"nope:c")])
    assert _value(backend, table, b"i:c") is None


def test_calls_with_nothing_to_do_make_no_round_trip(backend: Backend) -> None:
    """Empty calls return at once, even for a table that does not exist."""
    before = backend.round_trips
    assert backend.get("no_such_table", []) == []
    backend.mutate("no_such_table", [])
    backend.increment_many("no_such_table", [])
    assert backend.append("no_such_table", b"r", {}) == {}
    assert list(backend.scan("no_such_table", Scan(limit=0))) == []
    assert backend.round_trips == before


def test_an_increment_is_newer_than_the_cell_it_replaces(backend: Backend, table: str) -> None:
    """The new counter is stamped max(now, old + 1): a future-stamped counter still moves (F10)."""
    backend.mutate(table, [Put(b"r", b"i:c", _long(41), timestamp=FUTURE)])
    assert backend.increment(table, b"r", b"i:c") == 42
    assert backend.get_versions(table, b"r", b"i:c", max_versions=2) == [
        Cell(_long(42), FUTURE + 1),
        Cell(_long(41), FUTURE),
    ]


def test_an_append_is_newer_than_the_cell_it_replaces(backend: Backend, table: str) -> None:
    """Appends are stamped like increments: after a future-stamped cell, not hidden by it."""
    backend.mutate(table, [Put(b"r", b"i:log", b"ab", timestamp=FUTURE)])
    assert backend.append(table, b"r", {b"i:log": b"c"}) == {b"i:log": b"abc"}
    assert backend.get(table, [b"r"])[0].cells[b"i:log"] == Cell(b"abc", FUTURE + 1)


def test_increment_many_keeps_the_increments_before_a_failing_one(
    backend: Backend, table: str
) -> None:
    """A cell that is not a long fails its increment; earlier ones of the call stay applied."""
    backend.mutate(table, [Put(b"r", b"d:text", b"abc", timestamp=1)])
    with pytest.raises(CounterError):
        backend.increment_many(
            table, [Increment(b"r", b"d:first", 2), Increment(b"r", b"d:text", 1)]
        )
    assert _value(backend, table, b"d:first") == _long(2)
    assert _value(backend, table, b"d:text") == b"abc"


def test_an_empty_expected_value_matches_a_missing_cell(backend: Backend, table: str) -> None:
    """expected=b"" behaves like None: an absent cell matches (HBase's checkAndMutate)."""
    assert backend.check_and_put(table, b"r", b"i:v", b"", Put(b"r", b"i:v", b"x"))
    assert _value(backend, table, b"i:v") == b"x"


def test_no_expected_value_matches_a_cell_holding_empty_bytes(backend: Backend, table: str) -> None:
    """expected=None also matches a cell whose value is b"", as HBase compares them."""
    backend.mutate(table, [Put(b"r", b"i:v", b"", timestamp=1)])
    assert backend.check_and_put(table, b"r", b"i:v", None, Put(b"r", b"i:v", b"x"))
    assert _value(backend, table, b"i:v") == b"x"


def test_a_deleted_cell_counts_as_absent_for_check_and_put(backend: Backend, table: str) -> None:
    """Only visible cells are compared: after a delete, expected=None matches."""
    backend.mutate(table, [Put(b"r", b"i:v", b"old", timestamp=1)])
    backend.mutate(table, [Delete(b"r", b"i:v", timestamp=1)])
    assert backend.check_and_put(table, b"r", b"i:v", None, Put(b"r", b"i:v", b"new"))
    assert _value(backend, table, b"i:v") == b"new"


def test_check_and_put_of_an_unknown_family_raises(backend: Backend, table: str) -> None:
    """The checked column must be in a family of the table."""
    with pytest.raises(ColumnFamilyNotFoundError):
        backend.check_and_put(table, b"r", b"nope:v", None, Put(b"r", b"i:v", b"x"))


def test_check_and_delete_without_the_capability_is_unsupported(
    backend: Backend, table: str
) -> None:
    """A backend that does not list check_and_delete raises UnsupportedOperationError."""
    if "check_and_delete" in backend.capabilities:
        pytest.skip("this backend has check-and-delete")
    backend.mutate(table, [Put(b"r", b"i:v", b"1", timestamp=1)])
    with pytest.raises(UnsupportedOperationError):
        backend.check_and_delete(table, b"r", b"i:v", b"1", Delete(b"r"))
    assert _value(backend, table, b"i:v") == b"1"


@pytest.mark.requires("check_and_delete")
def test_check_and_delete_of_a_whole_row_when_a_cell_is_absent(
    backend: Backend, table: str
) -> None:
    """With the capability: expected=None and a row delete; a present cell refuses it."""
    backend.mutate(table, [Put(b"r", b"i:v", b"1", timestamp=1)])
    assert not backend.check_and_delete(table, b"r", b"i:v", None, Delete(b"r"))
    assert backend.check_and_delete(table, b"r", b"i:lock", None, Delete(b"r"))
    assert backend.get(table, [b"r"]) == []


def test_an_append_naming_an_unknown_family_raises(backend: Backend, table: str) -> None:
    """append names families like a put does."""
    with pytest.raises(ColumnFamilyNotFoundError):
        backend.append(table, b"r", {b"nope:log": b"x"})
    assert backend.get(table, [b"r"]) == []
