"""TablePool: a test's tables parked, handed over emptied, hidden and dropped when touched."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hmodel.backend.base import Put
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import TableNotFoundError
from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer
from hmodel.testing.table_reuse import ReusingThrift2Backend, ReusingThriftBackend, TablePool

T = Table("t", [Family("f")])


@pytest.fixture
def server() -> Iterator[FakeHBaseServer]:
    with FakeHBaseServer(thrift2_port=0) as running:
        yield running


@pytest.fixture
def pool(server: FakeHBaseServer) -> Iterator[TablePool]:
    assert server.thrift2_port is not None
    raw = Thrift2Backend(server.host, server.thrift2_port, table_prefix="p")
    yield TablePool(raw)
    raw.close()


def _test(pool: TablePool, server: FakeHBaseServer) -> ReusingThrift2Backend:
    """What the kit does at a test's start: a fresh backend, the pool told."""
    assert server.thrift2_port is not None
    pool.begin()
    return ReusingThrift2Backend(pool, server.host, server.thrift2_port, table_prefix="p")


def test_a_table_created_alike_is_reused_and_emptied(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    first = _test(pool, server)
    first.create_table(T)
    first.mutate("t", [Put(b"r", b"f:q", b"old", timestamp=5)])
    pool.end()
    second = _test(pool, server)
    assert second.list_tables() == [] and not second.table_exists("t")
    second.create_table(T)
    second.mutate("t", [Put(b"r", b"f:q", b"new", timestamp=1)])  # older than the old put
    assert second.get("t", [b"r"])[0].value(b"f:q") == b"new"
    assert (pool.counts["created"], pool.counts["reused"], pool.counts["truncated"]) == (1, 1, 1)


def test_an_unwritten_empty_table_is_handed_over_without_truncation(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    _test(pool, server).create_table(T)
    pool.end()
    _test(pool, server).create_table(T)
    assert (pool.counts["reused"], pool.counts["truncated"]) == (1, 0)


def test_a_table_written_behind_the_kits_back_is_still_emptied(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    _test(pool, server).create_table(T)
    pool.raw.mutate("t", [Put(b"r", b"f:q", b"v", timestamp=5)])  # another client wrote
    pool.end()
    second = _test(pool, server)
    second.create_table(T)
    assert second.get("t", [b"r"]) == []
    assert pool.counts["truncated"] == 1


def test_another_descriptor_drops_the_parked_table_first(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    _test(pool, server).create_table(T)
    pool.end()
    wider = Table("t", [Family("f"), Family("g")])
    second = _test(pool, server)
    second.create_table(wider)
    assert set(second.describe_families("t")) == {"f", "g"}
    assert (pool.counts["created"], pool.counts["dropped"]) == (2, 1)


def test_touching_a_parked_table_sees_no_such_table(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    _test(pool, server).create_table(T)
    pool.end()
    second = _test(pool, server)
    with pytest.raises(TableNotFoundError):
        second.get("t", [b"r"])
    with pytest.raises(TableNotFoundError):
        second.delete_table("t")
    assert pool.parked == {}


def test_an_altered_table_is_dropped_at_the_end(pool: TablePool, server: FakeHBaseServer) -> None:
    backend = _test(pool, server)
    backend.create_table(T)
    backend.add_family("t", Family("g"))
    pool.end()
    assert pool.parked == {} and pool.raw.list_tables() == []


def test_tables_the_pool_does_not_know_are_dropped_before_and_after(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    pool.raw.create_table(Table("stray", [Family("f")]))
    backend = _test(pool, server)
    assert backend.list_tables() == []
    pool.raw.create_table(Table("made_elsewhere", [Family("f")]))
    pool.end()
    assert pool.raw.list_tables() == []


def test_closing_drops_every_parked_table(pool: TablePool, server: FakeHBaseServer) -> None:
    _test(pool, server).create_table(T)
    pool.end()
    pool.close()
    assert pool.raw.list_tables() == [] and pool.parked == {}


def test_without_a_thrift2_admin_a_dirty_table_is_dropped_and_created(
    server: FakeHBaseServer,
) -> None:
    pool = TablePool(MemoryBackend())
    pool.begin()
    backend = ReusingThriftBackend(pool, server.host, server.port)
    pool.create(T)
    pool.wrote("t")
    pool.end()
    pool.create(T)
    assert (pool.counts["created"], pool.counts["reused"], pool.counts["dropped"]) == (2, 1, 1)
    backend.close()
