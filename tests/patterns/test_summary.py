"""Summary tables (I3): counters kept at write time, verified and rebuilt, on every backend."""

from __future__ import annotations

import itertools
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel import Family, Key, Store, Str, Table, counter, field, model
from hmodel.backend.base import Backend
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.errors import ConflictError, DeclarationError, OutcomeUnknownError, ValidationError
from hmodel.patterns import Count, Sum, SummarizedRepository, Summary, Tally
from hmodel.testing.fault import FaultyBackend
from tests.patterns.summary_models import DailyOrders, LockedOrder, Order, at, daily, day_of


@pytest.fixture
def store(backend: Backend) -> Store:
    created = Store(backend, clock=ManualClock())
    created.create_tables(Order, LockedOrder, DailyOrders)
    return created


def _counts(summary: Summary[object, DailyOrders], customer: str) -> dict[str, tuple[int, int]]:
    return {s.day: (s.orders, s.revenue) for s in summary.scan({"customer_id": customer})}


def test_saves_and_deletes_keep_the_counters_I3(store: Store) -> None:
    """Insert, change a summed value, move to another day, delete: each by its delta."""
    summary = daily(store)
    orders = SummarizedRepository(store.repository(Order), [summary])
    orders.save(Order(order_id="o1", customer_id="ann", placed_at=at(1), total=500))
    orders.save(Order(order_id="o2", customer_id="ann", placed_at=at(1, 18), total=250))
    orders.save(Order(order_id="o3", customer_id="ann", placed_at=at(2), total=100))
    orders.save(Order(order_id="o4", customer_id="bob", placed_at=at(1), total=7))
    assert _counts(summary, "ann") == {"2026-11-01": (2, 750), "2026-11-02": (1, 100)}
    orders.save(Order(order_id="o1", customer_id="ann", placed_at=at(1), total=900))
    assert _counts(summary, "ann")["2026-11-01"] == (2, 1150)
    orders.save(Order(order_id="o2", customer_id="ann", placed_at=at(2), total=250))  # moved
    assert _counts(summary, "ann") == {"2026-11-01": (1, 900), "2026-11-02": (2, 350)}
    orders.save(Order(order_id="o2", customer_id="bob", placed_at=at(2), total=250))  # moved
    orders.delete(Order(order_id="o3", customer_id="?", placed_at=at(9), total=0))  # stored values
    assert _counts(summary, "ann") == {"2026-11-01": (1, 900), "2026-11-02": (0, 0)}
    assert _counts(summary, "bob") == {"2026-11-01": (1, 7), "2026-11-02": (1, 250)}
    got = summary.get(customer_id="bob", day="2026-11-02")
    assert got == DailyOrders(customer_id="bob", day="2026-11-02", orders=1, revenue=250)
    assert summary.get(customer_id="cyd", day="2026-11-02") is None
    report = summary.verify()
    assert report.ok and (report.rows, report.groups) == (3, 4)


def test_a_save_that_changes_nothing_summed_increments_nothing(
    store: Store, backend: Backend
) -> None:
    """Only the note changed: a get and the save, no increment round trip."""
    summary = daily(store)
    orders = SummarizedRepository(store.repository(Order), [summary])
    order = orders.save(Order(order_id="o1", customer_id="ann", placed_at=at(1), total=5))
    order.note = "gift"
    before = backend.round_trips
    orders.save(order)
    assert backend.round_trips - before == 2
    assert _counts(summary, "ann") == {"2026-11-01": (1, 5)}


def test_an_invalid_write_writes_nothing(store: Store) -> None:
    """A summed value that is not an int is refused before the data write."""
    summary = Summary(
        store,
        Order,
        DailyOrders,
        by={"customer_id": "customer_id", "day": day_of},
        measures={"orders": Count(), "revenue": Sum(lambda o: o.total / 100)},
    )
    orders = SummarizedRepository(store.repository(Order), [summary])
    with pytest.raises(ValidationError, match="must be an int, not float"):
        orders.save(Order(order_id="o1", customer_id="ann", placed_at=at(1), total=5))
    assert store.repository(Order).get(order_id="o1") is None
    assert list(summary.scan()) == []


def test_verify_finds_drift_and_rebuild_fixes_it(store: Store) -> None:
    """Writes that bypassed the summary (a crash between data and counters) drift."""
    summary = daily(store)
    orders = SummarizedRepository(store.repository(Order), [summary])
    for n in range(5):
        orders.save(Order(order_id=f"o{n}", customer_id="ann", placed_at=at(1 + n % 2), total=n))
    plain = store.repository(Order)
    plain.save(Order(order_id="x1", customer_id="ann", placed_at=at(1), total=100))  # not counted
    plain.delete(order_id="o1")  # not taken out
    summary.apply({summary.rows.mapper.key_of(customer_id="zed", day="2026-11-05"): {"orders": 3}})
    report = summary.verify()
    assert (report.wrong, report.fixed, report.rows) == (3, 0, 5)
    assert {s.group["customer_id"] for s in report.samples} == {"ann", "zed"}
    first = report.samples[0]
    assert first.group == {"customer_id": "ann", "day": "2026-11-01"}
    assert (first.counted, first.stored) == (
        {"orders": 4, "revenue": 106},
        {"orders": 3, "revenue": 6},
    )
    fixed = summary.rebuild()
    assert (fixed.wrong, fixed.fixed) == (3, 3)
    assert summary.verify().ok
    assert _counts(summary, "zed") == {"2026-11-05": (0, 0)}


def test_shard_tallies_add_up_to_the_whole_table(store: Store) -> None:
    """The runner's entry point: disjoint key ranges, counted apart, sum to the recount."""
    summary = daily(store)
    orders = SummarizedRepository(store.repository(Order), [summary])
    for n in range(12):
        orders.save(Order(order_id=f"o{n:02}", customer_id=f"c{n % 3}", placed_at=at(1), total=n))
    cuts = [b"", store.repository(Order).mapper.key_of(order_id="o04"), b"o08", b""]
    parts = [summary.tally_range(a, b, batch_size=2) for a, b in itertools.pairwise(cuts)]
    assert [p.rows for p in parts] == [4, 4, 4]
    total = parts[0] + parts[1] + parts[2]
    assert total == summary.tally_range()
    summary.apply({row: {"orders": 1} for row in list(total.counts)[:1]})  # drift one group
    assert summary.verify(total).wrong == 1
    assert summary.rebuild(total).fixed == 1
    assert summary.verify(Tally() + total).ok


def test_locked_data_refuses_a_stale_save_without_counting_it(store: Store) -> None:
    """With a version field a stale instance is refused before anything is written."""
    summary = daily(store, LockedOrder)
    orders = SummarizedRepository(store.repository(LockedOrder), [summary])
    first = orders.save(LockedOrder(order_id="o1", customer_id="ann", placed_at=at(1), total=5))
    stale = store.repository(LockedOrder).get(order_id="o1")
    assert stale is not None
    first.total = 8
    orders.save(first)
    stale.total = 100
    with pytest.raises(ConflictError):
        orders.save(stale)
    assert _counts(summary, "ann") == {"2026-11-01": (1, 8)}
    with pytest.raises(ConflictError):
        orders.delete(stale)
    orders.delete(first)
    assert _counts(summary, "ann") == {"2026-11-01": (0, 0)}
    assert summary.verify().ok


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


def test_a_count_in_resumable_pieces_adds_up(store: Store) -> None:
    """``limit`` cuts a range into pieces; each resumes after the last row of the one before."""
    summary = daily(store)
    orders = SummarizedRepository(store.repository(Order), [summary])
    for n in range(7):
        orders.save(Order(order_id=f"o{n}", customer_id="ann", placed_at=at(1 + n % 3), total=n))
    pieces: list[Tally] = []
    start = b""
    while True:
        piece = summary.tally_range(start, b"", limit=3, batch_size=2)
        pieces.append(piece)
        if piece.last is None:
            break
        start = piece.last + b"\x00"
    assert [p.rows for p in pieces] == [3, 3, 1]
    total = Tally()
    for piece in pieces:
        total += piece
    assert total.counts == summary.tally_range().counts and total.last is None
    assert summary.verify(total).ok


def test_an_increment_of_unknown_outcome_is_found_and_fixed(backend: Backend) -> None:
    """The data is written, the reply to the increments lost: a retry counts twice."""
    faulty = FaultyBackend(backend)
    store = Store(faulty, clock=ManualClock())
    store.create_tables(Order, DailyOrders)
    summary = daily(store)
    orders = SummarizedRepository(store.repository(Order), [summary])
    order = Order(order_id="o1", customer_id="ann", placed_at=at(1), total=5)
    faulty.on("increment_many", fail=OutcomeUnknownError("reply lost"), fail_after=True)
    with pytest.raises(OutcomeUnknownError):
        orders.save(order)
    assert store.repository(Order).get(order_id="o1") == order
    summary.apply(summary.deltas(None, order))  # a blind retry
    drift = summary.verify()
    assert drift.samples[0].stored == {"orders": 2, "revenue": 10}
    assert summary.rebuild().fixed == 1
    assert _counts(summary, "ann") == {"2026-11-01": (1, 5)}


@model(Table("sm_customer_total", [Family("s")]), key=Key(Str("customer_id")))
class CustomerTotals:
    """A second rollup of the same orders: per customer, all days."""

    customer_id: str
    orders: int = counter("s:n")


def test_one_write_keeps_several_summaries(store: Store, backend: Backend) -> None:
    """One get, the save, one increment_many per summary table."""
    store.create_tables(CustomerTotals)
    per_day = daily(store)
    totals = Summary(
        store,
        Order,
        CustomerTotals,
        by={"customer_id": "customer_id"},
        measures={"orders": Count()},
    )
    orders = SummarizedRepository(store.repository(Order), [per_day, totals])
    before = backend.round_trips
    orders.save(Order(order_id="o1", customer_id="ann", placed_at=at(1), total=5))
    assert backend.round_trips - before == 4
    orders.save(Order(order_id="o2", customer_id="ann", placed_at=at(2), total=6))
    orders.save(Order(order_id="o2", customer_id="bob", placed_at=at(2), total=6))
    assert totals.get(customer_id="ann") == CustomerTotals(customer_id="ann", orders=1)
    assert totals.get(customer_id="bob") == CustomerTotals(customer_id="bob", orders=1)
    assert _counts(per_day, "bob") == {"2026-11-02": (1, 6)}
    assert per_day.verify().ok and totals.verify().ok
