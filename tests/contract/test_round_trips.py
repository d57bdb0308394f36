"""Contract: the round trips the protocol promises (every backend counts them)."""

from __future__ import annotations

from hmodel.backend.base import Backend, Increment, Put
from hmodel.backend.thrift2 import Thrift2Backend


def test_get_of_many_rows_is_one_round_trip(backend: Backend, table: str) -> None:
    """A multi-row get is one request, however many rows it names."""
    backend.mutate(table, [Put(b"r%03d" % n, b"i:a", b"v", timestamp=1) for n in range(50)])
    before = backend.round_trips
    assert len(backend.get(table, [b"r%03d" % n for n in range(50)])) == 50
    assert backend.round_trips - before == 1


def test_puts_sharing_timestamp_and_ttl_travel_together(backend: Backend, table: str) -> None:
    """Puts of many rows with one (timestamp, ttl) pair are one request."""
    backend.mutate(table, [Put(b"warm", b"i:a", b"v", timestamp=1)])
    before = backend.round_trips
    backend.mutate(table, [Put(b"r%03d" % n, b"i:a", b"v", timestamp=7) for n in range(50)])
    assert backend.round_trips - before == 1


def test_increment_many_is_one_round_trip(backend: Backend, table: str) -> None:
    """Several increments travel in one request (one per row over Thrift2, which lacks one)."""
    before = backend.round_trips
    backend.increment_many(table, [Increment(b"r%d" % n, b"d:c") for n in range(10)])
    assert backend.round_trips - before == (10 if isinstance(backend, Thrift2Backend) else 1)


def test_increments_of_one_row_are_one_round_trip(backend: Backend, table: str) -> None:
    """Increments of one row's columns travel in one request on every backend."""
    before = backend.round_trips
    backend.increment_many(table, [Increment(b"r", b"d:c%d" % n, n) for n in range(10)])
    assert backend.round_trips - before == 1
    assert backend.get(table, [b"r"])[0].value(b"d:c7") == (7).to_bytes(8, "big")
