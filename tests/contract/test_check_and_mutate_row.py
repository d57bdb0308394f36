"""Contract: check_and_mutate compares one cell, then applies a whole row atomically.

Backends without the capability (Thrift1) must refuse it with UnsupportedOperationError.
"""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Cell, Delete, Put
from hmodel.clock import system_clock
from hmodel.errors import ColumnFamilyNotFoundError, IllegalArgumentError, UnsupportedOperationError

#: The tests that need the capability say so; the kit skips them, with the reason, on
#: backends without it (Thrift1).
needs_atomic = pytest.mark.requires("check_and_mutate")


@pytest.fixture
def atomic(backend: Backend) -> Backend:
    return backend


def _row(backend: Backend, table: str, row: bytes = b"r") -> dict[bytes, bytes]:
    found = backend.get(table, [row])
    return {c: cell.value for c, cell in found[0].cells.items()} if found else {}


def test_backends_without_the_capability_refuse_it(backend: Backend, table: str) -> None:
    """Thrift1 has no checkAndMutate: the call is refused, nothing is written."""
    if "check_and_mutate" in backend.capabilities:
        pytest.skip("this backend has the capability")
    with pytest.raises(UnsupportedOperationError):
        backend.check_and_mutate(table, b"r", b"i:v", None, [Put(b"r", b"i:a", b"1")])
    assert _row(backend, table) == {}


@needs_atomic
def test_applies_puts_and_deletes_with_their_own_timestamps(atomic: Backend, table: str) -> None:
    """A family delete at t-1 and puts at t in one call: the old entries go, the new stay."""
    atomic.mutate(table, [Put(b"r", b"d:old", b"x", timestamp=10), Put(b"r", b"i:v", b"1", 10)])
    applied = atomic.check_and_mutate(
        table,
        b"r",
        b"i:v",
        b"1",
        [
            Delete(b"r", b"d", timestamp=19),
            Put(b"r", b"d:new", b"y", timestamp=20),
            Put(b"r", b"i:v", b"2", timestamp=20),
        ],
    )
    assert applied
    assert _row(atomic, table) == {b"d:new": b"y", b"i:v": b"2"}


@needs_atomic
def test_a_failed_check_applies_nothing(atomic: Backend, table: str) -> None:
    """The check fails: no put and no delete lands."""
    atomic.mutate(table, [Put(b"r", b"i:v", b"1", timestamp=5), Put(b"r", b"d:a", b"a")])
    assert not atomic.check_and_mutate(
        table, b"r", b"i:v", b"other", [Delete(b"r"), Put(b"r", b"d:b", b"b", timestamp=50)]
    )
    assert _row(atomic, table) == {b"d:a": b"a", b"i:v": b"1"}


@needs_atomic
def test_none_expects_an_absent_or_empty_cell(atomic: Backend, table: str) -> None:
    """expected=None passes on a missing cell and on b'', and fails on any other value."""
    assert atomic.check_and_mutate(table, b"r", b"i:v", None, [Put(b"r", b"i:v", b"")])
    assert atomic.check_and_mutate(table, b"r", b"i:v", None, [Put(b"r", b"i:v", b"1")])
    assert not atomic.check_and_mutate(table, b"r", b"i:v", None, [Put(b"r", b"i:v", b"2")])
    assert _row(atomic, table) == {b"i:v": b"1"}


@needs_atomic
def test_a_row_delete_in_the_call_masks_older_cells_only(atomic: Backend, table: str) -> None:
    """Delete(row, t) with puts at t+1: the row is replaced in one step."""
    atomic.mutate(table, [Put(b"r", b"i:a", b"a", timestamp=3), Put(b"r", b"i:v", b"1", 3)])
    assert atomic.check_and_mutate(
        table,
        b"r",
        b"i:v",
        b"1",
        [Delete(b"r", timestamp=9), Put(b"r", b"i:b", b"b", timestamp=10)],
    )
    assert _row(atomic, table) == {b"i:b": b"b"}


@needs_atomic
def test_its_puts_are_stamped_no_older_than_the_checked_cell(atomic: Backend, table: str) -> None:
    """Puts without a timestamp get ``max(now, checked cell's timestamp)`` (HBASE-14054);
    a delete without one is stamped now, so it does not mask them then."""
    future = system_clock() + 86_400_000
    atomic.mutate(table, [Put(b"r", b"i:v", b"1", timestamp=future)])
    mutations = [
        Put(b"r", b"i:w", b"2"),
        Delete(b"r", b"i:w"),
        Put(b"r", b"d:x", b"3", timestamp=5),
    ]
    assert atomic.check_and_mutate(table, b"r", b"i:v", b"1", mutations)
    [found] = atomic.get(table, [b"r"])
    assert found.cells[b"i:w"] == Cell(b"2", future)
    assert found.cells[b"d:x"] == Cell(b"3", 5)


@needs_atomic
def test_mutations_on_another_row_are_refused(atomic: Backend, table: str) -> None:
    """Row atomicity is per row: a mutation of another row is an error, nothing applied."""
    with pytest.raises(IllegalArgumentError):
        atomic.check_and_mutate(
            table, b"r", b"i:v", None, [Put(b"r", b"i:a", b"1"), Put(b"s", b"i:a", b"1")]
        )
    assert _row(atomic, table) == {}
    assert _row(atomic, table, b"s") == {}


@needs_atomic
def test_an_unknown_family_applies_nothing(atomic: Backend, table: str) -> None:
    """A bad family anywhere in the call leaves the row untouched."""
    with pytest.raises(ColumnFamilyNotFoundError):
        atomic.check_and_mutate(
            table, b"r", b"i:v", None, [Put(b"r", b"i:a", b"1"), Put(b"r", b"zz:a", b"1")]
        )
    assert _row(atomic, table) == {}


@needs_atomic
def test_one_round_trip(atomic: Backend, table: str) -> None:
    """Mixed timestamps still cost one round trip: it is one call."""
    atomic.mutate(table, [Put(b"r", b"i:v", b"0", timestamp=1)])
    before = atomic.round_trips
    atomic.check_and_mutate(
        table,
        b"r",
        b"i:v",
        b"0",
        [
            Delete(b"r", b"d", timestamp=1),
            Put(b"r", b"d:a", b"1", timestamp=2),
            Put(b"r", b"i:v", b"1", 3),
        ],
    )
    assert atomic.round_trips - before == 1
