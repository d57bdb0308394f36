"""``ThriftBackend.write_row``: a one-row batch's write without the batch (issue 29).

tests/repository/test_prepared_calls.py holds a repository's updates through it to the
operations' bytes; these tests pin when it declines, and that it writes what the batch
writes.
"""

from __future__ import annotations

from hmodel.backend.thrift import ThriftBackend
from hmodel.testing import FakeHBaseServer


def test_write_row_writes_what_a_one_row_batch_writes(thrift: ThriftBackend, table: str) -> None:
    cells = [(b"f:a", b"1"), (b"g:b", b"2")]
    assert thrift.write_row(table, b"r1", cells, 10, frozenset({b"f", b"g"}))
    batch = thrift.row_batch(table, 10, None, frozenset({b"f", b"g"}))
    batch.add_row(b"r2", cells)
    thrift.write_rows(table, batch)
    first, second = thrift.get(table, [b"r1", b"r2"])
    assert dict(first.cells) == dict(second.cells)
    assert first.cells[b"f:a"].timestamp == 10
    before = thrift.round_trips
    assert thrift.write_row(table, b"r1", [(b"f:a", None)], 11, frozenset({b"f"}))
    assert thrift.round_trips == before + 1
    assert list(thrift.get(table, [b"r1"])[0].cells) == [b"g:b"]


def test_write_row_declines_puts_and_deletes_of_families_not_cached(
    server: FakeHBaseServer, table: str
) -> None:
    """``mutate`` checks the families of a mixed call first; the batch path does that."""
    backend = ThriftBackend(server.host, server.port)
    try:
        mixed = [(b"f:a", b"1"), (b"f:b", None)]
        assert not backend.write_row(table, b"r", mixed, 10, frozenset({b"f"}))
        assert backend.get(table, [b"r"]) == []  # nothing was written
        batch = backend.row_batch(table, 10, None, frozenset({b"f"}))
        batch.add_row(b"r", mixed)
        backend.write_rows(table, batch)  # reads and caches the families
        assert backend.write_row(table, b"r", mixed, 11, frozenset({b"f"}))
        assert not backend.write_row(table, b"r", [], 12, frozenset())
    finally:
        backend.close()


def test_write_row_declines_for_a_subclass_that_writes_rows_itself(
    server: FakeHBaseServer, table: str
) -> None:
    class Counting(ThriftBackend):
        def write_rows(self, table: str, batch: object) -> None:  # type: ignore[override]
            super().write_rows(table, batch)  # type: ignore[arg-type]

    backend = Counting(server.host, server.port)
    try:
        assert not backend.write_row(table, b"r", [(b"f:a", b"1")], 10, frozenset({b"f"}))
    finally:
        backend.close()
