"""Counters (F10), field history (F7), per-write TTL (F8) and map entries (F6) via repositories."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from hmodel import Family, Key, Str, Table, counter, field, map_field, model
from hmodel.backend.base import Put
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.clock import ManualClock
from hmodel.errors import CounterError, ValidationError
from hmodel.repository import Repository, where

MakeRepo = Callable[..., Repository[Any]]

catalogue = Table("goods", [Family("g", versions=10), Family("s")])


@model(catalogue, key=Key(Str("goods_id")))
class Goods:
    """The seed's goods table: VERSIONS 10 keeps a price history (F7); sales are counters."""

    goods_id: str
    name: str = field("g:n")
    price: int = field("g:p", history=True)
    sold: int = counter("s:q")
    revenue: int = counter("s:r")


shops = Table("shop", [Family("i"), Family("m")])


@model(shops, key=Key(Str("shop_id")))
class Shop:
    """A shop and its items kept on the shop's side (R6): ``m:item_<id> = category``."""

    shop_id: str
    name: str = field("i:n")
    rating: str | None = field("i:r", default=None)
    items: dict[str, str] = map_field("m", prefix="item_")


sessions = Table("session", [Family("s", ttl=3600)])


@model(sessions, key=Key(Str("sid")), ttl=timedelta(minutes=10))
class Session:
    """Sessions live 10 minutes per write (F8), never beyond the family's hour."""

    sid: str
    user: str = field("s:u")


def test_increments_are_atomic_and_read_back_as_ints(make_repo: MakeRepo, backend: Any) -> None:
    repo = make_repo(Goods)
    repo.save(Goods(goods_id="g1", name="tea", price=30))
    before = backend.round_trips
    assert repo.increment({"goods_id": "g1"}, sold=2) == {"sold": 2}
    assert backend.round_trips - before == 1
    assert repo.increment({"goods_id": "g1"}, sold=1, revenue=30) == {"sold": 3, "revenue": 30}
    stored = repo.get(goods_id="g1")
    assert stored is not None and (stored.sold, stored.revenue) == (3, 30)


def test_a_save_never_overwrites_counters(make_repo: MakeRepo, clock: Any) -> None:
    repo = make_repo(Goods)
    repo.increment({"goods_id": "g1"}, sold=5)
    clock.advance(1)
    repo.save(Goods(goods_id="g1", name="tea", price=30, sold=0))
    stored = repo.get(goods_id="g1")
    assert stored is not None and stored.sold == 5


def test_increments_of_many_rows_travel_in_one_round_trip(
    make_repo: MakeRepo, backend: Any
) -> None:
    repo = make_repo(Goods)
    before = backend.round_trips
    repo.increment_many(
        [({"goods_id": f"g{i}"}, {"sold": i, "revenue": 10 * i}) for i in range(1, 6)]
    )
    # Thrift2 has no multi-row increment: one call per row, both counters of a row in it.
    assert backend.round_trips - before == (5 if isinstance(backend, Thrift2Backend) else 1)
    assert repo.increment({"goods_id": "g4"}, sold=0) == {"sold": 4}


def test_only_counter_fields_increment(make_repo: MakeRepo) -> None:
    repo = make_repo(Goods)
    with pytest.raises(ValidationError):
        repo.increment({"goods_id": "g1"}, price=1)
    with pytest.raises(ValidationError):
        repo.increment({"goods_id": "g1"}, sold=1.5)


def test_incrementing_a_cell_that_is_not_a_long_is_a_counter_error(make_repo: MakeRepo) -> None:
    repo = make_repo(Goods)
    repo.backend.mutate("goods", [Put(repo.mapper.key_of(goods_id="g1"), b"s:q", b"12")])
    with pytest.raises(CounterError):
        repo.increment({"goods_id": "g1"}, sold=1)


def test_history_returns_a_fields_versions_newest_first(make_repo: MakeRepo, clock: Any) -> None:
    repo = make_repo(Goods)
    stamps = []
    for price in (30, 32, 35):
        stamps.append(clock())
        repo.save(Goods(goods_id="g1", name="tea", price=price))
        clock.advance(1000)
    assert repo.history("price", goods_id="g1") == [
        (35, stamps[2]),
        (32, stamps[1]),
        (30, stamps[0]),
    ]
    assert repo.history("price", goods_id="g1", limit=1) == [(35, stamps[2])]
    old = repo.get(goods_id="g1", as_of=stamps[1])
    assert old is not None and old.price == 32


def test_map_entries_are_added_read_and_removed_without_rewriting_the_row(
    make_repo: MakeRepo, backend: Any, clock: Any
) -> None:
    repo = make_repo(Shop)
    repo.save(Shop(shop_id="s1", name="corner", rating="5"))
    key = {"shop_id": "s1"}
    before = backend.round_trips
    repo.put_entries(key, "items", {"i1": "tea", "i2": "cups"})
    assert backend.round_trips - before == 1
    assert repo.get_entries(key, "items") == {"i1": "tea", "i2": "cups"}
    assert repo.get_entries(key, "items", ["i2", "nope"]) == {"i2": "cups"}
    clock.advance(1)
    repo.remove_entries(key, "items", ["i1"])
    shop = repo.get(shop_id="s1")
    assert shop is not None
    assert (shop.name, shop.rating, shop.items) == ("corner", "5", {"i2": "cups"})


def test_string_conditions_may_use_ranges(make_repo: MakeRepo) -> None:
    repo = make_repo(Shop)
    repo.save_many([Shop(shop_id=f"s{i}", name=name) for i, name in enumerate("abcd")])
    assert [s.name for s in repo.scan(where=(where("name") >= "b") & (where("name") < "d"))] == [
        "b",
        "c",
    ]


def test_cells_written_with_a_ttl_expire_on_the_engine_clock() -> None:
    clock = ManualClock()
    backend = MemoryBackend(clock=clock)
    repo = Repository(Session, backend, clock=clock)
    repo.create_table()
    repo.save(Session(sid="a", user="ann"))
    repo.save(Session(sid="b", user="ben"), ttl=timedelta(minutes=30))
    clock.advance(seconds=11 * 60)
    assert repo.get(sid="a") is None
    assert repo.get(sid="b") is not None
    clock.advance(seconds=20 * 60)
    assert repo.get(sid="b") is None


def test_a_ttl_that_is_not_positive_is_refused() -> None:
    repo = Repository(Session, MemoryBackend())
    with pytest.raises(ValidationError):
        repo.save(Session(sid="a", user="ann"), ttl=timedelta(0))
