"""The index protocol on the async edge: racing tasks, cancellation, the jobs' calls (I1, I2).

Two asyncio tasks interleave call by call on ``AsyncMemoryBackend`` (each call yields to
the loop once), so a head start of ``n`` loop turns gives a different, deterministic
interleaving per ``n``; over the fake Thrift1 and Thrift2 servers the tasks interleave as
their answers arrive. A cancellation is placed deterministically: a hook cancels the task
just before the request of one step is sent (what a dropped connection leaves).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from hmodel.backend.base import Backend, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.errors import ConflictError, UniqueViolationError
from hmodel.patterns.index import Index
from hmodel.patterns.index_job import run_index_job
from hmodel.patterns.index_repository import parse_result
from tests.edges import Edge, async_backend_of
from tests.patterns.index_edges import AsyncFaultyBackend, indexed
from tests.patterns.index_models import (
    BY_NICK,
    GRACE,
    Account,
    Item,
    User,
    colour_index,
    email_index,
)

T0 = 1_700_000_000_000


def nick() -> Index[User]:
    return Index(User, on=["nickname"], table=BY_NICK, unique=True, grace=GRACE)


@pytest.fixture
def aio(backend: Backend, loop: asyncio.AbstractEventLoop) -> Iterator[Edge]:
    """The async edge alone over the test's target."""
    made = Edge("async", backend, loop)
    yield made
    assert made.async_backend is not None
    loop.run_until_complete(made.async_backend.aclose())


async def turns(count: int) -> None:
    """Let the other tasks run ``count`` loop turns (a call each on the memory engine)."""
    for _ in range(count):
        await asyncio.sleep(0)


# --- two writers racing for one unique value --------------------------------------------


@pytest.mark.parametrize("head_start", [0, 1, 2, 3, 4, 5, 6, 8, 12])
def test_two_tasks_racing_for_one_unique_value_one_wins_and_reads_never_lose_it(
    aio: Edge, head_start: int
) -> None:
    """Exactly one save wins; the other gets the sync edge's UniqueViolationError, writes
    nothing; a reader running alongside never misses the value once a save returned and
    never returns a row without it."""
    # Over a server, another client with its own connections; the engine is shared.
    remote = not isinstance(aio.backend, MemoryBackend)
    second_backend = async_backend_of(aio.backend) if remote else aio.async_backend
    assert second_backend is not None
    first = indexed(aio, User, [nick()])
    second = indexed(aio, User, [nick()], backend=second_backend)
    reader = indexed(aio, User, [nick()])
    committed: list[str] = []
    reads: list[str | None] = []

    async def write(repo: Any, user_id: str, start: int) -> BaseException | None:
        await turns(start)
        try:
            await repo.save(User(user_id=user_id, nickname="bob"))
        except UniqueViolationError as exc:
            return exc
        committed.append(user_id)
        return None

    async def read(writers: asyncio.Future[Any]) -> None:
        while True:
            done = writers.done()
            before = list(committed)
            found = await reader.get_unique("user_by_nick", nickname="bob")
            if found is not None:  # a save may be served before it returned
                assert found.nickname == "bob" and found.user_id in ("u1", "u2")
            if before:
                assert found is not None and found.user_id == before[0]
            reads.append(None if found is None else found.user_id)
            if done:
                return

    async def race() -> list[BaseException | None]:
        writers = asyncio.gather(write(first, "u1", 0), write(second, "u2", head_start))
        await asyncio.gather(writers, read(writers))
        return list(writers.result())

    try:
        outcomes = aio.loop.run_until_complete(race())
    finally:
        if remote:
            aio.loop.run_until_complete(second_backend.aclose())
    assert len(committed) == 1 and outcomes.count(None) == 1
    loser = next(o for o in outcomes if o is not None)
    assert isinstance(loser, UniqueViolationError)
    assert loser.value == {"nickname": "bob"}
    lost = "u2" if committed == ["u1"] else "u1"
    assert aio.call(reader.repository.get(user_id=lost)) is None  # the loser wrote nothing
    assert {r for r in reads if r is not None} <= {committed[0]}
    assert reads[-1] == committed[0]
    holder = aio.call(reader.get_unique("user_by_nick", nickname="bob"))
    assert holder is not None and holder.user_id == committed[0]
    assert run_index_job(aio.backend, nick(), "verify").problems == 0


# --- cancellation -----------------------------------------------------------------------


def cancel_the_task() -> Any:
    """A hook: cancel the running task before the hooked request is sent."""

    async def cancel() -> None:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        await asyncio.sleep(0)  # CancelledError here: the request is never sent

    return cancel()


def test_a_save_cancelled_between_its_claim_and_its_data_write_leaves_a_claim_readers_ignore(
    aio: Edge,
) -> None:
    """As a writer that dies there: the claim holds the value for the grace, no reader
    returns it, and the next write after the grace takes it over."""
    clock = ManualClock(T0)
    hooked = AsyncFaultyBackend(aio.async_backend)
    users = indexed(aio, User, [nick()], backend=hooked, clock=clock)
    other = indexed(aio, User, [nick()], clock=clock)
    cancelled: list[bool] = []

    def cancel_the_data_write(name: str, args: tuple[Any, ...]) -> Any:
        if args[0] != "user" or cancelled:
            return None
        cancelled.append(True)
        return cancel_the_task()

    hooked.on("mutate", nth=0, before=cancel_the_data_write)

    async def cancelled_save() -> None:
        task = asyncio.ensure_future(users.save(User(user_id="u1", nickname="bob")))
        with pytest.raises(asyncio.CancelledError):
            await task
        assert task.cancelled()

    aio.loop.run_until_complete(cancelled_save())
    assert "check_and_put" in hooked.calls  # the claim was taken
    assert aio.call(other.repository.get(user_id="u1")) is None  # no data was written
    u1 = other.repository.info.key.encode({"user_id": "u1"})
    claim = [r for r in aio.backend.scan(BY_NICK.full_name, Scan()) if r.cells]
    assert len(claim) == 1 and claim[0].value(nick().status_column) == nick().status(
        False, parse_result(nick(), claim[0]).tag, u1
    )
    assert aio.call(other.get_unique("user_by_nick", nickname="bob")) is None
    with pytest.raises(UniqueViolationError, match="another write is claiming"):
        aio.call(other.save(User(user_id="u2", nickname="bob")))
    clock.advance(seconds=GRACE.total_seconds() + 1)
    aio.call(other.save(User(user_id="u2", nickname="bob")))
    holder = aio.call(other.get_unique("user_by_nick", nickname="bob"))
    assert holder == User(user_id="u2", nickname="bob")
    assert run_index_job(aio.backend, nick(), "verify", clock=clock).problems == 0


@pytest.mark.parametrize("step", ["data write", "step 3"])
def test_a_save_cancelled_mid_protocol_never_gives_a_wrong_answer_and_is_repaired(
    aio: Edge, step: str
) -> None:
    """Cancelled before its data write, the save is invisible; cancelled after it (before
    step 3), its row is found from the data row; after the grace, readers repair the
    entries and verify finds nothing wrong, as after a writer that died there."""
    clock = ManualClock(T0)
    hooked = AsyncFaultyBackend(aio.async_backend)
    items = indexed(aio, Item, [colour_index()], backend=hooked, clock=clock)
    reader = indexed(aio, Item, [colour_index()], clock=clock)
    aio.call(items.save(Item(item_id="i1", colour="red", size=1)))
    atomic = "check_and_mutate" in hooked.capabilities
    table, method, nth = {
        "data write": ("item", "mutate", 1),
        # Over Thrift1 step 1 is a mutate of the index table too: step 3 is the second.
        "step 3": (
            "item_by_colour",
            "check_and_mutate" if atomic else "mutate",
            1 if atomic else 2,
        ),
    }[step]
    seen: list[str] = []

    def cancel_at(name: str, args: tuple[Any, ...]) -> Any:
        if args[0] != table:
            return None
        seen.append(name)
        return cancel_the_task() if len(seen) == nth else None

    hooked.on(method, nth=0, before=cancel_at)

    async def cancelled_save() -> None:
        with pytest.raises(asyncio.CancelledError):
            await asyncio.ensure_future(items.save(Item(item_id="i1", colour="blue", size=2)))

    aio.loop.run_until_complete(cancelled_save())
    hooked.hooks.clear()
    landed = step == "step 3"
    now, was = ("blue", "red") if landed else ("red", "blue")
    assert [i.item_id for i in aio.call(reader.find("item_by_colour", {"colour": now}))] == ["i1"]
    assert aio.call(reader.find("item_by_colour", {"colour": was})) == []
    covered = aio.call(reader.page_covered("item_by_colour", 5, {"colour": now})).items
    assert covered == [{"item_id": "i1", "colour": now, "size": 2 if landed else 1}]
    assert reader.stats.repaired_verified == reader.stats.repaired_deleted == 0  # in flight
    clock.advance(seconds=GRACE.total_seconds() + 1)
    assert [i.item_id for i in aio.call(reader.find("item_by_colour"))] == ["i1"]
    if landed:  # the data row is the write's: the entries are repaired from it
        assert (reader.stats.repaired_verified, reader.stats.repaired_deleted) == (1, 1)
    else:  # the data row is older than the entries' tag: left to the rebuild (fence)
        assert reader.stats.repair_deferred == 2
        run_index_job(aio.backend, colour_index(), "rebuild", clock=clock)
    assert run_index_job(aio.backend, colour_index(), "verify", clock=clock).problems == 0
    assert [i.item_id for i in aio.call(reader.find("item_by_colour", {"colour": now}))] == ["i1"]


# --- the building blocks the index jobs use, on both edges -------------------------------


def test_load_rows_put_status_if_resolve_and_repair(edge: Edge) -> None:
    clock = ManualClock(T0)
    users = indexed(edge, User, [nick()], clock=clock)
    edge.call(users.create_tables(exist_ok=True))  # awaited on the async edge
    index = users.index("user_by_nick")
    edge.call(users.save(User(user_id="u1", nickname="bob")))
    u1 = users.repository.info.key.encode({"user_id": "u1"})
    u9 = users.repository.info.key.encode({"user_id": "u9"})
    loaded = edge.call(users.load_rows([u1, u9, b"\xff"]))
    assert loaded == {u1: User(user_id="u1", nickname="bob"), u9: None, b"\xff": None}
    # A dead claim of u9 on "ann": taken with a check-and-put, as a write's step 1 does.
    ann = index.entry_row({"nickname": "ann"}, b"")
    dead = index.status(False, T0 + 1, u9)
    assert edge.call(users.put_status_if(index, ann, None, dead)) is True
    assert edge.call(users.put_status_if(index, ann, None, dead)) is False  # not absent now
    rows = list(edge.backend.scan(index.table.full_name, Scan()))
    assert edge.call(users.resolve(index, rows)) == [None, User(user_id="u1", nickname="bob")]
    assert users.stats.repaired_deleted == 0  # in flight: only checked
    entry = parse_result(index, rows[0])
    assert entry is not None and entry.data_row == u9
    clock.advance(seconds=GRACE.total_seconds() + 1)
    # Judged from the index side (no data stamp, as a job shard does): released.
    assert edge.call(users.repair(index, entry, None)) is True
    assert users.stats.repaired_deleted == 1
    assert edge.call(users.get_unique(index, nickname="ann")) is None
    edge.call(users.save(User(user_id="u2", nickname="ann")))  # released: free to take
    assert run_index_job(edge.backend, nick(), "verify", clock=clock).problems == 0


@pytest.mark.parametrize("head_start", [0, 1, 2, 3, 5, 8])
def test_a_double_submit_of_a_new_unique_value_from_two_tasks_keeps_the_value_owned(
    aio: Edge, head_start: int
) -> None:
    """Two tasks save the same read of one row with a new unique value (a double submit):
    one wins, the other gets ConflictError and writes nothing; the value stays the row's
    and the old one is released."""
    setup = indexed(aio, Account, [email_index()])
    aio.call(setup.save(Account(account_id="a1", email="old@x")))
    first, second = indexed(aio, Account, [email_index()]), indexed(aio, Account, [email_index()])
    one = aio.call(first.repository.get(account_id="a1"))
    two = aio.call(second.repository.get(account_id="a1"))
    one.email = two.email = "new@x"

    async def submit(repo: Any, account: Account, start: int) -> BaseException | None:
        await turns(start)
        try:
            await repo.save(account)
        except ConflictError as exc:
            return exc
        return None

    async def both() -> list[BaseException | None]:
        return list(await asyncio.gather(submit(first, one, 0), submit(second, two, head_start)))

    outcomes = aio.loop.run_until_complete(both())
    assert outcomes.count(None) == 1
    refused = next(o for o in outcomes if o is not None)
    assert isinstance(refused, ConflictError) and not isinstance(refused, UniqueViolationError)
    found = aio.call(setup.get_unique("account_by_email", email="new@x"))
    assert found is not None and found.account_id == "a1"
    assert aio.call(setup.get_unique("account_by_email", email="old@x")) is None
    with pytest.raises(UniqueViolationError):
        aio.call(setup.save(Account(account_id="a2", email="new@x")))
    assert run_index_job(aio.backend, email_index(), "verify").problems == 0
