"""K9: counter-issued ids, one per name even under concurrent first use, on every backend.

Bodies taking ``edge`` run on the synchronous ``IdAllocator`` and on ``AsyncIdAllocator``
(the same operations, awaited).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from hmodel.aio import AsyncIdAllocator, AsyncMemoryBackend, AsyncStore, InProcessAsyncBackend
from hmodel.backend.base import Backend, Delete, Put
from hmodel.backend.memory import MemoryBackend
from hmodel.errors import (
    ConflictError,
    ConnectionLostError,
    DeclarationError,
    IdExhaustedError,
    OutcomeUnknownError,
    ValidationError,
)
from hmodel.keys import Int, Key
from hmodel.patterns import IdAllocator, id_table
from hmodel.testing.fault import FaultyBackend
from tests.edges import Edge, async_backend_of

TABLE = id_table("log_types")


class ProcessDied(BaseException):
    """Stands for the process dying: nothing after it runs."""


def allocator(backend: Backend, **options: Any) -> IdAllocator:
    ids = IdAllocator(backend, TABLE, kind=options.pop("kind", "host"), **options)
    ids.create_table()
    return ids


def on_edge(edge: Edge, backend: Backend | None = None, **options: Any) -> Any:
    """An allocator of ``edge`` (over ``backend``, default the edge's); its table created."""
    allocator(edge.backend)
    kind = options.pop("kind", "host")
    if backend is not None:
        return (AsyncIdAllocator if edge.is_async else IdAllocator)(
            edge.over(backend), TABLE, kind=kind, **options
        )
    if edge.async_backend is not None:
        return AsyncIdAllocator(edge.async_backend, TABLE, kind=kind, **options)
    return IdAllocator(edge.backend, TABLE, kind=kind, **options)


def test_ids_are_issued_from_one_and_never_change(edge: Edge) -> None:
    hosts = on_edge(edge)
    assert edge.call(hosts.id_for("myserver1.mycompany.com")) == 1
    assert edge.call(hosts.id_for("db7.mycompany.com")) == 2
    assert edge.call(hosts.id_for("myserver1.mycompany.com")) == 1
    assert edge.call(on_edge(edge).lookup("db7.mycompany.com")) == 2
    assert allocator(edge.backend).lookup("db7.mycompany.com") == 2  # across edges
    assert edge.call(hosts.name_of(2)) == "db7.mycompany.com"
    assert edge.call(hosts.lookup("never.seen")) is None
    assert edge.call(hosts.name_of(99)) is None


def test_kinds_have_their_own_counters_and_may_share_names(edge: Edge) -> None:
    hosts, events = on_edge(edge, kind="host"), on_edge(edge, kind="event")
    assert edge.call(hosts.id_for("a")) == 1
    assert edge.call(events.id_for("a")) == 1
    assert edge.call(events.id_for("b")) == 2
    assert edge.call(hosts.names_of([1, 2])) == {1: "a"}


def test_byte_layout_of_rows_and_cells(edge: Edge) -> None:
    backend = edge.backend
    hosts = on_edge(edge, width=2)
    edge.call(hosts.id_for("h\x00st"))
    assert hosts.forward_row("h\x00st") == b"nhost\x00\x00h\x00\xffst\x00\x00"
    assert hosts.reverse_row(1) == b"ihost\x00\x00\x00\x01"
    (forward,) = backend.get("log_types", [hosts.forward_row("h\x00st")])
    assert dict((c, v.value) for c, v in forward.cells.items()) == {b"i:i": b"\x00\x01"}
    (reverse,) = backend.get("log_types", [hosts.reverse_row(1)])
    assert reverse.value(b"i:n") == b"h\x00st"
    (counter,) = backend.get("log_types", [b"chost\x00\x00"])
    assert counter.value(b"i:c") == (1).to_bytes(8, "big")


def test_the_id_fits_an_unsigned_int_key_component_of_the_same_width() -> None:
    hosts = IdAllocator(MemoryBackend(), TABLE, kind="host", width=4)
    assert hosts.id_component("host_id") == Int("host_id", size=4, signed=False)
    assert Key(hosts.id_component("host_id")).encode({"host_id": 7}) == hosts.encode(7)
    assert hosts.decode(hosts.encode(7)) == 7


def test_batch_lookups_are_one_round_trip_and_allocations_bounded(edge: Edge) -> None:
    hosts = on_edge(edge)
    names = [f"host{i}.example.com" for i in range(5)]
    # A new Thrift1 client reads a table's families once (at its first mutate of several
    # rows): warm it up.
    edge.call(on_edge(edge, kind="warm-up").ids_for(["w1", "w2"]))
    before = edge.round_trips
    ids = edge.call(hosts.ids_for(names))
    # get + one increment by 5 + one mutate of the reverse rows + one check_and_put each
    assert edge.round_trips - before == 3 + 5
    assert sorted(ids.values()) == [1, 2, 3, 4, 5]
    before = edge.round_trips
    assert edge.call(hosts.lookup_many([*names, "unknown"])) == ids
    assert edge.round_trips - before == 1
    before = edge.round_trips
    assert edge.call(hosts.names_of(ids.values())) == {i: n for n, i in ids.items()}
    assert edge.round_trips - before == 1


def test_the_cache_serves_repeated_lookups_without_a_round_trip(edge: Edge) -> None:
    hosts = on_edge(edge, cache_size=2)
    a, b, c = edge.call(hosts.ids_for(["a", "b", "c"])).values()
    before = edge.round_trips
    assert edge.call(hosts.lookup("b")) == b and edge.call(hosts.lookup("c")) == c
    assert edge.call(hosts.name_of(c)) == "c"
    assert edge.round_trips == before
    assert edge.call(hosts.lookup("a")) == a  # evicted: read again
    assert edge.round_trips == before + 1


def test_eight_threads_asking_for_the_same_new_names_get_one_id_each(backend: Backend) -> None:
    allocator(backend)
    names = [f"host{i}" for i in range(12)]
    barrier = threading.Barrier(8)
    results: list[dict[str, int]] = []
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        mine = IdAllocator(backend, TABLE, kind="host")  # each "process" its own allocator
        try:
            barrier.wait()
            order = names if n % 2 else list(reversed(names))
            got = {name: mine.id_for(name) for name in order}
            got.update(mine.ids_for(names))
            results.append(got)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len(results) == 8
    assert all(r == results[0] for r in results)
    ids = results[0]
    assert len(set(ids.values())) == len(names)
    reader = IdAllocator(backend, TABLE, kind="host")
    assert reader.names_of(ids.values()) == {i: n for n, i in ids.items()}
    assert reader.orphans() == []  # losers deleted their reverse rows


def test_the_loser_of_a_race_returns_the_winners_id_and_burns_its_own(edge: Edge) -> None:
    faulty = FaultyBackend(edge.backend)
    slow = on_edge(edge, faulty)
    fast = IdAllocator(edge.backend, TABLE, kind="host")
    faulty.on("check_and_put", before=lambda *_: fast.id_for("web1"))
    assert edge.call(slow.id_for("web1")) == 2  # slow drew 1, fast drew 2 and wrote first
    assert fast.id_for("web1") == 2
    assert edge.call(slow.name_of(1)) is None  # the burned id: a gap, its reverse row deleted
    assert edge.call(slow.id_for("web2")) == 3


def test_a_process_dying_between_increment_and_conditional_write_leaves_a_gap(
    edge: Edge,
) -> None:
    faulty = FaultyBackend(edge.backend)
    dying = on_edge(edge, faulty)
    faulty.on("check_and_put", fail=ProcessDied())
    with pytest.raises(ProcessDied):
        edge.call(dying.id_for("web1"))
    survivor = on_edge(edge)
    assert edge.call(survivor.lookup("web1")) is None
    assert edge.call(survivor.id_for("web1")) == 2
    assert edge.call(survivor.orphans()) == [1]  # reverse row written, forward never
    assert edge.call(survivor.name_of(1)) == "web1"  # documented: an orphan still answers
    assert edge.call(survivor.lookup("web1")) == 2


def test_a_connection_lost_before_the_conditional_write_is_raised(edge: Edge) -> None:
    faulty = FaultyBackend(edge.backend)
    hosts = on_edge(edge, faulty)
    faulty.on("check_and_put", fail=ConnectionLostError("dropped"))
    with pytest.raises(ConnectionLostError):
        edge.call(hosts.id_for("web1"))
    assert edge.call(hosts.id_for("web1")) == 2


def test_a_dropped_reply_of_the_conditional_write_is_settled_by_reading(edge: Edge) -> None:
    faulty = FaultyBackend(edge.backend)
    hosts = on_edge(edge, faulty)
    faulty.on("check_and_put", fail=OutcomeUnknownError("reply lost"), fail_after=True)
    assert edge.call(hosts.id_for("web1")) == 1
    assert edge.call(hosts.id_for("web1")) == 1
    assert edge.call(hosts.orphans()) == []


def test_two_async_clients_gathered_on_the_same_new_names_get_one_id_each(
    backend: Backend, loop: asyncio.AbstractEventLoop
) -> None:
    """The concurrency promise on the async edge: two clients (two connections, two
    allocators) interleaved call by call get the same id per name, and no id serves two
    names; the loser of each race deletes its reverse row (no orphan)."""
    allocator(backend)
    names = [f"host{i}" for i in range(6)]
    one, two = async_backend_of(backend), async_backend_of(backend)
    assert one is not None and two is not None

    async def client(async_backend: Any, order: list[str]) -> dict[str, int]:
        mine = AsyncIdAllocator(async_backend, TABLE, kind="host")
        got = {name: await mine.id_for(name) for name in names[:3]}  # the same races
        got.update(await mine.ids_for(order))
        return got

    async def scenario() -> None:
        first, second = await asyncio.gather(client(one, names), client(two, names[::-1]))
        assert first == second
        assert len(set(first.values())) == len(names)
        if isinstance(backend, MemoryBackend):  # call by call: every first use was a race
            assert max(first.values()) > len(names)  # the losers' ids burned
        reader = AsyncIdAllocator(one, TABLE, kind="host")
        assert await reader.names_of(first.values()) == {i: n for n, i in first.items()}
        assert await reader.orphans() == []

    async def closing() -> None:
        try:
            await scenario()
        finally:
            await one.aclose()
            await two.aclose()

    loop.run_until_complete(closing())


def test_a_task_cancelled_between_the_reverse_put_and_the_conditional_write_leaves_an_orphan(
    loop: asyncio.AbstractEventLoop,
) -> None:
    """As a process dying there: the ids drawn are burned, their reverse rows are orphans
    (``orphans()`` finds them) and the name gets another id next time."""
    engine = MemoryBackend()
    allocator(engine)
    faulty = FaultyBackend(engine)
    hosts = AsyncIdAllocator(InProcessAsyncBackend(faulty), TABLE, kind="host")

    async def scenario() -> None:
        task = asyncio.create_task(hosts.ids_for(["web1", "web2"]))
        # The reverse rows' mutate is applied, then the task is cancelled: the cancellation
        # lands at its next request (the first conditional write), before it is sent.
        faulty.on("mutate", after=lambda *_: task.cancel())
        with pytest.raises(asyncio.CancelledError):
            await task
        assert "check_and_put" not in faulty.calls
        assert await hosts.lookup_many(["web1", "web2"]) == {}
        assert await hosts.orphans() == [1, 2]
        assert await hosts.ids_for(["web1", "web2"]) == {"web1": 3, "web2": 4}
        assert await hosts.orphans() == [1, 2]  # burned, never reissued

    loop.run_until_complete(scenario())


def test_an_async_store_gives_its_backend_and_write_stamps(loop: asyncio.AbstractEventLoop) -> None:
    from hmodel.clock import ManualClock

    engine = MemoryBackend()
    allocator(engine)
    store = AsyncStore(AsyncMemoryBackend(engine), clock=ManualClock(5_000))
    hosts = AsyncIdAllocator(store, TABLE, kind="host")
    assert hosts.backend is store.backend and hosts.stamps is store.stamps
    assert loop.run_until_complete(hosts.id_for("web1")) == 1
    (reverse,) = engine.get("log_types", [hosts.reverse_row(1)])
    assert reverse.cells[b"i:n"].timestamp >= 5_000


def test_ids_run_out_with_a_typed_error() -> None:
    tiny = allocator(MemoryBackend(), width=1)
    tiny.ids_for([f"n{i}" for i in range(255)])
    with pytest.raises(IdExhaustedError) as caught:
        tiny.id_for("one too many")
    assert caught.value.table == "log_types"
    assert tiny.lookup("n254") == 255


@pytest.mark.parametrize(
    "options",
    [{"width": 3}, {"width": True}, {"kind": ""}, {"family": "x"}, {"cache_size": -1}],
)
def test_bad_declarations_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(DeclarationError):
        IdAllocator(MemoryBackend(), TABLE, **{"kind": "host", **options})


@pytest.mark.parametrize("call", ["id_for", "lookup"])
@pytest.mark.parametrize("name", ["", None, b"bytes"])
def test_names_are_non_empty_text(call: str, name: object) -> None:
    hosts = allocator(MemoryBackend())
    with pytest.raises(ValidationError):
        getattr(hosts, call)(name)


@pytest.mark.parametrize("ident", [0, -1, 2**32, True, "1"])
def test_ids_are_checked(ident: object) -> None:
    hosts = allocator(MemoryBackend())
    with pytest.raises(ValidationError):
        hosts.name_of(ident)  # type: ignore[arg-type]


def test_a_winning_row_deleted_behind_the_losers_back_is_a_conflict() -> None:
    inner = MemoryBackend()
    faulty = FaultyBackend(inner)
    hosts = allocator(faulty)
    row = hosts.forward_row("web1")

    def steal(*_: object) -> None:
        inner.mutate("log_types", [Put(row, b"i:i", hosts.encode(9))])
        faulty.on("get", before=lambda *_: inner.mutate("log_types", [Delete(row)]))

    faulty.on("check_and_put", before=steal)
    with pytest.raises(ConflictError) as caught:
        hosts.id_for("web1")
    assert caught.value.row == row


def test_a_store_gives_its_backend_and_write_stamps(backend: Backend) -> None:
    from hmodel import Store
    from hmodel.clock import ManualClock

    store = Store(backend, clock=ManualClock(5_000))
    hosts = IdAllocator(store, TABLE, kind="host")
    assert hosts.backend is backend and hosts.stamps is store.stamps
    hosts.create_table()
    assert hosts.id_for("web1") == 1
