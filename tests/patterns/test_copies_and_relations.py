"""Denormalised copies (R3, R7) and relations kept on both sides (R6), on every backend."""

from __future__ import annotations

from typing import Any

import pytest

from hmodel import Family, Key, Query, Store, Str, Table, map_field, model
from hmodel.aio import AsyncCopy, AsyncRelation
from hmodel.backend.base import Backend
from hmodel.clock import ManualClock
from hmodel.errors import ConnectionLostError, DeclarationError, NotFoundError, ValidationError
from hmodel.patterns import Copy, Relation
from hmodel.testing.fault import FaultyBackend
from tests.edges import Edge
from tests.patterns.shared_models import Line, Shipping, User


@pytest.fixture
def store(backend: Backend) -> Store:
    created = Store(backend, clock=ManualClock())
    created.create_tables(Shipping)
    return created


def _ship_to(store: Store, batch_size: int = 100) -> Copy[Shipping, Line]:
    return Copy(
        store,
        Shipping,
        Line,
        fields={"ship_city": "city"},
        locate=lambda s: Query({"order_id": s.order_id, "ship": s.ship}),
        batch_size=batch_size,
    )


def _edge_ship_to(edge: Edge, store: Store, batch_size: int = 100) -> Any:
    """``_ship_to`` on the edge's store (``Copy`` or ``AsyncCopy``), on ``store``'s clock."""
    return edge.pick(Copy, AsyncCopy)(
        edge.store(clock=store.clock),
        Shipping,
        Line,
        fields={"ship_city": "city"},
        locate=lambda s: Query({"order_id": s.order_id, "ship": s.ship}),
        batch_size=batch_size,
    )


def test_a_source_change_rewrites_every_copy_in_batches_R3(
    store: Store, backend: Backend, edge: Edge
) -> None:
    """250 lines of one shipment: a guarded write each, or over Thrift1 three batches."""
    copy = _edge_ship_to(edge, store)
    shipping = Shipping(order_id="o1", ship=1, city="Paris")
    store.repository(Shipping).save(shipping)
    lines = [
        copy.fill(Line(order_id="o1", ship=1, line=n, item=f"i{n}", ship_city=""), shipping)
        for n in range(250)
    ]
    store.repository(Line).save_many(lines)
    other = Line(order_id="o1", ship=2, line=1, item="x", ship_city="Oslo")
    store.repository(Line).save(other)
    shipping.city = "Rome"
    before = edge.round_trips
    report = edge.call(copy.save(shipping))
    assert (report.examined, report.touched) == (250, 250)
    assert report.round_trips <= edge.round_trips - before
    if "check_and_mutate" in backend.capabilities:  # the save, the source's get, the scan
        assert report.round_trips <= 1 + 1 + 4 + 250 + 1  # a check_and_mutate per copy, a get
    else:  # the save, the source's get, the scan, then 3 x (mutate + get back), a get
        assert report.round_trips <= 1 + 1 + 4 + 3 * 2 + 1
    cities = {x.ship_city for x in store.repository(Line).scan({"order_id": "o1", "ship": 1})}
    assert cities == {"Rome"}
    assert store.repository(Line).get(order_id="o1", ship=2, line=1) == other  # untouched
    assert edge.call(copy.sync(shipping)).touched == 0  # idempotent
    assert len(edge.list(copy.copies(shipping))) == 250


def test_a_source_saved_in_its_copies_millisecond_still_rewrites_them_R3(
    backend: Backend, edge: Edge
) -> None:
    """Lines saved at t, then their source changed at t too (another row: no bump): a tie.

    Write stamps are per row, so the source's second save takes the lines' millisecond;
    the sync must rewrite the copies at that stamp (of two puts at one timestamp the later
    shows), not leave them as if the target had been saved after the source.
    """
    clock = ManualClock(1_000)
    store = Store(backend, clock=clock)
    store.create_tables(Shipping)
    copy = _edge_ship_to(edge, store)
    shipping = Shipping(order_id="o-tie", ship=1, city="Paris")
    store.repository(Shipping).save(shipping)  # stamped 1000
    clock.advance(1)
    lines = [
        copy.fill(Line(order_id="o-tie", ship=1, line=n, item=f"i{n}", ship_city=""), shipping)
        for n in range(3)
    ]
    store.repository(Line).save_many(lines)  # stamped 1001
    shipping.city = "Rome"
    report = edge.call(copy.save(shipping))  # the source stamped 1001 too
    assert (report.examined, report.touched) == (3, 3)
    cities = {x.ship_city for x in store.repository(Line).scan({"order_id": "o-tie", "ship": 1})}
    assert cities == {"Rome"}
    assert edge.call(copy.verify([shipping])) == []


def test_a_source_saved_again_unchanged_rewrites_no_copy_R3(
    backend: Backend, store: Store, edge: Edge
) -> None:
    """A second save of a source with the same values finds every copy equal by value
    (their stamps older than the source's new ones): 0 touched, no write sent."""
    copy = _edge_ship_to(edge, store)
    shipping = Shipping(order_id="o-same", ship=1, city="Paris")
    assert edge.call(copy.save(shipping)).touched == 0  # no copies yet
    lines = [
        copy.fill(Line(order_id="o-same", ship=1, line=n, item="i", ship_city=""), shipping)
        for n in range(3)
    ]
    store.repository(Line).save_many(lines)
    store.clock.advance(5)  # type: ignore[attr-defined]
    before = edge.round_trips
    report = edge.call(copy.save(shipping))
    assert (report.examined, report.touched) == (3, 0)
    writes = 1 if "check_and_mutate" in backend.capabilities else 0  # only the source's save
    assert report.round_trips <= edge.round_trips - before <= 1 + 1 + 4 + writes
    assert edge.call(copy.verify([shipping])) == []


def test_verify_and_repair_refuse_what_is_not_a_source_R3(store: Store, edge: Edge) -> None:
    """verify([None]) and repair([a line]) raise a ValidationError naming ``sources``."""
    copy = _edge_ship_to(edge, store)
    with pytest.raises(ValidationError, match="Shipping") as found:
        edge.call(copy.verify([None]))
    assert found.value.field == "sources"
    line = Line(order_id="o", ship=1, line=1, item="i", ship_city="")
    with pytest.raises(ValidationError, match="Shipping"):
        edge.call(copy.repair([line]))


def test_verify_finds_stale_copies_and_repair_fixes_them(store: Store, edge: Edge) -> None:
    """A source saved without sync (a crash in between) leaves stale copies."""
    copy = _edge_ship_to(edge, store, batch_size=2)
    shipping = Shipping(order_id="o2", ship=1, city="Paris")
    store.repository(Shipping).save(shipping)
    for n in range(5):
        line = Line(order_id="o2", ship=1, line=n, item="i", ship_city="")
        store.repository(Line).save(copy.fill(line, shipping))
    shipping.city = "Lyon"
    store.repository(Shipping).save(shipping)  # the copies were not rewritten
    sources = copy.source  # the edge's repository: its scan is an async iterator on async
    stale = edge.call(copy.verify(sources.scan({"order_id": "o2"})))
    assert len(stale) == 5 and stale[0].differences == {"ship_city": ("Paris", "Lyon")}
    report = edge.call(copy.repair(sources.scan({"order_id": "o2"})))
    assert report.touched == 5
    assert edge.call(copy.verify([shipping])) == []


def test_a_copy_cannot_be_a_key_field(store: Store) -> None:
    """Keys never change (K10): a copy there could never be rewritten."""
    with pytest.raises(DeclarationError):
        Copy(store, Shipping, Line, fields={"ship": "ship"}, locate=lambda s: Query())
    with pytest.raises(DeclarationError):
        Copy(store, Shipping, Line, fields={"nope": "city"}, locate=lambda s: Query())


# --- relations (R6) ------------------------------------------------------------------


shops = Table("cr_shop", [Family("s"), Family("i")])
items = Table("cr_item", [Family("t"), Family("s")])


@model(shops, key=Key(Str("shop_id")))
class ShopRow:
    shop_id: str
    items: dict[str, str] = map_field("i")


@model(items, key=Key(Str("item_id")))
class ItemRow:
    item_id: str
    shops: dict[str, str] = map_field("s")


def test_a_follow_is_written_on_both_sides_by_guarded_writes(
    store: Store, backend: Backend, edge: Edge
) -> None:
    """Both rows read in one get, each side a guarded write; unlink removes both entries."""
    store.create_tables(User)
    follow = edge.pick(Relation, AsyncRelation)(
        edge.store(clock=store.clock), User, "follows", User, "fans"
    )
    for name in ("ann", "bob", "cid"):
        store.repository(User).save(User(user_id=name, nickname=name))
    before = edge.round_trips
    edge.call(follow.link("ann", "bob", "one-way"))
    atomic = "check_and_mutate" in backend.capabilities
    assert edge.round_trips - before == (3 if atomic else 5)  # Thrift1: mutate + get a side
    assert edge.call(follow.of_left("ann")) == {"bob": "one-way"}
    assert edge.call(follow.of_right("bob")) == {"ann": "one-way"}
    edge.call(follow.link("ann", "bob", "one-way"))  # idempotent
    edge.call(follow.link("cid", "bob", "cid's", "bob's"))
    assert edge.call(follow.of_right_many(["bob", "ann"])) == [
        {"ann": "one-way", "cid": "bob's"},
        {},
    ]
    assert edge.call(follow.of_left_many(["cid"])) == [{"bob": "cid's"}]
    assert edge.call(follow.all_of_left()) == {"ann": {"bob": "one-way"}, "cid": {"bob": "cid's"}}
    with pytest.raises(NotFoundError):
        edge.call(follow.link("ann", "nobody", "x"))
    assert edge.call(follow.of_left("ann")) == {"bob": "one-way"}  # nothing left behind
    edge.call(follow.unlink("ann", "bob"))
    assert edge.call(follow.of_left("ann")) == {} and edge.call(follow.of_right("bob")) == {
        "cid": "bob's"
    }
    unit = edge.unit()
    follow.queue_link(unit, "ann", "cid", "queued")
    follow.queue_unlink(unit, "cid", "bob")
    edge.call(unit.commit())
    assert edge.call(follow.of_left("ann")) == {"cid": "queued"}
    assert edge.call(follow.of_right("bob")) == {}
    assert edge.call(follow.verify()) == [] and edge.call(follow.verify(["ann"])) == []
    assert store.repository(User).get(user_id="ann", required=True).nickname == "ann"  # type: ignore[union-attr]


def test_a_half_done_link_across_tables_is_found_and_repaired(backend: Backend) -> None:
    """The second table's write fails: verify finds the one-sided link, repair completes it."""
    faulty = FaultyBackend(backend)
    store = Store(faulty, clock=ManualClock())
    store.create_tables(ShopRow, ItemRow)
    stock = Relation(store, ShopRow, "items", ItemRow, "shops")
    faulty.on("mutate", nth=2, fail=ConnectionLostError("dropped"))
    with pytest.raises(ConnectionLostError):
        stock.link("s1", "t1", "in stock")
    stock.link("s2", "t1", "in stock")
    found = stock.verify()
    assert [(x.left, x.right, x.side) for x in found] == [
        ({"shop_id": "s1"}, {"item_id": "t1"}, "left")
    ]
    assert stock.verify(["s1"]) == found
    assert stock.repair(found) == 1
    assert stock.verify() == []
    assert stock.of_right("t1") == {"s1": "in stock", "s2": "in stock"}


def test_relation_sides_must_be_maps(store: Store) -> None:
    """A side that is not a map field is refused at declaration."""
    with pytest.raises(DeclarationError):
        Relation(store, User, "nickname", User, "fans")
