"""The async edges of copies (R3, R7), relations (R6), taxonomies (R11) and record types (R2).

Two async writers run with ``asyncio.gather``: on the memory engine
(:class:`~hmodel.aio.AsyncMemoryBackend` yields to the loop once per call, so the tasks
interleave call by call, and one task started ``n`` loop turns late shifts the
interleaving by about ``n`` calls) and on the fake Thrift servers. Cancellations are
delivered deterministically by :class:`CancelAt`: the task is cancelled when it is about
to send the ``nth`` call of a method, so that call and the ones after it are never sent,
as when a process dies there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest

from hmodel import Family, Int, Key, Query, Store, Str, Table, field, model, version_field
from hmodel.aio import (
    AsyncBackend,
    AsyncCopy,
    AsyncRecordTypes,
    AsyncRelation,
    AsyncStore,
    AsyncTaxonomy,
)
from hmodel.backend.base import Backend
from hmodel.clock import ManualClock
from hmodel.patterns import Copy, Relation, Taxonomy
from tests.edges import async_backend_of
from tests.patterns.shared_models import Line, Shipping, User
from tests.patterns.taxonomy_models import Animal

START = 1_700_000_000_000
T = TypeVar("T")

locked_lines = Table("acc_locked_line", [Family("o")])


@model(locked_lines, key=Key(Str("order_id"), Int("ship", size=2), Int("line", size=2)))
class LockedLine:
    """A line with a version field: its copies change through its checked save."""

    order_id: str
    ship: int
    line: int
    item: str = field("o:i")
    ship_city: str = field("o:c")
    version: int = version_field("o:v")


class CancelAt:
    """An async backend that cancels its caller's task before the ``nth`` call of ``method``.

    Every other call, and every attribute, is the wrapped backend's.
    """

    def __init__(self, inner: AsyncBackend, method: str, nth: int) -> None:
        self.inner = inner
        self.method = method
        self.nth = nth
        self.seen = 0

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.inner, name)
        if name != self.method:
            return found

        async def call(*args: Any, **kwargs: Any) -> Any:
            self.seen += 1
            if self.seen == self.nth:
                task = asyncio.current_task()
                assert task is not None
                task.cancel()
                await asyncio.sleep(0)  # the cancellation lands here: nothing is sent
            return await found(*args, **kwargs)

        return call


@pytest.fixture
def async_backend(backend: Backend, loop: asyncio.AbstractEventLoop) -> Iterator[AsyncBackend]:
    """The async backend reaching the test's target (memory engine or fake server)."""
    made = async_backend_of(backend)
    if made is None:
        pytest.skip(f"no async backend for {type(backend).__name__}")
    yield made
    loop.run_until_complete(made.aclose())


async def _late(turns: int, work: Coroutine[Any, Any, T]) -> T:
    """``work``, started after ``turns`` turns of the event loop (deterministic on memory)."""
    for _ in range(turns):
        await asyncio.sleep(0)
    return await work


def _write_method(backend: Backend) -> str:
    """The call that writes a copy or a relation's side: atomic, or Thrift1's mutate."""
    return "check_and_mutate" if "check_and_mutate" in backend.capabilities else "mutate"


# --- copies (R3, R7) ------------------------------------------------------------------------


def _ship_to(store: Any, target: type = Line, batch_size: int = 100) -> Any:
    cls = AsyncCopy if isinstance(store, AsyncStore) else Copy
    return cls(
        store,
        Shipping,
        target,
        fields={"ship_city": "city"},
        locate=lambda s: Query({"order_id": s.order_id, "ship": s.ship}),
        source_of=lambda line: {"order_id": line.order_id, "ship": line.ship},
        batch_size=batch_size,
    )


def _setup_copies(backend: Backend, order_id: str, target: type = Line, lines: int = 3) -> Store:
    store = Store(backend, clock=ManualClock(START))
    store.create_tables(Shipping, LockedLine)
    shipping = Shipping(order_id=order_id, ship=1, city="Paris")
    store.repository(Shipping).save(shipping)
    make = store.repository(target)
    for n in range(lines):
        make.save(target(order_id=order_id, ship=1, line=n, item=f"i{n}", ship_city="Paris"))
    return store


@pytest.mark.parametrize("turns", [0, 1, 2, 3, 4, 5, 6, 8, 10])
@pytest.mark.parametrize("target", [Line, LockedLine], ids=["plain", "versioned"])
def test_two_async_writers_leave_no_copy_stale_R3(
    backend: Backend,
    async_backend: AsyncBackend,
    loop: asyncio.AbstractEventLoop,
    target: type,
    turns: int,
) -> None:
    """A (older stamp) and B save the source and sync its copies at once: B's value wins.

    Whatever the interleaving (B started ``turns`` loop turns after A), every copy ends
    showing the newest source version, with nothing for verify to report.
    """
    order_id = f"g{turns}"
    store = _setup_copies(backend, order_id, target)
    a = _ship_to(AsyncStore(async_backend, clock=ManualClock(START + 10)), target)
    b = _ship_to(AsyncStore(async_backend, clock=ManualClock(START + 20)), target)

    async def both() -> None:
        await asyncio.gather(
            a.save(Shipping(order_id=order_id, ship=1, city="Lyon")),
            _late(turns, b.save(Shipping(order_id=order_id, ship=1, city="Rome"))),
        )

    loop.run_until_complete(both())
    source = store.repository(Shipping).get(order_id=order_id, ship=1, required=True)
    assert source is not None and source.city == "Rome"
    cities = [x.ship_city for x in store.repository(target).scan({"order_id": order_id})]
    assert cities == ["Rome"] * 3
    check = _ship_to(store, target)
    assert check.verify([source]) == [] and check.verify_targets() == []


def test_a_copy_sync_cancelled_midway_leaves_stale_copies_that_repair_fixes(
    backend: Backend, async_backend: AsyncBackend, loop: asyncio.AbstractEventLoop
) -> None:
    """Cancelled before its third guarded write (Thrift1: its second batch), as a crash."""
    store = _setup_copies(backend, "c1", lines=5)
    shipping = Shipping(order_id="c1", ship=1, city="Lyon")
    store.repository(Shipping).save(shipping)  # the copies are not rewritten yet
    atomic = "check_and_mutate" in backend.capabilities
    cancelling = CancelAt(async_backend, _write_method(backend), 3 if atomic else 2)
    copy = _ship_to(AsyncStore(cancelling, clock=store.clock), batch_size=2)  # type: ignore[arg-type]
    with pytest.raises(asyncio.CancelledError):
        loop.run_until_complete(copy.sync(shipping))
    cities = [x.ship_city for x in store.repository(Line).scan({"order_id": "c1"})]
    assert cities == ["Lyon", "Lyon", "Paris", "Paris", "Paris"]
    stale = loop.run_until_complete(copy.verify([shipping]))
    assert [(s.copy.line, s.differences) for s in stale] == [
        (n, {"ship_city": ("Paris", "Lyon")}) for n in (2, 3, 4)
    ]
    assert [s.copy.line for s in loop.run_until_complete(copy.verify_targets())] == [2, 3, 4]
    report = loop.run_until_complete(copy.repair([shipping]))
    assert (report.examined, report.touched) == (5, 3)
    assert loop.run_until_complete(copy.verify_targets()) == []
    assert _ship_to(store).verify([shipping]) == []  # the sync edge agrees


def test_async_repair_targets_fixes_what_no_source_reaches(
    backend: Backend, async_backend: AsyncBackend, loop: asyncio.AbstractEventLoop
) -> None:
    """A stray write to a copy and an orphan copy, found and repaired from the target side."""
    store = _setup_copies(backend, "t1")
    lines = store.repository(Line)
    lines.update({"order_id": "t1", "ship": 1, "line": 1}, ship_city="Nice")
    lines.save(Line(order_id="t1", ship=2, line=0, item="x", ship_city="Oslo"))  # no source
    copy = _ship_to(AsyncStore(async_backend, clock=store.clock))
    found = loop.run_until_complete(copy.verify_targets())
    assert {(f.copy.ship, f.copy.line, f.source_found) for f in found} == {
        (1, 1, True),
        (2, 0, False),
    }
    report = loop.run_until_complete(copy.repair_targets(copy.target.scan({"order_id": "t1"})))
    assert (report.examined, report.touched, report.orphans) == (4, 1, 1)
    assert [f.copy.ship for f in loop.run_until_complete(copy.verify_targets())] == [2]
    source = Shipping(order_id="t1", ship=1, city="Paris")

    async def lines() -> list[int]:
        return [c.line async for c in copy.copies(source)]

    assert loop.run_until_complete(lines()) == [0, 1, 2]


# --- relations (R6) and taxonomies (R11) ----------------------------------------------------


def test_a_link_cancelled_between_its_sides_is_found_and_repaired_R6(
    backend: Backend, async_backend: AsyncBackend, loop: asyncio.AbstractEventLoop
) -> None:
    """The left side written, the right never sent: a one-sided link, as after a crash."""
    store = Store(backend, clock=ManualClock(START))
    store.create_tables(User)
    for name in ("ann", "bob"):
        store.repository(User).save(User(user_id=name, nickname=name))
    cancelling = CancelAt(async_backend, _write_method(backend), 2)
    follows = AsyncRelation(
        AsyncStore(cancelling, clock=store.clock),  # type: ignore[arg-type]
        User,
        "follows",
        User,
        "fans",
    )
    with pytest.raises(asyncio.CancelledError):
        loop.run_until_complete(follows.link("ann", "bob", "x"))
    found = loop.run_until_complete(follows.verify())
    assert [(f.left, f.right, f.side) for f in found] == [
        ({"user_id": "ann"}, {"user_id": "bob"}, "left")
    ]
    assert Relation(store, User, "follows", User, "fans").verify(["ann"]) == found
    assert loop.run_until_complete(follows.repair(found)) == 1
    assert loop.run_until_complete(follows.verify()) == []
    assert loop.run_until_complete(follows.of_right("bob")) == {"ann": "x"}


def test_two_async_linkers_and_an_unlinker_leave_both_sides_agreeing(
    backend: Backend, async_backend: AsyncBackend, loop: asyncio.AbstractEventLoop
) -> None:
    """Concurrent links and unlinks of one pair: the sides agree at the end (R6)."""
    store = Store(backend, clock=ManualClock(START))
    store.create_tables(User)
    for name in ("u1", "u2", "u3"):
        store.repository(User).save(User(user_id=name, nickname=name))
    one = AsyncRelation(
        AsyncStore(async_backend, clock=ManualClock(START + 10)), User, "follows", User, "fans"
    )
    two = AsyncRelation(
        AsyncStore(async_backend, clock=ManualClock(START + 20)), User, "follows", User, "fans"
    )

    async def race() -> None:
        await asyncio.gather(
            one.link("u1", "u2", "a"), two.link("u1", "u3", "b"), two.unlink("u1", "u2")
        )

    loop.run_until_complete(race())
    assert loop.run_until_complete(one.verify()) == []
    left = loop.run_until_complete(one.of_left("u1"))
    assert left.get("u3") == "b"
    assert ("u1" in loop.run_until_complete(one.of_right("u2"))) == ("u2" in left)


def test_a_taxonomy_link_cancelled_between_its_rows_is_repaired_R11(
    backend: Backend, async_backend: AsyncBackend, loop: asyncio.AbstractEventLoop
) -> None:
    """The parent lists the child, the child never heard of it: verify and repair."""
    store = Store(backend, clock=ManualClock(START))
    store.create_tables(Animal)
    store.repository(Animal).save_many([Animal(animal_id=n, name=n) for n in ("dog", "pug")])
    cancelling = CancelAt(async_backend, _write_method(backend), 2)
    kinds = AsyncTaxonomy(
        AsyncStore(cancelling, clock=store.clock),  # type: ignore[arg-type]
        Animal,
        parents="parents",
        children="children",
    )
    with pytest.raises(asyncio.CancelledError):
        loop.run_until_complete(kinds.link("dog", "pug", "small"))
    assert loop.run_until_complete(kinds.children("dog")) == {"pug": "small"}
    assert loop.run_until_complete(kinds.parents("pug")) == {}
    found = loop.run_until_complete(kinds.verify())
    assert [f.side for f in found] == ["left"]
    assert Taxonomy(store, Animal, parents="parents", children="children").verify() == found
    assert loop.run_until_complete(kinds.repair(found)) == 1
    assert loop.run_until_complete(kinds.parents("pug")) == {"dog": "small"}
    assert loop.run_until_complete(kinds.ancestors("pug")) == ["dog"]
    assert loop.run_until_complete(kinds.descendants("dog")) == ["pug"]
    assert loop.run_until_complete(kinds.cycles()) == []


# --- record types (R2) ----------------------------------------------------------------------


def test_a_record_scan_cancelled_midway_releases_it_and_reads_again_R2(
    backend: Backend, async_backend: AsyncBackend, loop: asyncio.AbstractEventLoop
) -> None:
    """A read cancelled at its scan raises CancelledError; the next read is whole."""
    store = Store(backend, clock=ManualClock(START))
    store.create_tables(Shipping)
    store.repository(Shipping).save(Shipping(order_id="r1", ship=1, city="Paris"))
    store.repository(Line).save(Line(order_id="r1", ship=1, line=0, item="i", ship_city="Paris"))
    cancelling = CancelAt(async_backend, "scan", 1)
    graph = AsyncRecordTypes(AsyncStore(cancelling, clock=store.clock), Shipping, Line)  # type: ignore[arg-type]
    with pytest.raises(asyncio.CancelledError):
        loop.run_until_complete(graph.read({"order_id": "r1"}))
    got = loop.run_until_complete(graph.read({"order_id": "r1"}))
    assert [type(r).__name__ for r in got] == ["Shipping", "Line"]

    async def first() -> Any:
        records = graph.scan({"order_id": "r1"})
        async for record in records:
            await records.aclose()  # type: ignore[attr-defined]
            return record
        return None

    assert type(loop.run_until_complete(first())).__name__ == "Shipping"
