"""The Store shares one backend, stamps and listeners; units of work carry every write."""

from __future__ import annotations

import pytest

from hmodel import Family, Key, Store, Str, Table, counter, field, map_field, model
from hmodel.backend.base import Backend
from hmodel.clock import ManualClock
from hmodel.errors import ValidationError
from hmodel.repository import QueryEvent

shop = Table("st_shop", [Family("s"), Family("i")])


@model(shop, key=Key(Str("shop_id")))
class Shop:
    shop_id: str
    name: str = field("s:n")
    visits: int = counter("s:v")
    items: dict[str, str] = map_field("i")


@pytest.fixture
def store(backend: Backend) -> Store:
    created = Store(backend, clock=ManualClock())
    created.create_tables(Shop)
    return created


def test_repositories_are_cached_and_share_stamps(store: Store) -> None:
    """One repository per model; every write of the store is ordered by one clock."""
    repo = store.repository(Shop)
    assert store.repository(Shop) is repo
    assert repo.stamps is store.stamps


def test_listeners_hear_repositories_and_units(store: Store) -> None:
    """A listener added to the store hears every repository call and every commit."""
    heard: list[QueryEvent] = []
    store.add_listener(heard.append)
    store.repository(Shop).get(shop_id="x")
    with store.unit_of_work() as unit:
        unit.save(Shop(shop_id="s1", name="one"))
    assert [e.operation for e in heard] == ["get", "commit"]
    assert heard[1].table == "st_shop" and heard[1].round_trips >= 1


def test_a_unit_carries_every_kind_of_write(store: Store, backend: Backend) -> None:
    """Saves, entries put and removed, increments and deletes in one unit, in order."""
    repo = store.repository(Shop)
    repo.save(Shop(shop_id="old", name="gone"))
    with store.unit_of_work() as unit:
        unit.save(Shop(shop_id="s1", name="one", items={"a": "1", "b": "2"}))
        unit.remove_entries(Shop, {"shop_id": "s1"}, "items", ["a"])
        unit.put_entries(Shop, {"shop_id": "s1"}, "items", {"c": "3"})
        unit.increment(Shop, {"shop_id": "s1"}, visits=2)
        unit.delete(Shop, shop_id="old")
        assert unit.pending == 7
    stored = repo.get(shop_id="s1", required=True)
    assert stored is not None
    assert stored.items == {"b": "2", "c": "3"} and stored.visits == 2
    assert repo.get(shop_id="old") is None


def test_a_unit_refuses_bad_increments_when_queued(store: Store) -> None:
    """Nothing is queued or sent for a bad increment."""
    unit = store.unit_of_work()
    with pytest.raises(ValidationError):
        unit.increment(Shop, {"shop_id": "s"}, name=1)
    with pytest.raises(ValidationError):
        unit.increment(Shop, {"shop_id": "s"}, visits=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        unit.increment(Shop, {"shop_id": "s"})
    with pytest.raises(ValidationError):  # a good counter beside a bad one: neither queued
        unit.increment(Shop, {"shop_id": "s"}, visits=1, name=1)
    assert unit.pending == 0


def test_entries_put_after_a_remove_in_one_unit_stay(store: Store) -> None:
    """The last operation on an entry wins inside a unit, whatever its kind."""
    repo = store.repository(Shop)
    repo.save(Shop(shop_id="s", name="n", items={"x": "old"}))
    with store.unit_of_work() as unit:
        unit.remove_entries(Shop, {"shop_id": "s"}, "items", ["x"])
        unit.put_entries(Shop, {"shop_id": "s"}, "items", {"x": "new"})
    assert repo.get_entries({"shop_id": "s"}, "items") == {"x": "new"}
    with store.unit_of_work() as unit:
        unit.delete(Shop, shop_id="s")
        unit.put_entries(Shop, {"shop_id": "s"}, "items", {"y": "1"})
    assert repo.get_entries({"shop_id": "s"}, "items") == {"y": "1"}
