"""TablePool: a test's tables parked, emptied in the background, handed over as fresh ones."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from hmodel.backend.base import Backend, Delete, Put
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import ConnectionLostError, TableNotFoundError
from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer
from hmodel.testing.fault import FaultyBackend
from hmodel.testing.table_reuse import ReusingThrift2Backend, ReusingThriftBackend, TablePool

T = Table("t", [Family("f")])
U = Table("u", [Family("g")])

#: The backends a test opened as "the test's backend" (the kit closes its own at the end).
_OPENED: list[Backend] = []


@pytest.fixture(autouse=True)
def _close_the_tests_backends() -> Iterator[None]:
    """Close every backend the test opened, so no pooled socket is left to the collector."""
    yield
    while _OPENED:
        _OPENED.pop().close()


def _opened(backend: ReusingThrift2Backend) -> ReusingThrift2Backend:
    _OPENED.append(backend)
    return backend


@pytest.fixture
def server() -> Iterator[FakeHBaseServer]:
    with FakeHBaseServer(thrift2_port=0) as running:
        yield running


def _opener(server: FakeHBaseServer) -> Callable[[str], Backend]:
    assert server.thrift2_port is not None
    port = server.thrift2_port
    return lambda prefix: Thrift2Backend(server.host, port, table_prefix=prefix)


@pytest.fixture
def pool(server: FakeHBaseServer) -> Iterator[TablePool]:
    """One copy: every test lands on the same tables (the reuse itself is under test)."""
    made = TablePool(_opener(server), "p", copies=1)
    yield made
    made.close()


@pytest.fixture
def pool2(server: FakeHBaseServer) -> Iterator[TablePool]:
    made = TablePool(_opener(server), "p", copies=2)
    yield made
    made.close()


def _test(pool: TablePool, server: FakeHBaseServer) -> ReusingThrift2Backend:
    """What the kit does at a test's start: the pool told, a fresh backend."""
    assert server.thrift2_port is not None
    pool.begin()
    return _opened(ReusingThrift2Backend(pool, server.host, server.thrift2_port, table_prefix="p"))


def _next(pool: TablePool, server: FakeHBaseServer) -> ReusingThrift2Backend:
    """End the running test, let the background work finish, start the next test."""
    pool.end()
    pool.drain()
    return _test(pool, server)


def _all_tables(server: FakeHBaseServer) -> list[str]:
    return server.backend.list_tables()


def test_a_table_created_alike_is_reused_and_emptied(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    first = _test(pool, server)
    first.create_table(T)
    first.mutate("t", [Put(b"r", b"f:q", b"old", timestamp=5)])
    first.mutate("t", [Delete(b"gone", timestamp=9)])  # a delete marker, at 9
    second = _next(pool, server)
    assert second.list_tables() == [] and not second.table_exists("t")
    second.create_table(T)
    second.mutate("t", [Put(b"r", b"f:q", b"new", timestamp=1)])  # older than the old put
    second.mutate("t", [Put(b"gone", b"f:q", b"back", timestamp=2)])  # under the old marker
    assert second.get("t", [b"r"])[0].value(b"f:q") == b"new"
    assert second.get("t", [b"gone"])[0].value(b"f:q") == b"back"
    assert (pool.counts["created"], pool.counts["reused"], pool.counts["truncated"]) == (1, 1, 1)


def test_an_unwritten_empty_table_is_handed_over_without_truncation(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    first = _test(pool, server)
    first.create_table(T)
    assert first.get("t", [b"r"]) == []  # reads leave it clean
    _next(pool, server).create_table(T)
    assert (pool.counts["reused"], pool.counts["truncated"]) == (1, 0)


@pytest.mark.parametrize(
    "write",
    [
        lambda b: b.increment("t", b"r", b"f:n"),
        lambda b: b.check_and_mutate("t", b"r", b"f:q", None, [Put(b"r", b"f:q", b"v")]),
        lambda b: b.append("t", b"r", {b"f:q": b"v"}),
        lambda b: b.mutate("t", [Delete(b"r")]),  # no rows written, a marker left
    ],
    ids=["increment", "check_and_mutate", "append", "delete"],
)
def test_any_call_but_a_read_makes_the_table_emptied(
    pool: TablePool, server: FakeHBaseServer, write: Callable[[Backend], Any]
) -> None:
    first = _test(pool, server)
    first.create_table(T)
    write(first)
    _next(pool, server).create_table(T)
    assert pool.counts["truncated"] == 1


def test_a_table_written_behind_the_kits_back_is_still_emptied(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    _test(pool, server).create_table(T)
    pool.slots[0].raw.mutate("t", [Put(b"r", b"f:q", b"v", timestamp=5)])  # another client
    second = _next(pool, server)
    second.create_table(T)
    assert second.get("t", [b"r"]) == []
    assert pool.counts["truncated"] == 1


def test_another_descriptor_drops_the_parked_table_first(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    _test(pool, server).create_table(T)
    wider = Table("t", [Family("f"), Family("g")])
    second = _next(pool, server)
    second.create_table(wider)
    assert set(second.describe_families("t")) == {"f", "g"}
    assert (pool.counts["created"], pool.counts["dropped"]) == (2, 1)


def test_touching_a_parked_table_sees_no_such_table(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    _test(pool, server).create_table(T)
    _test(pool, server).create_table(U)  # the same copy: "t" is parked there
    second = _next(pool, server)
    second.create_table(U)
    with pytest.raises(TableNotFoundError):
        second.get("t", [b"r"])
    with pytest.raises(TableNotFoundError):
        second.delete_table("t")
    assert "t" not in pool.slots[0].parked and _all_tables(server) == ["p_u"]


def test_an_altered_table_is_dropped_at_the_end(pool: TablePool, server: FakeHBaseServer) -> None:
    backend = _test(pool, server)
    backend.create_table(T)
    backend.add_family("t", Family("g"))
    pool.end()
    pool.drain()
    assert _all_tables(server) == []


def test_a_table_the_test_drops_and_creates_again_is_parked(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    backend = _test(pool, server)
    backend.create_table(T)
    backend.delete_table("t")
    assert not backend.table_exists("t")
    backend.create_table(T)
    _next(pool, server).create_table(T)
    assert pool.counts["reused"] == 1


def test_tables_the_pool_does_not_know_are_dropped_before_and_after(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    raw = pool.slots[0].raw
    raw.create_table(Table("stray", [Family("f")]))
    backend = _test(pool, server)
    assert backend.list_tables() == []
    raw.create_table(Table("made_elsewhere", [Family("f")]))
    pool.end()
    pool.drain()
    assert _all_tables(server) == []


def test_closing_drops_every_table_of_every_copy(pool2: TablePool, server: FakeHBaseServer) -> None:
    first = _test(pool2, server)
    first.create_table(T)
    first.mutate("t", [Put(b"r", b"f:q", b"v")])
    pool2.end()
    assert _all_tables(server)  # parked (one copy), and its spare in the other copy
    pool2.close()
    assert _all_tables(server) == [] and all(not s.parked for s in pool2.slots)


def test_the_next_test_takes_the_copy_that_is_ready(
    pool2: TablePool, server: FakeHBaseServer
) -> None:
    """While one copy of a table is being emptied, the next test gets the other one."""
    gate = threading.Event()

    class SlowTruncation(Thrift2Backend):
        def truncate_table(self, name: str, *, preserve_splits: bool = True) -> None:
            assert gate.wait(30), "the gate was never opened"
            super().truncate_table(name, preserve_splits=preserve_splits)

    assert server.thrift2_port is not None
    port = server.thrift2_port
    slow = TablePool(lambda p: SlowTruncation(server.host, port, table_prefix=p), "s", copies=2)
    try:
        first = _opened(ReusingThrift2Backend(slow, server.host, port, table_prefix="s"))
        slow.begin()
        first.create_table(T)
        first.mutate("t", [Put(b"r", b"f:q", b"v", timestamp=5)])
        assert first.table_prefix == "s"
        slow.end()  # its truncation now waits at the gate
        slow.slots[1].parked["t"].job.result()  # type: ignore[union-attr]  # the spare is made
        second = _opened(ReusingThrift2Backend(slow, server.host, port, table_prefix="s"))
        slow.begin()
        second.create_table(T)
        assert second.table_prefix == "s-1" and second.get("t", [b"r"]) == []
        assert slow.counts["waits"] == 0 and slow.slots[0].parked["t"].busy()
        with Thrift2Backend(server.host, port, table_prefix="s-1") as other_client:
            assert other_client.list_tables() == ["t"]  # the test's prefix reaches its tables
        gate.set()
        slow.end()
    finally:
        gate.set()
        slow.close()
    assert _all_tables(server) == []


def test_a_table_used_again_and_again_gets_copies_and_no_waits(
    server: FakeHBaseServer,
) -> None:
    made = TablePool(_opener(server), "p", copies=3)
    try:
        for _ in range(6):
            backend = _test(made, server)
            backend.create_table(T)
            backend.mutate("t", [Put(b"r", b"f:q", b"v")])
            made.end()
            made.drain()
        assert made.counts["created"] == 1 and made.counts["spares"] >= 1
        assert made.counts["reused"] == 5 and made.counts["waits"] == 0
    finally:
        made.close()


def test_a_failed_emptying_gives_a_fresh_table_next_time(server: FakeHBaseServer) -> None:
    """A truncation that fails in the background: the table is dropped, made again."""

    class LostTruncation(Thrift2Backend):
        def truncate_table(self, name: str, *, preserve_splits: bool = True) -> None:
            raise ConnectionLostError("the connection dropped", table=name)

    assert server.thrift2_port is not None
    port = server.thrift2_port
    made = TablePool(lambda p: LostTruncation(server.host, port, table_prefix=p), "p", copies=1)
    try:
        first = _test(made, server)
        first.create_table(T)
        first.mutate("t", [Put(b"r", b"f:q", b"v")])
        second = _next(made, server)
        second.create_table(T)
        assert second.get("t", [b"r"]) == []
        assert (made.counts["failed"], made.counts["dropped"], made.counts["created"]) == (1, 1, 2)
    finally:
        made.close()


def test_the_longest_parked_tables_beyond_the_limit_are_dropped(
    server: FakeHBaseServer,
) -> None:
    made = TablePool(_opener(server), "p", copies=1, max_parked=1)
    try:
        backend = _test(made, server)
        backend.create_table(T)
        backend.create_table(U)
        _next(made, server)  # the next test starts: the longest parked goes
        made.drain()
        assert _all_tables(server) == ["p_u"]
    finally:
        made.close()


def test_an_emptied_table_is_read_once_through_the_tests_server(
    server: FakeHBaseServer,
) -> None:
    """The kit warms the new regions, so a test never pays the client's retry pause."""
    warm: list[FaultyBackend] = []

    def open_warm(prefix: str) -> Backend:
        warm.append(FaultyBackend(ThriftBackend(server.host, server.port, table_prefix=prefix)))
        return warm[-1]

    split = Table("t", [Family("f")], splits=[b"m"])
    made = TablePool(_opener(server), "p", open_warm=open_warm, copies=1)
    try:
        backend = _test(made, server)
        backend.create_table(split)
        backend.mutate("t", [Put(b"r", b"f:q", b"v")])
        made.end()
        made.drain()
        assert warm[0].calls == ["get"] and made.counts["truncated"] == 1
    finally:
        made.close()


def test_without_a_thrift2_server_a_dirty_table_is_dropped_and_created(
    server: FakeHBaseServer,
) -> None:
    made = TablePool(
        lambda prefix: ThriftBackend(server.host, server.port, table_prefix=prefix), "p", copies=1
    )
    try:
        made.begin()
        backend = ReusingThriftBackend(made, server.host, server.port, table_prefix="p")
        backend.create_table(T)
        backend.mutate("t", [Put(b"r", b"f:q", b"v")])
        made.end()
        made.drain()
        made.begin()
        again = ReusingThriftBackend(made, server.host, server.port, table_prefix="p")
        again.create_table(T)
        assert again.get("t", [b"r"]) == []
        assert (made.counts["recreated"], made.counts["reused"]) == (1, 1)
        backend.close()
        again.close()
    finally:
        made.close()


def test_bad_arguments_get_the_backends_own_errors(
    pool: TablePool, server: FakeHBaseServer
) -> None:
    from hmodel.errors import IllegalArgumentError

    backend = _test(pool, server)
    with pytest.raises(IllegalArgumentError):
        backend.create_table("t")  # type: ignore[arg-type]
    with pytest.raises(IllegalArgumentError):
        backend.get("", [b"r"])
    with pytest.raises(IllegalArgumentError):
        backend.table_exists(b"t")  # type: ignore[arg-type]


def test_closing_warns_of_the_tables_it_could_not_drop(server: FakeHBaseServer) -> None:
    """A drop that fails at the session's end is kept for the next run, not an error."""

    class NoDrop(Thrift2Backend):
        def delete_table(self, name: str) -> None:
            raise ConnectionLostError("the connection dropped", table=name)

    assert server.thrift2_port is not None
    port = server.thrift2_port
    made = TablePool(lambda p: NoDrop(server.host, port, table_prefix=p), "p", copies=1)
    _test(made, server).create_table(T)
    made.end()
    with pytest.warns(RuntimeWarning, match="could not drop all of its tables"):
        made.close()
    assert _all_tables(server) == ["p_t"]
