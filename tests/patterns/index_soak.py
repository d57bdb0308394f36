"""The index soak (issue 16): 8 threads, all five fault kinds, invariants checked throughout.

Every index pattern at once (I1-I3): versioned orders (a salted covering index, a
composite one), unversioned items written by every thread (a covering index), users with
a unique nickname written by every thread (unversioned), and versioned accounts with a
unique email, saved twice from one read (double submits of the same new value).

One :class:`~hmodel.clock.ManualClock` is shared by every thread: it ticks a millisecond
per backend call (time passes as work is done) and a *stall* fault advances it past the
grace, which is what a long pause of one writer looks like to all the others.

A shared :class:`Book` keeps what the threads can know of the committed state of every
row: the states it may hold (an operation that raised may or may not have happened; two
overlapping writes of one row leave either), and the states of the writes in flight.
"""

from __future__ import annotations

import random
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from datetime import timedelta
from typing import Any, ParamSpec, TypeVar

import attrs

from hmodel import Key, Str, field, model
from hmodel.backend.base import Backend, Scan
from hmodel.clock import ManualClock, WriteStamps
from hmodel.errors import (
    BackendError,
    ClaimLostError,
    ConflictError,
    DecodeError,
    HModelError,
    UniqueViolationError,
    ValidationError,
)
from hmodel.model import version_field
from hmodel.patterns.index import Index
from hmodel.patterns.index_job import run_index_job
from hmodel.patterns.index_repository import IndexedRepository, parse_result
from hmodel.repository import Repository
from hmodel.schema import Family, Table
from hmodel.testing.random_fault import WRITES, RandomFaultBackend
from tests.patterns.index_faults import (
    CUSTOMERS,
    GRACE,
    NICKS,
    STATUSES,
    Figures,
    fetch_all,
    order_indexes,
    user_indexes,
)
from tests.patterns.index_models import Order, User

P = ParamSpec("P")
T = TypeVar("T")

#: A stall advances the shared clock past every grace.
STALL = GRACE + timedelta(seconds=1)
GRACE_MS = round(GRACE.total_seconds() * 1000)
COLOURS = ("red", "green", "blue", "black")
EMAILS = tuple(f"e{i}@x" for i in range(6))
#: An indexed value whose entry rowkey is over HBase's 32,767 bytes (ValidationError).
TOO_LONG = "x" * 33_000

State = tuple[Any, ...] | None  # a row's values as the thread model knows them; None: no row


@model(Table("soak_item", [Family("i")]), key=Key(Str("item_id")))
class Item:
    """Unversioned, written by every thread."""

    item_id: str
    colour: str | None = field("i:c", default=None)
    size: int = field("i:s", default=0)


@model(Table("soak_account", [Family("a")]), key=Key(Str("account_id")))
class Account:
    """Versioned, with a unique value: double submits."""

    account_id: str
    email: str | None = field("a:e", default=None)
    version: int = version_field("a:v")


def item_indexes() -> list[Index[Item]]:
    table = Table("soak_item_by_colour", [Family("x")])
    return [Index(Item, on=["colour"], table=table, covering=["size"], salt=2, grace=GRACE)]


def account_indexes() -> list[Index[Account]]:
    table = Table("soak_account_by_email", [Family("x")])
    return [Index(Account, on=["email"], table=table, unique=True, grace=GRACE)]


def state(kind: str, obj: Any) -> State:
    """The values of ``obj`` the soak follows (``None``: no row)."""
    if obj is None:
        return None
    if kind == "order":
        return (obj.status, obj.total, obj.customer)
    if kind == "item":
        return (obj.colour, obj.size)
    if kind == "user":
        return (obj.nickname,)
    return (obj.email,)


class RecordingStamps(WriteStamps):
    """Write stamps that remember, per thread, the stamps handed out (a write's tags)."""

    def __init__(self, clock: ManualClock) -> None:
        super().__init__(clock)
        self._mine = threading.local()

    def next(self, count: int = 1, *, after: int = 0, rows: Iterable[bytes] | None = None) -> int:
        """See :meth:`WriteStamps.next`; the stamps are also remembered for this thread."""
        first = super().next(count, after=after, rows=rows)
        self.taken().extend(range(first, first + count))
        return first

    def taken(self) -> list[int]:
        """The stamps handed out to this thread since :meth:`forget`."""
        if not hasattr(self._mine, "tags"):
            self._mine.tags = []
        tags: list[int] = self._mine.tags
        return tags

    def forget(self) -> None:
        """Start a new record for this thread."""
        self._mine.tags = []


class TickingFaults(RandomFaultBackend):
    """Random faults, and the shared clock ticks a millisecond per call while enabled."""

    def _forward(
        self, method: str, call: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        if self.enabled and self.clock is not None:
            self.clock.advance(1)
        return super()._forward(method, call, *args, **kwargs)


@attrs.define
class RowBook:
    """What the threads know of one row (see :class:`Book`)."""

    possible: set[State] = attrs.field(factory=lambda: {None})
    active: dict[int, State] = attrs.field(factory=dict)
    overlapped: set[int] = attrs.field(factory=set)
    epoch: int = 0
    log: list[tuple[int, State]] = attrs.field(factory=list)
    lost: bool = False
    #: What each write of the row did, in the order they ended (for failure reports).
    history: list[str] = attrs.field(factory=list)


@attrs.frozen
class Seen:
    """A row's book as a query started: its epoch and every state it could show.

    ``lost``: the row's last write raised ``ClaimLostError`` (see :class:`Book`).
    """

    epoch: int
    states: frozenset[State]
    quiet: bool
    lost: bool


class Book:
    """The committed state of every row, as far as the threads can know it (thread-safe).

    An operation ``begin``s with its new state and ``end``s with an outcome: ``done`` (it
    happened), ``maybe`` (it raised a backend error: it may or may not have), ``none``
    (refused: nothing written), ``lost`` (``ClaimLostError``: it happened, but its unique
    value's row was taken over by another row's write, so a query of the value may not
    find this row until a later write of it; docs/indexes.md). A ``done`` (or ``lost``)
    write no other write of the row overlapped decides the row's state (its tag is the
    greatest); otherwise its state joins the possible ones.
    """

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], RowBook] = {}
        self._lock = threading.Lock()
        self._ids = 0

    def add(self, kind: str, key: str) -> None:
        self.rows[kind, key] = RowBook()

    def begin(self, kind: str, key: str, new: State) -> int:
        with self._lock:
            self._ids += 1
            book = self.rows[kind, key]
            if book.active:
                book.overlapped.update(book.active)
                book.overlapped.add(self._ids)
            book.active[self._ids] = new
            book.epoch += 1
            book.log.append((book.epoch, new))
            return self._ids

    def end(self, kind: str, key: str, op: int, outcome: str, note: str = "") -> None:
        with self._lock:
            book = self.rows[kind, key]
            book.history.append(f"#{op} {book.active[op]} {outcome} {note}".rstrip())
            new = book.active.pop(op)
            alone = op not in book.overlapped
            book.overlapped.discard(op)
            if outcome in ("done", "lost") and alone:
                book.possible = {new}
                book.lost = outcome == "lost"
            elif outcome != "none":
                book.possible.add(new)
                book.lost = book.lost or outcome == "lost"
            book.epoch += 1

    def history(self, kind: str, key: str, last: int = 12) -> list[str]:
        """The last ``last`` writes of a row as they ended (see :meth:`end`)."""
        with self._lock:
            return list(self.rows[kind, key].history[-last:])

    def possible(self, kind: str, key: str) -> set[State]:
        with self._lock:
            return set(self.rows[kind, key].possible)

    def seen(self, kind: str) -> dict[str, Seen]:
        """Every row of ``kind`` as a query starts."""
        with self._lock:
            return {
                key: Seen(
                    b.epoch, frozenset(b.possible | set(b.active.values())), not b.active, b.lost
                )
                for (k, key), b in self.rows.items()
                if k == kind
            }

    def during(self, kind: str, before: dict[str, Seen]) -> dict[str, tuple[set[State], bool]]:
        """Per row: every state it could show during the query, and whether it stood still."""
        out: dict[str, tuple[set[State], bool]] = {}
        with self._lock:
            for key, was in before.items():
                book = self.rows[kind, key]
                states = set(was.states) | book.possible | set(book.active.values())
                for epoch, new in reversed(book.log):
                    if epoch <= was.epoch:
                        break
                    states.add(new)
                out[key] = (states, was.quiet and book.epoch == was.epoch)
        return out


@attrs.define
class SoakFigures(Figures):
    """What a soak did and found; every violation counter must stay 0."""

    threads: int = 0
    refused: int = 0
    refused_checked: int = 0
    claim_lost: int = 0
    claim_lost_in_stall: int = 0
    pauses: int = 0
    wrong: int = 0
    missed: int = 0
    duplicates: int = 0
    duplicates_after_claim_lost: int = 0
    missed_after_claim_lost: int = 0
    refused_wrote: int = 0
    refused_left_claim_after_fault: int = 0
    refused_entry_repaired: int = 0
    refused_claim_given_back_by_other: int = 0
    foreign: int = 0
    covering_stale: int = 0
    final_exact: bool = False
    by_op: dict[str, int] = attrs.field(factory=dict)


class Soak:
    """8 writer-reader threads over every index pattern, with all five fault kinds."""

    def __init__(
        self,
        inner: Backend,
        *,
        seed: int,
        rate: float,
        weights: dict[str, float] | None = None,
    ) -> None:
        self.inner = inner
        self.seed = seed
        self.clock = ManualClock(1_700_000_000_000)
        self.stamps = RecordingStamps(self.clock)
        self.faulty = TickingFaults(
            inner,
            seed=seed,
            rate=rate,
            methods=WRITES | {"get", "scan"},
            clock=self.clock,
            stall=STALL,
            weights=weights,
        )
        self.repos: dict[str, IndexedRepository[Any]] = {}
        self.checkers: dict[str, IndexedRepository[Any]] = {}
        specs: list[tuple[str, type[Any], Callable[[], Sequence[Index[Any]]]]] = [
            ("order", Order, order_indexes),
            ("item", Item, item_indexes),
            ("user", User, user_indexes),
            ("account", Account, account_indexes),
        ]
        for kind, cls, indexes in specs:
            self.repos[kind] = IndexedRepository(
                Repository(cls, self.faulty, stamps=self.stamps), list(indexes())
            )
            # Fault-free, for the checks at pauses and at the end (same clock and stamps).
            self.checkers[kind] = IndexedRepository(
                Repository(cls, inner, stamps=self.stamps), list(indexes())
            )
            self.checkers[kind].create_tables()
        self.book = Book()
        self.figures = SoakFigures()
        self.claim_lost_values: set[tuple[str, Any]] = set()
        self.duplicates_seen: list[tuple[str, Any, list[str]]] = []
        self._lock = threading.Lock()

    # --- bookkeeping --------------------------------------------------------------------

    def count(self, name: str, amount: int = 1) -> None:
        with self._lock:
            setattr(self.figures, name, getattr(self.figures, name) + amount)

    def fail(
        self, counter: str | None, message: str, *, row: tuple[str, str] | None = None
    ) -> None:
        """Record a violation; with ``row``, the seed and the row's last writes too.

        The threads interleave differently in every run, so the seed alone does not
        replay one: the writes of the row (state, outcome, tags, faults, clock) are what
        locate the interleaving.
        """
        if row is not None:
            writes = "\n    ".join(self.book.history(*row))
            message = f"{message}\n  seed {self.seed}, the last writes of {row}:\n    {writes}"
        with self._lock:
            if counter is not None:
                setattr(self.figures, counter, getattr(self.figures, counter) + 1)
            if len(self.figures.failures) < 200:
                self.figures.failures.append(message)

    def truth(self, kind: str, key: str) -> Any:
        repo = self.checkers[kind].repository
        return repo.get(**{repo.info.key.fields[0]: key})

    # --- writes -------------------------------------------------------------------------

    def write(self, kind: str, key: str, new: State, label: str, action: Callable[[], Any]) -> None:
        """Run one save or delete of row ``key`` and classify how it ended."""
        op = self.book.begin(kind, key, new)
        self.stamps.forget()
        faults = self.faulty.faults_here
        stalls = self.faulty.injected["stall"]
        started = self.clock()
        outcome = "none"
        self.count("ops")
        with self._lock:
            self.figures.by_op[label] = self.figures.by_op.get(label, 0) + 1
        try:
            action()
            outcome = "done"
        except ClaimLostError:
            outcome = "lost"  # the data row was written; its value's row names another row
            self.count("claim_lost")
            value = (new or (None,))[0]
            with self._lock:
                self.claim_lost_values.add((kind, value))
            if self.faulty.injected["stall"] > stalls and self.clock() - started > GRACE_MS:
                self.count("claim_lost_in_stall")
            else:
                self.fail(
                    None,
                    f"{kind} {key}: ClaimLostError with no stall in its window",
                    row=(kind, key),
                )
        except (ConflictError, ValidationError) as exc:
            self.count("unique_refused" if isinstance(exc, UniqueViolationError) else "refused")
            self.check_refused(kind, key, faulted=self.faulty.faults_here > faults)
        except BackendError:
            outcome = "maybe"
            self.count("raised")
        except HModelError as exc:
            outcome = "maybe"
            self.fail(None, f"{kind} {key} {label}: unexpected {exc!r}", row=(kind, key))
        finally:
            tags = self.stamps.taken()
            note = (
                f"{label} tags {tags[0] if tags else '-'}..{tags[-1] if tags else '-'} "
                f"faults {self.faulty.faults_here - faults} "
                f"clock {started}..{self.clock()}"
            )
            self.book.end(kind, key, op, outcome, note)

    def check_refused(self, kind: str, key: str, *, faulted: bool) -> None:
        """A refused save or delete wrote no data cell, no claim, no verified entry."""
        tags = set(self.stamps.taken())
        if not tags:
            return  # refused before reserving a stamp: it cannot have written anything
        self.count("refused_checked")
        indexed = self.checkers[kind]
        repo = indexed.repository
        row = repo.info.key.encode({repo.info.key.fields[0]: key})
        for result in self.inner.get(repo.table, [row]):
            stamped = sorted(c.timestamp for c in result.cells.values() if c.timestamp in tags)
            if stamped:
                self.fail(
                    "refused_wrote",
                    f"refused {kind} {key} wrote data cells at {stamped}",
                    row=(kind, key),
                )
        for index in indexed.indexes.values():
            for result in self.inner.scan(index.table.full_name, Scan()):
                try:
                    entry = parse_result(index, result)
                except DecodeError:
                    continue
                if entry is None or entry.data_row != row or entry.tag not in tags:
                    continue
                if index.unique and not entry.verified and faulted:
                    # Its clean-up (giving the claim back) failed by an injected fault.
                    self.count("refused_left_claim_after_fault")
                elif index.unique and not entry.verified and self.clock() - entry.tag > GRACE_MS:
                    # Past the grace (a stall) another write may have taken the claim over,
                    # so this write's give-back found it gone; that write, refused too, then
                    # gave back what it had replaced: this claim (docs/indexes.md, "refused
                    # saves"; the explorer's stall scenarios check the interleaving).
                    self.count("refused_claim_given_back_by_other")
                elif index.unique or entry.verified:
                    obj = indexed.load_rows([row])[row]
                    if entry.verified and index.points_at(entry, obj):
                        # A read repair verified it from the data row (an entry the
                        # refused write re-marked, past the grace): right, not its write.
                        self.count("refused_entry_repaired")
                    else:
                        self.fail(
                            "refused_wrote", f"refused {kind} {key} left {entry}", row=(kind, key)
                        )

    def order_op(self, rng: random.Random, key: str) -> None:
        repo = self.repos["order"]
        current = self.truth("order", key)
        if current is None:
            obj = Order(
                order_id=key,
                status=rng.choice(STATUSES),
                total=rng.randrange(20),
                customer=rng.choice(CUSTOMERS),
            )
            self.write("order", key, state("order", obj), "order create", lambda: repo.save(obj))
            return
        roll = rng.random()
        if roll < 0.15:
            self.write("order", key, None, "order delete", lambda: repo.delete(current))
            return
        if roll < 0.6:
            current.status = rng.choice(STATUSES)
        elif roll < 0.8:
            current.total = rng.randrange(20)
        else:
            current.customer = rng.choice((*CUSTOMERS, None))
        self.write("order", key, state("order", current), "order save", lambda: repo.save(current))

    def item_op(self, rng: random.Random, key: str) -> None:
        repo = self.repos["item"]
        current = self.truth("item", key)
        roll = rng.random()
        if current is None:
            obj = Item(item_id=key, colour=rng.choice(COLOURS), size=rng.randrange(9))
            self.write("item", key, state("item", obj), "item create", lambda: repo.save(obj))
        elif roll < 0.15:
            self.write("item", key, None, "item delete", lambda: repo.delete(current))
        elif roll < 0.17:
            bad = Item(item_id=key, colour=TOO_LONG, size=current.size)
            self.write("item", key, state("item", bad), "item invalid", lambda: repo.save(bad))
        else:
            if roll < 0.6:
                current.colour = rng.choice((*COLOURS, None))
            else:
                current.size = rng.randrange(9)
            self.write("item", key, state("item", current), "item save", lambda: repo.save(current))

    def user_op(self, rng: random.Random, key: str) -> None:
        repo = self.repos["user"]
        current = self.truth("user", key)
        if current is not None and rng.random() < 0.15:
            self.write("user", key, None, "user delete", lambda: repo.delete(current))
            return
        obj = User(user_id=key, nickname=rng.choice((*NICKS, None)))
        self.write("user", key, state("user", obj), "user save", lambda: repo.save(obj))

    def account_op(self, rng: random.Random, key: str) -> None:
        repo = self.repos["account"]
        current = self.truth("account", key)
        if current is None:
            # (A versioned row of None values only reads as no row: give it a value.)
            obj = Account(account_id=key, email=EMAILS[int(key[-1]) % len(EMAILS)])
            self.write(
                "account", key, state("account", obj), "account create", lambda: repo.save(obj)
            )
        elif rng.random() < 0.1:
            self.write("account", key, None, "account delete", lambda: repo.delete(current))
        else:
            # Every save of one version picks the same new email: concurrent saves of one
            # read are double submits of one new unique value.
            current.email = EMAILS[(current.version + int(key[-1])) % len(EMAILS)]
            self.write(
                "account",
                key,
                state("account", current),
                "account save",
                lambda: repo.save(current),
            )

    # --- reads --------------------------------------------------------------------------

    def query(self, rng: random.Random) -> None:
        roll = rng.random()
        self.count("queries")
        try:
            if roll < 0.2:
                self.query_status(rng, covered=False)
            elif roll < 0.35:
                self.query_status(rng, covered=True)
            elif roll < 0.5:
                self.query_customer(rng)
            elif roll < 0.65:
                self.query_colour(rng, covered=False)
            elif roll < 0.75:
                self.query_colour(rng, covered=True)
            elif roll < 0.9:
                self.query_unique(rng, "user", "user_by_nick", "nickname", NICKS)
            else:
                self.query_unique(rng, "account", "soak_account_by_email", "email", EMAILS)
        except BackendError:
            self.count("query_errors")

    def judge(
        self,
        kind: str,
        what: str,
        before: dict[str, Seen],
        got: dict[str, State],
        matches: Callable[[State], bool],
        *,
        exact: Callable[[State, State], bool] | None,
    ) -> None:
        """Check a query's rows: each right and once committed, no settled row missed.

        ``got`` maps keys to the state served (a covering read: the values it served);
        ``exact`` compares a served state with a committed one (``None``: not compared,
        a covering read of a model without a version field, documented as best effort).
        """
        during = self.book.during(kind, before)
        for key, served in got.items():
            self.count("checked_rows")
            if not matches(served):
                self.fail("wrong", f"{what} returned {key} as {served}", row=(kind, key))
                continue
            states = during[key][0]
            if exact is not None and not any(exact(served, s) for s in states):
                self.fail(
                    "wrong",
                    f"{what} returned {key} as {served}, never committed {states}",
                    row=(kind, key),
                )
            elif exact is None and served not in states:
                self.count("covering_stale")
        for key, (states, quiet) in during.items():
            if quiet and key not in got and all(matches(s) for s in states):
                self.fail("missed", f"{what} missed {key} (committed {states})", row=(kind, key))

    def query_status(self, rng: random.Random, *, covered: bool) -> None:
        status = rng.choice(STATUSES)
        size = rng.randrange(1, 8)
        repo = self.repos["order"]
        before = self.book.seen("order")
        got: dict[str, State]
        if covered:
            found = fetch_all(
                lambda t: repo.page_covered("order_by_status", size, {"status": status}, token=t)
            )
            got = {d["order_id"]: (d["status"], d["total"]) for d in found}
        else:
            models = fetch_all(
                lambda t: repo.page("order_by_status", size, {"status": status}, token=t)
            )
            got = {o.order_id: state("order", o) for o in models}
        self.judge(
            "order",
            f"status={status}{' covered' if covered else ''}",
            before,
            got,
            lambda s: s is not None and s[0] == status,
            exact=lambda served, s: s is not None and served == s[: len(served)],
        )

    def query_customer(self, rng: random.Random) -> None:
        customer = rng.choice(CUSTOMERS)
        low, high = sorted((rng.randrange(20), rng.randrange(21)))
        before = self.book.seen("order")
        found = self.repos["order"].find(
            "order_by_customer", {"customer": customer}, low=low, high=high
        )
        self.judge(
            "order",
            f"customer={customer} [{low}, {high})",
            before,
            {o.order_id: state("order", o) for o in found},
            lambda s: s is not None and s[2] == customer and low <= s[1] < high,
            exact=lambda served, s: served == s,
        )

    def query_colour(self, rng: random.Random, *, covered: bool) -> None:
        colour = rng.choice(COLOURS)
        size = rng.randrange(1, 6)
        repo = self.repos["item"]
        before = self.book.seen("item")
        got: dict[str, State]
        if covered:
            found = fetch_all(
                lambda t: repo.page_covered(
                    "soak_item_by_colour", size, {"colour": colour}, token=t
                )
            )
            got = {d["item_id"]: (d["colour"], d["size"]) for d in found}
        else:
            models = fetch_all(
                lambda t: repo.page("soak_item_by_colour", size, {"colour": colour}, token=t)
            )
            got = {o.item_id: state("item", o) for o in models}
        self.judge(
            "item",
            f"colour={colour}{' covered' if covered else ''}",
            before,
            got,
            lambda s: s is not None and s[0] == colour,
            exact=None if covered else (lambda served, s: served == s),
        )

    def query_unique(
        self, rng: random.Random, kind: str, index: str, name: str, values: Sequence[str]
    ) -> None:
        value = rng.choice(values)
        before = self.book.seen(kind)
        holder = self.repos[kind].get_unique(index, **{name: value})
        got: dict[str, State] = {}
        if holder is not None:
            repo = self.repos[kind].repository
            got[repo.mapper.key_values(holder)[repo.info.key.fields[0]]] = state(kind, holder)
        during = self.book.during(kind, before)
        for key, served in got.items():
            self.count("checked_rows")
            if served is None or served[0] != value or served not in during[key][0]:
                self.fail(
                    "wrong", f"get_unique {value} returned {key} as {served}", row=(kind, key)
                )
        if holder is None:
            for key, (states, quiet) in during.items():
                if quiet and all(s is not None and s[0] == value for s in states):
                    if before[key].lost:
                        # Documented: after ClaimLostError the value's row names the row
                        # that took it over (or is released once that row changes).
                        self.count("missed_after_claim_lost")
                    else:
                        self.fail(
                            "missed", f"get_unique {value} missed {key} ({states})", row=(kind, key)
                        )

    # --- pauses: every thread stopped -----------------------------------------------------

    def settled_checks(self) -> None:
        """With no write in flight: no duplicate unique value, no index missing a row."""
        self.count("pauses")
        for kind, name in (("user", "nickname"), ("account", "email")):
            holders: dict[Any, list[str]] = {}
            repo = self.checkers[kind].repository
            for obj in repo.scan():
                value = getattr(obj, name)
                if value is not None:
                    key = repo.mapper.key_values(obj)[repo.info.key.fields[0]]
                    holders.setdefault(value, []).append(key)
            for value, keys in holders.items():
                if len(keys) > 1:
                    with self._lock:
                        self.duplicates_seen.append((kind, value, sorted(keys)))
        checks: list[tuple[str, str, str, Sequence[Any]]] = [
            ("order", "order_by_status", "status", STATUSES),
            ("order", "order_by_customer", "customer", CUSTOMERS),
            ("item", "soak_item_by_colour", "colour", COLOURS),
        ]
        for kind, index, name, values in checks:
            checker = self.checkers[kind]
            position = ["status", "total", "customer"] if kind == "order" else ["colour", "size"]
            at = position.index(name)
            for value in values:
                found = checker.find(index, {name: value})
                got = {
                    checker.repository.mapper.key_values(o)[
                        checker.repository.info.key.fields[0]
                    ]: state(kind, o)
                    for o in found
                }
                for key, served in got.items():
                    if served is None or served[at] != value:
                        self.fail(
                            "wrong",
                            f"pause: {index} {value} returned {key} as {served}",
                            row=(kind, key),
                        )
                for (k, key), _ in self.book.rows.items():
                    if k != kind:
                        continue
                    possible = self.book.possible(kind, key)
                    if key not in got and all(s is not None and s[at] == value for s in possible):
                        self.fail(
                            "missed",
                            f"pause: {index} {value} missed {key} ({possible})",
                            row=(kind, key),
                        )
                    if key in got and got[key] not in possible:
                        self.fail(
                            "wrong",
                            f"pause: {index} {key} as {got[key]} not in {possible}",
                            row=(kind, key),
                        )

    # --- the run ------------------------------------------------------------------------

    def worker(self, number: int, ops: int, barrier: threading.Barrier, pause_every: int) -> None:
        rng = random.Random(self.seed * 1000 + number)
        own = [f"t{number}-{i}" for i in range(6)]
        for op in range(ops):
            if op and op % pause_every == 0:
                barrier.wait()
            try:
                roll = rng.random()
                if roll < 0.3:
                    self.order_op(rng, rng.choice(own))
                elif roll < 0.4:
                    self.order_op(rng, f"s{rng.randrange(4)}")
                elif roll < 0.6:
                    self.item_op(rng, f"i{rng.randrange(12)}")
                elif roll < 0.8:
                    self.user_op(rng, f"u{rng.randrange(12)}")
                else:
                    self.account_op(rng, f"a{rng.randrange(4)}")
                if rng.random() < 0.5:
                    self.query(rng)
            except Exception as exc:  # counted: there must be none
                self.fail("foreign", f"thread {number}: {exc!r}\n{traceback.format_exc()}")

    def keys(self, threads: int) -> None:
        for number in range(threads):
            for i in range(6):
                self.book.add("order", f"t{number}-{i}")
        for i in range(4):
            self.book.add("order", f"s{i}")
            self.book.add("account", f"a{i}")
        for i in range(12):
            self.book.add("item", f"i{i}")
            self.book.add("user", f"u{i}")

    def _barrier_action(self) -> None:
        try:
            self.settled_checks()
        except Exception as exc:  # counted: there must be none
            self.fail("foreign", f"pause: {exc!r}\n{traceback.format_exc()}")

    def run(self, *, threads: int, ops: int, pauses: int = 4) -> SoakFigures:
        """``threads`` threads, ``ops`` operations in all; returns the figures."""
        started = time.monotonic()
        self.figures.threads = threads
        self.keys(threads)
        each = ops // threads
        pause_every = max(1, each // (pauses + 1))
        barrier = threading.Barrier(threads, action=self._barrier_action)
        workers = [
            threading.Thread(target=self.worker, args=(n, each, barrier, pause_every))
            for n in range(threads)
        ]
        for thread in workers:
            thread.start()
        for thread in workers:
            thread.join()
        self.faulty.enabled = False
        self.finish()
        self.figures.seconds = round(time.monotonic() - started, 1)
        return self.figures

    def finish(self) -> None:
        """Faults off: settle, resolve lost claims' duplicates, verify, rebuild, verify."""
        figures = self.figures
        figures.faults = dict(self.faulty.injected)
        figures.stats = {}
        for indexed in self.repos.values():
            for name, value in indexed.stats.as_dict().items():
                figures.stats[name] = figures.stats.get(name, 0) + value
        self.clock.advance(round(STALL.total_seconds() * 1000))  # every write is done
        self.settled_checks()
        for kind, value, keys in self.duplicates_seen:
            if (kind, value) in self.claim_lost_values:
                figures.duplicates_after_claim_lost += 1
            else:
                self.fail("duplicates", f"{kind}: {keys} share {value!r} (no ClaimLostError)")
        self.resolve_duplicates()
        indexes = [i for r in self.checkers.values() for i in r.indexes.values()]
        for index in indexes:
            figures.verify_before[index.name] = run_index_job(self.inner, index, "verify").counts
        for index in indexes:
            figures.rebuild[index.name] = run_index_job(self.inner, index, "rebuild").counts
        for index in indexes:
            figures.verify_after[index.name] = run_index_job(self.inner, index, "verify").counts
        self.final_checks()

    def resolve_duplicates(self) -> None:
        """What the docs tell an application after ``ClaimLostError``: change one row."""
        for kind, name in (("user", "nickname"), ("account", "email")):
            checker = self.checkers[kind]
            seen: set[Any] = set()
            for obj in list(checker.repository.scan()):
                value = getattr(obj, name)
                if value is None:
                    continue
                if value in seen:
                    setattr(obj, name, None)
                    checker.save(obj)
                seen.add(value)

    def final_checks(self) -> None:
        """After the rebuild every query equals the data table exactly."""
        ok = True
        specs: list[tuple[str, str, str, Sequence[Any], tuple[str, ...]]] = [
            ("order", "order_by_status", "status", STATUSES, ("total",)),
            ("item", "soak_item_by_colour", "colour", COLOURS, ("size",)),
        ]
        for kind, index, name, values, covering in specs:
            checker = self.checkers[kind]
            key = checker.repository.info.key.fields[0]
            rows = list(checker.repository.scan())
            for value in values:
                want = {
                    getattr(o, key): tuple(getattr(o, f) for f in covering)
                    for o in rows
                    if getattr(o, name) == value
                }
                found = {
                    getattr(o, key): tuple(getattr(o, f) for f in covering)
                    for o in checker.find(index, {name: value})
                }
                covered = {
                    d[key]: tuple(d[f] for f in covering)
                    for d in fetch_all(
                        lambda t, c=checker, i=index, n=name, v=value: c.page_covered(
                            i, 7, {n: v}, token=t
                        )
                    )
                }
                if found != want or covered != want:
                    ok = False
                    self.fail(None, f"final {index} {value}: {found} / {covered} != {want}")
        for kind, index, name in (
            ("user", "user_by_nick", "nickname"),
            ("account", "soak_account_by_email", "email"),
        ):
            checker = self.checkers[kind]
            for obj in checker.repository.scan():
                value = getattr(obj, name)
                if value is not None:
                    holder = checker.get_unique(index, **{name: value})
                    if holder != obj:
                        ok = False
                        self.fail(None, f"final {index} {value}: {holder} is not {obj}")
        self.figures.final_exact = ok
