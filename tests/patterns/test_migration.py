"""Data migrations, row by row: splits, drops, verify's findings, batching, refusals."""

from __future__ import annotations

from typing import Any

import pytest

from hmodel import (
    Family,
    Int,
    Key,
    Salt,
    Store,
    Str,
    Table,
    counter,
    field,
    model,
    version_field,
)
from hmodel.backend.base import Backend, Put, Scan
from hmodel.backend.forwarding import ForwardingBackend
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.errors import DeclarationError, QueryError, ValidationError
from hmodel.patterns import DataMigration, MigratingRepository, Migrator


@model(Table("mt_profile", [Family("p")]), key=Key(Str("user_id")))
class Profile:
    user_id: str
    name: str = field("p:n")
    city: str | None = field("p:c", default=None)


@model(Table("mt_name", [Family("n")]), key=Key(Str("user_id")))
class Name:
    user_id: str
    name: str = field("n:n")


@model(Table("mt_city", [Family("c")]), key=Key(Str("user_id")))
class City:
    user_id: str
    city: str = field("c:c")


def split(old: Profile) -> list[object]:
    """One record type split in two; a profile without a city has no City record."""
    parts: list[object] = [Name(user_id=old.user_id, name=old.name)]
    if old.city is not None:
        parts.append(City(user_id=old.user_id, city=old.city))
    return parts


SPLIT = DataMigration("mt_split", None, Profile, Name, split)


def world(*profiles: Profile) -> Store:
    clock = ManualClock(1_700_000_000_000)
    store = Store(MemoryBackend(clock=clock), clock=clock)
    store.create_tables(Profile, Name, City)
    for profile in profiles:
        store.repository(Profile).save(profile)
    clock.advance(1_000)
    return store


def test_a_split_row_is_read_as_each_record_before_and_after_the_job() -> None:
    store = world(Profile(user_id="u1", name="Ann", city="Oslo"), Profile(user_id="u2", name="Bo"))
    names = MigratingRepository(store, SPLIT)
    cities = MigratingRepository(store, SPLIT.serving(City))
    assert names.get(user_id="u1") == Name(user_id="u1", name="Ann")
    assert cities.get_many([{"user_id": "u1"}, {"user_id": "u2"}]) == [
        City(user_id="u1", city="Oslo"),
        None,
    ]
    report = Migrator(store, SPLIT).run()
    assert (report.read, report.written, report.deleted) == (2, 3, 2)
    assert list(store.repository(Profile).scan()) == []
    assert cities.get(user_id="u1") == City(user_id="u1", city="Oslo")
    assert [n.user_id for n in names.scan()] == ["u1", "u2"]


def test_deleting_one_record_of_a_split_row_keeps_the_other() -> None:
    """The delete moves the other records of the old row first, then deletes both layouts."""
    store = world(Profile(user_id="u1", name="Ann", city="Oslo"))
    MigratingRepository(store, SPLIT).delete(user_id="u1")
    assert store.repository(Profile).get(user_id="u1") is None
    assert MigratingRepository(store, SPLIT).get(user_id="u1") is None
    assert MigratingRepository(store, SPLIT.serving(City)).get(user_id="u1") == City(
        user_id="u1", city="Oslo"
    )
    assert Migrator(store, SPLIT).run().read == 0


def test_a_dropped_row_is_deleted_and_counted() -> None:
    drop = DataMigration("mt_drop", None, Profile, Name, lambda p: None if p.city else split(p))
    store = world(Profile(user_id="u1", name="Ann", city="Oslo"), Profile(user_id="u2", name="Bo"))
    report = Migrator(store, drop).run()
    assert (report.read, report.dropped, report.written, report.deleted) == (2, 1, 1, 2)
    assert [n.user_id for n in store.repository(Name).scan()] == ["u2"]


def test_verify_finds_missing_different_and_duplicate_rows() -> None:
    store = world(*(Profile(user_id=f"u{n}", name=f"n{n}", city="Oslo") for n in range(4)))
    copy = Migrator(store, SPLIT, delete_old=False)
    copy.run()
    store.repository(Name).delete(user_id="u0")
    store.clock.advance(1)  # type: ignore[attr-defined]
    store.repository(City).save(City(user_id="u1", city="Rome"))  # the application, since
    found = copy.verify()
    assert (found.old_rows, found.ok, found.missing, found.rewritten) == (4, 6, 1, 1)
    assert not found.clean
    assert found.samples == (store.repository(Name).mapper.key_of(user_id="u0"),)

    def shout(old: Profile) -> list[object]:
        return [City(user_id=old.user_id, city=(old.city or "").upper())]

    other = DataMigration("mt_other", None, Profile, City, shout)
    found = Migrator(store, other, delete_old=False).verify_range(b"", b"")
    assert (found.differs, found.rewritten) == (3, 1)  # copies as old as the row: a defect

    one = DataMigration("mt_one", None, Profile, Name, lambda p: Name(user_id="x", name=p.name))
    assert Migrator(store, one, delete_old=False).verify_range(b"", b"").duplicates == 3


def test_an_old_row_that_does_not_decode_is_left_and_reported() -> None:
    store = world(Profile(user_id="u1", name="Ann"))
    bad = store.repository(Profile).mapper.key_of(user_id="u2")
    store.backend.mutate("mt_profile", [Put(bad, b"p:c", b"Oslo")])  # no name: required
    report = Migrator(store, SPLIT).run()
    assert (report.read, report.problems, report.samples) == (1, 1, (bad,))
    assert [r.row for r in store.backend.scan("mt_profile", Scan())] == [bad]


class Counting(ForwardingBackend):
    def __init__(self, inner: Backend) -> None:
        super().__init__(inner)
        self.gets: list[int] = []

    def _forward(self, method: str, call: Any, /, *args: Any, **kwargs: Any) -> Any:
        if method == "get":
            self.gets.append(len(args[1]))
        return call(*args, **kwargs)


def test_reads_are_batched_one_get_per_layout() -> None:
    """No N+1: ten keys, some moved, some not, some in neither: three gets in all."""
    store = world(*(Profile(user_id=f"u{n}", name=f"n{n}") for n in range(8)))
    Migrator(store, SPLIT).migrate_range(b"u0", b"u4")
    counting = Counting(store.backend)
    names = MigratingRepository(Store(counting, clock=store.clock), SPLIT)
    found = names.get_many([{"user_id": f"u{n}"} for n in range(10)])
    assert [n and n.name for n in found] == [f"n{n}" for n in range(8)] + [None, None]
    assert counting.gets == [10, 6, 2]


@model(Table("mt_counted", [Family("p")]), key=Key(Str("user_id")))
class Counted:
    user_id: str
    visits: int = counter("p:v")


@model(Table("mt_locked", [Family("p")]), key=Key(Str("user_id")))
class Locked:
    user_id: str
    version: int = version_field("p:v")


@model(Table("mt_keyed", [Family("p")]), key=Key(Str("user_id"), Int("n", size=4)))
class Keyed:
    user_id: str
    n: int
    name: str = field("p:n")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (Counted, Name, "counters"),
        (Profile, Locked, "version field"),
        (Keyed, Name, "old_key="),
    ],
)
def test_what_a_migration_cannot_move_is_refused(old: type, new: type, message: str) -> None:
    with pytest.raises(DeclarationError, match=message):
        DataMigration("mt_bad", None, old, new, lambda o: None)


@model(Table("mt_salted", [Family("n")]), key=Key(Salt("user_id", buckets=4), Str("user_id")))
class SaltedName:
    user_id: str
    name: str = field("n:n")


SALTED = DataMigration(
    "mt_salted", None, Profile, SaltedName, lambda p: SaltedName(user_id=p.user_id, name=p.name)
)


@pytest.mark.parametrize("migration", [SPLIT, SALTED], ids=["plain", "salted"])
def test_a_scan_during_the_job_keeps_the_new_layouts_order(
    migration: DataMigration[Any, Any],
) -> None:
    """Rows moved and not moved interleave in the order a scan of the new layout has
    (rowkey order; a salted key's buckets merged in natural-key order, K3)."""
    store = world(*(Profile(user_id=f"u{n}", name=f"n{n}") for n in range(12)))
    store.create_tables(SaltedName)
    Migrator(store, migration).migrate_range(b"u3", b"u8")  # u3..u7 moved
    reader = MigratingRepository(store, migration)
    for batch in (1, 2, 500):
        assert [n.user_id for n in reader.scan(batch=batch)] == sorted(f"u{n}" for n in range(12))
    Migrator(store, migration).run()
    assert [n.user_id for n in reader.scan()] == sorted(f"u{n}" for n in range(12))


def test_get_fields_reads_a_row_moved_or_not_and_projects_it() -> None:
    """As ``get`` (the new layout first, else the old row transformed), then projected."""
    store = world(Profile(user_id="u1", name="Ann", city="Oslo"), Profile(user_id="u2", name="Bo"))
    Migrator(store, SPLIT).migrate_range(b"u2", b"")  # u2 moved, u1 not
    cities = MigratingRepository(store, SPLIT.serving(City))
    names = MigratingRepository(store, SPLIT)
    assert cities.get_fields(["city"], user_id="u1") == {"user_id": "u1", "city": "Oslo"}
    assert names.get_fields(["name"], user_id="u2") == {"user_id": "u2", "name": "Bo"}
    assert cities.get_fields(["city"], user_id="u2") is None  # Bo has no city record
    assert names.get_fields(["name"], user_id="u9") is None
    before = store.backend.round_trips
    with pytest.raises(QueryError):
        names.get_fields("name", user_id="u1")
    with pytest.raises(ValidationError):
        names.get_fields(["nope"], user_id="u1")
    assert store.backend.round_trips == before  # refused before any read


def test_save_many_is_ordered_after_each_old_row_whatever_the_writers_clock() -> None:
    """A writer whose clock is behind the old rows' stamps: its batch is still stamped after
    them, so the migrator's late copies (at the old rows' stamps) never hide it. Round
    trips: the old rows, the new rows whose old row is gone, one mutate."""
    store = world(*(Profile(user_id=f"u{n}", name=f"n{n}") for n in (1, 2, 3)))
    store.create_tables(SaltedName)  # a new rowkey unlike the old one (a salt byte first)
    Migrator(store, SALTED).migrate_range(b"u3", b"")  # u3 moved (its old row deleted)
    behind = ManualClock(1_000)  # far behind every stamp written so far
    writer = MigratingRepository(Store(store.backend, clock=behind), SALTED)
    before = store.backend.round_trips
    writer.save_many([SaltedName(user_id="u1", name="one"), SaltedName(user_id="u4", name="four")])
    assert store.backend.round_trips - before == 3
    writer.save_many([SaltedName(user_id="u2", name="two"), SaltedName(user_id="u3", name="three")])
    Migrator(store, SALTED).run()  # copies u1's and u2's old rows at their stamps, late
    names = MigratingRepository(store, SALTED)
    found = names.get_many([{"user_id": f"u{n}"} for n in (1, 2, 3, 4)])
    assert [n and n.name for n in found] == ["one", "two", "three", "four"]
