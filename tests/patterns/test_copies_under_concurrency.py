"""Copies (R3, R7) under concurrency: they converge by write stamp and never create rows."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from hmodel import (
    Family,
    Int,
    Key,
    Query,
    Repository,
    Store,
    Str,
    Table,
    field,
    model,
    version_field,
)
from hmodel.backend.base import Backend
from hmodel.clock import ManualClock, WriteStamps
from hmodel.errors import ConflictError, ValidationError
from hmodel.patterns import Copy
from hmodel.testing.fault import FaultyBackend
from tests.patterns.shared_models import Line, Shipping

START = 1_700_000_000_000


locked_lines = Table("cc_locked_line", [Family("o")])


@model(locked_lines, key=Key(Str("order_id"), Int("ship", size=2), Int("line", size=2)))
class LockedLine:
    order_id: str
    ship: int
    line: int
    item: str = field("o:i")
    ship_city: str = field("o:c")
    version: int = version_field("o:v")


def _shipment(line: Any) -> dict[str, Any]:
    return {"order_id": line.order_id, "ship": line.ship}


def _ship_to(store: Store, target: type = Line) -> Copy[Shipping, Any]:
    return Copy(
        store,
        Shipping,
        target,
        fields={"ship_city": "city"},
        locate=lambda s: Query({"order_id": s.order_id, "ship": s.ship}),
        source_of=_shipment,
    )


def _setup(backend: Backend, lines: int = 2) -> tuple[FaultyBackend, Store, Copy[Shipping, Line]]:
    faulty = FaultyBackend(backend)
    store = Store(faulty, clock=ManualClock(START))
    store.create_tables(Shipping, LockedLine)
    copy = _ship_to(store)
    shipping = Shipping(order_id="o1", ship=1, city="Paris")
    store.repository(Shipping).save(shipping)
    for n in range(lines):
        line = Line(order_id="o1", ship=1, line=n, item=f"i{n}", ship_city="")
        store.repository(Line).save(copy.fill(line, shipping))
    return faulty, store, copy


def _cities(store: Store) -> list[str]:
    return [x.ship_city for x in store.repository(Line).scan({"order_id": "o1"})]


def _write_call(backend: Backend) -> tuple[str, int]:
    """The backend call of a copy's rewrite after an unversioned source's save."""
    if "check_and_mutate" in backend.capabilities:
        return "check_and_mutate", 1
    return "mutate", 2  # Thrift1: the source's save is mutate 1


def test_a_late_sync_never_overwrites_a_newer_copy_found_at_read(backend: Backend) -> None:
    """Defect 6: B's whole save runs after A's source save, before A reads the copies."""
    faulty, store, copy = _setup(backend)
    a = store.repository(Shipping).get(order_id="o1", ship=1, required=True)
    b = Shipping(order_id="o1", ship=1, city="Rome")
    assert a is not None
    a.city = "Lyon"
    faulty.on("scan", before=lambda *_: copy.save(b))
    copy.save(a)  # A's source version (Lyon) is older than B's (Rome)
    assert store.repository(Shipping).get(order_id="o1", ship=1) == b
    assert _cities(store) == ["Rome", "Rome"]
    assert copy.verify([b]) == [] and copy.verify_targets() == []


def test_a_late_sync_never_overwrites_a_newer_copy_at_write(backend: Backend) -> None:
    """Defect 6: B's whole save runs right before A's copy write lands: A's stays hidden."""
    faulty, store, copy = _setup(backend)
    b = Shipping(order_id="o1", ship=1, city="Rome")
    method, nth = _write_call(backend)
    faulty.on(method, nth=nth, before=lambda *_: copy.save(b))
    report = copy.save(Shipping(order_id="o1", ship=1, city="Lyon"))
    assert report.examined == 2
    assert _cities(store) == ["Rome", "Rome"]
    assert copy.verify_targets() == []


def test_a_late_sync_past_copies_left_equal_syncs_again_R3(backend: Backend) -> None:
    """B sets the source back to the copies' value right before A's copy write lands: B's
    sync leaves the equal copies at their older stamps, so A's older value shows until A,
    having written, reads the source again and syncs the newer version back."""
    faulty, store, copy = _setup(backend)
    back = Shipping(order_id="o1", ship=1, city="Paris")  # what the copies hold
    method, nth = _write_call(backend)
    seen: list[int] = []
    faulty.on(method, nth=nth, before=lambda *_: seen.append(copy.save(back).touched))
    copy.save(Shipping(order_id="o1", ship=1, city="Lyon"))
    assert seen == [0]  # B's sync found every copy equal
    assert store.repository(Shipping).get(order_id="o1", ship=1) == back
    assert _cities(store) == ["Paris", "Paris"]
    assert copy.verify([back]) == [] and copy.verify_targets() == []


def test_a_sync_never_brings_back_a_copy_deleted_by_a_writer_whose_clock_is_behind(
    backend: Backend,
) -> None:
    """Defect 7: the copy row is deleted (stamped 15 ms behind) just before the rewrite."""
    faulty, store, copy = _setup(backend)
    store.clock.advance(20)  # type: ignore[attr-defined]  # the syncing writer is ahead
    behind = Repository(Line, backend, stamps=WriteStamps(ManualClock(START + 5)))
    method, nth = _write_call(backend)
    faulty.on(method, nth=nth, before=lambda *_: behind.delete(order_id="o1", ship=1, line=0))
    report = copy.save(Shipping(order_id="o1", ship=1, city="Lyon"))
    assert (report.examined, report.touched, report.vanished) == (2, 1, 1)
    assert [(x.line, x.ship_city) for x in store.repository(Line).scan({"order_id": "o1"})] == [
        (1, "Lyon")
    ]  # no partial row: the scan decodes every row
    assert store.repository(Line).get(order_id="o1", ship=1, line=0) is None


def test_a_copy_deleted_before_a_sync_stays_deleted(backend: Backend) -> None:
    """Copies given by locate() as instances are read again: a deleted one is not rewritten."""
    _, store, _ = _setup(backend)
    lines = list(store.repository(Line).scan({"order_id": "o1"}))
    by_list = Copy(store, Shipping, Line, fields={"ship_city": "city"}, locate=lambda s: lines)
    store.clock.advance(20)  # type: ignore[attr-defined]
    Repository(Line, backend, stamps=WriteStamps(ManualClock(START + 5))).delete(
        order_id="o1", ship=1, line=0
    )
    report = by_list.save(Shipping(order_id="o1", ship=1, city="Lyon"))
    assert (report.examined, report.touched) == (1, 1)
    assert _cities(store) == ["Lyon"]


def test_a_target_save_racing_a_sync_wins_until_a_repair(backend: Backend) -> None:
    """A line saved with the city it read before the change is newer: repair rewrites it."""
    _, store, copy = _setup(backend)
    lines = store.repository(Line)
    stale = lines.get(order_id="o1", ship=1, line=0, required=True)
    assert stale is not None
    copy.save(Shipping(order_id="o1", ship=1, city="Lyon"))
    stale.item = "tea"
    lines.save(stale)  # still holds Paris, stamped after the sync (its stamps observed)
    assert _cities(store) == ["Paris", "Lyon"]
    shipping = Shipping(order_id="o1", ship=1, city="Lyon")
    assert copy.sync(shipping).touched == 0  # sync leaves a newer cell
    found = copy.verify_targets()
    assert [(f.copy.line, f.differences) for f in found] == [(0, {"ship_city": ("Paris", "Lyon")})]
    assert copy.verify([shipping]) == found
    assert copy.repair([shipping]).touched == 1
    assert _cities(store) == ["Lyon", "Lyon"] and copy.verify_targets() == []


def test_a_target_save_in_the_sources_millisecond_is_a_tie_the_next_sync_settles(
    backend: Backend,
) -> None:
    """Another process saves the stale line in the source's millisecond: a tie.

    The stamps cannot say which write is newer; the copy takes the source's side, so the
    next sync rewrites the line at that very stamp (the later of two puts at one
    timestamp shows) instead of leaving it until a repair.
    """
    faulty, store, copy = _setup(backend)
    other = Store(faulty, clock=store.clock, stamps=WriteStamps(store.clock))  # a process
    lines = other.repository(Line)
    stale = lines.get(order_id="o1", ship=1, line=0, required=True)
    assert stale is not None
    copy.save(Shipping(order_id="o1", ship=1, city="Lyon"))
    stale.item = "tea"
    lines.save(stale)  # the clock stands still: stamped at the source's stamp
    assert _cities(store) == ["Paris", "Lyon"]
    shipping = Shipping(order_id="o1", ship=1, city="Lyon")
    assert copy.sync(shipping).touched == 1
    assert _cities(store) == ["Lyon", "Lyon"] and copy.verify_targets() == []
    kept = lines.get(order_id="o1", ship=1, line=0, required=True)
    assert kept is not None and kept.item == "tea"  # the target's own field is its own


def test_verify_targets_finds_copies_no_source_locates(backend: Backend) -> None:
    """Defect 12: a copy whose source is gone (orphan) or which no sync reaches."""
    _, store, copy = _setup(backend)
    lines = store.repository(Line)
    lines.save(Line(order_id="o1", ship=2, line=0, item="x", ship_city="Oslo"))  # no shipment 2
    lines.update({"order_id": "o1", "ship": 1, "line": 1}, ship_city="Nice")  # a stray write
    found = {(f.copy.ship, f.copy.line): f for f in copy.verify_targets()}
    assert set(found) == {(1, 1), (2, 0)}
    assert found[(2, 0)].source_found is False
    assert found[(1, 1)].differences == {"ship_city": ("Nice", "Paris")}
    report = copy.repair_targets()
    assert (report.examined, report.touched, report.orphans) == (3, 1, 1)
    assert [f.copy.ship for f in copy.verify_targets()] == [2]
    fixed = lines.get(order_id="o1", ship=1, line=1, required=True)
    assert fixed is not None and copy.verify_targets([fixed]) == []
    no_side = Copy(store, Shipping, Line, fields={"ship_city": "city"}, locate=lambda s: [])
    with pytest.raises(ValidationError, match="source_of"):
        no_side.verify_targets()


def test_a_versioned_target_is_rewritten_through_its_lock(backend: Backend) -> None:
    """A locked copy: a target save between the sync's read and write makes it read again."""
    faulty, store, _ = _setup(backend, lines=0)
    copy = _ship_to(store, LockedLine)
    targets = store.repository(LockedLine)
    for n in range(2):
        targets.save(LockedLine(order_id="o1", ship=1, line=n, item="i", ship_city="Paris"))
    other = Repository(LockedLine, backend, clock=ManualClock(START))

    def racing_save(*_: object) -> None:
        line = other.get(order_id="o1", ship=1, line=0, required=True)
        assert line is not None
        line.item = "tea"
        other.save(line)

    stale = targets.get(order_id="o1", ship=1, line=1, required=True)
    method = "check_and_mutate" if "check_and_mutate" in backend.capabilities else "check_and_put"
    faulty.on(method, nth=1, before=racing_save)
    report = copy.save(Shipping(order_id="o1", ship=1, city="Lyon"))
    assert (report.examined, report.touched) == (2, 2)
    got = [(x.item, x.ship_city) for x in targets.scan({"order_id": "o1"})]
    assert got == [("tea", "Lyon"), ("i", "Lyon")]
    assert stale is not None
    stale.item = "cup"
    with pytest.raises(ConflictError):
        targets.save(stale)  # a target save holding the old city cannot revert it
    assert copy.verify_targets() == []


def test_a_versioned_copy_waits_for_another_save_in_progress_R3(backend: Backend) -> None:
    """Over Thrift1 a copy held by another writer's claim is retried after a pause.

    The other writer claims line 0, then stalls 300 ms before its data write (a loaded
    server, a slow WAL sync); the sync meets the claim within its lease (the clocks
    are manual: the lease never runs out). Retries without a pause would all be spent
    in a few milliseconds and give up with ``ConflictError``; backed off
    (``backoff_op``), they outlast the other save and rewrite the copy on top of it.
    """
    if "check_and_mutate" in backend.capabilities:
        pytest.skip("an atomic save has no claim in progress to wait for")
    _, store, _ = _setup(backend, lines=0)
    copy = _ship_to(store, LockedLine)
    targets = store.repository(LockedLine)
    targets.save(LockedLine(order_id="o1", ship=1, line=0, item="i", ship_city="Paris"))
    slow = FaultyBackend(backend)
    other = Repository(LockedLine, slow, clock=ManualClock(START))
    claimed = threading.Event()

    def stall(*_: object) -> None:
        claimed.set()
        time.sleep(0.3)

    slow.on("mutate", nth=1, before=stall)
    line = other.get(order_id="o1", ship=1, line=0, required=True)
    assert line is not None
    line.item = "tea"
    writer = threading.Thread(target=other.save, args=(line,))
    writer.start()
    try:
        assert claimed.wait(10)
        report = copy.save(Shipping(order_id="o1", ship=1, city="Lyon"))
    finally:
        writer.join(10)
    assert (report.examined, report.touched) == (1, 1)
    got = [(x.item, x.ship_city) for x in targets.scan({"order_id": "o1"})]
    assert got == [("tea", "Lyon")]
    assert copy.verify_targets() == []
