"""The write path never loses a write (issue 8): write stamps order a process's writes.

Each everyday sequence runs in a loop with fresh keys, on every backend, with the system
clock and with a frozen ManualClock (every write in the same millisecond): a delete that
the ORM issues (a None field, a replaced map, a deleted row, a removed entry) must never
hide the next write of the same process. HBase hides every put whose timestamp is <= a
delete marker's, whatever the order of arrival; before write stamps these sequences lost
93-98 writes in 100 on the memory engine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from hmodel import Family, Key, Str, Table, field, map_field, model
from hmodel.backend.base import Backend
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import Clock, ManualClock, WriteStamps, system_clock
from hmodel.repository import Repository, UnitOfWork

people = Table("wp_user", [Family("i"), Family("f"), Family("s")])


@model(people, key=Key(Str("user_id")))
class User:
    user_id: str
    name: str = field("i:n")
    city: str | None = field("i:c", default=None)
    fans: dict[str, str] = map_field("f")  # owns family f (F6)
    subdirs: dict[str, str] = map_field("s", prefix="d_")  # shares family s (R10)
    files: dict[str, str] = map_field("s", prefix="f_")


def _rounds(backend: Backend) -> int:
    """1,000 repetitions on the engine, 200 over a network protocol."""
    return 1000 if isinstance(backend, MemoryBackend) else 200


@pytest.fixture(params=["system-clock", "frozen-clock"])
def clock(request: pytest.FixtureRequest) -> Clock:
    if request.param == "system-clock":
        return system_clock
    return ManualClock(1_700_000_000_000)  # never advanced: every write in one millisecond


@pytest.fixture
def repo(backend: Backend, clock: Clock) -> Iterator[Repository[User]]:
    repository = Repository(User, backend, clock=clock)
    repository.create_table()
    yield repository


Sequence = Callable[[Repository[User], str], None]


def _none_then_update(repo: Repository[User], key: str) -> None:
    repo.save(User(user_id=key, name="n"))
    repo.update({"user_id": key}, city="Paris")
    assert repo.get(user_id=key, required=True).city == "Paris"  # type: ignore[union-attr]


def _none_then_save(repo: Repository[User], key: str) -> None:
    repo.save(User(user_id=key, name="n", city=None))
    repo.save(User(user_id=key, name="n", city="Rome"))
    assert repo.get(user_id=key, required=True).city == "Rome"  # type: ignore[union-attr]


def _map_then_map(repo: Repository[User], key: str) -> None:
    repo.save(User(user_id=key, name="n", fans={"x": "1"}))
    repo.save(User(user_id=key, name="n", fans={"y": "2"}))
    assert repo.get(user_id=key, required=True).fans == {"y": "2"}  # type: ignore[union-attr]


def _save_delete_save(repo: Repository[User], key: str) -> None:
    repo.save(User(user_id=key, name="first"))
    repo.delete(user_id=key)
    repo.save(User(user_id=key, name="second"))
    assert repo.get(user_id=key, required=True).name == "second"  # type: ignore[union-attr]


def _put_remove_put(repo: Repository[User], key: str) -> None:
    repo.put_entries({"user_id": key}, "fans", {"x": "1"})
    repo.remove_entries({"user_id": key}, "fans", ["x"])
    repo.put_entries({"user_id": key}, "fans", {"x": "2"})
    assert repo.get_entries({"user_id": key}, "fans") == {"x": "2"}


SEQUENCES: dict[str, Sequence] = {
    "save None then update": _none_then_update,
    "save None then save": _none_then_save,
    "save map then save another": _map_then_map,
    "save, delete, save": _save_delete_save,
    "put, remove, put an entry": _put_remove_put,
}


@pytest.mark.parametrize("name", list(SEQUENCES))
def test_no_sequence_of_one_process_ever_loses_a_write(
    repo: Repository[User], backend: Backend, name: str
) -> None:
    """Every repetition reads back the last write, whatever the clock does."""
    sequence = SEQUENCES[name]
    lost = 0
    for index in range(_rounds(backend)):
        try:
            sequence(repo, f"{name[:4]}-{index}")
        except AssertionError:
            lost += 1
    assert lost == 0


def test_stamps_increase_strictly_on_a_frozen_clock() -> None:
    """max(clock, last + 1) per row: a still clock still gives one row new stamps."""
    clock = ManualClock(10)
    stamps = WriteStamps(clock)
    seen = [stamps.next(rows=[b"r"]) for _ in range(100)]
    assert seen == list(range(10, 110))
    assert stamps.next(3, rows=[b"r"]) == 110 and stamps.next(rows=[b"r"]) == 113
    stamps.observe(500, rows=[b"r"])
    assert stamps.next(rows=[b"r"]) == 501
    assert stamps.next(rows=[b"r", b"s"]) == 502  # a write of two rows: after both


def test_writes_of_many_rows_keep_the_clocks_time() -> None:
    """A bulk load of distinct rows does not run the stamps ahead of the clock."""
    clock = ManualClock(10)
    stamps = WriteStamps(clock)
    assert {stamps.next(rows=[f"row{i}".encode()]) for i in range(10_000)} == {10}
    assert stamps.next() == 11  # without rows: after every stamp, of any row
    assert stamps.next(rows=[b"row1"]) == 12  # and rows' stamps after that


def test_forgotten_rows_never_repeat_a_stamp() -> None:
    """Rows the clock passed long ago are forgotten; their next stamp is still newer."""
    clock = ManualClock(10)
    stamps = WriteStamps(clock, max_rows=3)
    first = stamps.next(rows=[b"a"])
    for i in range(10):
        stamps.next(rows=[bytes([i])])
    clock.advance(5_000)
    assert stamps.next(rows=[b"a"]) > first


def test_a_read_orders_the_next_write_after_what_it_read(backend: Backend) -> None:
    """A row written by a process whose clock runs ahead: a read-modify-write still wins."""
    ahead = Repository(User, backend, clock=ManualClock(2_000_000_000_000))
    ahead.create_table()
    ahead.save(User(user_id="k", name="from the future"))
    behind = Repository(User, backend, clock=ManualClock(1_000_000_000_000))
    user = behind.get(user_id="k", required=True)
    assert user is not None
    user.name = "edited"
    behind.save(user)
    assert behind.get(user_id="k", required=True).name == "edited"  # type: ignore[union-attr]


# --- maps replace, on every write path -------------------------------------------------

Writer = Callable[[Repository[User], Backend, Clock, dict[str, Any]], None]


def _by_save(
    repo: Repository[User], backend: Backend, clock: Clock, fields: dict[str, Any]
) -> None:
    stored = repo.get(user_id="m", required=True)
    assert stored is not None
    for name, value in fields.items():
        setattr(stored, name, value)
    repo.save(stored)


def _by_update(
    repo: Repository[User], backend: Backend, clock: Clock, fields: dict[str, Any]
) -> None:
    repo.update({"user_id": "m"}, **fields)


def _by_unit_save(
    repo: Repository[User], backend: Backend, clock: Clock, fields: dict[str, Any]
) -> None:
    stored = repo.get(user_id="m", required=True)
    assert stored is not None
    for name, value in fields.items():
        setattr(stored, name, value)
    with UnitOfWork(backend, clock=clock) as unit:
        unit.save(stored)


def _by_unit_update(
    repo: Repository[User], backend: Backend, clock: Clock, fields: dict[str, Any]
) -> None:
    with UnitOfWork(backend, clock=clock) as unit:
        unit.update(User, {"user_id": "m"}, **fields)


WRITERS: dict[str, Writer] = {
    "save": _by_save,
    "update": _by_update,
    "unit save": _by_unit_save,
    "unit update": _by_unit_update,
}


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("map_name", ["fans", "subdirs", "files"])
def test_a_written_map_replaces_the_stored_one_exactly(
    repo: Repository[User], backend: Backend, clock: Clock, writer: str, map_name: str
) -> None:
    """Removed entries go, new ones come, the other maps and fields stay (F6, R10)."""
    repo.save(
        User(
            user_id="m",
            name="n",
            fans={"a": "1", "b": "2"},
            subdirs={"docs": "1", "pics": "2"},
            files={"a.txt": "u1", "b.txt": "u2"},
        )
    )
    before = repo.get(user_id="m", required=True)
    assert before is not None
    replaced = {"new": "3", next(iter(getattr(before, map_name))): "9"}
    WRITERS[writer](repo, backend, clock, {map_name: replaced})
    after = repo.get(user_id="m", required=True)
    assert after is not None
    assert getattr(after, map_name) == replaced
    for other in {"fans", "subdirs", "files"} - {map_name}:
        assert getattr(after, other) == getattr(before, other)
    assert after.name == "n"


@pytest.mark.parametrize("writer", list(WRITERS))
def test_an_emptied_map_is_empty(
    repo: Repository[User], backend: Backend, clock: Clock, writer: str
) -> None:
    """Writing {} removes every entry of each kind of map."""
    repo.save(User(user_id="m", name="n", fans={"a": "1"}, subdirs={"d": "1"}, files={"f": "1"}))
    WRITERS[writer](repo, backend, clock, {"fans": {}, "subdirs": {}, "files": {}})
    after = repo.get(user_id="m", required=True)
    assert after is not None
    assert (after.fans, after.subdirs, after.files) == ({}, {}, {})


def test_a_prefixed_map_costs_one_read_more(repo: Repository[User], backend: Backend) -> None:
    """The old entries of a map sharing its family are found by a read: counted, stated."""
    repo.save(User(user_id="m", name="n", subdirs={"d": "1"}))
    before = backend.round_trips
    repo.update({"user_id": "m"}, subdirs={"e": "2"})
    assert backend.round_trips - before == 2
    before = backend.round_trips
    repo.update({"user_id": "m"}, city="x")
    assert backend.round_trips - before == 1
