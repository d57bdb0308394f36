"""Contract: the round trips the protocol promises (every backend counts them)."""

from __future__ import annotations

from hmodel.backend.base import Backend, Increment, Put


def _warm(backend: Backend, table: str) -> None:
    """Let the backend learn the table's families before counting.

    A backend that did not create the table (an asyncio backend beside the synchronous
    one that did) reads them once, at its first write of several rows or increments.
    """
    backend.mutate(table, [Put(b"warm1", b"i:a", b"v", timestamp=1), Put(b"warm2", b"d:c", b"v")])


def test_get_of_many_rows_is_one_round_trip(backend: Backend, table: str) -> None:
    """A multi-row get is one request, however many rows it names."""
    backend.mutate(table, [Put(b"r%03d" % n, b"i:a", b"v", timestamp=1) for n in range(50)])
    before = backend.round_trips
    assert len(backend.get(table, [b"r%03d" % n for n in range(50)])) == 50
    assert backend.round_trips - before == 1


def test_puts_sharing_timestamp_and_ttl_travel_together(backend: Backend, table: str) -> None:
    """Puts of many rows with one (timestamp, ttl) pair are one request."""
    _warm(backend, table)
    before = backend.round_trips
    backend.mutate(table, [Put(b"r%03d" % n, b"i:a", b"v", timestamp=7) for n in range(50)])
    assert backend.round_trips - before == 1


def test_increment_many_is_one_round_trip(backend: Backend, table: str) -> None:
    """Several increments travel in one request (one per row over Thrift2, which lacks one)."""
    _warm(backend, table)
    before = backend.round_trips
    backend.increment_many(table, [Increment(b"r%d" % n, b"d:c") for n in range(10)])
    per_row = "one per row" in backend.rpc_names.get("increment_many", "")  # Thrift2
    assert backend.round_trips - before == (10 if per_row else 1)


def test_increments_of_one_row_are_one_round_trip(backend: Backend, table: str) -> None:
    """Increments of one row's columns travel in one request on every backend."""
    _warm(backend, table)
    before = backend.round_trips
    backend.increment_many(table, [Increment(b"r", b"d:c%d" % n, n) for n in range(10)])
    assert backend.round_trips - before == 1
    assert backend.get(table, [b"r"])[0].value(b"d:c7") == (7).to_bytes(8, "big")
