"""An atomic map-entry change: some entries put, others removed, in one mutation (R10, F6)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from hmodel import Family, Key, Str, Table, field, map_field, model, version_field
from hmodel.backend.base import Backend, Delete, Put
from hmodel.clock import ManualClock, system_clock
from hmodel.errors import ValidationError
from hmodel.repository import Repository, UnitOfWork
from hmodel.testing.fault import FaultyBackend

DIRECTORIES = Table("mec_directory", [Family("c")])


@model(DIRECTORIES, key=Key(Str("path")))
class Directory:
    """R10: a directory row keyed by its full path, one column per child."""

    path: str
    children: dict[str, str] = map_field("c", prefix="f_")
    owner: str | None = field("c:o", default=None)


@model(Table("mec_cache", [Family("c")]), key=Key(Str("path")), ttl=timedelta(days=1))
class CachedDirectory:
    """A directory listing with a TTL: its entries' puts carry it, deletes cannot."""

    path: str
    children: dict[str, str] = map_field("c")


@model(Table("mec_locked", [Family("c")]), key=Key(Str("path")))
class LockedDirectory:
    path: str
    children: dict[str, str] = map_field("c", prefix="f_")
    version: int = version_field("c:v")


HOME = {"path": "/home/ann"}


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()  # frozen: every write of a test falls in one millisecond


@pytest.fixture
def faulty(backend: Backend) -> FaultyBackend:
    return FaultyBackend(backend)


@pytest.fixture
def dirs(faulty: FaultyBackend, clock: ManualClock) -> Repository[Directory]:
    repo = Repository(Directory, faulty, clock=clock)
    repo.create_table()
    repo.put_entries(HOME, "children", {"a": "uuid-1", "notes": "uuid-2"})
    faulty.calls.clear()
    return repo


def entries(repo: Repository[Any]) -> dict[str, str]:
    return repo.get_entries(HOME, "children")


def test_a_rename_is_one_mutation_at_one_stamp_R10(
    dirs: Repository[Directory], faulty: FaultyBackend
) -> None:
    """f_a becomes f_b: one mutate call carrying the put and the delete at one stamp."""
    sent: list[Any] = []
    faulty.on("mutate", before=lambda name, args: sent.extend(args[1]))
    before = faulty.round_trips
    dirs.change_entries(HOME, "children", put={"b": "uuid-1"}, remove=["a"])
    assert faulty.calls == ["mutate"] and faulty.round_trips - before == 1
    assert [type(m).__name__ for m in sent] == ["Put", "Delete"]
    assert [m.column for m in sent] == [b"c:f_b", b"c:f_a"]
    assert len({m.timestamp for m in sent}) == 1
    assert entries(dirs) == {"b": "uuid-1", "notes": "uuid-2"}


def test_a_reader_sees_the_entries_before_or_after_never_between(
    dirs: Repository[Directory], faulty: FaultyBackend, clock: ManualClock
) -> None:
    """The only points a reader can come in are around the one call: old, then new.

    On the memory engine and Thrift2 (``mutateRow``) that call is one atomic row
    operation, so no reader can see a state between them; over Thrift1 the server applies
    the puts and then the deletes (two row operations; see docs/repository.md).
    """
    reader = Repository(Directory, faulty.inner, clock=clock)
    seen: list[dict[str, str]] = []

    def look(name: str, args: tuple[Any, ...]) -> None:
        seen.append(entries(reader))

    faulty.on("mutate", before=look, after=look)
    dirs.change_entries(HOME, "children", put={"b": "uuid-1"}, remove=["a"])
    assert seen == [{"a": "uuid-1", "notes": "uuid-2"}, {"b": "uuid-1", "notes": "uuid-2"}]


def test_the_change_is_ordered_after_earlier_writes_of_the_row_on_a_frozen_clock(
    dirs: Repository[Directory],
) -> None:
    """Write stamps: neither the change's puts nor a later put is hidden by a delete."""
    dirs.remove_entries(HOME, "children", ["b"])
    dirs.change_entries(HOME, "children", put={"b": "uuid-1"}, remove=["a"])
    assert entries(dirs) == {"b": "uuid-1", "notes": "uuid-2"}
    dirs.change_entries(HOME, "children", put={"a": "uuid-1"}, remove=["b"])
    assert entries(dirs) == {"a": "uuid-1", "notes": "uuid-2"}
    dirs.put_entries(HOME, "children", {"b": "uuid-3"})
    assert entries(dirs) == {"a": "uuid-1", "b": "uuid-3", "notes": "uuid-2"}
    assert dirs.get(**HOME) == Directory(
        path="/home/ann", children={"a": "uuid-1", "b": "uuid-3", "notes": "uuid-2"}
    )


def test_an_entry_both_put_and_removed_is_refused_and_nothing_is_sent(
    dirs: Repository[Directory], faulty: FaultyBackend
) -> None:
    with pytest.raises(ValidationError) as info:
        dirs.change_entries(HOME, "children", put={"a": "x", "b": "y"}, remove=["a"])
    assert (info.value.field, info.value.value) == ("children", "a")
    assert faulty.calls == []
    with pytest.raises(ValidationError):
        dirs.change_entries(HOME, "owner", put={"a": "x"})  # not a map field
    with pytest.raises(ValidationError):
        dirs.change_entries(HOME, "children", remove="a")  # one string, not a collection
    assert faulty.calls == [] and entries(dirs) == {"a": "uuid-1", "notes": "uuid-2"}


def test_an_empty_change_sends_nothing(dirs: Repository[Directory], faulty: FaultyBackend) -> None:
    dirs.change_entries(HOME, "children")
    assert faulty.calls == []


def test_a_locked_model_changes_its_entries_through_save(
    faulty: FaultyBackend, clock: ManualClock
) -> None:
    locked = Repository(LockedDirectory, faulty, clock=clock)
    with pytest.raises(ValidationError, match="version check"):
        locked.change_entries(HOME, "children", put={"b": "x"}, remove=["a"])
    assert faulty.calls == []


def test_puts_with_a_ttl_still_land_before_the_deletes(faulty: FaultyBackend) -> None:
    """With a model TTL the puts carry it and the deletes cannot (Thrift1: two calls)."""
    # The backends expire cells by their own clock: the stamps must follow the real time.
    cache = Repository(CachedDirectory, faulty, clock=ManualClock(system_clock()))
    cache.create_table()
    cache.put_entries(HOME, "children", {"a": "uuid-1"})
    cache.change_entries(HOME, "children", put={"b": "uuid-1"}, remove=["a"])
    assert cache.get_entries(HOME, "children") == {"b": "uuid-1"}


def test_a_unit_of_work_carries_the_change_in_its_one_mutate(
    dirs: Repository[Directory], faulty: FaultyBackend, clock: ManualClock
) -> None:
    """Queued with the unit's other writes of the table, stamped at commit; last one wins."""
    sent: list[Any] = []
    faulty.on("mutate", before=lambda name, args: sent.extend(args[1]))
    with UnitOfWork(faulty, clock=clock) as unit:
        unit.put_entries(Directory, HOME, "children", {"b": "stale"})
        unit.change_entries(Directory, HOME, "children", put={"b": "uuid-1"}, remove=["a"])
        unit.save(Directory(path="/home/bob", children={"x": "uuid-9"}))
    assert faulty.calls.count("mutate") == 1
    assert {m.column for m in sent if m.row == b"/home/ann\x00\x00"} == {b"c:f_b", b"c:f_a"}
    assert all(isinstance(m, Put | Delete) for m in sent)
    assert entries(dirs) == {"b": "uuid-1", "notes": "uuid-2"}
    assert dirs.get(path="/home/bob") == Directory(path="/home/bob", children={"x": "uuid-9"})
    with pytest.raises(ValidationError):
        UnitOfWork(faulty, clock=clock).change_entries(
            Directory, HOME, "children", put={"a": "x"}, remove=["a"]
        )
