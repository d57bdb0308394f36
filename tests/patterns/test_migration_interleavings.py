"""Every interleaving of a migrator moving a row, the application writing it and a reader.

Each scenario is run by :func:`hmodel.testing.interleave.explore` on the memory engine: a
migrator client moves the one old row (``Migrator.migrate_range``), an application client
saves, updates (a field deleted, too) or deletes it through ``MigratingRepository``, and a
reader client reads it twice. Invariants (docs/migrations.md, "What holds"):

(a) the reader never misses the row while it exists (saves and updates keep it), never
    sees it once its delete has finished before the read began, and never sees the old
    value after the new one (its two reads are in order);
(b) at the end the new layout holds what the application last wrote (the transform of
    the old row plus the change), the deleted row nowhere, and a field the application
    deleted is not brought back by the late copy;
(c) at the end no old row is left when the layout's table or rowkey changes;
(d) when a client died (at any step), a re-run of the range leaves the new layout as
    the application last wrote it (or as it was, when the application died) and no old
    row: the job is idempotent.

Layouts: ``table`` moves the row to another table and a salted key; ``row`` keeps it in
its row and renames a qualifier. Clocks: the clients' clocks equal, one a millisecond
ahead, or the application's clock two seconds behind the old row's stamp (the save
reads the old row's stamp first and is stamped after it whatever its clock says).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs
import pytest

from hmodel import Family, Key, Repository, Salt, Store, Str, Table, field, model
from hmodel.backend.base import Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.patterns import DataMigration, MigratingRepository, Migrator
from hmodel.testing.interleave import Client, Exploration, Moment, World, explore

T0 = 1_700_000_000_000
SETUP_GAP = 1_000


@model(Table("mg_old", [Family("i")]), key=Key(Str("item_id")))
class OldItem:
    item_id: str
    colour: str = field("i:c")
    size: int | None = field("i:s", default=None)


@model(Table("mg_new", [Family("n")]), key=Key(Salt("item_id", buckets=4), Str("item_id")))
class NewItem:
    item_id: str
    colour: str = field("n:c")
    size: int | None = field("n:s", default=None)


@model(Table("mg_old", [Family("i")]), key=Key(Str("item_id")))
class RenamedItem:
    """The same row, ``colour`` under a new qualifier: ``size`` is shared with the old."""

    item_id: str
    colour: str = field("i:k")
    size: int | None = field("i:s", default=None)


def to_new(old: OldItem) -> NewItem:
    return NewItem(item_id=old.item_id, colour=old.colour, size=old.size)


def to_renamed(old: OldItem) -> RenamedItem:
    return RenamedItem(item_id=old.item_id, colour=old.colour, size=old.size)


MIGRATIONS: dict[str, DataMigration[OldItem, Any]] = {
    "table": DataMigration("mg_table", None, OldItem, NewItem, to_new),
    "row": DataMigration("mg_row", None, OldItem, RenamedItem, to_renamed),
}

OLD = OldItem(item_id="i1", colour="red", size=3)

#: What the application does, and what the row is afterwards (``None``: deleted), given
#: the old row's transform.
Act = Callable[[MigratingRepository[OldItem, Any]], None]
APPLICATION: dict[str, tuple[Act, Callable[[Any], Any]]] = {
    "save": (
        lambda r: r.save(r.migration.new(item_id="i1", colour="blue", size=None)),
        lambda v: attrs.evolve(v, colour="blue", size=None),
    ),
    "save, shared field": (
        lambda r: r.save(r.migration.new(item_id="i1", colour="blue", size=5)),
        lambda v: attrs.evolve(v, colour="blue", size=5),
    ),
    "update": (
        lambda r: r.update({"item_id": "i1"}, colour="blue"),
        lambda v: attrs.evolve(v, colour="blue"),
    ),
    "update, shared field": (
        lambda r: r.update({"item_id": "i1"}, size=7),
        lambda v: attrs.evolve(v, size=7),
    ),
    "delete a field": (
        lambda r: r.update({"item_id": "i1"}, size=None),
        lambda v: attrs.evolve(v, size=None),
    ),
    "delete": (lambda r: r.delete(item_id="i1"), lambda v: None),
}

CLOCKS: dict[str, dict[str, int]] = {
    "same": {},
    "a+1ms": {"a": 1},
    "m+1ms": {"m": 1},
    "a-2s": {"a": -2 * SETUP_GAP},
}


class MigrationCheck:
    """(a)-(c) of the module docstring, for one run's engine."""

    def __init__(self, migration: DataMigration[OldItem, Any], final: Any, backend: Any) -> None:
        self.migration = migration
        self.before = migration.produce(OLD)[0]
        self.final = final
        self.backend = backend
        self.done_before_read = False

    def __call__(self, moment: Moment) -> None:
        if "a" in moment.outcomes and not moment.calls.get("r"):
            self.done_before_read = True
        reader = moment.outcomes.get("r")
        if reader is not None and not reader.crashed:
            assert reader.ok, reader.error
            first, second = reader.value
            allowed = [self.before, self.final]
            assert first in allowed and second in allowed, f"read {first}, then {second}"
            if self.final is not None:
                assert None not in (first, second), "the reader missed the row"
            if self.final != self.before:
                assert (first, second) != (self.final, self.before), "old value after new"
            if self.done_before_read:
                assert first == second == self.final, "a read after the write saw the old"
        if not moment.done:
            return
        store = Store(moment.backend, clock=ManualClock(T0))
        finals = [self.final]
        if any(o.crashed for o in moment.outcomes.values()):
            # (d) a re-run of the range after a death moves what is left, changes nothing
            # else; an application write that died may or may not have happened.
            Migrator(store, self.migration).migrate_range(b"", b"")
            if moment.outcomes["a"].crashed:
                finals.append(self.before)
        new: Repository[Any] = store.repository(self.migration.new)
        assert new.get(item_id="i1") in finals, "the new layout is not the last write"
        read = MigratingRepository(store, self.migration).get(item_id="i1")
        assert read == new.get(item_id="i1")
        if self.migration.new.__name__ == "NewItem":
            left = list(moment.backend.scan("mg_old", Scan()))
            assert left == [], "an old row is left"


def world(
    layout: str, action: str, offsets: Mapping[str, int], reads: str = "get"
) -> Callable[[], World]:
    migration = MIGRATIONS[layout]
    act, after = APPLICATION[action]
    final = after(migration.produce(OLD)[0])

    def scenario() -> World:
        clock = ManualClock(T0)
        backend = MemoryBackend(clock=clock)
        store = Store(backend, clock=ManualClock(T0))
        store.create_tables(OldItem, migration.new)
        store.repository(OldItem).save(OLD)
        clock.advance(SETUP_GAP)

        def migrator(me: Client) -> Any:
            return Migrator(Store(me.backend, clock=me.clock), migration).migrate_range(b"", b"")

        def application(me: Client) -> None:
            act(MigratingRepository(Store(me.backend, clock=me.clock), migration))

        def reader(me: Client) -> tuple[Any, Any]:
            repo = MigratingRepository(Store(me.backend, clock=me.clock), migration)
            if reads == "get":
                return repo.get(item_id="i1"), repo.get(item_id="i1")
            first, second = list(repo.scan()), list(repo.scan())
            assert len(first) <= 1 and len(second) <= 1, "a row seen twice"
            return (first or [None])[0], (second or [None])[0]

        return World(
            backend,
            clock,
            {"m": migrator, "a": application, "r": reader},
            MigrationCheck(migration, final, backend),
            offsets,
        )

    return scenario


@pytest.mark.parametrize("clocks", list(CLOCKS))
@pytest.mark.parametrize("action", list(APPLICATION))
@pytest.mark.parametrize("layout", list(MIGRATIONS))
def test_a_row_moved_while_the_application_writes_it_and_a_reader_reads_it(
    layout: str, action: str, clocks: str, request: pytest.FixtureRequest
) -> None:
    report(explore(world(layout, action, CLOCKS[clocks])), request)


@pytest.mark.parametrize("action", list(APPLICATION))
@pytest.mark.parametrize("layout", list(MIGRATIONS))
def test_a_scan_during_the_move_sees_the_row_once_and_in_order(
    layout: str, action: str, request: pytest.FixtureRequest
) -> None:
    """The reader scans twice: each scan finds the row once (or not once deleted), (a)."""
    report(explore(world(layout, action, CLOCKS["same"], reads="scan")), request)


@pytest.mark.parametrize("action", list(APPLICATION))
@pytest.mark.parametrize("layout", list(MIGRATIONS))
def test_a_migrator_or_writer_dying_at_any_step_is_mended_by_a_rerun(
    layout: str, action: str, request: pytest.FixtureRequest
) -> None:
    """Any client may die before any call; (a) holds for the reader, and after a re-run
    of the range (d) the new layout holds the last write (or, when the writer died, the
    row as it was) and no old row is left.
    """
    report(explore(world(layout, action, CLOCKS["same"]), crashes=1), request)


def report(found: Exploration, request: pytest.FixtureRequest) -> None:
    print(f"\n{found}")
    request.node.user_properties += [("interleavings", found.interleavings)]
    found.assert_holds()
    assert found.exhaustive
