"""K9: counter-issued ids, one per name even under concurrent first use, on every backend."""

from __future__ import annotations

import threading
from typing import Any

import pytest

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

TABLE = id_table("log_types")


class ProcessDied(BaseException):
    """Stands for the process dying: nothing after it runs."""


def allocator(backend: Backend, **options: Any) -> IdAllocator:
    ids = IdAllocator(backend, TABLE, kind=options.pop("kind", "host"), **options)
    ids.create_table()
    return ids


def test_ids_are_issued_from_one_and_never_change(backend: Backend) -> None:
    hosts = allocator(backend)
    assert hosts.id_for("myserver1.mycompany.com") == 1
    assert hosts.id_for("db7.mycompany.com") == 2
    assert hosts.id_for("myserver1.mycompany.com") == 1
    assert allocator(backend).lookup("db7.mycompany.com") == 2
    assert hosts.name_of(2) == "db7.mycompany.com"
    assert hosts.lookup("never.seen") is None
    assert hosts.name_of(99) is None


def test_kinds_have_their_own_counters_and_may_share_names(backend: Backend) -> None:
    hosts, events = allocator(backend, kind="host"), allocator(backend, kind="event")
    assert hosts.id_for("a") == 1
    assert events.id_for("a") == 1
    assert events.id_for("b") == 2
    assert hosts.names_of([1, 2]) == {1: "a"}


def test_byte_layout_of_rows_and_cells(backend: Backend) -> None:
    hosts = allocator(backend, width=2)
    hosts.id_for("h\x00st")
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


def test_batch_lookups_are_one_round_trip_and_allocations_bounded(backend: Backend) -> None:
    hosts = allocator(backend)
    names = [f"host{i}.example.com" for i in range(5)]
    before = backend.round_trips
    ids = hosts.ids_for(names)
    # get + one increment by 5 + one mutate of the reverse rows + one check_and_put each
    assert backend.round_trips - before == 3 + 5
    assert sorted(ids.values()) == [1, 2, 3, 4, 5]
    before = backend.round_trips
    assert hosts.lookup_many([*names, "unknown"]) == ids
    assert backend.round_trips - before == 1
    before = backend.round_trips
    assert hosts.names_of(ids.values()) == {i: n for n, i in ids.items()}
    assert backend.round_trips - before == 1


def test_the_cache_serves_repeated_lookups_without_a_round_trip(backend: Backend) -> None:
    hosts = allocator(backend, cache_size=2)
    a, b, c = hosts.ids_for(["a", "b", "c"]).values()
    before = backend.round_trips
    assert hosts.lookup("b") == b and hosts.lookup("c") == c and hosts.name_of(c) == "c"
    assert backend.round_trips == before
    assert hosts.lookup("a") == a  # evicted: read again
    assert backend.round_trips == before + 1


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


def test_the_loser_of_a_race_returns_the_winners_id_and_burns_its_own(backend: Backend) -> None:
    faulty = FaultyBackend(backend)
    slow = allocator(faulty)
    fast = IdAllocator(backend, TABLE, kind="host")
    faulty.on("check_and_put", before=lambda *_: fast.id_for("web1"))
    assert slow.id_for("web1") == 2  # slow drew 1, fast drew 2 and wrote first
    assert fast.id_for("web1") == 2
    assert slow.name_of(1) is None  # the burned id: a gap, its reverse row deleted
    assert slow.id_for("web2") == 3


def test_a_process_dying_between_increment_and_conditional_write_leaves_a_gap(
    backend: Backend,
) -> None:
    faulty = FaultyBackend(backend)
    dying = allocator(faulty)
    faulty.on("check_and_put", fail=ProcessDied())
    with pytest.raises(ProcessDied):
        dying.id_for("web1")
    survivor = IdAllocator(backend, TABLE, kind="host")
    assert survivor.lookup("web1") is None
    assert survivor.id_for("web1") == 2
    assert survivor.orphans() == [1]  # reverse row written, forward never
    assert survivor.name_of(1) == "web1"  # documented: an orphan still answers
    assert survivor.lookup("web1") == 2


def test_a_connection_lost_before_the_conditional_write_is_raised(backend: Backend) -> None:
    faulty = FaultyBackend(backend)
    hosts = allocator(faulty)
    faulty.on("check_and_put", fail=ConnectionLostError("dropped"))
    with pytest.raises(ConnectionLostError):
        hosts.id_for("web1")
    assert hosts.id_for("web1") == 2


def test_a_dropped_reply_of_the_conditional_write_is_settled_by_reading(backend: Backend) -> None:
    faulty = FaultyBackend(backend)
    hosts = allocator(faulty)
    faulty.on("check_and_put", fail=OutcomeUnknownError("reply lost"), fail_after=True)
    assert hosts.id_for("web1") == 1
    assert hosts.id_for("web1") == 1
    assert hosts.orphans() == []


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
