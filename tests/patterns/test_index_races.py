"""Index writes racing each other and stalls past the grace: the defects of issue 16 (I1).

Each test pins one interleaving with FaultyBackend hooks (a second writer run at an exact
call of the first, or a paused thread resumed at an exact point), on every backend. The
tests taking ``edge`` run on the sync and the async edge (``tests/patterns/index_edges.py``:
a hook returns the other client's call, which the async wrapper awaits at that point).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from hmodel.backend.base import Backend, Put, Scan
from hmodel.clock import ManualClock
from hmodel.errors import (
    ClaimLostError,
    ConflictError,
    ConnectionLostError,
    DeclarationError,
    LeaseExpiredError,
    QueryError,
    UniqueViolationError,
    ValidationError,
)
from hmodel.keys import Str
from hmodel.patterns.index import Index
from hmodel.patterns.index_job import run_index_job
from hmodel.patterns.index_repository import IndexedRepository
from hmodel.repository import Repository
from hmodel.testing.fault import FaultyBackend
from tests.edges import Edge
from tests.patterns.index_edges import faulty as hooked
from tests.patterns.index_edges import indexed, plain, then
from tests.patterns.index_models import (
    BY_NICK,
    GRACE,
    Account,
    Item,
    Memo,
    Order,
    User,
    colour_index,
    customer_index,
    email_index,
    nick_index,
    status_index,
    tag_index,
)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_700_000_000_000)


def colour_repo(backend: Backend, clock: ManualClock) -> IndexedRepository[Item]:
    return IndexedRepository(Repository(Item, backend, clock=clock), [colour_index()])


def colours(edge: Edge, backend: Any, clock: ManualClock) -> Any:
    """The edge's indexed repository of items by colour over ``backend`` (tables created)."""
    return indexed(edge, Item, [colour_index()], backend=backend, clock=clock)


def nicks(edge: Edge, backend: Any, clock: ManualClock) -> Any:
    """The edge's indexed repository of users by unique nickname (grace ``GRACE``)."""
    index = Index(User, on=["nickname"], table=BY_NICK, unique=True, grace=GRACE)
    return indexed(edge, User, [index], backend=backend, clock=clock)


def account_repo(backend: Backend, clock: ManualClock) -> IndexedRepository[Account]:
    return IndexedRepository(Repository(Account, backend, clock=clock), [email_index()])


def nick_repo(backend: Backend, clock: ManualClock) -> IndexedRepository[User]:
    index = Index(User, on=["nickname"], table=BY_NICK, unique=True, grace=GRACE)
    return IndexedRepository(Repository(User, backend, clock=clock), [index])


class Paused:
    """Runs ``work`` in a thread that stops before its first ``method`` call on ``table``."""

    def __init__(
        self, faulty: FaultyBackend, method: str, table: str, work: Callable[[], Any]
    ) -> None:
        self.paused = threading.Event()
        self.go = threading.Event()
        self.error: BaseException | None = None
        self.result: Any = None

        def hold(name: str, args: tuple[Any, ...]) -> None:
            if args[0] == table and not self.paused.is_set():
                self.paused.set()
                assert self.go.wait(30), "never resumed"

        faulty.on(method, nth=0, before=hold)

        def run() -> None:
            try:
                self.result = work()
            except BaseException as exc:  # handed to the test thread
                self.error = exc

        self.thread = threading.Thread(target=run, daemon=True)

    def start_until_paused_or_done(self) -> None:
        self.thread.start()
        while not self.paused.wait(0.01):
            if not self.thread.is_alive():
                return

    def finish(self) -> None:
        self.go.set()
        self.thread.join(30)
        assert not self.thread.is_alive()


def test_a_double_submit_of_a_new_unique_value_keeps_the_value_owned(
    backend: Backend, clock: ManualClock
) -> None:
    """Defect 1: B claims the value A claimed for the same row; A's claim must survive B."""
    setup = account_repo(backend, clock)
    setup.create_tables()
    setup.save(Account(account_id="a1", email="old@x"))
    faulty_a, faulty_b = FaultyBackend(backend), FaultyBackend(backend)
    repo_a, repo_b = account_repo(faulty_a, clock), account_repo(faulty_b, clock)
    first = repo_a.repository.get(account_id="a1")
    second = repo_b.repository.get(account_id="a1")
    assert first is not None and second is not None
    first.email = second.email = "new@x"
    data_write = "check_and_mutate" if "check_and_mutate" in backend.capabilities else "mutate"
    b = Paused(faulty_b, data_write, "account", lambda: repo_b.save(second))

    def start_b(name: str, args: tuple[Any, ...]) -> None:
        if args[0] == "account_by_email" and not b.thread.is_alive() and b.error is None:
            b.start_until_paused_or_done()

    faulty_a.on("check_and_put", nth=1, after=start_b)
    repo_a.save(first)  # returns normally
    b.finish()
    assert isinstance(b.error, ConflictError)  # B refused: nothing written by it
    found = setup.get_unique("account_by_email", email="new@x")
    assert found is not None and found.account_id == "a1"
    with pytest.raises(UniqueViolationError):
        setup.save(Account(account_id="a2", email="new@x"))
    assert setup.get_unique("account_by_email", email="old@x") is None
    assert run_index_job(backend, email_index(), "verify").problems == 0


def test_a_non_covering_query_never_loses_a_row_to_a_writer_with_a_later_tag(
    edge: Edge, clock: ManualClock
) -> None:
    """Defect 2: an older-tagged write landing after a newer one must not unindex the row."""
    faulty = hooked(edge)
    slow, fast = colours(edge, faulty, clock), colours(edge, plain(edge), clock)
    edge.call(slow.save(Item(item_id="i1", colour="red", size=1)))

    def overtake(name: str, args: tuple[Any, ...]) -> Any:
        assert args[0] == "item_by_colour"
        return fast.save(Item(item_id="i1", colour="blue", size=3))  # a later tag, all done

    faulty.on("mutate", nth=1, after=overtake)  # after the slow save's step 1
    edge.call(slow.save(Item(item_id="i1", colour="red", size=2)))
    stored = edge.call(fast.repository.get(item_id="i1"))
    assert stored is not None
    for colour in ("red", "blue"):
        found = [o.item_id for o in edge.call(fast.find("item_by_colour", {"colour": colour}))]
        assert found == (["i1"] if stored.colour == colour else [])
    assert run_index_job(edge.backend, colour_index(), "verify").counts["missing"] == 0


def overtaker(
    clock: ManualClock, other: Any, make: Callable[[], Any] | None = None
) -> Callable[[str, tuple[Any, ...]], Any]:
    """A hook: the clock passes the grace, then ``other`` saves ``make()`` (either edge):
    by default u2 taking "bob".
    """

    def run(name: str, args: tuple[Any, ...]) -> Any:
        clock.advance(seconds=GRACE.total_seconds() + 1)
        return other.save(make() if make is not None else User(user_id="u2", nickname="bob"))

    return run


def test_a_unique_claim_taken_over_during_a_stall_refuses_the_data_write(
    edge: Edge, clock: ManualClock
) -> None:
    """Defect 3: a write that stalled past the grace after its claim writes nothing."""
    faulty = hooked(edge)
    slow, other = nicks(edge, faulty, clock), nicks(edge, plain(edge), clock)
    faulty.on("check_and_put", nth=1, after=overtaker(clock, other))  # after the claim
    with pytest.raises(LeaseExpiredError, match="stalled"):
        edge.call(slow.save(User(user_id="u1", nickname="bob")))
    assert edge.call(slow.repository.get(user_id="u1")) is None  # nothing written
    holder = edge.call(other.get_unique("user_by_nick", nickname="bob"))
    assert holder is not None and holder.user_id == "u2"


def test_a_claim_lost_after_the_last_check_is_reported_as_written(
    edge: Edge, clock: ManualClock
) -> None:
    """Defect 3: past the last check the data row is written: ClaimLostError, not a refusal."""
    faulty = hooked(edge)
    slow, other = nicks(edge, faulty, clock), nicks(edge, plain(edge), clock)
    hook = overtaker(clock, other)
    faulty.on("mutate", nth=0, before=lambda n, a: hook(n, a) if a[0] == "user" else None)
    with pytest.raises(ClaimLostError):
        edge.call(slow.save(User(user_id="u1", nickname="bob")))
    faulty.hooks.clear()
    stored = edge.call(slow.repository.get(user_id="u1"))
    assert stored is not None and stored.nickname == "bob"  # the write happened
    report = run_index_job(edge.backend, nick_index(), "verify")
    assert report.counts["duplicates"] == 1  # what verify shows the operator


def emails(edge: Edge, backend: Any, clock: ManualClock) -> Any:
    """The edge's indexed repository of accounts (versioned) by unique email."""
    return indexed(edge, Account, [email_index()], backend=backend, clock=clock)


def before_data_write(faulty: Any, hook: Callable[[str, tuple[Any, ...]], Any]) -> None:
    """Run ``hook`` once, before the first conditional write of the account data table.

    That is the data write of a versioned save: a ``check_and_mutate``, or over Thrift1
    the claim of the version cell (a ``check_and_put``).
    """
    fired: list[bool] = []

    def once(name: str, args: tuple[Any, ...]) -> Any:
        if args[0] != "account" or fired:
            return None
        fired.append(True)
        return hook(name, args)

    for method in ("check_and_mutate", "check_and_put"):
        faulty.on(method, nth=0, before=once)


def takes_bob_over(clock: ManualClock, other: Any) -> Callable[[str, tuple[Any, ...]], Any]:
    """A hook: the clock passes the grace, then ``other`` saves a2 with "bob@x" (either edge)."""
    return overtaker(clock, other, lambda: Account(account_id="a2", email="bob@x"))


def test_a_stalled_insert_whose_claim_was_taken_over_is_fenced_and_writes_nothing(
    edge: Edge, clock: ManualClock
) -> None:
    """A versioned insert in transit past the grace loses its claim to another row, whose
    writer fences the insert's row first: the insert fails its check, nothing of it is
    written, one row holds the value (I1); the fenced row reads as absent, and takes a
    later insert.
    """
    faulty = hooked(edge)
    slow, other = emails(edge, faulty, clock), emails(edge, plain(edge), clock)
    before_data_write(faulty, takes_bob_over(clock, other))
    with pytest.raises(UniqueViolationError, match="fencing this write"):
        edge.call(slow.save(Account(account_id="a1", email="bob@x")))
    faulty.hooks.clear()
    row = other.repository.mapper.key_of_values({"account_id": "a1"})
    (fenced,) = edge.backend.get("account", [row], columns=[b"a:v"])
    raw = fenced.value(b"a:v") or b""
    assert raw[:1] == b"F" and len(raw) == 9  # the fence: b"F" + an 8-byte tag
    assert edge.call(other.repository.get(account_id="a1")) is None
    assert edge.call(other.repository.get_many([{"account_id": "a1"}])) == [None]
    holder = edge.call(other.get_unique("account_by_email", email="bob@x"))
    assert holder is not None and holder.account_id == "a2"
    assert run_index_job(edge.backend, email_index(), "verify").problems == 0
    again = edge.call(other.save(Account(account_id="a1", email="carl@x")))
    assert again.version > 0
    stored = edge.call(other.repository.get(account_id="a1"))
    assert stored is not None and stored.email == "carl@x"
    assert run_index_job(edge.backend, email_index(), "verify").problems == 0


def test_a_stalled_update_whose_claim_was_taken_over_is_fenced_and_writes_nothing(
    edge: Edge, clock: ManualClock
) -> None:
    """A versioned update in transit past the grace loses its claim to another row, whose
    writer first saves the updated row again at a version past the claim's tag: the
    update fails its version check and writes nothing; one row holds the value (I1).
    """
    setup = emails(edge, plain(edge), clock)
    edge.call(setup.save(Account(account_id="a1", email="amy@x")))
    faulty = hooked(edge)
    slow, other = emails(edge, faulty, clock), emails(edge, plain(edge), clock)
    mine = edge.call(slow.repository.get(account_id="a1"))
    assert mine is not None
    before = mine.version
    mine.email = "bob@x"
    before_data_write(faulty, takes_bob_over(clock, other))
    with pytest.raises(UniqueViolationError, match="fencing this write"):
        edge.call(slow.save(mine))
    faulty.hooks.clear()
    stored = edge.call(other.repository.get(account_id="a1"))
    assert stored is not None and stored.email == "amy@x" and stored.version > before
    holder = edge.call(other.get_unique("account_by_email", email="bob@x"))
    assert holder is not None and holder.account_id == "a2"
    kept = edge.call(other.get_unique("account_by_email", email="amy@x"))
    assert kept is not None and kept.account_id == "a1"
    assert run_index_job(edge.backend, email_index(), "verify").problems == 0


def test_a_claim_taken_over_by_another_write_of_the_same_row_is_no_lost_claim(
    backend: Backend, clock: ManualClock
) -> None:
    """A save stalled past the grace whose claim a second save of the same row took over
    (its data write not landed yet) lands and returns normally: the value stays the
    row's, so no ClaimLostError; the second save fails its version check (I1).
    """
    setup = account_repo(backend, clock)
    setup.create_tables()
    setup.save(Account(account_id="a1", email="amy@x"))
    faulty_a, faulty_b = FaultyBackend(backend), FaultyBackend(backend)
    repo_a, repo_b = account_repo(faulty_a, clock), account_repo(faulty_b, clock)
    first = repo_a.repository.get(account_id="a1")
    assert first is not None
    first.email = "bob@x"
    # the data write of a versioned save; over Thrift1 its claim of the version cell
    data_write = (
        "check_and_mutate" if "check_and_mutate" in backend.capabilities else "check_and_put"
    )

    def second_save() -> Any:
        again = repo_b.repository.get(account_id="a1")
        assert again is not None
        again.email = "bob@x"
        return repo_b.save(again)

    b = Paused(faulty_b, data_write, "account", second_save)

    def stall(name: str, args: tuple[Any, ...]) -> None:
        if args[0] == "account" and not b.thread.is_alive() and b.error is None:
            clock.advance(seconds=GRACE.total_seconds() + 1)
            b.start_until_paused_or_done()  # b took a's claim over, its data write held

    before_data_write(faulty_a, stall)
    repo_a.save(first)  # lands, and returns normally
    b.finish()
    assert isinstance(b.error, ConflictError)  # b's version check failed: nothing written
    stored = setup.repository.get(account_id="a1")
    assert stored is not None and stored.email == "bob@x"
    found = setup.get_unique("account_by_email", email="bob@x")
    assert found is not None and found.account_id == "a1"
    clock.advance(seconds=GRACE.total_seconds() + 1)
    run_index_job(backend, email_index(), "rebuild", clock=clock)
    assert run_index_job(backend, email_index(), "verify", clock=clock).problems == 0


def test_a_rebuild_gives_a_stalled_claim_away_only_after_fencing_its_row(
    backend: Backend, clock: ManualClock
) -> None:
    """A rebuild run while a versioned insert is in transit past the grace, another row
    holding the value (written outside the index): the rebuild fences the insert's row
    before it releases or hands over the claim, so the insert can never land (I1, I3).
    """
    faulty = FaultyBackend(backend)
    slow = account_repo(faulty, clock)
    slow.create_tables()
    outside = Repository(Account, backend, clock=clock)

    def meanwhile(name: str, args: tuple[Any, ...]) -> None:
        clock.advance(seconds=GRACE.total_seconds() + 1)
        outside.save(Account(account_id="a2", email="bob@x"))  # no claim: the index lags
        run_index_job(backend, email_index(), "rebuild", clock=clock)

    before_data_write(faulty, meanwhile)
    with pytest.raises(UniqueViolationError, match="fencing this write"):
        slow.save(Account(account_id="a1", email="bob@x"))
    faulty.hooks.clear()
    assert slow.repository.get(account_id="a1") is None
    holder = slow.get_unique("account_by_email", email="bob@x")
    assert holder is not None and holder.account_id == "a2"
    assert run_index_job(backend, email_index(), "verify", clock=clock).problems == 0


def test_a_row_whose_claim_was_lost_is_found_again_once_saved_again(
    edge: Edge, clock: ManualClock
) -> None:
    """Soak finding: after ClaimLostError the value's row names the other row; once that
    row changes its value and releases the row, no claim names the lost row, so
    ``get_unique`` misses it (``verify``: ``missing``) until it is saved again.
    """
    faulty = hooked(edge)
    slow, other = nicks(edge, faulty, clock), nicks(edge, plain(edge), clock)
    hook = overtaker(clock, other)  # u2 takes "bob" over while u1's data write is in transit
    faulty.on("mutate", nth=0, before=lambda n, a: hook(n, a) if a[0] == "user" else None)
    with pytest.raises(ClaimLostError):
        edge.call(slow.save(User(user_id="u1", nickname="bob")))
    faulty.hooks.clear()
    edge.call(other.save(User(user_id="u2", nickname="rob")))  # "bob" released
    lost = edge.call(other.repository.get(user_id="u1"))
    assert lost is not None and lost.nickname == "bob"
    assert edge.call(other.get_unique("user_by_nick", nickname="bob")) is None  # the miss
    assert run_index_job(edge.backend, nick_index(), "verify").counts["missing"] == 1
    edge.call(other.save(lost))  # what docs/indexes.md tells the application: save it again
    holder = edge.call(other.get_unique("user_by_nick", nickname="bob"))
    assert holder is not None and holder.user_id == "u1"
    assert run_index_job(edge.backend, nick_index(), "verify").problems == 0


def test_an_insert_hidden_behind_a_later_delete_never_verifies_its_entry(
    edge: Edge, clock: ManualClock
) -> None:
    """Soak finding: an insert is stamped before another writer creates the row and a
    third deletes it; the insert lands after the delete (its check finds no row, as it
    expects) and its cells stay hidden behind the delete marker, which has the later
    stamp. Its entry must stay unverified: a covering query must not serve the values
    of a data row that never showed them.
    """
    faulty = hooked(edge)
    slow = indexed(edge, Order, [status_index()], backend=faulty, clock=clock)
    other = indexed(edge, Order, [status_index()], clock=clock)

    def create_then_delete(name: str, args: tuple[Any, ...]) -> Any:
        assert args[0] == "order"
        saved = other.save(Order(order_id="o1", status="shipped", total=9))
        return then(edge, saved, other.delete)

    # The slow insert's first call on the data table (its data write; over Thrift1 the
    # claim of its version cell) is in transit while the others create and delete.
    faulty.on("check_and_mutate" if slow.atomic else "check_and_put", before=create_then_delete)
    edge.call(slow.save(Order(order_id="o1", status="paid", total=0)))
    # Hidden: the delete's stamp is later.
    assert edge.call(other.repository.get(order_id="o1")) is None
    assert edge.call(other.page_covered("order_by_status", 10, {"status": "paid"})).items == []
    assert edge.call(other.find("order_by_status", {"status": "paid"})) == []
    assert slow.stats.hidden_inserts == 1
    run_index_job(edge.backend, status_index(), "rebuild", clock=clock)
    assert run_index_job(edge.backend, status_index(), "verify", clock=clock).problems == 0
    # The row reads as absent, so an insert recreates it (over Thrift1 it replaces the
    # version cell left showing; it was refused with RowExistsError forever).
    clock.advance(seconds=1)
    again = edge.call(other.save(Order(order_id="o1", status="new", total=1)))
    assert edge.call(slow.repository.get(order_id="o1")) == again
    assert [o.order_id for o in edge.call(other.find("order_by_status", {"status": "new"}))] == [
        "o1"
    ]


def test_an_insert_hidden_behind_a_later_delete_on_a_row_that_may_be_empty(
    edge: Edge, clock: ManualClock
) -> None:
    """The race above on a model whose every field may be ``None``. Over Thrift1 the
    server stamps the version cell, so the hidden insert's version shows with none of its
    values (a row saved with every field ``None`` looks alike); the atomic protocol hides
    it whole. Either way the insert's entry must stay unverified (the row does not hold
    its value), and a row holding no data cell of a model with a required field reads as
    absent (the test above).
    """
    faulty = hooked(edge)
    slow = indexed(edge, Memo, [tag_index()], backend=faulty, clock=clock)
    other = indexed(edge, Memo, [tag_index()], clock=clock)

    def create_then_delete(name: str, args: tuple[Any, ...]) -> Any:
        assert args[0] == "memo"
        saved = other.save(Memo(memo_id="m1", tag="b"))
        return then(edge, saved, other.delete)

    faulty.on("check_and_mutate" if slow.atomic else "check_and_put", before=create_then_delete)
    edge.call(slow.save(Memo(memo_id="m1", tag="a")))
    got = edge.call(other.repository.get(memo_id="m1"))
    if slow.atomic:
        assert got is None
    else:
        assert got is not None and got.tag is None and got.version > 0
    assert edge.call(other.page_covered("memo_by_tag", 10, {"tag": "a"})).items == []
    assert edge.call(other.find("memo_by_tag", {"tag": "a"})) == []
    assert slow.stats.hidden_inserts == 1
    run_index_job(edge.backend, tag_index(), "rebuild", clock=clock)
    assert run_index_job(edge.backend, tag_index(), "verify", clock=clock).problems == 0


def test_a_write_superseded_by_a_later_write_of_its_row_is_not_a_lost_claim(
    edge: Edge, clock: ManualClock
) -> None:
    """Soak finding (the unique-fence soak on the memory engine, in CI): a write stalled
    past the grace lands its data; a later write of the same row reads that data, takes
    the stalled write's claim over (a claim of its own row needs no fence) and releases
    the value. The first write's commit finds its claim gone, but no other row took the
    value: its row was superseded, and it returns normally (it raised ClaimLostError,
    "another row may hold the value").
    """
    faulty = hooked(edge)
    slow = indexed(edge, Account, [email_index()], backend=faulty, clock=clock)
    other = indexed(edge, Account, [email_index()], clock=clock)
    edge.call(other.save(Account(account_id="a1")))
    seen: list[str] = []
    # The data write (atomic), or the commit of the version cell (Thrift1): the data shows.
    landed = 1 if slow.atomic else 2

    def supersede(name: str, args: tuple[Any, ...]) -> Any:
        if args[0] != "account":
            return None
        seen.append(name)
        if len(seen) != landed:
            return None
        clock.advance(seconds=GRACE.total_seconds() + 1)

        def change(current: Account | None) -> Any:
            assert current is not None and current.email == "ann@x"
            current.email = "bob@x"
            return other.save(current)

        return then(edge, other.repository.get(account_id="a1"), change)

    faulty.on("check_and_mutate" if slow.atomic else "check_and_put", nth=0, after=supersede)
    mine = edge.call(slow.repository.get(account_id="a1"))
    mine.email = "ann@x"
    edge.call(slow.save(mine))  # returns normally: superseded, not lost
    assert len(seen) >= landed and slow.stats.superseded == 1
    assert edge.call(other.get_unique("account_by_email", email="ann@x")) is None
    holder = edge.call(other.get_unique("account_by_email", email="bob@x"))
    assert holder is not None and holder.account_id == "a1"
    assert run_index_job(edge.backend, email_index(), "verify", clock=clock).problems == 0


def test_a_refused_save_writes_no_index_entry(edge: Edge, clock: ManualClock) -> None:
    """Defect 4: refusals found without I/O (bad version, oversized index rowkey) write nothing."""
    orders = indexed(edge, Order, [status_index(), customer_index()], clock=clock)
    with pytest.raises(ValidationError):
        edge.call(orders.save(Order(order_id="o1", status="new", total=1, version=-1)))
    with pytest.raises(ValidationError, match="32767"):
        edge.call(orders.save(Order(order_id="o2", status="n" * 33_000, total=1)))
    for table in ("order", "order_by_status", "order_by_customer"):
        assert list(edge.backend.scan(table, Scan())) == []


def test_get_unique_refuses_missing_or_unknown_values(edge: Edge, clock: ManualClock) -> None:
    """Defect 5: get_unique with no value must not return an arbitrary row."""
    users = nicks(edge, plain(edge), clock)
    edge.call(users.save(User(user_id="u1", nickname="bob")))
    with pytest.raises(QueryError):
        edge.call(users.get_unique("user_by_nick"))
    with pytest.raises(QueryError):
        edge.call(users.get_unique("user_by_nick", nickname="bob", city="x"))


def test_a_failed_read_repair_still_answers(edge: Edge, clock: ManualClock) -> None:
    """Defect 12: a read whose best-effort repair fails answers anyway."""
    faulty = hooked(edge)
    items = colours(edge, faulty, clock)
    edge.call(items.save(Item(item_id="i1", colour="red")))
    # The writer dies after its data write, before step 3: both entries stay unverified.
    step_3 = ("check_and_mutate", 1) if items.atomic else ("mutate", 3)
    faulty.on(step_3[0], nth=step_3[1], fail=ConnectionLostError("down"))
    with pytest.raises(ConnectionLostError):
        edge.call(items.save(Item(item_id="i1", colour="blue")))
    clock.advance(seconds=GRACE.total_seconds() + 1)
    faulty.on(step_3[0], nth=0, fail=ConnectionLostError("down"))  # every repair fails
    found = edge.call(items.find("item_by_colour", {"colour": "blue"}))
    assert [o.item_id for o in found] == ["i1"]
    assert edge.call(items.find("item_by_colour", {"colour": "red"})) == []
    assert items.stats.repair_failed == 2


def test_a_reader_never_removes_the_entry_of_a_stalled_save(edge: Edge, clock: ManualClock) -> None:
    """Defect 12: a reader during a stall past the grace must not unindex the save's row.

    The reader sees the new entry unverified and past the grace, and a data row that
    still holds the old value; that row is older than the entry's tag, so the write may
    be landing: the reader defers (the save then lands and its entry is there).
    """
    faulty = hooked(edge)
    slow, reader = colours(edge, faulty, clock), colours(edge, plain(edge), clock)
    edge.call(slow.save(Item(item_id="i1", colour="red")))

    def check(found: list[Item]) -> None:
        assert found == []  # not yet
        assert reader.stats.repaired_deleted == 0
        assert reader.stats.repair_deferred == 1

    def stall_and_read(name: str, args: tuple[Any, ...]) -> Any:
        if args[0] != "item":
            return None
        clock.advance(seconds=GRACE.total_seconds() + 1)
        return then(edge, reader.find("item_by_colour", {"colour": "blue"}), check)

    faulty.on("mutate", nth=2, before=stall_and_read)  # its data write, past the lease check
    edge.call(slow.save(Item(item_id="i1", colour="blue")))
    found = edge.call(reader.find("item_by_colour", {"colour": "blue"}))
    assert [o.item_id for o in found] == ["i1"]
    assert edge.call(reader.find("item_by_colour", {"colour": "red"})) == []
    assert run_index_job(edge.backend, colour_index(), "verify").problems == 0


def test_an_index_value_that_does_not_encode_is_a_validation_error(
    edge: Edge, clock: ManualClock
) -> None:
    index = Index(Item, on=[Str("colour", width=2)], table=colour_index().table)
    items = indexed(edge, Item, [index], clock=clock)
    with pytest.raises(ValidationError, match="item_by_colour"):
        edge.call(items.save(Item(item_id="i1", colour="purple")))
    assert list(edge.backend.scan("item", Scan())) == []


def _stall_and_read_covered(
    edge: Edge, reader: Any, clock: ManualClock, colour: str
) -> Callable[[str, tuple[Any, ...]], Any]:
    def check(page: Any) -> None:
        # The data row still holds the old colour, but it is older than the entry's
        # tag: the reader serves it from the data row and leaves the entry unverified.
        assert [d["item_id"] for d in page.items] == ["i1"]
        assert reader.stats.repair_deferred == 1
        assert reader.stats.repaired_verified == 0

    def stall_and_read(name: str, args: tuple[Any, ...]) -> Any:
        if args[0] != "item":
            return None
        clock.advance(seconds=GRACE.total_seconds() + 1)
        return then(edge, reader.page_covered("item_by_colour", 5, {"colour": colour}), check)

    return stall_and_read


def test_a_stalled_save_deletes_its_old_entry_a_reader_verified_again(
    edge: Edge, clock: ManualClock
) -> None:
    """Soak finding: a reader re-verified the old entry during the stall; it must still go."""
    faulty = hooked(edge)
    slow, reader = colours(edge, faulty, clock), colours(edge, plain(edge), clock)
    edge.call(slow.save(Item(item_id="i1", colour="red", size=1)))
    faulty.on("mutate", nth=2, before=_stall_and_read_covered(edge, reader, clock, "red"))
    edge.call(slow.save(Item(item_id="i1", colour="blue", size=1)))
    assert edge.call(reader.page_covered("item_by_colour", 5, {"colour": "red"})).items == []
    blue = edge.call(reader.page_covered("item_by_colour", 5, {"colour": "blue"}))
    assert [d["item_id"] for d in blue] == ["i1"]
    assert run_index_job(edge.backend, colour_index(), "verify").problems == 0


def test_a_stalled_delete_deletes_the_entry_a_reader_verified_again(
    edge: Edge, clock: ManualClock
) -> None:
    """Soak finding: the same for a delete: no verified entry of a deleted row remains."""
    faulty = hooked(edge)
    slow, reader = colours(edge, faulty, clock), colours(edge, plain(edge), clock)
    saved = edge.call(slow.save(Item(item_id="i1", colour="red", size=1)))
    faulty.on("mutate", nth=2, before=_stall_and_read_covered(edge, reader, clock, "red"))
    edge.call(slow.delete(saved))
    assert edge.call(reader.page_covered("item_by_colour", 5, {"colour": "red"})).items == []
    assert run_index_job(edge.backend, colour_index(), "verify").problems == 0


def test_a_stalled_save_whose_claims_a_reader_verified_keeps_them_and_raises_nothing(
    edge: Edge, clock: ManualClock
) -> None:
    """Soak finding: a claim a reader re-verified during the stall is still this write's."""
    faulty = hooked(edge)
    slow, reader = nicks(edge, faulty, clock), nicks(edge, plain(edge), clock)
    edge.call(slow.save(User(user_id="u1", nickname="ann")))

    def ann_released(found: User | None) -> None:
        assert found is None

    def bob_verified(found: User | None) -> Any:
        assert found == User(user_id="u1", nickname="bob")
        return then(edge, reader.get_unique("user_by_nick", nickname="ann"), ann_released)

    def stall_and_read(name: str, args: tuple[Any, ...]) -> Any:
        clock.advance(seconds=GRACE.total_seconds() + 1)
        # The data row holds "bob" now: the reader verifies the claim of "bob" and
        # releases the claim of "ann".
        return then(edge, reader.get_unique("user_by_nick", nickname="bob"), bob_verified)

    # Claims of bob and ann, the data write, then step 3: verify bob (3rd check-and-put).
    faulty.on("check_and_put", nth=3, before=stall_and_read)
    edge.call(slow.save(User(user_id="u1", nickname="bob")))  # no ClaimLostError
    assert slow.stats.guard_refused == 0
    holder = edge.call(reader.get_unique("user_by_nick", nickname="bob"))
    assert holder == User(user_id="u1", nickname="bob")
    assert reader.stats.repaired_verified == 1 and reader.stats.repaired_deleted == 1
    assert run_index_job(edge.backend, nick_index(), "verify").problems == 0


@pytest.mark.requires("check_and_mutate")
def test_a_repair_never_verifies_an_entry_from_a_data_row_read_before_a_stalled_write_landed(
    backend: Backend, clock: ManualClock
) -> None:
    """Schedule: W re-marks red (step 1) and stalls past the grace; R reads the red entry
    and the data row (still red); W's data write (blue) lands and W dies before step 3.
    R's repair must not verify the red entry from the red row it read: that row is older
    than the entry's tag, so the repair is deferred (the entry stays unverified).
    """
    faulty_w, faulty_r = FaultyBackend(backend), FaultyBackend(backend)
    slow, reader = colour_repo(faulty_w, clock), colour_repo(faulty_r, clock)
    slow.create_tables()
    slow.save(Item(item_id="i1", colour="red", size=1))
    faulty_w.on("check_and_mutate", fail=ConnectionLostError("W dies before step 3"))
    w = Paused(faulty_w, "mutate", "item", lambda: slow.save(Item(item_id="i1", colour="blue")))
    w.start_until_paused_or_done()
    clock.advance(seconds=GRACE.total_seconds() + 1)
    # Any repair write of the reader happens after W's data landed (W resumed first).
    faulty_r.on("check_and_mutate", before=lambda name, args: w.finish())
    faulty_r.on("mutate", before=lambda name, args: w.finish())
    reader.page_covered("item_by_colour", 5, {"colour": "red"})  # reads red, defers
    w.finish()
    assert isinstance(w.error, ConnectionLostError)
    assert reader.page_covered("item_by_colour", 5, {"colour": "red"}).items == []


def test_an_index_refuses_a_grace_too_short_to_finish_a_write_in() -> None:
    """The lease rule gives a write half the grace: a grace under 100 ms is refused."""
    with pytest.raises(DeclarationError, match="at least 100 ms"):
        Index(Item, on=["colour"], table=colour_index().table, grace=timedelta(milliseconds=50))
    Index(Item, on=["colour"], table=colour_index().table, grace=timedelta(milliseconds=100))


def test_verify_counts_a_dead_claim_of_another_row_stale_not_pending(
    edge: Edge, clock: ManualClock
) -> None:
    """Only an entry of the data row itself can be a write still landing (pending)."""
    backend = edge.backend
    users = nicks(edge, plain(edge), clock)
    edge.call(users.save(User(user_id="u1", nickname="bob")))
    index = users.index("user_by_nick")
    row = index.entry_row({"nickname": "bob"}, b"")
    dead = index.status(False, clock() + 10, b"u2\x00\x00")  # a later claim of u2, dead
    backend.mutate(index.table.full_name, [Put(row, index.status_column, dead)])
    clock.advance(seconds=GRACE.total_seconds() + 1)
    report = run_index_job(backend, index, "verify", clock=clock)
    assert (report.counts["stale"], report.counts["pending"]) == (1, 0)
    run_index_job(backend, index, "rebuild", clock=clock)
    assert run_index_job(backend, index, "verify", clock=clock).problems == 0
    holder = edge.call(users.get_unique("user_by_nick", nickname="bob"))
    assert holder is not None and holder.user_id == "u1"
