"""ThriftBackend against the project's FakeHBaseServer: RPC mapping, round trips, admin, errors."""

from __future__ import annotations

import socket
import warnings
from collections.abc import Callable, Iterator

import pytest

from hmodel.backend.base import Cell, Delete, Increment, Put, Region, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift.idl import ThriftIOError
from hmodel.clock import ManualClock
from hmodel.errors import (
    ColumnFamilyNotFoundError,
    ConnectionLostError,
    CounterError,
    IllegalArgumentError,
    TableExistsError,
    TableNotFoundError,
    UnsupportedOperationError,
)
from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


# --- round trips -------------------------------------------------------------------


def test_each_single_request_call_is_exactly_one_round_trip(
    thrift: ThriftBackend, table: str
) -> None:
    thrift.mutate(table, [Put(b"r", b"f:a", b"v", timestamp=1), Put(b"c", b"f:n", bytes(8))])
    calls: list[Callable[[], object]] = [
        lambda: thrift.get(table, [b"r", b"c"]),
        lambda: thrift.get(table, [b"r"], columns=[b"f"], before=5),
        lambda: thrift.get_versions(table, b"r", b"f:a", max_versions=3),
        lambda: thrift.get_versions(table, b"r", b"f:a", max_versions=3, before=2),
        lambda: thrift.increment(table, b"c", b"f:n"),
        lambda: thrift.increment_many(table, [Increment(b"c", b"f:n"), Increment(b"d", b"f:n")]),
        lambda: thrift.check_and_put(table, b"r", b"f:z", None, Put(b"r", b"f:z", b"1")),
        lambda: thrift.append(table, b"r", {b"f:a": b"x", b"g:b": b"y"}),
        lambda: thrift.mutate(table, [Put(b"r", b"f:a", b"w"), Delete(b"r", b"g:b")]),
        lambda: thrift.table_exists(table),
        thrift.list_tables,
        lambda: thrift.describe_families(table),
        lambda: thrift.regions(table),
    ]
    for call in calls:
        before = thrift.round_trips
        call()
        assert thrift.round_trips == before + 1


def test_mutate_costs_one_round_trip_per_timestamp_ttl_pair(
    thrift: ThriftBackend, table: str
) -> None:
    before = thrift.round_trips
    thrift.mutate(
        table,
        [
            Put(b"a", b"f:q", b"1", timestamp=10),
            Put(b"b", b"f:q", b"2", timestamp=10),
            Put(b"a", b"g:q", b"3", ttl=60_000),
            Delete(b"c", timestamp=10),
            Delete(b"d", b"f:q"),
        ],
    )
    assert thrift.round_trips == before + 3  # (10, None), (None, 60000), (None, None)


def test_families_for_whole_row_deletes_are_fetched_once_per_table(
    server: FakeHBaseServer, table: str
) -> None:
    fresh = ThriftBackend(server.host, server.port)  # nothing cached yet
    try:
        fresh.mutate(table, [Delete(b"r")])
        assert fresh.round_trips == 2  # getColumnDescriptors, then mutateRows
        fresh.mutate(table, [Delete(b"s")])
        assert fresh.round_trips == 3
    finally:
        fresh.close()


def test_an_empty_mutate_sends_nothing(thrift: ThriftBackend, table: str) -> None:
    before = thrift.round_trips
    thrift.mutate(table, [])
    thrift.increment_many(table, [])
    assert thrift.round_trips == before


# --- reads and writes --------------------------------------------------------------


def test_get_returns_rows_in_the_order_asked_with_duplicates_and_without_missing_rows(
    thrift: ThriftBackend, table: str
) -> None:
    thrift.mutate(
        table, [Put(b"a", b"f:q", b"1", timestamp=1), Put(b"b", b"f:q", b"2", timestamp=1)]
    )
    rows = [r.row for r in thrift.get(table, [b"b", b"nope", b"a", b"b"])]
    assert rows == [b"b", b"a", b"b"]


def test_get_before_without_columns_applies_the_time_range(
    thrift: ThriftBackend, table: str
) -> None:
    # happybase's Table.rows() drops the timestamp when no columns are given; we must not.
    thrift.mutate(table, [Put(b"r", b"f:q", b"old", timestamp=10)])
    thrift.mutate(table, [Put(b"r", b"f:q", b"new", timestamp=20)])
    (result,) = thrift.get(table, [b"r"], before=20)
    assert result.cells == {b"f:q": Cell(b"old", 10)}
    assert thrift.get(table, [b"r"], before=10) == []


def test_cells_come_back_in_family_then_qualifier_order(thrift: ThriftBackend, table: str) -> None:
    thrift.mutate(table, [Put(b"r", c, b"v", timestamp=1) for c in (b"g:a", b"f:b", b"f:a")])
    (result,) = thrift.get(table, [b"r"])
    assert list(result.cells) == [b"f:a", b"f:b", b"g:a"]


def test_get_versions_returns_newest_first_below_before(thrift: ThriftBackend, table: str) -> None:
    for ts in (1, 2, 3):
        thrift.mutate(table, [Put(b"r", b"f:q", b"v%d" % ts, timestamp=ts)])
    assert thrift.get_versions(table, b"r", b"f:q", max_versions=2) == [
        Cell(b"v3", 3),
        Cell(b"v2", 2),
    ]
    assert thrift.get_versions(table, b"r", b"f:q", max_versions=5, before=3) == [
        Cell(b"v2", 2),
        Cell(b"v1", 1),
    ]


def test_get_versions_refuses_a_bare_family_and_zero_versions(
    thrift: ThriftBackend, table: str
) -> None:
    with pytest.raises(IllegalArgumentError, match="family:qualifier"):
        thrift.get_versions(table, b"r", b"f", max_versions=1)
    with pytest.raises(IllegalArgumentError, match="max_versions"):
        thrift.get_versions(table, b"r", b"f:q", max_versions=0)


def test_a_whole_row_delete_removes_every_family(thrift: ThriftBackend, table: str) -> None:
    thrift.mutate(
        table, [Put(b"r", b"f:a", b"1", timestamp=5), Put(b"r", b"g:b", b"2", timestamp=5)]
    )
    thrift.mutate(table, [Delete(b"r", timestamp=5), Put(b"s", b"f:a", b"3", timestamp=5)])
    assert [r.row for r in thrift.get(table, [b"r", b"s"])] == [b"s"]


def test_a_per_cell_ttl_reaches_the_server_as_the_ttl_attribute() -> None:
    clock = ManualClock(1_000_000)
    with FakeHBaseServer(MemoryBackend(clock=clock)) as server:
        backend = ThriftBackend(server.host, server.port)
        backend.create_table(Table("t", [Family("f")]))
        backend.mutate("t", [Put(b"r", b"f:short", b"1", ttl=1_000), Put(b"r", b"f:long", b"2")])
        clock.advance(1_500)
        (result,) = backend.get("t", [b"r"])
        assert list(result.cells) == [b"f:long"]
        backend.close()


def test_mutate_with_an_unknown_family_over_several_calls_applies_nothing(
    thrift: ThriftBackend, table: str
) -> None:
    with pytest.raises(ColumnFamilyNotFoundError) as info:
        thrift.mutate(table, [Put(b"r", b"f:q", b"1", timestamp=1), Put(b"r", b"x:q", b"2")])
    assert info.value.column == b"x:q"
    assert thrift.get(table, [b"r"]) == []


def test_an_unknown_family_in_one_call_is_the_servers_column_family_error(
    thrift: ThriftBackend, table: str
) -> None:
    with pytest.raises(ColumnFamilyNotFoundError) as info:
        thrift.mutate(table, [Put(b"r", b"x:q", b"2")])
    assert isinstance(info.value.__cause__, ThriftIOError)
    assert info.value.table == table


def test_increment_returns_the_new_value_and_counts_from_zero(
    thrift: ThriftBackend, table: str
) -> None:
    assert thrift.increment(table, b"c", b"f:n", 5) == 5
    assert thrift.increment(table, b"c", b"f:n", -2) == 3
    thrift.increment_many(table, [Increment(b"c", b"f:n", 10), Increment(b"c", b"g:m")])
    (result,) = thrift.get(table, [b"c"])
    assert result.value(b"f:n") == (13).to_bytes(8, "big")
    assert result.value(b"g:m") == (1).to_bytes(8, "big")


def test_incrementing_a_cell_that_is_not_a_long_is_a_counter_error(
    thrift: ThriftBackend, table: str
) -> None:
    thrift.mutate(table, [Put(b"c", b"f:n", b"abc")])
    with pytest.raises(CounterError) as info:
        thrift.increment(table, b"c", b"f:n")
    assert (info.value.row, info.value.column) == (b"c", b"f:n")
    with pytest.raises(CounterError):
        thrift.increment_many(table, [Increment(b"c", b"f:n")])


def test_check_and_put_with_none_expected_requires_the_cell_to_be_absent(
    thrift: ThriftBackend, table: str
) -> None:
    put = Put(b"r", b"f:lock", b"me")
    assert thrift.check_and_put(table, b"r", b"f:lock", None, put) is True
    assert thrift.check_and_put(table, b"r", b"f:lock", None, put) is False
    assert thrift.check_and_put(table, b"r", b"f:lock", b"me", Put(b"r", b"f:v", b"2")) is True
    assert thrift.get(table, [b"r"])[0].value(b"f:v") == b"2"


def test_check_and_put_refuses_what_thrift1_cannot_do(thrift: ThriftBackend, table: str) -> None:
    with pytest.raises(UnsupportedOperationError, match="timestamp"):
        thrift.check_and_put(table, b"r", b"f:q", None, Put(b"r", b"f:q", b"v", timestamp=5))
    with pytest.raises(IllegalArgumentError, match="checked row"):
        thrift.check_and_put(table, b"r", b"f:q", None, Put(b"other", b"f:q", b"v"))
    assert thrift.get(table, [b"r", b"other"]) == []


def test_check_and_delete_is_not_offered_over_thrift1(thrift: ThriftBackend, table: str) -> None:
    assert "check_and_delete" not in thrift.capabilities
    with pytest.raises(UnsupportedOperationError, match="check-and-delete"):
        thrift.check_and_delete(table, b"r", b"f:q", None, Delete(b"r"))


def test_append_maps_the_nameless_answer_back_to_the_columns(
    thrift: ThriftBackend, table: str
) -> None:
    thrift.mutate(table, [Put(b"r", b"g:z", b"Z"), Put(b"r", b"f:a", b"A")])
    new = thrift.append(table, b"r", {b"g:z": b"1", b"f:b": b"2", b"f:a": b"3"})
    assert new == {b"g:z": b"Z1", b"f:b": b"2", b"f:a": b"A3"}
    assert list(new) == [b"g:z", b"f:b", b"f:a"]


# --- admin -------------------------------------------------------------------------


def test_families_are_described_with_the_options_thrift1_carries(thrift: ThriftBackend) -> None:
    declared = [
        Family("a", versions=4, ttl=3600, compression="GZ", in_memory=True),
        Family("b", bloom_filter="ROWCOL", block_cache=False),
    ]
    thrift.create_table(Table("d", declared))
    assert thrift.describe_families("d") == {"a": declared[0], "b": declared[1]}


def test_options_thrift1_cannot_carry_are_refused_with_the_shell_statement(
    thrift: ThriftBackend,
) -> None:
    declaration = Table("s", [Family("f", keep_deleted_cells=True)], splits=[b"m"])
    with pytest.raises(UnsupportedOperationError) as info:
        thrift.create_table(declaration)
    assert "split points" in info.value.message and "KEEP_DELETED_CELLS" in info.value.message
    assert "HBase shell" in info.value.message
    assert not thrift.table_exists("s")


def test_a_lenient_backend_creates_what_it_can_and_warns_about_the_rest(
    server: FakeHBaseServer,
) -> None:
    lenient = ThriftBackend(server.host, server.port, lenient_ddl=True)
    try:
        with pytest.warns(UserWarning, match="WITHOUT split points"):
            lenient.create_table(Table("s", [Family("f", versions=2)], splits=[b"m"]))
        assert lenient.regions("s") == [Region(b"", b"")]
        assert lenient.describe_families("s")["f"].versions == 2
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)  # nothing to warn about: no warning
            lenient.create_table(Table("plain", [Family("f")]))
    finally:
        lenient.delete_table("s")
        lenient.delete_table("plain")
        lenient.close()


def test_a_lenient_backend_warns_only_when_it_creates_the_table(
    server: FakeHBaseServer,
) -> None:
    """A table that exists is not created again, so nothing was left out: no warning."""
    lenient = ThriftBackend(server.host, server.port, lenient_ddl=True)
    declaration = Table("again", [Family("f")], splits=[b"m"])
    try:
        with pytest.warns(UserWarning, match="WITHOUT split points"):
            lenient.create_table(declaration)
        with warnings.catch_warnings():
            # The DDL warning only: another test's socket the collector closes meanwhile
            # would raise its ResourceWarning here otherwise.
            warnings.simplefilter("error", UserWarning)
            with pytest.raises(TableExistsError):
                lenient.create_table(declaration)  # the next run of the application
    finally:
        lenient.delete_table("again")
        lenient.close()


def test_admin_errors_are_translated(thrift: ThriftBackend, table: str) -> None:
    with pytest.raises(TableExistsError):
        thrift.create_table(Table(table, [Family("f")]))
    for call in (
        lambda: thrift.delete_table("nope"),
        lambda: thrift.describe_families("nope"),
        lambda: thrift.regions("nope"),
        lambda: thrift.get("nope", [b"r"]),
        lambda: thrift.mutate("nope", [Put(b"r", b"f:q", b"v")]),
    ):
        with pytest.raises(TableNotFoundError) as info:
            call()
        assert info.value.table == "nope"


def test_delete_table_disables_then_deletes(thrift: ThriftBackend, table: str) -> None:
    before = thrift.round_trips
    thrift.delete_table(table)
    assert thrift.round_trips == before + 3  # isTableEnabled, disableTable, deleteTable
    assert not thrift.table_exists(table)


def test_a_table_prefix_isolates_tables_and_is_hidden_from_names(server: FakeHBaseServer) -> None:
    ours = ThriftBackend(server.host, server.port, table_prefix="app")
    theirs = ThriftBackend(
        server.host, server.port, table_prefix="other", table_prefix_separator="."
    )
    try:
        ours.create_table(Table("user", [Family("f")]))
        theirs.create_table(Table("user", [Family("f")]))
        ours.mutate("user", [Put(b"r", b"f:q", b"ours")])
        assert sorted(server.backend.list_tables()) == ["app_user", "other.user"]
        assert ours.list_tables() == ["user"] and theirs.list_tables() == ["user"]
        assert theirs.get("user", [b"r"]) == []
        assert ours.table_exists("user") and not ours.table_exists("app_user")
    finally:
        ours.delete_table("user")
        theirs.delete_table("user")
        ours.close()
        theirs.close()


def test_a_later_put_of_a_cell_wins_though_its_ttl_sends_it_in_another_call(
    thrift: ThriftBackend, table: str
) -> None:
    thrift.mutate(
        table,
        [
            Put(b"r", b"g:x", b"old"),
            Delete(b"s"),  # a "now" delete: its call goes last
            Put(b"r", b"g:x", b"new", ttl=3_600_000),
        ],
    )
    assert thrift.get(table, [b"r"])[0].value(b"g:x") == b"new"


def test_the_server_names_follow_a_changed_table_prefix(server: FakeHBaseServer) -> None:
    backend = ThriftBackend(server.host, server.port, table_prefix="app")
    try:
        assert backend._data_name("ns:user") == b"ns:app_user"
        backend.table_prefix_separator = "."
        assert backend._data_name("ns:user") == b"ns:app.user"
        backend.table_prefix = None
        assert backend._data_name("ns:user") == b"ns:user"
        with pytest.raises(IllegalArgumentError, match="non-empty str"):
            backend._data_name(b"user")  # type: ignore[arg-type]
    finally:
        backend.close()


def test_get_takes_any_sequence_of_rowkeys_and_checks_each(
    thrift: ThriftBackend, table: str
) -> None:
    thrift.mutate(table, [Put(b"a", b"f:q", b"1"), Put(b"b", b"f:q", b"2")])
    assert [r.row for r in thrift.get(table, (b"b", b"a"))] == [b"b", b"a"]
    with pytest.raises(IllegalArgumentError, match="rows must be bytes, not str") as info:
        thrift.get(table, [b"a", "b"])  # type: ignore[list-item]
    assert info.value.table == table
    with pytest.raises(IllegalArgumentError, match="1 to 32767 bytes long, got 0"):
        thrift.get(table, [b"a", b""])


@pytest.mark.parametrize(
    ("transport", "protocol"),
    [("buffered", "binary"), ("buffered", "compact"), ("framed", "binary"), ("framed", "compact")],
)
def test_every_wire_format_round_trips(transport: str, protocol: str) -> None:
    server = FakeHBaseServer(transport=transport, protocol=protocol)  # type: ignore[arg-type]
    with (
        server,
        ThriftBackend(server.host, server.port, transport=transport, protocol=protocol) as b,
    ):
        b.create_table(Table("t", [Family("f")]))
        b.mutate("t", [Put(b"\x00\xff", b"f:\x00", b"\xff\x00", timestamp=7)])
        assert b.get("t", [b"\x00\xff"])[0].cells == {b"f:\x00": Cell(b"\xff\x00", 7)}


# --- connection --------------------------------------------------------------------


@pytest.fixture
def dead_port() -> Iterator[int]:
    """A loopback port nothing listens on."""
    yield _free_port()


def test_an_unreachable_server_fails_at_construction(dead_port: int) -> None:
    with pytest.raises(ConnectionLostError, match=f"127.0.0.1:{dead_port}"):
        ThriftBackend("127.0.0.1", dead_port, retries=0)


def test_without_autoconnect_the_first_request_connects(dead_port: int) -> None:
    backend = ThriftBackend(
        "127.0.0.1", dead_port, autoconnect=False, retries=1, sleep=lambda s: None
    )
    with pytest.raises(ConnectionLostError, match="after 2 attempt") as info:
        backend.list_tables()
    assert info.value.__cause__ is not None
    assert backend.round_trips == 0  # nothing was ever sent


def test_a_closed_backend_refuses_requests(server: FakeHBaseServer) -> None:
    backend = ThriftBackend(server.host, server.port)
    backend.close()
    with pytest.raises(ConnectionLostError, match="closed"):
        backend.list_tables()


@pytest.mark.parametrize(
    "options",
    [
        {"transport": "http"},
        {"protocol": "json"},
        {"pool_size": 0},
        {"retries": -1},
        {"timeout_ms": 0},
    ],
)
def test_bad_options_are_refused_naming_them(options: dict[str, object]) -> None:
    with pytest.raises(IllegalArgumentError, match=next(iter(options))):
        ThriftBackend("127.0.0.1", 1, autoconnect=False, **options)  # type: ignore[arg-type]


# --- arguments ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda b: b.get("t", ["r"]),
        lambda b: b.get("t", [b"r"], columns=["f"]),
        # thriftpy2 would send a str as UTF-8: refused instead (the protocol is bytes)
        lambda b: b.mutate("t", [Put(b"r", b"f:q", "text")]),  # type: ignore[arg-type]
        lambda b: b.mutate("t", [Delete("r")]),  # type: ignore[arg-type]
        lambda b: b.increment("t", "r", b"f:q"),
        lambda b: b.check_and_put("t", b"r", b"f:q", "x", Put(b"r", b"f:q", b"v")),
        lambda b: b.append("t", b"r", {b"f:q": "x"}),
        lambda b: b.scan("t", Scan(start="a")),  # type: ignore[arg-type]
    ],
)
def test_arguments_that_are_not_bytes_are_refused_before_sending(
    thrift: ThriftBackend, table: str, call: Callable[[ThriftBackend], object]
) -> None:
    before = thrift.round_trips
    with pytest.raises(IllegalArgumentError, match="must be bytes"):
        call(thrift)
    assert thrift.round_trips == before


def test_a_number_thrift_cannot_encode_is_an_argument_error_not_a_lost_connection(
    thrift: ThriftBackend, table: str
) -> None:
    before = thrift.round_trips
    with pytest.raises(IllegalArgumentError, match="amount must be within") as info:
        thrift.increment(table, b"r", b"f:q", 2**64)
    assert info.value.table == table
    assert thrift.round_trips == before  # nothing left the client
    with pytest.raises(IllegalArgumentError, match="timestamp must be within"):
        thrift.mutate(table, [Put(b"r", b"f:q", b"v", timestamp=2**70)])
    assert thrift.increment(table, b"r", b"f:q") == 1  # the connection was replaced cleanly
