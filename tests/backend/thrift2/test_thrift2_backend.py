"""Thrift2Backend data calls: what maps to which call, round trips, and Thrift2's limits."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hmodel.backend.base import Delete, Increment, Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.clock import ManualClock
from hmodel.errors import (
    ColumnFamilyNotFoundError,
    CounterError,
    FilterError,
    IllegalArgumentError,
    TableNotFoundError,
    UnsupportedOperationError,
)
from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer

NOW = 1_700_000_000_000


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(NOW)


@pytest.fixture
def timed(clock: ManualClock) -> Iterator[Thrift2Backend]:
    """A Thrift2 backend to a fresh server whose engine runs on a manual clock."""
    with FakeHBaseServer(MemoryBackend(clock=clock), thrift2_port=0) as fake:
        assert fake.thrift2_port is not None
        with Thrift2Backend(fake.host, fake.thrift2_port) as backend:
            backend.create_table(Table("t", [Family("f", versions=3), Family("g")]))
            yield backend


def _values(backend: Thrift2Backend, table: str, row: bytes) -> dict[bytes, bytes]:
    found = backend.get(table, [row])
    return {c: cell.value for c, cell in found[0].cells.items()} if found else {}


def test_one_row_of_mixed_mutations_is_one_mutate_row(thrift2: Thrift2Backend, table: str) -> None:
    """Puts and deletes of one row, each with its own timestamp: one atomic call."""
    thrift2.mutate(table, [Put(b"r", b"g:old", b"x", timestamp=5)])
    before = thrift2.round_trips
    thrift2.mutate(
        table,
        [
            Put(b"r", b"f:a", b"1", timestamp=10),
            Put(b"r", b"f:b", b"2", ttl=10**9),  # server time: expires in 11 days
            Delete(b"r", b"g", timestamp=6),
        ],
    )
    assert thrift2.round_trips - before == 1
    assert _values(thrift2, table, b"r") == {b"f:a": b"1", b"f:b": b"2"}


def test_several_rows_of_puts_and_deletes_are_two_calls(
    thrift2: Thrift2Backend, table: str
) -> None:
    """putMultiple then deleteMultiple (the families are known from create_table)."""
    thrift2.mutate(table, [Put(b"a", b"f:x", b"1", timestamp=1)])
    before = thrift2.round_trips
    thrift2.mutate(table, [Put(b"b", b"f:x", b"2"), Delete(b"a")])
    assert thrift2.round_trips - before == 2
    assert thrift2.get(table, [b"a"]) == []
    assert _values(thrift2, table, b"b") == {b"f:x": b"2"}


def test_an_unknown_family_in_a_two_call_mutate_applies_nothing(
    server: FakeHBaseServer,
) -> None:
    """The families are read once (getTableDescriptor) and checked before any call."""
    assert server.thrift2_port is not None
    with Thrift2Backend(server.host, server.thrift2_port) as creator:
        creator.create_table(Table("fam", [Family("f")]))
    with Thrift2Backend(server.host, server.thrift2_port) as backend:  # a cold family cache
        try:
            with pytest.raises(ColumnFamilyNotFoundError):
                backend.mutate("fam", [Put(b"a", b"f:x", b"1"), Delete(b"b", b"zz:q")])
            assert backend.get("fam", [b"a"]) == []
            before = backend.round_trips
            backend.mutate("fam", [Put(b"a", b"f:x", b"1"), Delete(b"b", b"f:q")])
            assert backend.round_trips - before == 2  # the families are cached now
        finally:
            backend.delete_table("fam")


def test_check_and_mutate_with_none_and_mixed_mutations_is_refused(
    thrift2: Thrift2Backend, table: str
) -> None:
    """HBase 2.2's checkAndMutate refuses an unset value: refused before sending anything."""
    before = thrift2.round_trips
    with pytest.raises(UnsupportedOperationError):
        thrift2.check_and_mutate(
            table, b"r", b"f:v", None, [Put(b"r", b"f:a", b"1"), Delete(b"r", b"g")]
        )
    assert thrift2.round_trips == before
    assert thrift2.get(table, [b"r"]) == []


def test_check_and_mutate_with_none_sends_check_and_put_or_check_and_delete(
    thrift2: Thrift2Backend, table: str
) -> None:
    """Puts sharing one ttl, or deletes of one kind, travel as one checkAndPut/checkAndDelete."""
    puts = [Put(b"r", b"f:a", b"1", timestamp=3), Put(b"r", b"g:b", b"2", timestamp=4)]
    assert thrift2.check_and_mutate(table, b"r", b"f:v", None, puts)
    assert not thrift2.check_and_mutate(table, b"r", b"f:a", None, puts)
    deletes = [Delete(b"r", b"f:a"), Delete(b"r", b"g:b")]
    before = thrift2.round_trips
    assert thrift2.check_and_mutate(table, b"r", b"f:v", b"", deletes)
    assert thrift2.round_trips - before == 1
    assert thrift2.get(table, [b"r"]) == []


def test_check_and_put_keeps_the_put_timestamp(thrift2: Thrift2Backend, table: str) -> None:
    """Unlike Thrift1, Thrift2's checkAndPut carries the cell timestamp."""
    assert thrift2.check_and_put(table, b"r", b"f:v", None, Put(b"r", b"f:v", b"1", timestamp=7))
    assert thrift2.get(table, [b"r"])[0].cells[b"f:v"].timestamp == 7


def test_a_per_cell_ttl_counts_from_the_cell_timestamp(
    timed: Thrift2Backend, clock: ManualClock
) -> None:
    """The _ttl attribute (ms): a cell expires once its timestamp + ttl has passed."""
    timed.mutate(
        "t",
        [
            Put(b"r", b"f:short", b"1", timestamp=NOW, ttl=1_000),
            Put(b"r", b"f:long", b"2", timestamp=NOW, ttl=60_000),
        ],
    )
    clock.advance(2_000)
    assert _values(timed, "t", b"r") == {b"f:long": b"2"}


def test_reads_with_before_are_exclusive(thrift2: Thrift2Backend, table: str) -> None:
    """``before`` travels as the time range [0, before)."""
    thrift2.mutate(table, [Put(b"r", b"f:a", b"v%d" % t, timestamp=t) for t in (10, 20, 30)])
    assert thrift2.get(table, [b"r"], before=30)[0].cells[b"f:a"].timestamp == 20
    versions = thrift2.get_versions(table, b"r", b"f:a", max_versions=5, before=30)
    assert [c.timestamp for c in versions] == [20, 10]
    assert [c.timestamp for c in thrift2.get_versions(table, b"r", b"f:a", max_versions=2)] == [
        30,
        20,
    ]


@pytest.mark.parametrize(
    ("start", "stop"),
    [(b"", b""), (b"b", b"e"), (b"b\x00", b"e\x00"), (b"\x00", b"c"), (b"c", b"c"), (b"e", b"b")],
)
@pytest.mark.parametrize("limit", [None, 1, 2])
def test_reverse_scans_keep_the_protocol_bounds(
    thrift2: Thrift2Backend, table: str, start: bytes, stop: bytes, limit: int | None
) -> None:
    """Reversed Thrift2 bounds are converted: start inclusive, stop exclusive, any limit."""
    rows = [b"a", b"b", b"b\x00", b"b\x01", b"c", b"d", b"e", b"e\x00", b"f"]
    thrift2.mutate(table, [Put(r, b"f:q", r, timestamp=1) for r in rows])
    scan = Scan(start=start, stop=stop, reverse=True, limit=limit, batch_size=2)
    expected = sorted((r for r in rows if scan.contains(r)), reverse=True)[:limit]
    assert [r.row for r in thrift2.scan(table, scan)] == expected
    stateful = Scan(start=start, stop=stop, reverse=True, limit=limit, filter="PageFilter(100)")
    assert [r.row for r in thrift2.scan(table, stateful)] == expected


def test_scan_errors_come_at_scan_time(thrift2: Thrift2Backend, table: str) -> None:
    """A missing table or a bad filter fails when the scan is made, not later."""
    with pytest.raises(TableNotFoundError):
        thrift2.scan("missing", Scan())
    with pytest.raises(FilterError):
        thrift2.scan(table, Scan(filter="NoSuchFilter()"))
    assert len(thrift2._channel._idle) >= 1  # the connections stayed healthy


def test_scan_round_trips(thrift2: Thrift2Backend, table: str) -> None:
    """Open, one fetch per batch, close: 5 rows in batches of 2 cost 1 + 3 + 1."""
    thrift2.mutate(table, [Put(b"r%d" % n, b"f:q", b"v") for n in range(5)])
    before = thrift2.round_trips
    assert len(list(thrift2.scan(table, Scan(batch_size=2)))) == 5
    assert thrift2.round_trips - before == 5


def test_counters_and_appends(thrift2: Thrift2Backend, table: str) -> None:
    """increment answers the new value; a non-8-byte cell is a CounterError; append too."""
    assert thrift2.increment(table, b"r", b"f:n", 5) == 5
    assert thrift2.increment(table, b"r", b"f:n", -7) == -2
    thrift2.increment_many(table, [Increment(b"r", b"f:n"), Increment(b"r", b"f:n")])
    assert thrift2.increment(table, b"r", b"f:n", 0) == 0
    thrift2.mutate(table, [Put(b"r", b"f:s", b"abc")])
    with pytest.raises(CounterError):
        thrift2.increment(table, b"r", b"f:s")
    assert thrift2.append(table, b"r", {b"f:s": b"d", b"g:t": b"x"}) == {
        b"f:s": b"abcd",
        b"g:t": b"x",
    }


def test_arguments_are_checked_before_sending(thrift2: Thrift2Backend, table: str) -> None:
    """Malformed arguments never reach the server."""
    before = thrift2.round_trips
    for call in (
        lambda: thrift2.mutate(table, [Put(b"", b"f:q", b"v")]),
        lambda: thrift2.mutate(table, [Put(b"r", b"f", b"v")]),
        lambda: thrift2.get(table, ["r"]),  # type: ignore[list-item]
        lambda: thrift2.get_versions(table, b"r", b"f:q", max_versions=0),
        lambda: thrift2.check_and_mutate(table, b"r", b"f:q", b"1", []),
        lambda: thrift2.check_and_put(table, b"r", b"f:q", None, Put(b"s", b"f:q", b"v")),
    ):
        with pytest.raises(IllegalArgumentError):
            call()
    assert thrift2.round_trips == before


@pytest.mark.parametrize("transport", ["buffered", "framed"])
@pytest.mark.parametrize("protocol", ["binary", "compact"])
def test_every_transport_and_protocol(transport: str, protocol: str) -> None:
    """The backend speaks each wire format HBase's Thrift2 server offers."""
    with FakeHBaseServer(thrift2_port=0, transport=transport, protocol=protocol) as fake:  # type: ignore[arg-type]
        assert fake.thrift2_port is not None
        with Thrift2Backend(
            fake.host, fake.thrift2_port, transport=transport, protocol=protocol
        ) as backend:
            backend.create_table(Table("w", [Family("f")], splits=[b"m"]))
            backend.mutate("w", [Put(b"a", b"f:q", b"\x00\xff"), Put(b"z", b"f:q", b"2")])
            assert [r.row for r in backend.scan("w", Scan(reverse=True))] == [b"z", b"a"]
            assert backend.get("w", [b"a"])[0].value(b"f:q") == b"\x00\xff"


def test_a_refused_increment_run_is_resent_one_by_one(thrift2: Thrift2Backend, table: str) -> None:
    """HBase refuses a whole TIncrement; the run is re-sent so earlier increments apply."""
    thrift2.mutate(table, [Put(b"r", b"g:text", b"abc", timestamp=1)])
    before = thrift2.round_trips
    with pytest.raises(CounterError):
        thrift2.increment_many(
            table, [Increment(b"r", b"f:a", 2), Increment(b"r", b"g:text"), Increment(b"r", b"f:b")]
        )
    assert thrift2.round_trips - before == 3  # the run, then f:a alone, then g:text alone
    assert _values(thrift2, table, b"r") == {b"f:a": (2).to_bytes(8, "big"), b"g:text": b"abc"}


def test_a_family_added_by_another_client_is_found(server: FakeHBaseServer) -> None:
    """The cached families are looked up again before a family is called unknown."""
    assert server.thrift2_port is not None
    with (
        Thrift2Backend(server.host, server.thrift2_port) as one,
        Thrift2Backend(server.host, server.thrift2_port) as other,
    ):
        one.create_table(Table("grow", [Family("f")]))
        try:
            other.add_family("grow", Family("n"))
            one.mutate("grow", [Put(b"a", b"n:x", b"1"), Put(b"b", b"f:x", b"2")])
            assert len(one.get("grow", [b"a", b"b"])) == 2
        finally:
            one.delete_table("grow")


def test_an_abandoned_scan_closes_its_server_scanner(
    thrift2: Thrift2Backend, table: str, server: FakeHBaseServer
) -> None:
    """Dropping an unfinished scan iterator releases the scanner on the server."""
    import gc

    thrift2.mutate(table, [Put(b"r%d" % n, b"f:q", b"v") for n in range(5)])
    assert server.thrift2_server is not None
    scanners = server.thrift2_server.handler.scanners  # type: ignore[attr-defined]
    rows = thrift2.scan(table, Scan(batch_size=2))
    next(rows)
    assert len(scanners) == 1
    del rows
    gc.collect()
    thrift2.table_exists(table)  # any later call also closes scanners deferred by the GC
    assert len(scanners) == 0
