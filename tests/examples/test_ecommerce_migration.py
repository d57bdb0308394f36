"""The e-commerce orders moved from 10 salt buckets to 16 online, on every backend."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

import attrs

from examples.ecommerce.migrations import (
    BUYERS_SALT16,
    ORDER16,
    ORDERS_SALT16,
    Buyer16,
    Order16,
    buyer16,
    order16,
)
from examples.ecommerce.models import Buyer, Order
from examples.ecommerce.service import Shop
from hmodel.backend.base import Backend, Scan
from hmodel.backend.forwarding import ForwardingBackend
from hmodel.clock import ManualClock
from hmodel.patterns import MigratingRepository, Migrator
from hmodel.repository import Store
from tests.examples.conftest import create_tables

#: Writer threads, and how many orders each changes while the job runs.
WRITERS = 3
CHANGES = 12


def key_of(order: Order16) -> dict[str, Any]:
    return {
        "order_id": order.order_id,
        "category": order.category,
        "goods_id": order.goods_id,
        "ordered_at": order.ordered_at,
    }


def old_order_rows(backend: Backend) -> int:
    """Rows of the old table that still hold order cells (family ``o``)."""
    return sum(1 for _ in backend.scan("order", Scan(columns=(b"o",))))


def changes(
    store: Store, mine: list[Order16], expected: dict[str, Order16 | None]
) -> list[Callable[[], None]]:
    """An application's writes on the migrating repository: saves, updates, deletes, inserts.

    Each records what it wrote in ``expected`` and reads the order back: every read during
    the job answers what the application last wrote.
    """
    repo = MigratingRepository(store, ORDERS_SALT16)

    def change(n: int, order: Order16) -> None:
        kind = n % 4
        if kind == 0:
            changed = attrs.evolve(order, total=order.total + Decimal("1.00"))
            repo.save(changed)
            expected[order.order_id] = changed
        elif kind == 1:
            repo.update(key_of(order), quantity=order.quantity + 100)
            expected[order.order_id] = attrs.evolve(order, quantity=order.quantity + 100)
        elif kind == 2:
            repo.delete(**key_of(order))
            expected[order.order_id] = None
        else:
            fresh = attrs.evolve(
                order,
                order_id=f"n-{order.order_id}",
                ordered_at=order.ordered_at + timedelta(days=1),
            )
            repo.save(fresh)
            expected[fresh.order_id] = fresh
        assert repo.get(**key_of(order)) == expected[order.order_id]

    return [functools.partial(change, n, order) for n, order in enumerate(mine)]


def writer(
    store: Store,
    mine: list[Order16],
    expected: dict[str, Order16 | None],
    start: threading.Barrier,
) -> Callable[[], None]:
    """An application process: its changes, in a thread of its own."""
    steps = changes(store, mine, expected)

    def run() -> None:
        start.wait()
        for step in steps:
            step()

    return run


class Between(ForwardingBackend):
    """The job's backend: before each of its writes (a copy or a delete), one change."""

    def __init__(self, inner: Backend, steps: list[Callable[[], None]]) -> None:
        super().__init__(inner)
        self.steps = steps

    def _forward(self, method: str, call: Any, /, *args: Any, **kwargs: Any) -> Any:
        if method == "mutate" and self.steps:
            self.steps.pop(0)()
        return call(*args, **kwargs)


def check_moved(
    backend: Backend,
    store: Store,
    migrator: Migrator[Order, Order16],
    expected: dict[str, Order16 | None],
) -> None:
    """The new layout is what the application last wrote and every other order, once."""
    new = {o.order_id: o for o in store.repository(Order16).scan()}
    wanted = {k: v for k, v in expected.items() if v is not None}
    assert sorted(new) == sorted(wanted), "rows lost or resurrected"
    assert new == wanted, "a value is not the one last written"
    assert sum(1 for _ in store.repository(Order16).scan()) == len(wanted), "duplicates"
    assert old_order_rows(backend) == 0
    found = migrator.verify()
    assert found.clean
    assert (found.old_rows, found.new_rows, found.new_only) == (0, len(wanted), len(wanted))
    reader = MigratingRepository(store, ORDERS_SALT16)
    assert sorted(o.order_id for o in reader.scan()) == sorted(wanted)


def test_orders_move_to_16_buckets_while_the_application_writes(
    backend: Backend, loaded: Shop, clock: ManualClock
) -> None:
    """Writer threads keep saving, updating, deleting and inserting orders during the job;
    at the end the new layout holds exactly what they last wrote and every other order
    once, the old layout holds no order, and verify finds nothing wrong.
    """
    create_tables(backend, [ORDER16])
    store = Store(backend, clock=clock)
    before = {o.order_id: order16(o) for o in store.repository(Order).scan()}
    assert len(before) == 120
    expected: dict[str, Order16 | None] = dict(before)
    start = threading.Barrier(WRITERS + 1)
    orders = sorted(before.values(), key=lambda o: o.order_id)
    errors: list[BaseException] = []

    def guarded(run: Callable[[], None]) -> Callable[[], None]:
        def call() -> None:
            try:
                run()
            except BaseException as error:  # reported by the test's thread
                errors.append(error)

        return call

    threads = [
        threading.Thread(
            target=guarded(
                writer(
                    Store(backend, clock=clock),
                    orders[w * CHANGES : (w + 1) * CHANGES],
                    expected,
                    start,
                )
            )
        )
        for w in range(WRITERS)
    ]
    for thread in threads:
        thread.start()
    migrator = Migrator(Store(backend, clock=clock), ORDERS_SALT16, batch_size=7)
    start.wait()
    report = migrator.run()
    for thread in threads:
        thread.join()
    assert errors == []
    assert report.problems == 0
    assert report.read <= 120
    check_moved(backend, store, migrator, expected)


def test_orders_move_while_the_application_writes_between_every_two_writes_of_the_job(
    backend: Backend, loaded: Shop, clock: ManualClock
) -> None:
    """Deterministic: one change before each copy and each delete the job sends, so
    changes land on orders already moved, half moved (copied, not deleted) and not moved.
    """
    create_tables(backend, [ORDER16])
    store = Store(backend, clock=clock)
    before = {o.order_id: order16(o) for o in store.repository(Order).scan()}
    expected: dict[str, Order16 | None] = dict(before)
    orders = sorted(before.values(), key=lambda o: o.order_id)
    steps = changes(Store(backend, clock=clock), orders[::3], expected)
    migrator = Migrator(Store(Between(backend, steps), clock=clock), ORDERS_SALT16)
    report = migrator.run()
    assert steps == []  # every change made during the job
    assert report.problems == 0
    check_moved(backend, store, migrator, expected)


def test_a_copy_only_run_is_verified_then_contracted(
    backend: Backend, loaded: Shop, clock: ManualClock
) -> None:
    """Copy without deleting, verify old against new (an application write counted apart),
    then contract: a second run deletes the old rows; re-running changes nothing.
    """
    create_tables(backend, [ORDER16])
    store = Store(backend, clock=clock)
    copy = Migrator(store, ORDERS_SALT16, delete_old=False)
    assert copy.run().written == 120
    assert old_order_rows(backend) == 120
    some = next(iter(store.repository(Order16).scan()))
    clock.advance(1)
    MigratingRepository(store, ORDERS_SALT16).update(key_of(some), quantity=999)
    found = copy.verify()
    assert found.clean
    assert (found.old_rows, found.ok, found.rewritten, found.new_only) == (120, 119, 1, 0)

    contract = Migrator(store, ORDERS_SALT16)
    assert contract.run().deleted == 120
    assert old_order_rows(backend) == 0
    assert contract.run().read == 0
    moved = {o.order_id: o for o in store.repository(Order16).scan()}
    assert len(moved) == 120
    assert moved[some.order_id].quantity == 999


def test_the_buyer_copies_follow_in_a_revision_of_their_own(
    backend: Backend, loaded: Shop, clock: ManualClock
) -> None:
    """The ``c`` family of the same rows moves after the orders; no order cell is lost."""
    create_tables(backend, [ORDER16])
    store = Store(backend, clock=clock)
    buyers = {b.order_id: buyer16(b) for b in store.repository(Buyer).scan()}
    Migrator(store, ORDERS_SALT16).run()
    assert len(list(store.repository(Buyer).scan())) == 120  # family c stays behind
    report = Migrator(store, BUYERS_SALT16).run()
    assert (report.read, report.written, report.deleted) == (120, 120, 120)
    assert sum(1 for _ in backend.scan("order", Scan())) == 0
    assert {b.order_id: b for b in store.repository(Buyer16).scan()} == buyers
    assert len(list(store.repository(Order16).scan())) == 120


def test_a_stopped_run_resumes_after_its_last_row(
    backend: Backend, loaded: Shop, clock: ManualClock
) -> None:
    """``run(resume_after=...)`` goes on where a stopped job's checkpoint says."""
    create_tables(backend, [ORDER16])
    store = Store(backend, clock=clock)
    migrator = Migrator(store, ORDERS_SALT16)
    regions = backend.regions("order")
    first = migrator.migrate_range(regions[0].start, regions[0].end)
    assert first.last_row is not None
    rest = migrator.run(resume_after=first.last_row)
    assert first.read + rest.read == 120
    assert old_order_rows(backend) == 0
    assert len(list(store.repository(Order16).scan())) == 120
