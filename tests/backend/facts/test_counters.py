"""HBASE_FACTS, "Counters": on the engine and on a real HBase."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Cell, Put
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT
from tests.backend.facts.conftest import Wire1, now, raises_with


def test_incrementing_a_cell_that_is_not_8_bytes_is_field_is_not_a_long(thrift1: Wire1) -> None:
    """Thrift1 ``atomicIncrement`` of a 3-byte cell: an IOError "Field is not a long"."""
    thrift1.table.put(b"r", {b"f:n": b"abc"})
    error = raises_with(lambda: thrift1.table.counter_inc(b"r", b"f:n"), HBASE_THRIFT.IOError)
    assert "Field is not a long" in str(error.message)


def test_an_increment_is_stamped_after_the_cell_it_replaces(backend: Backend, table: str) -> None:
    """HBase 2 stamps an increment ``max(previous cell's timestamp + 1, now)``.

    So a put made right after at "now" can be older than the counter and hidden: what made
    happybase's ``test_atomic_counters`` fail on 2.x, timing-dependent there. Here the
    previous cell is stamped a day ahead, so the order is decided.
    """
    ahead = now() + 86_400_000
    backend.mutate(table, [Put(b"r", b"f:n", (41).to_bytes(8, "big"), timestamp=ahead)])
    assert backend.increment(table, b"r", b"f:n") == 42
    [found] = backend.get(table, [b"r"])
    assert found.cells[b"f:n"] == Cell((42).to_bytes(8, "big"), ahead + 1)
    backend.mutate(table, [Put(b"r", b"f:n", (0).to_bytes(8, "big"), timestamp=now())])
    assert backend.get(table, [b"r"])[0].cells[b"f:n"].timestamp == ahead + 1


@pytest.mark.parametrize("start", [None, 5], ids=["new", "old"])
def test_an_increment_of_an_old_or_missing_cell_is_stamped_now(
    backend: Backend, table: str, start: int | None
) -> None:
    """Without a newer previous cell, the increment takes the server's current time."""
    if start is not None:
        backend.mutate(table, [Put(b"r", b"f:n", (1).to_bytes(8, "big"), timestamp=start)])
    before = now()
    backend.increment(table, b"r", b"f:n")
    stamped = backend.get(table, [b"r"])[0].cells[b"f:n"].timestamp
    assert before <= stamped <= now()
