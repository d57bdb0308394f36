"""Locked saves are atomic and honest (issue 8), on every backend, deterministically.

A FaultyBackend runs another writer or a reader at an exact point of a save (before or
after a chosen backend call), instead of racing sleeps. The memory engine (and Thrift2)
use one atomic check_and_mutate; Thrift1 claims the version cell, writes the data and
commits (docs/repository.md compares them).
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest

from hmodel import Family, Key, Str, Table, field, model, version_field
from hmodel.backend.base import Backend
from hmodel.clock import ManualClock
from hmodel.errors import (
    ConflictError,
    OutcomeUnknownError,
    RowExistsError,
    ValidationError,
)
from hmodel.repository import Repository
from hmodel.testing.fault import FaultyBackend

accounts = Table("lw_account", [Family("a")])


@model(accounts, key=Key(Str("account_id")))
class Account:
    account_id: str
    balance: int = field("a:b")
    owner: str | None = field("a:o", default=None)
    version: int = version_field("a:v")


@model(Table("lw_note", [Family("n")]), key=Key(Str("note_id")))
class Note:
    """A locked model whose value fields may all be ``None``: its row is the version cell."""

    note_id: str
    text: str | None = field("n:t", default=None)
    tags: str | None = field("n:g", default=None)
    version: int = version_field("n:v")


LEASE = timedelta(seconds=30)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_700_000_000_000)


@pytest.fixture
def faulty(backend: Backend) -> FaultyBackend:
    return FaultyBackend(backend)


@pytest.fixture
def repo(faulty: FaultyBackend, clock: ManualClock) -> Repository[Account]:
    repository = Repository(Account, faulty, clock=clock, lock_lease=LEASE)
    repository.create_table()
    return repository


def _other(backend: Backend, clock: ManualClock) -> Repository[Account]:
    """Another process: its own repository (and write stamps) on the same store."""
    from hmodel.clock import WriteStamps

    return Repository(Account, backend, clock=clock, stamps=WriteStamps(clock), lock_lease=LEASE)


def _write_call(backend: Backend) -> str:
    """The call that makes a locked save's data visible on this backend."""
    return "check_and_mutate" if "check_and_mutate" in backend.capabilities else "mutate"


def test_an_invalid_instance_writes_nothing(
    repo: Repository[Account], faulty: FaultyBackend
) -> None:
    """Validation comes before the first round trip: no claim, no row, later saves work."""
    before = faulty.round_trips
    with pytest.raises(ValidationError):
        repo.save(Account(account_id="a", balance="ten"))  # type: ignore[arg-type]
    assert faulty.round_trips == before
    assert repo.get(account_id="a") is None
    assert not repo.exists(account_id="a")
    saved = repo.save(Account(account_id="a", balance=10))
    repo.delete(saved)
    assert repo.get(account_id="a") is None


def test_a_first_save_in_flight_reads_as_absent(
    repo: Repository[Account], faulty: FaultyBackend, backend: Backend, clock: ManualClock
) -> None:
    """Right before the data lands, readers see no row; right after, the whole row."""
    reader = _other(backend, clock)
    seen: dict[str, Any] = {}

    def before(_: str, __: tuple[Any, ...]) -> None:
        seen["get"] = reader.get(account_id="n")
        seen["exists"] = reader.exists(account_id="n")
        seen["many"] = reader.get_many([{"account_id": "n"}])
        seen["scan"] = list(reader.scan())

    def after(_: str, __: tuple[Any, ...]) -> None:
        seen["after"] = reader.get(account_id="n")

    faulty.on(_write_call(backend), before=before, after=after)
    saved = repo.save(Account(account_id="n", balance=5, owner="ann"))
    assert seen["get"] is None and seen["exists"] is False
    assert seen["many"] == [None] and seen["scan"] == []
    assert seen["after"] == saved  # data and version together


def test_a_locked_row_with_every_value_field_none_exists(
    faulty: FaultyBackend, backend: Backend, clock: ManualClock
) -> None:
    """Saved with no data cell, the row is its version cell: it reads back, on every read.

    It was read as absent before (a reader took "no data cell" for a first save in
    flight), so its save returned normally but no read found it, and a new instance
    could never be saved over it (RowExistsError forever).
    """
    notes = Repository(Note, faulty, clock=clock, lock_lease=LEASE)
    notes.create_table()
    saved = notes.save(Note(note_id="e"))
    reader = Repository(Note, backend, clock=clock, lock_lease=LEASE)
    assert reader.get(note_id="e") == saved and saved.version > 0
    assert reader.exists(note_id="e")
    assert reader.get_many([{"note_id": "e"}, {"note_id": "x"}]) == [saved, None]
    assert list(reader.scan()) == [saved]
    with pytest.raises(RowExistsError):
        reader.save(Note(note_id="e", text="impostor"))
    loaded = reader.get(note_id="e")
    assert loaded is not None
    loaded.text = "hello"
    reader.save(loaded)
    loaded.text = None  # back to no data cell: still the row
    reader.save(loaded)
    again = notes.get(note_id="e")
    assert again is not None and again.text is None and again.version == loaded.version
    notes.delete(again)
    assert reader.get(note_id="e") is None and not reader.exists(note_id="e")
    assert list(reader.scan()) == []
    recreated = reader.save(Note(note_id="e"))
    assert notes.get(note_id="e") == recreated


def test_a_first_save_with_no_data_cell_in_flight_reads_as_absent(
    faulty: FaultyBackend, backend: Backend, clock: ManualClock
) -> None:
    """Before its version lands (over Thrift1: while only its claim is there) no row."""
    notes = Repository(Note, faulty, clock=clock, lock_lease=LEASE)
    notes.create_table()
    reader = Repository(Note, backend, clock=clock, lock_lease=LEASE)
    seen: dict[str, Any] = {}

    def before(_: str, __: tuple[Any, ...]) -> None:
        seen["get"] = reader.get(note_id="f")
        seen["scan"] = list(reader.scan())

    faulty.on(_write_call(backend), before=before)
    saved = notes.save(Note(note_id="f"))
    assert seen == {"get": None, "scan": []}
    assert reader.get(note_id="f") == saved


def test_a_delete_in_flight_after_its_data_reads_as_absent(
    faulty: FaultyBackend, backend: Backend, clock: ManualClock
) -> None:
    """Over Thrift1, between a delete's data deletes and its tombstone: no half row.

    The row then holds only the delete's claim; it reads as absent, not as a row whose
    fields are all ``None`` (only a committed version with no data cell is such a row).
    """
    notes = Repository(Note, faulty, clock=clock, lock_lease=LEASE)
    notes.create_table()
    stored = notes.save(Note(note_id="d", text="bye"))
    reader = Repository(Note, backend, clock=clock, lock_lease=LEASE)
    seen: list[Any] = []
    faulty.on(_write_call(backend), after=lambda *_: seen.append(reader.get(note_id="d")))
    notes.delete(stored)
    assert seen == [None]
    assert reader.get(note_id="d") is None


def test_an_update_in_flight_shows_the_old_row_then_the_new(
    repo: Repository[Account], faulty: FaultyBackend, backend: Backend, clock: ManualClock
) -> None:
    """Readers never see a half row: old data with the old version, or new with the new."""
    account = repo.save(Account(account_id="u", balance=1, owner="ann"))
    old_version = account.version
    reader = _other(backend, clock)
    seen: list[Account | None] = []
    faulty.on(
        _write_call(backend),
        before=lambda *_: seen.append(reader.get(account_id="u")),
        after=lambda *_: seen.append(reader.get(account_id="u")),
    )
    account.balance, account.owner = 2, None
    repo.save(account)
    first, second = seen
    assert first is not None and second is not None
    assert (first.balance, first.owner, first.version) == (1, "ann", old_version)
    assert (second.balance, second.owner, second.version) == (2, None, account.version)


@pytest.mark.parametrize("rounds", [200])
def test_delete_then_recreate_from_one_thread_always_works(backend: Backend, rounds: int) -> None:
    """save(new), delete(it), save(new again): never a conflict, with the system clock."""
    repo = Repository(Account, backend)
    repo.create_table()
    for index in range(rounds):
        key = f"r{index}"
        first = repo.save(Account(account_id=key, balance=1))
        repo.delete(first)
        assert repo.get(account_id=key) is None
        again = repo.save(Account(account_id=key, balance=2))
        stored = repo.get(account_id=key, required=True)
        assert stored == again and stored is not None and stored.balance == 2


def test_delete_then_recreate_on_a_frozen_clock(repo: Repository[Account]) -> None:
    """The same, all in one millisecond."""
    for index in range(50):
        key = f"f{index}"
        repo.delete(repo.save(Account(account_id=key, balance=1)))
        repo.save(Account(account_id=key, balance=2))
        assert repo.get(account_id=key, required=True).balance == 2  # type: ignore[union-attr]


def test_insert_over_an_existing_row_is_row_exists_not_a_stale_version(
    repo: Repository[Account],
) -> None:
    """An application can tell "already exists" from "retry"."""
    saved = repo.save(Account(account_id="e", balance=1))
    with pytest.raises(RowExistsError) as exists:
        repo.save(Account(account_id="e", balance=9))
    assert exists.value.row is not None and exists.value.field == "version"
    stale = repo.get(account_id="e", required=True)
    assert stale is not None
    saved.balance = 2
    repo.save(saved)
    stale.balance = 3
    with pytest.raises(ConflictError) as conflict:
        repo.save(stale)
    assert not isinstance(conflict.value, RowExistsError)
    assert repo.get(account_id="e", required=True).balance == 2  # type: ignore[union-attr]


def test_a_huge_version_is_a_validation_error(repo: Repository[Account]) -> None:
    """version=2**63 does not fit a long: typed error, nothing written."""
    with pytest.raises(ValidationError) as info:
        repo.save(Account(account_id="h", balance=1, version=2**63))
    assert info.value.field == "version"
    assert repo.get(account_id="h") is None


def test_a_refused_save_stalled_behind_another_writer_has_no_effect(
    repo: Repository[Account], faulty: FaultyBackend, backend: Backend, clock: ManualClock
) -> None:
    """Another writer commits while this save is held back: a conflict, and nothing of it."""
    repo.save(Account(account_id="s", balance=0))
    mine = repo.get(account_id="s", required=True)
    assert mine is not None
    other = _other(backend, clock)

    def commit_elsewhere(*_: Any) -> None:
        clock.advance(seconds=LEASE.total_seconds() + 1)  # over Thrift1 the claim has expired
        theirs = other.get(account_id="s", required=True)
        assert theirs is not None
        theirs.balance += 1
        other.save(theirs)

    # Atomic backends: hold back the one conditional write. Thrift1: hold back the data
    # write after the claim, until the lease has passed and the other writer took over.
    faulty.on(_write_call(backend), before=commit_elsewhere)
    mine.balance += 1
    if "check_and_mutate" in backend.capabilities:
        with pytest.raises(ConflictError):
            repo.save(mine)
    else:
        # Over Thrift1 the data of the stalled save lands after the take-over, older than
        # the other writer's cells; whether anyone read it cannot be known.
        with pytest.raises(OutcomeUnknownError):
            repo.save(mine)
    final = other.get(account_id="s", required=True)
    assert final is not None and final.balance == 1  # only the save that succeeded


def test_over_thrift1_a_save_taken_over_after_its_data_landed_is_reported_unknown(
    repo: Repository[Account], faulty: FaultyBackend, backend: Backend, clock: ManualClock
) -> None:
    """The other writer read this save's data: both changes stand; the outcome is 'unknown'."""
    if "check_and_mutate" in backend.capabilities:
        pytest.skip("atomic backends have no claim to take over")
    repo.save(Account(account_id="t", balance=0))
    mine = repo.get(account_id="t", required=True)
    assert mine is not None
    other = _other(backend, clock)

    def take_over(*_: Any) -> None:
        clock.advance(seconds=LEASE.total_seconds() + 1)
        theirs = other.get(account_id="t", required=True)
        assert theirs is not None and theirs.balance == 1  # it sees the landed data
        theirs.balance += 1
        other.save(theirs)

    faulty.on("mutate", after=take_over)
    mine.balance += 1
    with pytest.raises(OutcomeUnknownError):
        repo.save(mine)
    final = other.get(account_id="t", required=True)
    assert final is not None and final.balance == 2


def test_a_dropped_conditional_write_is_outcome_unknown_not_a_conflict(
    repo: Repository[Account], faulty: FaultyBackend, backend: Backend
) -> None:
    """The connection drops after the save was applied: the error says the outcome is unknown."""
    call = _write_call(backend)
    faulty.on(call, fail=OutcomeUnknownError("dropped after sending"), fail_after=True)
    with pytest.raises(OutcomeUnknownError):
        repo.save(Account(account_id="d", balance=1))
    # What happened is found by reading: here the save was applied.
    assert repo.get(account_id="d", required=True).balance == 1  # type: ignore[union-attr]


def test_eight_writers_with_a_stall_lose_nothing_and_count_only_successes(
    backend: Backend,
) -> None:
    """8 read-modify-write threads; one save is held back until others have committed.

    Final balance == saves that reported success (+ Thrift1 saves reported as unknown that
    were applied); no update is lost, none is applied twice.
    """
    faulty = FaultyBackend(backend)
    lease = timedelta(milliseconds=200)
    setup = Repository(Account, faulty, lock_lease=lease)
    setup.create_table()
    setup.save(Account(account_id="shared", balance=0))
    threads, rounds = 8, 10
    lock = threading.Lock()
    successes: list[int] = []
    unknown: list[int] = []
    errors: list[BaseException] = []
    progressed = threading.Event()
    start = threading.Barrier(threads)

    def stall(*_: Any) -> None:
        progressed.wait(timeout=20)  # held until 3 other saves have committed

    faulty.on(_write_call(backend), nth=5, before=stall)

    def work() -> None:
        repo = Repository(Account, faulty, lock_lease=lease)
        start.wait()
        try:
            for _ in range(rounds):
                while True:
                    account = repo.get(account_id="shared", required=True)
                    assert account is not None
                    account.balance += 1
                    try:
                        repo.save(account)
                    except OutcomeUnknownError:
                        with lock:
                            unknown.append(1)
                        break
                    except ConflictError:
                        continue
                    with lock:
                        successes.append(1)
                        if len(successes) >= 3:
                            progressed.set()
                    break
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    final = setup.get(account_id="shared", required=True)
    assert final is not None
    assert len(successes) <= final.balance <= len(successes) + len(unknown)
    if "check_and_mutate" in backend.capabilities:
        assert unknown == [] and final.balance == len(successes) == threads * rounds
