"""Contract: the round trips the protocol promises (every backend counts them)."""

from __future__ import annotations

from hmodel.backend.base import Backend, Increment, Put


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
    """Several increments travel in one request."""
    before = backend.round_trips
    backend.increment_many(table, [Increment(b"r%d" % n, b"d:c") for n in range(10)])
    assert backend.round_trips - before == 1
