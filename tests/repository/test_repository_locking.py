"""Optimistic locking with a version field: conflicts are typed, no update is ever lost."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import attrs
import pytest

from hmodel import Family, Key, Str, Table, counter, field, model, version_field
from hmodel.backend.base import Put
from hmodel.errors import ConflictError, ValidationError
from hmodel.repository import Repository, UnitOfWork

MakeRepo = Callable[..., Repository[Any]]

accounts = Table("account", [Family("a")])


@model(accounts, key=Key(Str("account_id")))
class Account:
    account_id: str
    owner: str = field("a:o")
    balance: int = field("a:b")
    hits: int = counter("a:h")
    version: int = version_field("a:v")


def test_a_new_model_saves_and_gets_a_version(make_repo: MakeRepo) -> None:
    repo = make_repo(Account)
    saved = repo.save(Account(account_id="a1", owner="ann", balance=10))
    assert saved.version > 0
    loaded = repo.get(account_id="a1")
    assert loaded == saved


def test_a_stale_copy_cannot_overwrite_a_newer_save(make_repo: MakeRepo) -> None:
    repo = make_repo(Account)
    repo.save(Account(account_id="a1", owner="ann", balance=10))
    first, second = repo.get(account_id="a1"), repo.get(account_id="a1")
    assert first is not None and second is not None
    first.balance = 20
    repo.save(first)
    second.balance = 99
    with pytest.raises(ConflictError) as info:
        repo.save(second)
    assert info.value.table == "account" and info.value.field == "version"
    stored = repo.get(account_id="a1")
    assert stored is not None and stored.balance == 20


def test_creating_a_row_that_exists_is_a_conflict(make_repo: MakeRepo) -> None:
    repo = make_repo(Account)
    repo.save(Account(account_id="a1", owner="ann", balance=10))
    with pytest.raises(ConflictError):
        repo.save(Account(account_id="a1", owner="impostor", balance=0))
    stored = repo.get(account_id="a1")
    assert stored is not None and stored.owner == "ann"


def test_a_save_in_progress_blocks_writers_until_its_lease_ends(
    make_repo: MakeRepo, clock: Any
) -> None:
    repo = make_repo(Account)
    saved = repo.save(Account(account_id="a1", owner="ann", balance=10))
    row = repo.mapper.key_of(account_id="a1")
    # A writer claimed the row (the documented pending marker) and then stalled.
    stalled = saved.version + 1
    claimed = repo.backend.check_and_put(
        "account",
        row,
        b"a:v",
        saved.version.to_bytes(8, "big"),
        Put(row, b"a:v", b"P" + saved.version.to_bytes(8, "big") + stalled.to_bytes(8, "big")),
    )
    assert claimed
    reader = repo.get(account_id="a1")
    assert reader is not None
    reader.balance = 11
    with pytest.raises(ConflictError):
        repo.save(reader)
    clock.advance(seconds=31)  # past the 30 s lease: the row may be taken over
    repo.save(reader)
    stored = repo.get(account_id="a1")
    assert stored is not None and stored.balance == 11 and stored.version > stalled


def test_a_copy_of_what_was_read_during_a_save_cannot_overwrite_that_save(
    make_repo: MakeRepo, clock: Any
) -> None:
    """Readers of a pending save see the version it started from, never the one it commits."""
    repo = make_repo(Account)
    saved = repo.save(Account(account_id="a1", owner="ann", balance=100))
    row = repo.mapper.key_of(account_id="a1")
    new = saved.version + 1
    pending = b"P" + saved.version.to_bytes(8, "big") + new.to_bytes(8, "big")
    assert repo.backend.check_and_put(
        "account", row, b"a:v", saved.version.to_bytes(8, "big"), Put(row, b"a:v", pending)
    )
    reader = repo.get(account_id="a1")
    assert reader is not None and reader.version == saved.version
    # The pending save commits (+50) ...
    repo.backend.mutate("account", [Put(row, b"a:b", (150).to_bytes(8, "big"), timestamp=new)])
    assert repo.backend.check_and_put(
        "account", row, b"a:v", pending, Put(row, b"a:v", new.to_bytes(8, "big"))
    )
    # ... and a copy of what the reader saw while it was pending must not overwrite it.
    copy = attrs.evolve(reader, balance=101)
    with pytest.raises(ConflictError):
        repo.save(copy)
    stored = repo.get(account_id="a1")
    assert stored is not None and stored.balance == 150


def test_an_instance_read_with_some_fields_cannot_be_saved_whole(make_repo: MakeRepo) -> None:
    """A full save of a projection would delete the fields it did not read."""
    repo = make_repo(Account)
    repo.save(Account(account_id="a1", owner="ann", balance=100))
    partial = repo.get(account_id="a1", fields=["owner", "balance"])
    assert partial is not None
    with pytest.raises(ValidationError):
        repo.save(partial)


def test_a_locked_delete_checks_the_version(make_repo: MakeRepo) -> None:
    repo = make_repo(Account)
    repo.save(Account(account_id="a1", owner="ann", balance=10))
    stale, fresh = repo.get(account_id="a1"), repo.get(account_id="a1")
    assert stale is not None and fresh is not None
    fresh.balance = 5
    repo.save(fresh)
    with pytest.raises(ConflictError):
        repo.delete(stale)
    repo.delete(fresh)
    assert repo.get(account_id="a1") is None


def test_writes_that_would_bypass_the_version_check_are_refused(
    make_repo: MakeRepo, backend: Any
) -> None:
    repo = make_repo(Account)
    account = Account(account_id="a1", owner="ann", balance=1)
    with pytest.raises(ValidationError):
        repo.update({"account_id": "a1"}, balance=2)
    with pytest.raises(ValidationError):
        repo.save_many([account])
    with pytest.raises(ValidationError):
        UnitOfWork(backend).save(account)
    with pytest.raises(ValidationError):
        repo.delete(account_id="a1")


def test_eight_threads_lose_no_update_and_count_exactly(make_repo: MakeRepo, backend: Any) -> None:
    """8 writers each add 1 to a locked balance and a counter 20 times, retrying conflicts."""
    setup = make_repo(Account)
    setup.save(Account(account_id="shared", owner="all", balance=0))
    threads, rounds = 8, 20
    conflicts = []
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def work() -> None:
        repo = Repository(Account, backend)  # each thread: its own repository, system clock
        start.wait()
        try:
            for _ in range(rounds):
                repo.increment({"account_id": "shared"}, hits=1)
                while True:
                    account = repo.get(account_id="shared", required=True)
                    assert account is not None
                    account.balance += 1
                    time.sleep(0.0005)  # the application's work between read and save
                    try:
                        repo.save(account)
                        break
                    except ConflictError:
                        conflicts.append(1)
        except BaseException as exc:  # reported below, with the thread's traceback lost
            errors.append(exc)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    final = setup.get(account_id="shared")
    assert final is not None
    assert final.balance == threads * rounds
    assert final.hits == threads * rounds
    assert conflicts, "the writers never contended: the test proved nothing"
