"""The index fault-injection run: threads write, fail at random points, and query (I1-I3)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import attrs

from hmodel.backend.base import Backend, Scan
from hmodel.errors import BackendError, ConflictError, UniqueViolationError
from hmodel.patterns.index import Index
from hmodel.patterns.index_job import run_index_job
from hmodel.patterns.index_repository import IndexedRepository, parse_result
from hmodel.repository import Repository
from hmodel.testing.random_fault import RandomFaultBackend
from tests.patterns.index_models import BY_CUSTOMER, BY_NICK, BY_STATUS, Order, User

STATUSES = ("new", "paid", "shipped")
CUSTOMERS = ("c0", "c1", "c2")
NICKS = tuple(f"n{i}" for i in range(8))
GRACE = timedelta(milliseconds=1500)

State = tuple[str, int, str | None] | None  # (status, total, customer), None: no row


def wait_out_the_grace(indexed: IndexedRepository[Any]) -> None:
    """Sleep until every entry written so far is older than the grace.

    Ages count from write stamps, which run ahead of the clock by a millisecond per
    write made within one millisecond: after a burst they can lead it by seconds.
    """
    deadline = indexed.stamps.last + int(GRACE.total_seconds() * 1000) + 50
    while indexed.stamps.clock() < deadline:
        time.sleep(0.05)


def order_indexes() -> list[Index[Order]]:
    return [
        Index(Order, on=["status"], table=BY_STATUS, covering=["total"], salt=4, grace=GRACE),
        Index(Order, on=["customer", "total"], table=BY_CUSTOMER, grace=GRACE),
    ]


def user_indexes() -> list[Index[User]]:
    return [Index(User, on=["nickname"], table=BY_NICK, unique=True, grace=GRACE)]


def state_of(order: Order | None) -> State:
    return None if order is None else (order.status, order.total, order.customer)


def fetch_all(fetch: Callable[[str | None], Any]) -> list[Any]:
    """Every item of a paged query: ``fetch(token)`` returns one page."""
    items: list[Any] = []
    token = None
    while True:
        page = fetch(token)
        items.extend(page.items)
        token = page.next_token
        if token is None:
            return items


@attrs.define
class Figures:
    """What a fault-injection run did and found."""

    ops: int = 0
    raised: int = 0
    unique_refused: int = 0
    queries: int = 0
    query_errors: int = 0
    checked_rows: int = 0
    faults: dict[str, int] = attrs.field(factory=dict)
    stats: dict[str, int] = attrs.field(factory=dict)
    verify_before: dict[str, dict[str, int]] = attrs.field(factory=dict)
    rebuild: dict[str, dict[str, int]] = attrs.field(factory=dict)
    verify_after: dict[str, dict[str, int]] = attrs.field(factory=dict)
    seconds: float = 0.0
    failures: list[str] = attrs.field(factory=list)


class Run:
    """Writer threads own disjoint orders; every thread also queries and checks."""

    def __init__(self, inner: Backend, *, seed: int, rate: float) -> None:
        self.inner = inner
        self.faulty = RandomFaultBackend(inner, seed=seed, rate=rate)
        self.orders = IndexedRepository(
            Repository(Order, self.faulty, lock_lease=GRACE), order_indexes()
        )
        self.users = IndexedRepository(Repository(User, self.faulty), user_indexes())
        # The oracle reads the committed truth without faults.
        self.truth = Repository(Order, inner)
        self.user_truth = Repository(User, inner)
        IndexedRepository(Repository(Order, inner), order_indexes()).create_tables()
        IndexedRepository(Repository(User, inner), user_indexes()).create_tables()
        self.figures = Figures()
        self._lock = threading.Lock()
        self.seed = seed

    def count(self, name: str, amount: int = 1) -> None:
        with self._lock:
            setattr(self.figures, name, getattr(self.figures, name) + amount)

    def fail(self, message: str) -> None:
        with self._lock:
            self.figures.failures.append(message)

    # --- orders -------------------------------------------------------------------------

    def order_worker(self, number: int, ops: int) -> None:
        rng = random.Random(self.seed * 1000 + number)
        mine = [f"t{number}-{i:02d}" for i in range(10)]
        possible: dict[str, set[State]] = {oid: {None} for oid in mine}
        for op in range(ops):
            oid = rng.choice(mine)
            current = self.truth.get(order_id=oid)
            if state_of(current) not in possible[oid]:
                self.fail(f"{oid}: committed {state_of(current)} not in {possible[oid]}")
            old = state_of(current)
            new: State = old
            try:
                if current is None:
                    new = (rng.choice(STATUSES), rng.randrange(20), rng.choice(CUSTOMERS))
                    obj = Order(order_id=oid, status=new[0], total=new[1], customer=new[2])
                    self.count("ops")
                    self.orders.save(obj)
                else:
                    roll = rng.random()
                    self.count("ops")
                    if roll < 0.2:
                        new = None
                        self.orders.delete(current)
                    else:
                        if roll < 0.65:
                            current.status = rng.choice(STATUSES)
                        elif roll < 0.85:
                            current.total = rng.randrange(20)
                        else:
                            current.customer = rng.choice((*CUSTOMERS, None))
                        new = state_of(current)
                        self.orders.save(current)
                possible[oid] = {new}
            except (BackendError, ConflictError):
                self.count("raised")
                possible[oid] = {old, new}
            if op % 4 == 0:
                self.check_orders(rng, possible)

    def check_orders(self, rng: random.Random, possible: dict[str, set[State]]) -> None:
        """Query; every row returned must be right, and this thread's rows exact."""
        status = rng.choice(STATUSES)
        covered = rng.random() < 0.5
        size = rng.randrange(1, 8)
        self.count("queries")
        try:
            if covered:
                found = fetch_all(
                    lambda t: self.orders.page_covered(
                        "order_by_status", size, {"status": status}, token=t
                    )
                )
                rows = {d["order_id"]: (d["status"], d["total"]) for d in found}
            else:
                models = fetch_all(
                    lambda t: self.orders.page("order_by_status", size, {"status": status}, token=t)
                )
                rows = {o.order_id: (o.status, o.total) for o in models}
        except (BackendError, ConflictError):
            self.count("query_errors")
            return
        for oid, (got_status, _) in rows.items():
            if got_status != status:
                self.fail(f"query status={status} returned {oid} with status {got_status}")
        for oid, states in possible.items():
            self.count("checked_rows")
            if oid in rows:
                if not any(s is not None and (s[0], s[1]) == rows[oid] for s in states):
                    self.fail(f"query status={status}: {oid} as {rows[oid]}, committed {states}")
            elif all(s is not None and s[0] == status for s in states):
                self.fail(f"query status={status} missed {oid} (committed {states})")
        customer = rng.choice(CUSTOMERS)
        low, high = sorted((rng.randrange(20), rng.randrange(21)))
        try:
            by_customer = self.orders.find(
                "order_by_customer", {"customer": customer}, low=low, high=high
            )
        except (BackendError, ConflictError):
            self.count("query_errors")
            return
        got = {o.order_id for o in by_customer}
        for o in by_customer:
            if o.customer != customer or not low <= o.total < high:
                self.fail(f"customer query {customer} [{low}, {high}) returned {o}")
        for oid, states in possible.items():
            inside = [s is not None and s[2] == customer and low <= s[1] < high for s in states]
            if all(inside) and oid not in got:
                self.fail(f"customer query {customer} [{low}, {high}) missed {oid} ({states})")
            if not any(inside) and oid in got:
                self.fail(f"customer query {customer} [{low}, {high}) returned {oid} ({states})")

    # --- users (unique) -----------------------------------------------------------------

    def user_worker(self, number: int, ops: int) -> None:
        rng = random.Random(self.seed * 7000 + number)
        mine = [f"u{number}-{i}" for i in range(3)]
        for _ in range(ops):
            uid = rng.choice(mine)
            nick = rng.choice(NICKS)
            self.count("ops")
            try:
                if rng.random() < 0.15:
                    current = self.user_truth.get(user_id=uid)
                    if current is not None:
                        self.users.delete(current)
                else:
                    self.users.save(User(user_id=uid, nickname=nick))
            except UniqueViolationError:
                self.count("unique_refused")
            except (BackendError, ConflictError):
                self.count("raised")
            self.count("queries")
            try:
                holder = self.users.get_unique("user_by_nick", nickname=nick)
            except (BackendError, ConflictError):
                self.count("query_errors")
                continue
            if holder is not None and holder.nickname != nick:
                self.fail(f"unique lookup {nick} returned {holder}")
            committed = self.user_truth.get(user_id=uid)
            if committed is not None and committed.nickname == nick and holder is None:
                # This thread's own row holds nick and nobody else writes it meanwhile.
                self.fail(f"unique lookup {nick} missed {uid}")

    # --- the whole run ------------------------------------------------------------------

    def run(
        self, *, order_threads: int, order_ops: int, user_threads: int, user_ops: int
    ) -> Figures:
        started = time.monotonic()
        threads = [
            threading.Thread(target=self.order_worker, args=(n, order_ops))
            for n in range(order_threads)
        ] + [
            threading.Thread(target=self.user_worker, args=(n, user_ops))
            for n in range(user_threads)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.faulty.enabled = False
        figures = self.figures
        figures.faults = dict(self.faulty.injected)
        figures.stats = {
            k: self.orders.stats.as_dict()[k] + self.users.stats.as_dict()[k]
            for k in self.orders.stats.as_dict()
        }
        wait_out_the_grace(self.orders)  # crashed writers' entries are no longer in flight
        wait_out_the_grace(self.users)
        indexes = [*order_indexes(), *user_indexes()]
        for index in indexes:
            figures.verify_before[index.name] = run_index_job(self.inner, index, "verify").counts
        for index in indexes:
            figures.rebuild[index.name] = run_index_job(
                self.inner, index, "rebuild", lock_lease=GRACE
            ).counts
        for index in indexes:
            figures.verify_after[index.name] = run_index_job(self.inner, index, "verify").counts
        self.final_checks()
        figures.seconds = round(time.monotonic() - started, 1)
        return figures

    def check_verified_entries(self) -> None:
        """What covering reads rely on: every verified entry agrees with its data row."""
        for indexed in (self.orders, self.users):
            for index in indexed.indexes.values():
                for result in self.inner.scan(index.table.full_name, Scan()):
                    entry = parse_result(index, result)
                    if entry is None or not entry.verified:
                        continue
                    obj = indexed.load_rows([entry.data_row])[entry.data_row]
                    if not index.agrees(entry, obj):
                        self.fail(f"verified entry {entry} disagrees with its data row {obj}")

    def final_checks(self) -> None:
        """After the rebuild every query is exact against the data table."""
        orders = list(self.truth.scan())
        for status in STATUSES:
            want = {o.order_id: o.total for o in orders if o.status == status}
            got = {
                d["order_id"]: d["total"]
                for d in fetch_all(
                    lambda t, s=status: self.orders.page_covered(
                        "order_by_status", 50, {"status": s}, token=t
                    )
                )
            }
            if got != want:
                self.fail(f"after rebuild status={status}: {got} != {want}")
        users = list(self.user_truth.scan())
        nicks = [u.nickname for u in users if u.nickname is not None]
        if len(nicks) != len(set(nicks)):
            self.fail(f"two users hold one nickname: {sorted(nicks)}")
        for user in users:
            if user.nickname is not None:
                holder = self.users.get_unique("user_by_nick", nickname=user.nickname)
                if holder != user:
                    self.fail(f"after rebuild {user.nickname} -> {holder}, not {user}")


def contention(inner: Backend, *, seed: int, threads: int, ops: int, rate: float) -> Figures:
    """Threads save and delete the **same** few orders (optimistic locking decides)."""
    run = Run(inner, seed=seed, rate=rate)
    shared = [f"s{i}" for i in range(4)]

    def worker(number: int) -> None:
        rng = random.Random(seed * 31 + number)
        for _ in range(ops):
            oid = rng.choice(shared)
            current = run.truth.get(order_id=oid)
            run.count("ops")
            try:
                if current is None:
                    status = rng.choice(STATUSES)
                    run.orders.save(Order(order_id=oid, status=status, total=rng.randrange(9)))
                elif rng.random() < 0.2:
                    run.orders.delete(current)
                else:
                    current.status = rng.choice(STATUSES)
                    current.total = rng.randrange(9)
                    run.orders.save(current)
            except (BackendError, ConflictError):
                run.count("raised")
            status = rng.choice(STATUSES)
            run.count("queries")
            try:
                found = run.orders.find("order_by_status", {"status": status})
            except (BackendError, ConflictError):
                run.count("query_errors")
                continue
            for order in found:
                if order.status != status:
                    run.fail(f"query status={status} returned {order}")

    workers = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    run.faulty.enabled = False
    run.figures.faults = dict(run.faulty.injected)
    run.check_verified_entries()
    wait_out_the_grace(run.orders)
    for index in order_indexes():
        run.figures.verify_before[index.name] = run_index_job(inner, index, "verify").counts
        run_index_job(inner, index, "rebuild", lock_lease=GRACE)
        run.figures.verify_after[index.name] = run_index_job(inner, index, "verify").counts
    run.final_checks()
    return run.figures
