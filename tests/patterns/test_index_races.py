"""Index writes racing each other and stalls past the grace: the defects of issue 16 (I1).

Each test pins one interleaving with FaultyBackend hooks (a second writer run at an exact
call of the first, or a paused thread resumed at an exact point), on every backend.
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
from tests.patterns.index_models import (
    BY_NICK,
    GRACE,
    Account,
    Item,
    Order,
    User,
    colour_index,
    customer_index,
    email_index,
    nick_index,
    status_index,
)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_700_000_000_000)


def colour_repo(backend: Backend, clock: ManualClock) -> IndexedRepository[Item]:
    return IndexedRepository(Repository(Item, backend, clock=clock), [colour_index()])


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
    backend: Backend, clock: ManualClock
) -> None:
    """Defect 2: an older-tagged write landing after a newer one must not unindex the row."""
    faulty = FaultyBackend(backend)
    slow, fast = colour_repo(faulty, clock), colour_repo(backend, clock)
    slow.create_tables()
    slow.save(Item(item_id="i1", colour="red", size=1))

    def overtake(name: str, args: tuple[Any, ...]) -> None:
        assert args[0] == "item_by_colour"
        fast.save(Item(item_id="i1", colour="blue", size=3))  # a later tag, all done

    faulty.on("mutate", nth=1, after=overtake)  # after the slow save's step 1
    slow.save(Item(item_id="i1", colour="red", size=2))
    stored = fast.repository.get(item_id="i1")
    assert stored is not None
    for colour in ("red", "blue"):
        found = [o.item_id for o in fast.find("item_by_colour", {"colour": colour})]
        assert found == (["i1"] if stored.colour == colour else [])
    assert run_index_job(backend, colour_index(), "verify").counts["missing"] == 0


def overtaker(
    clock: ManualClock, other: IndexedRepository[User]
) -> Callable[[str, tuple[Any, ...]], None]:
    """A hook: the clock passes the grace, then ``other`` takes "bob" for u2."""

    def run(name: str, args: tuple[Any, ...]) -> None:
        clock.advance(seconds=GRACE.total_seconds() + 1)
        other.save(User(user_id="u2", nickname="bob"))

    return run


def test_a_unique_claim_taken_over_during_a_stall_refuses_the_data_write(
    backend: Backend, clock: ManualClock
) -> None:
    """Defect 3: a write that stalled past the grace after its claim writes nothing."""
    faulty = FaultyBackend(backend)
    slow, other = nick_repo(faulty, clock), nick_repo(backend, clock)
    slow.create_tables()
    faulty.on("check_and_put", nth=1, after=overtaker(clock, other))  # after the claim
    with pytest.raises(LeaseExpiredError, match="stalled"):
        slow.save(User(user_id="u1", nickname="bob"))
    assert slow.repository.get(user_id="u1") is None  # nothing written
    holder = other.get_unique("user_by_nick", nickname="bob")
    assert holder is not None and holder.user_id == "u2"


def test_a_claim_lost_after_the_last_check_is_reported_as_written(
    backend: Backend, clock: ManualClock
) -> None:
    """Defect 3: past the last check the data row is written: ClaimLostError, not a refusal."""
    faulty = FaultyBackend(backend)
    slow, other = nick_repo(faulty, clock), nick_repo(backend, clock)
    slow.create_tables()
    hook = overtaker(clock, other)
    faulty.on("mutate", nth=0, before=lambda n, a: hook(n, a) if a[0] == "user" else None)
    with pytest.raises(ClaimLostError):
        slow.save(User(user_id="u1", nickname="bob"))
    faulty.hooks.clear()
    stored = slow.repository.get(user_id="u1")
    assert stored is not None and stored.nickname == "bob"  # the write happened
    report = run_index_job(backend, nick_index(), "verify")
    assert report.counts["duplicates"] == 1  # what verify shows the operator


def test_a_row_whose_claim_was_lost_is_found_again_once_saved_again(
    backend: Backend, clock: ManualClock
) -> None:
    """Soak finding: after ClaimLostError the value's row names the other row; once that
    row changes its value and releases the row, no claim names the lost row, so
    ``get_unique`` misses it (``verify``: ``missing``) until it is saved again.
    """
    faulty = FaultyBackend(backend)
    slow, other = nick_repo(faulty, clock), nick_repo(backend, clock)
    slow.create_tables()
    hook = overtaker(clock, other)  # u2 takes "bob" over while u1's data write is in transit
    faulty.on("mutate", nth=0, before=lambda n, a: hook(n, a) if a[0] == "user" else None)
    with pytest.raises(ClaimLostError):
        slow.save(User(user_id="u1", nickname="bob"))
    faulty.hooks.clear()
    other.save(User(user_id="u2", nickname="rob"))  # the other row changes: "bob" released
    lost = other.repository.get(user_id="u1")
    assert lost is not None and lost.nickname == "bob"
    assert other.get_unique("user_by_nick", nickname="bob") is None  # the documented miss
    assert run_index_job(backend, nick_index(), "verify").counts["missing"] == 1
    other.save(lost)  # what docs/indexes.md tells the application: save it again
    holder = other.get_unique("user_by_nick", nickname="bob")
    assert holder is not None and holder.user_id == "u1"
    assert run_index_job(backend, nick_index(), "verify").problems == 0


def test_an_insert_hidden_behind_a_later_delete_never_verifies_its_entry(
    backend: Backend, clock: ManualClock
) -> None:
    """Soak finding: an insert is stamped before another writer creates the row and a
    third deletes it; the insert lands after the delete (its check finds no row, as it
    expects) and its cells stay hidden behind the delete marker, which has the later
    stamp. Its entry must stay unverified: a covering query must not serve the values
    of a data row that never showed them.
    """
    faulty = FaultyBackend(backend)
    slow = IndexedRepository(Repository(Order, faulty, clock=clock), [status_index()])
    other = IndexedRepository(Repository(Order, backend, clock=clock), [status_index()])
    slow.create_tables()

    def create_then_delete(name: str, args: tuple[Any, ...]) -> None:
        assert args[0] == "order"
        other.delete(other.save(Order(order_id="o1", status="shipped", total=9)))

    # The slow insert's first call on the data table (its data write; over Thrift1 the
    # claim of its version cell) is in transit while the others create and delete.
    faulty.on("check_and_mutate" if slow.atomic else "check_and_put", before=create_then_delete)
    slow.save(Order(order_id="o1", status="paid", total=0))
    assert other.repository.get(order_id="o1") is None  # hidden: the delete's stamp is later
    assert other.page_covered("order_by_status", 10, {"status": "paid"}).items == []
    assert other.find("order_by_status", {"status": "paid"}) == []
    assert slow.stats.hidden_inserts == 1
    run_index_job(backend, status_index(), "rebuild", clock=clock)
    assert run_index_job(backend, status_index(), "verify", clock=clock).problems == 0


def test_a_refused_save_writes_no_index_entry(backend: Backend, clock: ManualClock) -> None:
    """Defect 4: refusals found without I/O (bad version, oversized index rowkey) write nothing."""
    orders = IndexedRepository(
        Repository(Order, backend, clock=clock), [status_index(), customer_index()]
    )
    orders.create_tables()
    with pytest.raises(ValidationError):
        orders.save(Order(order_id="o1", status="new", total=1, version=-1))
    with pytest.raises(ValidationError, match="32767"):
        orders.save(Order(order_id="o2", status="n" * 33_000, total=1))
    for table in ("order", "order_by_status", "order_by_customer"):
        assert list(backend.scan(table, Scan())) == []


def test_get_unique_refuses_missing_or_unknown_values(backend: Backend, clock: ManualClock) -> None:
    """Defect 5: get_unique with no value must not return an arbitrary row."""
    users = nick_repo(backend, clock)
    users.create_tables()
    users.save(User(user_id="u1", nickname="bob"))
    with pytest.raises(QueryError):
        users.get_unique("user_by_nick")
    with pytest.raises(QueryError):
        users.get_unique("user_by_nick", nickname="bob", city="x")


def test_a_failed_read_repair_still_answers(backend: Backend, clock: ManualClock) -> None:
    """Defect 12: a read whose best-effort repair fails answers anyway."""
    faulty = FaultyBackend(backend)
    items = colour_repo(faulty, clock)
    items.create_tables()
    items.save(Item(item_id="i1", colour="red"))
    # The writer dies after its data write, before step 3: both entries stay unverified.
    step_3 = ("check_and_mutate", 1) if items.atomic else ("mutate", 3)
    faulty.on(step_3[0], nth=step_3[1], fail=ConnectionLostError("down"))
    with pytest.raises(ConnectionLostError):
        items.save(Item(item_id="i1", colour="blue"))
    clock.advance(seconds=GRACE.total_seconds() + 1)
    faulty.on(step_3[0], nth=0, fail=ConnectionLostError("down"))  # every repair fails
    assert [o.item_id for o in items.find("item_by_colour", {"colour": "blue"})] == ["i1"]
    assert items.find("item_by_colour", {"colour": "red"}) == []
    assert items.stats.repair_failed == 2


def test_a_reader_never_removes_the_entry_of_a_stalled_save(
    backend: Backend, clock: ManualClock
) -> None:
    """Defect 12: a reader during a stall past the grace must not unindex the save's row.

    The reader sees the new entry unverified and past the grace, and a data row that
    still holds the old value; that row is older than the entry's tag, so the write may
    be landing: the reader defers (the save then lands and its entry is there).
    """
    faulty = FaultyBackend(backend)
    slow, reader = colour_repo(faulty, clock), colour_repo(backend, clock)
    slow.create_tables()
    slow.save(Item(item_id="i1", colour="red"))

    def stall_and_read(name: str, args: tuple[Any, ...]) -> None:
        if args[0] == "item":
            clock.advance(seconds=GRACE.total_seconds() + 1)
            assert reader.find("item_by_colour", {"colour": "blue"}) == []  # not yet
            assert reader.stats.repaired_deleted == 0
            assert reader.stats.repair_deferred == 1

    faulty.on("mutate", nth=2, before=stall_and_read)  # its data write, past the lease check
    slow.save(Item(item_id="i1", colour="blue"))
    assert [o.item_id for o in reader.find("item_by_colour", {"colour": "blue"})] == ["i1"]
    assert reader.find("item_by_colour", {"colour": "red"}) == []
    assert run_index_job(backend, colour_index(), "verify").problems == 0


def test_an_index_value_that_does_not_encode_is_a_validation_error(
    backend: Backend, clock: ManualClock
) -> None:
    index = Index(Item, on=[Str("colour", width=2)], table=colour_index().table)
    items = IndexedRepository(Repository(Item, backend, clock=clock), [index])
    items.create_tables()
    with pytest.raises(ValidationError, match="item_by_colour"):
        items.save(Item(item_id="i1", colour="purple"))
    assert list(backend.scan("item", Scan())) == []


def _stall_and_read_covered(
    reader: IndexedRepository[Item], clock: ManualClock, colour: str
) -> Callable[[str, tuple[Any, ...]], None]:
    def stall_and_read(name: str, args: tuple[Any, ...]) -> None:
        if args[0] == "item":
            clock.advance(seconds=GRACE.total_seconds() + 1)
            # The data row still holds the old colour, but it is older than the entry's
            # tag: the reader serves it from the data row and leaves the entry unverified.
            found = reader.page_covered("item_by_colour", 5, {"colour": colour}).items
            assert [d["item_id"] for d in found] == ["i1"]
            assert reader.stats.repair_deferred == 1
            assert reader.stats.repaired_verified == 0

    return stall_and_read


def test_a_stalled_save_deletes_its_old_entry_a_reader_verified_again(
    backend: Backend, clock: ManualClock
) -> None:
    """Soak finding: a reader re-verified the old entry during the stall; it must still go."""
    faulty = FaultyBackend(backend)
    slow, reader = colour_repo(faulty, clock), colour_repo(backend, clock)
    slow.create_tables()
    slow.save(Item(item_id="i1", colour="red", size=1))
    faulty.on("mutate", nth=2, before=_stall_and_read_covered(reader, clock, "red"))
    slow.save(Item(item_id="i1", colour="blue", size=1))
    assert reader.page_covered("item_by_colour", 5, {"colour": "red"}).items == []
    assert [d["item_id"] for d in reader.page_covered("item_by_colour", 5, {"colour": "blue"})] == [
        "i1"
    ]
    assert run_index_job(backend, colour_index(), "verify").problems == 0


def test_a_stalled_delete_deletes_the_entry_a_reader_verified_again(
    backend: Backend, clock: ManualClock
) -> None:
    """Soak finding: the same for a delete: no verified entry of a deleted row remains."""
    faulty = FaultyBackend(backend)
    slow, reader = colour_repo(faulty, clock), colour_repo(backend, clock)
    slow.create_tables()
    saved = slow.save(Item(item_id="i1", colour="red", size=1))
    faulty.on("mutate", nth=2, before=_stall_and_read_covered(reader, clock, "red"))
    slow.delete(saved)
    assert reader.page_covered("item_by_colour", 5, {"colour": "red"}).items == []
    assert run_index_job(backend, colour_index(), "verify").problems == 0


def test_a_stalled_save_whose_claims_a_reader_verified_keeps_them_and_raises_nothing(
    backend: Backend, clock: ManualClock
) -> None:
    """Soak finding: a claim a reader re-verified during the stall is still this write's."""
    faulty = FaultyBackend(backend)
    slow, reader = nick_repo(faulty, clock), nick_repo(backend, clock)
    slow.create_tables()
    slow.save(User(user_id="u1", nickname="ann"))

    def stall_and_read(name: str, args: tuple[Any, ...]) -> None:
        clock.advance(seconds=GRACE.total_seconds() + 1)
        # The data row holds "bob" now: the reader verifies the claim of "bob" and
        # releases the claim of "ann".
        assert reader.get_unique("user_by_nick", nickname="bob") == User(
            user_id="u1", nickname="bob"
        )
        assert reader.get_unique("user_by_nick", nickname="ann") is None

    # Claims of bob and ann, the data write, then step 3: verify bob (3rd check-and-put).
    faulty.on("check_and_put", nth=3, before=stall_and_read)
    slow.save(User(user_id="u1", nickname="bob"))  # no ClaimLostError: nobody took bob
    assert slow.stats.guard_refused == 0
    assert reader.get_unique("user_by_nick", nickname="bob") == User(user_id="u1", nickname="bob")
    assert run_index_job(backend, nick_index(), "verify").problems == 0


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
    backend: Backend, clock: ManualClock
) -> None:
    """Only an entry of the data row itself can be a write still landing (pending)."""
    users = nick_repo(backend, clock)
    users.create_tables()
    users.save(User(user_id="u1", nickname="bob"))
    index = users.index("user_by_nick")
    row = index.entry_row({"nickname": "bob"}, b"")
    dead = index.status(False, clock() + 10, b"u2\x00\x00")  # a later claim of u2, dead
    backend.mutate(index.table.full_name, [Put(row, index.status_column, dead)])
    clock.advance(seconds=GRACE.total_seconds() + 1)
    report = run_index_job(backend, index, "verify", clock=clock)
    assert (report.counts["stale"], report.counts["pending"]) == (1, 0)
    run_index_job(backend, index, "rebuild", clock=clock)
    assert run_index_job(backend, index, "verify", clock=clock).problems == 0
    holder = users.get_unique("user_by_nick", nickname="bob")
    assert holder is not None and holder.user_id == "u1"
