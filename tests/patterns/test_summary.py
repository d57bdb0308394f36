"""Summary tables (I3): counters kept at write time, verified and rebuilt, on every backend."""

from __future__ import annotations

import asyncio
import itertools
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel import Family, Key, Store, Str, Table, counter, field, model
from hmodel.aio import (
    AsyncMemoryBackend,
    AsyncStore,
    AsyncSummarizedRepository,
    AsyncSummary,
    InProcessAsyncBackend,
)
from hmodel.backend.base import Backend
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.errors import ConflictError, DeclarationError, OutcomeUnknownError, ValidationError
from hmodel.patterns import Count, Sum, SummarizedRepository, Summary, Tally
from hmodel.testing.fault import FaultyBackend
from tests.edges import Edge
from tests.patterns.summary_models import DailyOrders, LockedOrder, Order, at, daily, day_of


@pytest.fixture
def store(backend: Backend) -> Store:
    created = Store(backend, clock=ManualClock())
    created.create_tables(Order, LockedOrder, DailyOrders)
    return created


class Side:
    """The test's edge over a synchronous store's backend, clock and stamps.

    ``store`` is that ``Store`` (sync edge) or an ``AsyncStore`` sharing its stamps (async
    edge: over the target's async backend, or an ``InProcessAsyncBackend`` over a wrapper
    such as a ``FaultyBackend``); ``summary``/``summarized`` build the edge's classes.
    """

    def __init__(self, edge: Edge, sync: Store) -> None:
        self.edge = edge
        self.sync = sync
        self.store: Any = sync
        if edge.is_async:
            async_backend = (
                edge.async_backend if sync.backend is edge.backend else edge.over(sync.backend)
            )
            self.store = AsyncStore(async_backend, clock=sync.clock, stamps=sync.stamps)

    def call(self, result: Any) -> Any:
        return self.edge.call(result)

    def summary(self, data: type = Order) -> Any:
        return daily(self.store, data)

    def summarized(self, data: type, summaries: list[Any]) -> Any:
        kind: Any = AsyncSummarizedRepository if self.edge.is_async else SummarizedRepository
        return kind(self.store.repository(data), summaries)

    def counts(self, summary: Any, customer: str) -> dict[str, tuple[int, int]]:
        scanned = self.edge.list(summary.scan({"customer_id": customer}))
        return {s.day: (s.orders, s.revenue) for s in scanned}


@pytest.fixture
def side(edge: Edge, store: Store) -> Side:
    return Side(edge, store)


def test_saves_and_deletes_keep_the_counters_I3(side: Side) -> None:
    """Insert, change a summed value, move to another day, delete: each by its delta."""
    call = side.call
    summary = side.summary()
    orders = side.summarized(Order, [summary])
    call(orders.save(Order(order_id="o1", customer_id="ann", placed_at=at(1), total=500)))
    call(orders.save(Order(order_id="o2", customer_id="ann", placed_at=at(1, 18), total=250)))
    call(orders.save(Order(order_id="o3", customer_id="ann", placed_at=at(2), total=100)))
    call(orders.save(Order(order_id="o4", customer_id="bob", placed_at=at(1), total=7)))
    assert side.counts(summary, "ann") == {"2026-11-01": (2, 750), "2026-11-02": (1, 100)}
    call(orders.save(Order(order_id="o1", customer_id="ann", placed_at=at(1), total=900)))
    assert side.counts(summary, "ann")["2026-11-01"] == (2, 1150)
    call(orders.save(Order(order_id="o2", customer_id="ann", placed_at=at(2), total=250)))  # moved
    assert side.counts(summary, "ann") == {"2026-11-01": (1, 900), "2026-11-02": (2, 350)}
    call(orders.save(Order(order_id="o2", customer_id="bob", placed_at=at(2), total=250)))  # moved
    # The stored values are taken out, not the instance's.
    call(orders.delete(Order(order_id="o3", customer_id="?", placed_at=at(9), total=0)))
    assert side.counts(summary, "ann") == {"2026-11-01": (1, 900), "2026-11-02": (0, 0)}
    assert side.counts(summary, "bob") == {"2026-11-01": (1, 7), "2026-11-02": (1, 250)}
    got = call(summary.get(customer_id="bob", day="2026-11-02"))
    assert got == DailyOrders(customer_id="bob", day="2026-11-02", orders=1, revenue=250)
    assert call(summary.get(customer_id="cyd", day="2026-11-02")) is None
    report = call(summary.verify())
    assert report.ok and (report.rows, report.groups) == (3, 4)


def test_a_save_that_changes_nothing_summed_increments_nothing(side: Side) -> None:
    """Only the note changed: a get and the save, no increment round trip."""
    summary = side.summary()
    orders = side.summarized(Order, [summary])
    order = side.call(
        orders.save(Order(order_id="o1", customer_id="ann", placed_at=at(1), total=5))
    )
    order.note = "gift"
    before = side.edge.round_trips
    side.call(orders.save(order))
    assert side.edge.round_trips - before == 2
    assert side.counts(summary, "ann") == {"2026-11-01": (1, 5)}


def test_an_invalid_write_writes_nothing(side: Side) -> None:
    """A summed value that is not an int is refused before the data write."""
    summary = (AsyncSummary if side.edge.is_async else Summary)(
        side.store,
        Order,
        DailyOrders,
        by={"customer_id": "customer_id", "day": day_of},
        measures={"orders": Count(), "revenue": Sum(lambda o: o.total / 100)},
    )
    orders = side.summarized(Order, [summary])
    with pytest.raises(ValidationError, match="must be an int, not float"):
        side.call(orders.save(Order(order_id="o1", customer_id="ann", placed_at=at(1), total=5)))
    assert side.sync.repository(Order).get(order_id="o1") is None
    assert side.edge.list(summary.scan()) == []


def test_verify_finds_drift_and_rebuild_fixes_it(side: Side) -> None:
    """Writes that bypassed the summary (a crash between data and counters) drift."""
    call = side.call
    summary = side.summary()
    orders = side.summarized(Order, [summary])
    for n in range(5):
        order = Order(order_id=f"o{n}", customer_id="ann", placed_at=at(1 + n % 2), total=n)
        call(orders.save(order))
    plain = side.sync.repository(Order)
    plain.save(Order(order_id="x1", customer_id="ann", placed_at=at(1), total=100))  # not counted
    plain.delete(order_id="o1")  # not taken out
    zed = summary.rows.mapper.key_of(customer_id="zed", day="2026-11-05")
    call(summary.apply({zed: {"orders": 3}}))
    report = call(summary.verify())
    assert (report.wrong, report.fixed, report.rows) == (3, 0, 5)
    assert {s.group["customer_id"] for s in report.samples} == {"ann", "zed"}
    first = report.samples[0]
    assert first.group == {"customer_id": "ann", "day": "2026-11-01"}
    assert (first.counted, first.stored) == (
        {"orders": 4, "revenue": 106},
        {"orders": 3, "revenue": 6},
    )
    fixed = call(summary.rebuild())
    assert (fixed.wrong, fixed.fixed) == (3, 3)
    assert call(summary.verify()).ok
    assert side.counts(summary, "zed") == {"2026-11-05": (0, 0)}


def test_shard_tallies_add_up_to_the_whole_table(side: Side) -> None:
    """The runner's entry point: disjoint key ranges, counted apart, sum to the recount."""
    call = side.call
    summary = side.summary()
    orders = side.summarized(Order, [summary])
    for n in range(12):
        order = Order(order_id=f"o{n:02}", customer_id=f"c{n % 3}", placed_at=at(1), total=n)
        call(orders.save(order))
    cuts = [b"", side.sync.repository(Order).mapper.key_of(order_id="o04"), b"o08", b""]
    parts = [call(summary.tally_range(a, b, batch_size=2)) for a, b in itertools.pairwise(cuts)]
    assert [p.rows for p in parts] == [4, 4, 4]
    total = parts[0] + parts[1] + parts[2]
    assert total == call(summary.tally_range())
    call(summary.apply({row: {"orders": 1} for row in list(total.counts)[:1]}))  # drift one group
    assert call(summary.verify(total)).wrong == 1
    assert call(summary.rebuild(total)).fixed == 1
    assert call(summary.verify(Tally() + total)).ok


def test_locked_data_refuses_a_stale_save_without_counting_it(side: Side) -> None:
    """With a version field a stale instance is refused before anything is written."""
    call = side.call
    summary = side.summary(LockedOrder)
    orders = side.summarized(LockedOrder, [summary])
    first = call(
        orders.save(LockedOrder(order_id="o1", customer_id="ann", placed_at=at(1), total=5))
    )
    stale = side.sync.repository(LockedOrder).get(order_id="o1")
    assert stale is not None
    first.total = 8
    call(orders.save(first))
    stale.total = 100
    with pytest.raises(ConflictError):
        call(orders.save(stale))
    assert side.counts(summary, "ann") == {"2026-11-01": (1, 8)}
    with pytest.raises(ConflictError):
        call(orders.delete(stale))
    call(orders.delete(first))
    assert side.counts(summary, "ann") == {"2026-11-01": (0, 0)}
    assert call(summary.verify()).ok


@model(Table("sm_bad", [Family("s")]), key=Key(Str("customer_id")))
class WithANote:
    customer_id: str
    orders: int = counter("s:n")
    note: str = field("s:x")


def test_declarations_are_checked() -> None:
    store = Store(MemoryBackend())
    by = {"customer_id": "customer_id", "day": day_of}
    with pytest.raises(DeclarationError, match="by names the key fields"):
        Summary(store, Order, DailyOrders, by={"customer_id": "customer_id"}, measures={})
    with pytest.raises(DeclarationError, match="measures name the counter fields"):
        Summary(store, Order, DailyOrders, by=by, measures={"orders": Count()})
    with pytest.raises(DeclarationError, match="'price' is not a field of Order"):
        Summary(
            store, Order, DailyOrders, by=by, measures={"orders": Count(), "revenue": Sum("price")}
        )
    with pytest.raises(DeclarationError, match="'note' is neither"):
        Summary(
            store, Order, WithANote, by={"customer_id": "customer_id"}, measures={"orders": Count()}
        )
    with pytest.raises(DeclarationError, match=r"LockedOrder.version changes without a save"):
        Summary(
            store,
            LockedOrder,
            DailyOrders,
            by=by,
            measures={"orders": Count(), "revenue": Sum("version")},
        )
    summary = daily(store)
    with pytest.raises(ValidationError, match="summary DailyOrders is of Order"):
        SummarizedRepository(store.repository(LockedOrder), [summary])


CUSTOMERS = st.text(alphabet=string.ascii_letters + "\x00\x01é", min_size=0, max_size=4)
DAYS = st.integers(min_value=1, max_value=30)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(CUSTOMERS, DAYS, st.integers(0, 10**6)), max_size=25))
def test_a_customers_days_are_one_prefix_scan_in_order(
    orders_: list[tuple[str, int, int]],
) -> None:
    """The key layout: a customer's groups are exactly its prefix, days ascending."""
    store = Store(MemoryBackend(), clock=ManualClock())
    store.create_tables(Order, DailyOrders)
    summary = daily(store)
    orders = SummarizedRepository(store.repository(Order), [summary])
    expected: dict[str, dict[str, tuple[int, int]]] = {}
    for n, (customer, day, total) in enumerate(orders_):
        orders.save(Order(order_id=str(n), customer_id=customer, placed_at=at(day), total=total))
        days = expected.setdefault(customer, {})
        count, revenue = days.get(at(day).date().isoformat(), (0, 0))
        days[at(day).date().isoformat()] = (count + 1, revenue + total)
    for customer, days in expected.items():
        scanned = list(summary.scan({"customer_id": customer}))
        assert [s.day for s in scanned] == sorted(days)
        assert {s.day: (s.orders, s.revenue) for s in scanned} == days
    assert summary.verify().ok


def test_a_count_in_resumable_pieces_adds_up(side: Side) -> None:
    """``limit`` cuts a range into pieces; each resumes after the last row of the one before."""
    call = side.call
    summary = side.summary()
    orders = side.summarized(Order, [summary])
    for n in range(7):
        order = Order(order_id=f"o{n}", customer_id="ann", placed_at=at(1 + n % 3), total=n)
        call(orders.save(order))
    pieces: list[Tally] = []
    start = b""
    while True:
        piece = call(summary.tally_range(start, b"", limit=3, batch_size=2))
        pieces.append(piece)
        if piece.last is None:
            break
        start = piece.last + b"\x00"
    assert [p.rows for p in pieces] == [3, 3, 1]
    total = Tally()
    for piece in pieces:
        total += piece
    assert total.counts == call(summary.tally_range()).counts and total.last is None
    assert call(summary.verify(total)).ok


def test_an_increment_of_unknown_outcome_is_found_and_fixed(edge: Edge, backend: Backend) -> None:
    """The data is written, the reply to the increments lost: a retry counts twice."""
    faulty = FaultyBackend(backend)
    store = Store(faulty, clock=ManualClock())
    store.create_tables(Order, DailyOrders)
    side = Side(edge, store)
    call = side.call
    summary = side.summary()
    orders = side.summarized(Order, [summary])
    order = Order(order_id="o1", customer_id="ann", placed_at=at(1), total=5)
    faulty.on("increment_many", fail=OutcomeUnknownError("reply lost"), fail_after=True)
    with pytest.raises(OutcomeUnknownError):
        call(orders.save(order))
    assert store.repository(Order).get(order_id="o1") == order
    call(summary.apply(summary.deltas(None, order)))  # a blind retry
    drift = call(summary.verify())
    assert drift.samples[0].stored == {"orders": 2, "revenue": 10}
    assert call(summary.rebuild()).fixed == 1
    assert side.counts(summary, "ann") == {"2026-11-01": (1, 5)}


@model(Table("sm_customer_total", [Family("s")]), key=Key(Str("customer_id")))
class CustomerTotals:
    """A second rollup of the same orders: per customer, all days."""

    customer_id: str
    orders: int = counter("s:n")


def test_one_write_keeps_several_summaries(side: Side) -> None:
    """One get, the save, one increment_many per summary table."""
    call = side.call
    side.sync.create_tables(CustomerTotals)
    per_day = side.summary()
    totals = (AsyncSummary if side.edge.is_async else Summary)(
        side.store,
        Order,
        CustomerTotals,
        by={"customer_id": "customer_id"},
        measures={"orders": Count()},
    )
    orders = side.summarized(Order, [per_day, totals])
    call(orders.save(Order(order_id="o1", customer_id="ann", placed_at=at(1), total=5)))
    before = side.edge.round_trips
    call(orders.save(Order(order_id="o2", customer_id="ann", placed_at=at(2), total=6)))
    assert side.edge.round_trips - before == 4
    call(orders.save(Order(order_id="o2", customer_id="bob", placed_at=at(2), total=6)))
    assert call(totals.get(customer_id="ann")) == CustomerTotals(customer_id="ann", orders=1)
    assert call(totals.get(customer_id="bob")) == CustomerTotals(customer_id="bob", orders=1)
    assert side.counts(per_day, "bob") == {"2026-11-02": (1, 6)}
    assert call(per_day.verify()).ok and call(totals.verify()).ok


def test_async_writers_gathered_on_one_locked_row_never_make_the_summary_drift(
    loop: asyncio.AbstractEventLoop,
) -> None:
    """The promise under concurrency: with a version field, of two tasks that read the same
    stored row and save it interleaved call by call, one wins and the other is refused
    before anything is written (its delta never counted): the summary stays exact."""
    engine = MemoryBackend()
    Store(engine).create_tables(LockedOrder, DailyOrders)
    store = AsyncStore(AsyncMemoryBackend(engine), clock=ManualClock())
    summary = daily(store, LockedOrder)
    orders = AsyncSummarizedRepository(store.repository(LockedOrder), [summary])
    placed = LockedOrder(order_id="o1", customer_id="ann", placed_at=at(1), total=5)

    async def client(total: int, day: int) -> LockedOrder:
        mine = await orders.repository.get(order_id="o1", required=True)
        mine.total, mine.placed_at = total, at(day)
        saved: LockedOrder = await orders.save(mine)
        return saved

    async def scenario() -> list[Any]:
        await orders.save(placed)
        results = await asyncio.gather(client(7, 1), client(9, 2), return_exceptions=True)
        report = await summary.verify()
        assert report.ok, report
        return results

    first, second = loop.run_until_complete(scenario())
    assert isinstance(first, LockedOrder) and isinstance(second, ConflictError)
    stored = Store(engine).repository(DailyOrders)
    assert stored.get(customer_id="ann", day="2026-11-01").revenue == 7
    assert stored.get(customer_id="ann", day="2026-11-02") is None


def test_async_writers_of_one_group_are_all_counted(loop: asyncio.AbstractEventLoop) -> None:
    """Increments are atomic: interleaved inserts into one group each add their delta."""
    engine = MemoryBackend()
    Store(engine).create_tables(Order, DailyOrders)
    store = AsyncStore(AsyncMemoryBackend(engine), clock=ManualClock())
    summary = daily(store)
    orders = AsyncSummarizedRepository(store.repository(Order), [summary])

    async def scenario() -> Any:
        await asyncio.gather(
            *(
                orders.save(Order(order_id=f"o{n}", customer_id="ann", placed_at=at(1), total=n))
                for n in range(8)
            )
        )
        return await summary.get(customer_id="ann", day="2026-11-01")

    got = loop.run_until_complete(scenario())
    assert (got.orders, got.revenue) == (8, sum(range(8)))


def test_a_save_cancelled_between_its_data_write_and_its_increments_is_found_and_fixed(
    loop: asyncio.AbstractEventLoop,
) -> None:
    """As a crash there: the data row is written, the summary is short of its delta;
    ``verify`` finds the group, ``rebuild`` fixes it."""
    engine = MemoryBackend()
    Store(engine).create_tables(Order, DailyOrders)
    faulty = FaultyBackend(engine)
    store = AsyncStore(InProcessAsyncBackend(faulty), clock=ManualClock())
    summary = daily(store)
    orders = AsyncSummarizedRepository(store.repository(Order), [summary])
    order = Order(order_id="o1", customer_id="ann", placed_at=at(1), total=5)

    async def scenario() -> None:
        task = asyncio.create_task(orders.save(order))
        # The data row's mutate is applied, then the task is cancelled: the cancellation
        # lands at its next request (the increments), before it is sent.
        faulty.on("mutate", after=lambda *_: task.cancel())
        with pytest.raises(asyncio.CancelledError):
            await task
        assert "increment_many" not in faulty.calls
        assert await orders.repository.get(order_id="o1") == order
        report = await summary.verify()
        assert (report.wrong, report.rows) == (1, 1)
        assert report.samples[0].stored == {"orders": 0, "revenue": 0}
        assert (await summary.rebuild()).fixed == 1
        assert (await summary.verify()).ok

    loop.run_until_complete(scenario())
