"""The interleaving explorer: every order of a few clients' backend calls, checked."""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hmodel.backend.base import Backend, Delete, Put, RowResult, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.errors import HModelError
from hmodel.schema import Family, Table
from hmodel.testing.interleave import (
    Client,
    Crash,
    ExplorationError,
    ExplorationLimitError,
    Moment,
    ScheduleError,
    Step,
    StuckClientError,
    World,
    explore,
    format_schedule,
    parse_schedule,
    replay,
)

TABLE = Table("t", [Family("f")])
N = b"f:n"

Protocol = Callable[[Client], Any]
Check = Callable[[Moment], None]


def world_of(
    clients: dict[str, Protocol], check: Check | None = None, rows: dict[bytes, bytes] | None = None
) -> Callable[[], World]:
    """A scenario: table ``t`` holding ``rows`` (column ``f:n``), the clients and the check."""

    def scenario() -> World:
        clock = ManualClock(1_000)
        backend = MemoryBackend(clock=clock)
        backend.create_table(TABLE)
        if rows:
            backend.mutate("t", [Put(row, N, value) for row, value in rows.items()])
        return World(backend, clock, clients, check)

    return scenario


def value(backend: Backend, row: bytes) -> bytes | None:
    found = backend.get("t", [row])
    return found[0].value(N) if found else None


# --- a counter: the lost update ----------------------------------------------------------


def get_then_put(client: Client) -> None:
    """Read the counter, write it plus one: two steps, and a race between them."""
    count = int(value(client.backend, b"c") or b"0")
    client.backend.mutate("t", [Put(b"c", N, str(count + 1).encode())])


def compare_and_set(client: Client) -> None:
    """Read the counter, write it plus one only if it still holds what was read; retry."""
    while True:
        seen = value(client.backend, b"c")
        new = str(int(seen or b"0") + 1).encode()
        if client.backend.check_and_put("t", b"c", N, seen, Put(b"c", N, new)):
            return


def counted(moment: Moment) -> None:
    """At the end the counter holds one increment per client that returned."""
    if moment.done:
        done = sum(outcome.ok for outcome in moment.outcomes.values())
        assert int(value(moment.backend, b"c") or b"0") == done, "an increment was lost"


def counter(protocol: Protocol, clients: int = 2) -> Callable[[], World]:
    names = "abc"[:clients]
    return world_of(dict.fromkeys(names, protocol), counted)


def test_the_explorer_finds_the_lost_update_of_a_get_then_put_counter() -> None:
    found = explore(counter(get_then_put))
    assert found.violation is not None
    assert found.violation.done
    assert found.violation.short == "a.get b.get a.mutate b.mutate"
    assert "an increment was lost" in str(found.violation.error)
    with pytest.raises(AssertionError, match=r"schedule: a\.get b\.get a\.mutate b\.mutate"):
        found.assert_holds()


def test_two_clients_of_two_steps_make_six_interleavings_four_once_reads_commute() -> None:
    """(2+2)! / (2! 2!) = 6 orders; the two gets commute, so 4 classes remain."""

    def writes(client: Client) -> None:
        value(client.backend, b"c")
        client.backend.mutate("t", [Put(b"c", N, b"1")])

    every = explore(world_of({"a": writes, "b": writes}), reduce=False)
    assert (every.interleavings, every.pruned, every.exhaustive) == (6, 0, True)
    reduced = explore(world_of({"a": writes, "b": writes}))
    assert reduced.interleavings == 4
    assert reduced.exhaustive and reduced.violation is None


def test_clients_on_different_rows_commute_entirely() -> None:
    """Every step of a is independent of every step of b: one interleaving is enough."""

    def on(row: bytes) -> Protocol:
        def steps(client: Client) -> None:
            value(client.backend, row)
            client.backend.mutate("t", [Put(row, N, b"1")])
            client.backend.mutate("t", [Put(row, N, b"2")])

        return steps

    assert explore(world_of({"a": on(b"x"), "b": on(b"y")}), reduce=False).interleavings == 20
    assert explore(world_of({"a": on(b"x"), "b": on(b"y")})).interleavings == 1


@pytest.mark.parametrize("clients", [2, 3])
def test_a_check_and_put_counter_holds_in_every_interleaving(clients: int) -> None:
    found = explore(counter(compare_and_set, clients))
    found.assert_holds()
    assert found.exhaustive and found.interleavings > 1
    assert found.checks >= found.interleavings


def test_replay_reproduces_the_violation_step_by_step() -> None:
    scenario = counter(get_then_put)
    found = explore(scenario)
    assert found.violation is not None
    again = replay(scenario, found.violation.schedule)
    assert again.violation is not None
    assert again.schedule == found.violation.schedule
    assert str(again.violation.error).splitlines()[0] == "an increment was lost"
    by_text = replay(scenario, "a.get b.get a.mutate b.mutate")
    assert by_text.violation is not None and by_text.violation.done
    # the other order of the same steps is fine: one client read the other's write
    serial = replay(scenario, "a.get a.mutate b.get b.mutate")
    assert serial.violation is None
    assert [call.method for call in serial.calls["b"]] == ["get", "mutate"]


def test_a_replay_that_does_not_fit_the_scenario_is_refused() -> None:
    with pytest.raises(ScheduleError, match=r"possible steps are a\.get b\.get"):
        replay(counter(get_then_put), "a.mutate")
    with pytest.raises(ScheduleError):
        parse_schedule("a.get b?mutate")


def test_a_schedule_reads_back_from_its_short_form() -> None:
    steps = (Step("call", "a", "get"), Step("crash", "b", "mutate"), Step("advance", None, "", 5))
    assert format_schedule(steps) == "a.get b!mutate +5ms"
    assert parse_schedule("a.get b!mutate +5ms") == steps


# --- crashes and the clock -----------------------------------------------------------------


def two_writes(client: Client) -> None:
    """A protocol of two writes that must both happen: x, then y (no repair)."""
    client.backend.mutate("t", [Put(b"x", N, client.name.encode())])
    client.backend.mutate("t", [Put(b"y", N, client.name.encode())])


def both_or_neither(moment: Moment) -> None:
    if moment.done:
        assert (value(moment.backend, b"x") is None) == (value(moment.backend, b"y") is None), (
            "one of the two writes is missing"
        )


def test_crash_mode_finds_a_writer_that_died_between_its_two_writes() -> None:
    scenario = world_of({"a": two_writes}, both_or_neither)
    assert explore(scenario).violation is None  # without deaths: always both
    found = explore(scenario, crashes=1)
    assert found.violation is not None
    assert found.violation.short == "a.mutate a!mutate"
    assert found.violation.outcomes["a"].crashed
    assert isinstance(found.violation.outcomes["a"].error, Crash)


def test_a_dead_client_makes_no_further_call_even_if_it_catches_everything() -> None:
    def stubborn(client: Client) -> str:
        with contextlib.suppress(BaseException):  # the point: even this does not help
            client.backend.mutate("t", [Put(b"x", N, b"1")])
        client.backend.mutate("t", [Put(b"y", N, b"1")])
        return "went on"

    run = replay(world_of({"a": stubborn}), "a!mutate")
    assert run.outcomes["a"].crashed
    assert run.calls["a"] == ()


def own_rows(client: Client) -> None:
    """Two writes of rows no other client touches."""
    for row in (b"x", b"y"):
        client.backend.mutate("t", [Put(client.name.encode() + row, N, b"1")])


def test_crashes_commute_with_other_clients_calls() -> None:
    """No death, or one of 2 clients before one of its 2 writes: 5 runs, not one per order.

    Unreduced: 6 orders without a death, 3 + 6 with a death of a (before its first write,
    before its second), as many with one of b: 24.
    """
    scenario = world_of({"a": own_rows, "b": own_rows})
    assert explore(scenario, crashes=1, reduce=False).interleavings == 24
    assert explore(scenario, crashes=1).interleavings == 5


def stamped_write(client: Client) -> None:
    """Write how much the clock moved between this client's read and its write."""
    start = client.clock()
    value(client.backend, b"x")
    client.backend.mutate("t", [Put(b"x", N, str(client.clock() - start).encode())])


def test_clock_advances_between_steps_are_explored() -> None:
    def no_stall(moment: Moment) -> None:
        assert value(moment.backend, b"x") in (None, b"0"), "the writer stalled"

    scenario = world_of({"a": stamped_write}, no_stall)
    assert explore(scenario).violation is None
    found = explore(scenario, advance_clock=100)
    assert found.violation is not None
    # the write's value is computed before the mutate waits for its turn, right after the
    # get: the clock must move before the get for the write to see it
    assert found.violation.short == "+100ms a.get a.mutate"
    assert replay(scenario, found.violation.short).violation is not None


def test_each_client_has_its_own_clock_object_showing_the_worlds_time() -> None:
    seen: list[Any] = []

    def look(client: Client) -> None:
        seen.append(client.clock)
        assert client.clock() == 1_000

    explore(world_of({"a": look, "b": look}))
    assert len({id(clock) for clock in seen}) == 2


def test_a_client_s_round_trips_are_its_own() -> None:
    """The world's counter would change with the other clients' turns: not a client's."""

    def count(client: Client) -> int:
        value(client.backend, b"x")
        list(client.backend.scan("t", Scan()))
        return client.backend.round_trips

    run = replay(world_of({"a": count, "b": count}), "a.get b.get b.scan b.fetch a.scan a.fetch")
    assert (run.outcomes["a"].value, run.outcomes["b"].value) == (3, 3)


def test_a_client_s_clock_runs_its_offset_ahead_of_the_world_s() -> None:
    seen: dict[str, int] = {}

    def look(client: Client) -> None:
        seen[client.name] = client.clock()

    def scenario() -> World:
        world = world_of({"a": look, "b": look})()
        return World(world.backend, world.clock, world.clients, offsets={"b": 5})

    explore(scenario)
    assert seen == {"a": 1_000, "b": 1_005}


def test_a_client_can_die_before_a_batch_of_its_scan() -> None:
    def died_reading(moment: Moment) -> None:
        if moment.done:
            assert not moment.outcomes["a"].crashed, "a died"

    rows = {b"a": b"1", b"b": b"2"}
    found = explore(world_of({"a": scan_all}, died_reading, rows), crashes=1)
    assert found.violation is not None
    assert found.violation.short == "a.scan a.fetch a.fetch a!fetch"


# --- scans ---------------------------------------------------------------------------------


def scan_all(client: Client) -> list[bytes]:
    """Read the table in batches of one row: an open and a fetch per row are steps."""
    return [r.value(N) or b"" for r in client.backend.scan("t", Scan(batch_size=1))]


def move_value(client: Client) -> None:
    """Move the value from row y back to row b, in one atomic multi-row mutate."""
    client.backend.mutate("t", [Put(b"b", N, b"v"), Delete(b"y")])


def test_a_scan_fetch_is_a_step_so_a_scan_can_miss_a_moving_value() -> None:
    def seen_once(moment: Moment) -> None:
        reader = moment.outcomes.get("reader")
        if reader is not None and reader.ok:
            assert reader.value.count(b"v") == 1, "the scan saw the moved value 0 or 2 times"

    rows = {b"a": b"-", b"c": b"-", b"y": b"v"}
    scenario = world_of({"reader": scan_all, "mover": move_value}, seen_once, rows)
    found = explore(scenario)
    assert found.violation is not None
    assert (
        found.violation.short == "reader.scan reader.fetch reader.fetch mover.mutate reader.fetch"
    )
    run = replay(scenario, "reader.scan reader.fetch reader.fetch reader.fetch mover.mutate")
    assert [c.method for c in run.calls["reader"]] == ["scan", "fetch", "fetch", "fetch"]


def test_a_scan_with_a_limit_and_growing_batches_steps_at_each_fetch() -> None:
    rows = {bytes([97 + n]): b"-" for n in range(7)}

    def read(client: Client) -> int:
        scan = Scan(batch_size=1, max_batch_size=4, limit=6)
        return sum(1 for _ in client.backend.scan("t", scan))

    run = replay(world_of({"a": read}, None, rows), "a.scan a.fetch a.fetch a.fetch")
    assert run.outcomes["a"].value == 6  # fetches of 1, 2, then the 3 the limit leaves
    assert [c.method for c in run.calls["a"]] == ["scan", "fetch", "fetch", "fetch"]


def test_a_lazy_scan_returned_by_a_client_is_read_by_the_check_without_a_step() -> None:
    def lazy(client: Client) -> Iterator[RowResult]:
        return client.backend.scan("t", Scan(batch_size=1))

    def drain(moment: Moment) -> None:
        if moment.done:
            assert [r.row for r in moment.outcomes["a"].value] == [b"a", b"b"]

    found = explore(world_of({"a": lazy}, drain, {b"a": b"1", b"b": b"2"}))
    found.assert_holds()
    assert found.steps == 1  # the open; the check's fetches are not steps


def both_rows(client: Client) -> None:
    """One mutate of two rows: atomic on the memory engine, row by row on HBase."""
    client.backend.mutate("t", [Put(b"x", N, b"1"), Put(b"y", N, b"1")])


def rows_agree(moment: Moment) -> None:
    assert value(moment.backend, b"x") == value(moment.backend, b"y"), "half a batch"


def test_split_batches_makes_each_row_of_a_mutate_a_step() -> None:
    scenario = world_of({"a": both_rows}, rows_agree)
    assert explore(scenario).violation is None
    found = explore(scenario, split_batches=True)
    assert found.violation is not None
    assert found.violation.short == "a.mutate"  # x written, y not yet
    run = replay(world_of({"a": both_rows}), "a.mutate a.mutate", split_batches=True)
    assert [c.args[1][0].row for c in run.calls["a"]] == [b"x", b"y"]
    died = explore(world_of({"a": both_rows}, both_or_neither), crashes=1, split_batches=True)
    assert died.violation is not None and died.violation.short == "a.mutate a!mutate"


# --- safety nets ---------------------------------------------------------------------------


def test_a_client_blocked_outside_the_backend_is_reported_not_waited_for() -> None:
    """a holds a lock across its call; b waits for that lock, never reaching a call."""
    lock = threading.Lock()

    def holder(client: Client) -> None:
        with lock:
            value(client.backend, b"x")

    with pytest.raises(StuckClientError, match="client 'b' neither made its next backend call"):
        explore(world_of({"a": holder, "b": holder}), step_timeout=0.5)


def test_a_scenario_over_the_bound_is_refused_unless_sampled() -> None:
    scenario = counter(compare_and_set, 3)
    with pytest.raises(ExplorationLimitError, match="more than 10 interleavings"):
        explore(scenario, max_interleavings=10)
    sampled = explore(scenario, max_interleavings=10, sample=True, seed=3)
    assert (sampled.interleavings, sampled.exhaustive, sampled.violation) == (10, False, None)


def test_a_scenario_that_is_not_deterministic_is_refused() -> None:
    builds = itertools.count()

    def scenario() -> World:
        odd = next(builds) % 2

        def fickle(client: Client) -> None:
            if odd:
                value(client.backend, b"x")
            client.backend.mutate("t", [Put(b"x", N, b"1")])

        return world_of({"a": fickle, "b": fickle})()

    with pytest.raises(ScheduleError, match="not deterministic"):
        explore(scenario)


def test_a_call_from_a_thread_of_the_client_s_own_is_refused() -> None:
    def spawns(client: Client) -> None:
        errors: list[BaseException] = []

        def call() -> None:
            try:
                value(client.backend, b"x")
            except BaseException as error:
                errors.append(error)

        thread = threading.Thread(target=call)
        thread.start()
        thread.join()
        raise errors[0]

    def check(moment: Moment) -> None:
        if moment.done:
            raise moment.outcomes["a"].error or AssertionError("no error")

    found = explore(world_of({"a": spawns}, check))
    assert found.violation is not None
    assert isinstance(found.violation.error, ExplorationError)
    assert isinstance(found.violation.error, HModelError)


def test_bad_options_and_worlds_are_refused() -> None:
    with pytest.raises(ExplorationError):
        explore(counter(get_then_put), crashes=-1)
    with pytest.raises(ExplorationError):
        explore(counter(get_then_put), advance_clock=0)
    with pytest.raises(ExplorationError, match="letters, digits"):
        explore(world_of({"a b": get_then_put}))


# --- the reduction checks every state the full search checks --------------------------------

ROWS = (b"x", b"y")
op = st.tuples(st.sampled_from(["get", "put", "cas", "scan"]), st.sampled_from(ROWS))


def program(ops: list[tuple[str, bytes]]) -> Protocol:
    def run(client: Client) -> list[Any]:
        seen: list[Any] = []
        for number, (kind, row) in enumerate(ops):
            mine = f"{client.name}{number}".encode()
            if kind == "get":
                seen.append(value(client.backend, row))
            elif kind == "put":
                client.backend.mutate("t", [Put(row, N, mine)])
            elif kind == "cas":
                seen.append(client.backend.check_and_put("t", row, N, None, Put(row, N, mine)))
            else:
                scan = Scan(start=row, batch_size=1, limit=2)
                seen.append([r.value(N) for r in client.backend.scan("t", scan)])
        return seen

    return run


def states(scenario: Callable[[], World], reduce: bool) -> tuple[set[Any], set[Any]]:
    checked: set[Any] = set()
    ends: set[Any] = set()

    def record(moment: Moment) -> None:
        store = tuple((row, value(moment.backend, row)) for row in ROWS)
        done = tuple(sorted((n, repr(o.value)) for n, o in moment.outcomes.items()))
        checked.add((store, done))
        if moment.done:
            ends.add((store, done))

    def with_record() -> World:
        world = scenario()
        return World(world.backend, world.clock, world.clients, record)

    explore(with_record, reduce=reduce)
    return checked, ends


def cost(ops: list[tuple[str, bytes]]) -> int:
    """Steps at most: a scan is an open and up to two fetches of two rows."""
    return sum(3 if kind == "scan" else 1 for kind, _ in ops)


@settings(max_examples=30)
@given(st.lists(st.lists(op, min_size=1, max_size=3), min_size=2, max_size=3))
def test_the_reduced_search_reaches_every_state_and_ending_of_the_full_one(
    programs: list[list[tuple[str, bytes]]],
) -> None:
    """The full search runs every order; the reduced one must check the same states."""
    assume(sum(cost(ops) for ops in programs) <= 8)
    clients = {name: program(ops) for name, ops in zip("abc", programs, strict=False)}
    scenario = world_of(clients)
    assert states(scenario, reduce=True) == states(scenario, reduce=False)
