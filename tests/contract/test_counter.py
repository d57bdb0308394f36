"""Contract: counters as 8-byte big-endian signed longs (F10)."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Delete, Increment, Put
from hmodel.errors import CounterError


def _long(value: int) -> bytes:
    return value.to_bytes(8, "big", signed=True)


def test_incrementing_a_missing_cell_starts_from_zero(backend: Backend, table: str) -> None:
    """The first increment returns the amount and stores it as 8 big-endian bytes."""
    assert backend.increment(table, b"r", b"d:hits", 5) == 5
    assert backend.get(table, [b"r"])[0].value(b"d:hits") == _long(5)


def test_increments_accumulate_and_may_be_negative(backend: Backend, table: str) -> None:
    """Each call returns the new value; negative amounts go below zero."""
    assert backend.increment(table, b"r", b"d:c") == 1
    assert backend.increment(table, b"r", b"d:c") == 2
    assert backend.increment(table, b"r", b"d:c", -10) == -8
    assert backend.get(table, [b"r"])[0].value(b"d:c") == _long(-8)
    assert backend.increment(table, b"r", b"d:c", 0) == -8


def test_a_counter_written_by_a_put_can_be_incremented(backend: Backend, table: str) -> None:
    """Any 8-byte value is a long to the server."""
    backend.mutate(table, [Put(b"r", b"d:c", _long(41), timestamp=1)])
    assert backend.increment(table, b"r", b"d:c") == 42


def test_incrementing_a_cell_that_is_not_8_bytes_raises_counter_error(
    backend: Backend, table: str
) -> None:
    """HBase: "Field is not a long, it's N bytes wide"; the cell is left as it was."""
    backend.mutate(table, [Put(b"r", b"d:c", b"12", timestamp=1)])
    with pytest.raises(CounterError):
        backend.increment(table, b"r", b"d:c")
    assert backend.get(table, [b"r"])[0].value(b"d:c") == b"12"


def test_increment_many_applies_every_increment(backend: Backend, table: str) -> None:
    """Several counters in one call, the same counter twice included."""
    backend.increment_many(
        table,
        [
            Increment(b"r1", b"d:a", 2),
            Increment(b"r1", b"d:a", 3),
            Increment(b"r2", b"d:b"),
            Increment(b"r1", b"i:c", -1),
        ],
    )
    one, two = backend.get(table, [b"r1", b"r2"])
    assert one.value(b"d:a") == _long(5)
    assert one.value(b"i:c") == _long(-1)
    assert two.value(b"d:b") == _long(1)


def test_a_deleted_counter_starts_again_from_zero(backend: Backend, table: str) -> None:
    """After a delete with an explicit timestamp the next increment sees no cell."""
    backend.mutate(table, [Put(b"r", b"d:c", _long(7), timestamp=10)])
    backend.mutate(table, [Delete(b"r", b"d:c", timestamp=10)])
    assert backend.increment(table, b"r", b"d:c", 2) == 2
