"""IndexedRepository conveniences: update, pages_covered, find(limit=), indexes by object (I1)."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend
from hmodel.clock import ManualClock
from hmodel.errors import (
    ConflictError,
    DeclarationError,
    NotFoundError,
    QueryError,
    ValidationError,
)
from hmodel.patterns.index import Index
from hmodel.patterns.index_job import run_index_job
from hmodel.patterns.index_repository import IndexedRepository
from hmodel.repository import Repository
from hmodel.schema import Family, Table
from tests.patterns.index_models import Item, Order, colour_index, status_index


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_700_000_000_000)


@pytest.fixture
def items(backend: Backend, clock: ManualClock) -> IndexedRepository[Item]:
    repo = IndexedRepository(Repository(Item, backend, clock=clock), [colour_index()])
    repo.create_tables()
    for n, colour in enumerate(["red", "blue", "red", "red", "green"]):
        repo.save(Item(item_id=f"i{n}", colour=colour, size=n))
    return repo


def ids(found: list[Item]) -> list[str]:
    return [o.item_id for o in found]


def test_update_moves_the_entry_and_writes_only_the_changed_fields(
    items: IndexedRepository[Item], backend: Backend
) -> None:
    changed = items.update({"item_id": "i0"}, colour="blue")
    assert changed == Item(item_id="i0", colour="blue", size=0)
    assert ids(items.find("item_by_colour", {"colour": "blue"})) == ["i0", "i1"]
    assert ids(items.find("item_by_colour", {"colour": "red"})) == ["i2", "i3"]
    # A concurrent writer's change of another field is kept: only i:c was written.
    items.repository.update({"item_id": "i2"}, size=42)
    items.update({"item_id": "i2"}, colour="green")
    assert items.repository.get(item_id="i2") == Item(item_id="i2", colour="green", size=42)


def test_update_refuses_keys_unknown_fields_and_missing_rows(
    items: IndexedRepository[Item],
) -> None:
    with pytest.raises(ValidationError, match="key field"):
        items.update({"item_id": "i0"}, item_id="x")
    with pytest.raises(ValidationError, match="no field"):
        items.update({"item_id": "i0"}, weight=3)
    with pytest.raises(NotFoundError):
        items.update({"item_id": "nope"}, colour="red")
    with pytest.raises(ValidationError):
        items.update({"item_id": "i0"}, size="big")
    assert ids(items.find("item_by_colour", {"colour": "red"})) == ["i0", "i2", "i3"]


def test_update_of_a_versioned_model_checks_the_version(
    backend: Backend, clock: ManualClock
) -> None:
    orders = IndexedRepository(Repository(Order, backend, clock=clock), [status_index()])
    orders.create_tables()
    orders.save(Order(order_id="o1", status="new", total=5))
    updated = orders.update({"order_id": "o1"}, status="paid")
    assert updated.status == "paid" and updated.version > 0
    assert [o.order_id for o in orders.find("order_by_status", {"status": "paid"})] == ["o1"]
    stale = Order(order_id="o1", status="new", total=5, version=1)
    with pytest.raises(ConflictError):
        orders.save(stale)


def test_pages_covered_iterates_every_page(items: IndexedRepository[Item]) -> None:
    pages = list(items.pages_covered("item_by_colour", 2, {"colour": "red"}))
    assert [len(p.items) for p in pages] == [2, 1]
    assert [d["item_id"] for p in pages for d in p.items] == ["i0", "i2", "i3"]
    assert pages[0].items[0] == {"item_id": "i0", "colour": "red", "size": 0}


def test_find_with_a_limit_stops_early(items: IndexedRepository[Item]) -> None:
    assert ids(items.find("item_by_colour", {"colour": "red"}, limit=2)) == ["i0", "i2"]
    assert ids(items.find("item_by_colour", limit=10)) == ["i1", "i4", "i0", "i2", "i3"]
    for bad in (0, -1, True, 1.5):
        with pytest.raises(QueryError):
            items.find("item_by_colour", limit=bad)


def test_an_index_is_named_by_its_object_too(items: IndexedRepository[Item]) -> None:
    index = items.index("item_by_colour")
    assert ids(items.find(index, {"colour": "green"})) == ["i4"]
    assert items.page(index, 1, {"colour": "red"}).items[0].item_id == "i0"
    with pytest.raises(QueryError):
        items.find(colour_index(salt=2), {"colour": "red"})  # not this repository's
    with pytest.raises(QueryError):
        items.index("nope")


def test_an_index_declared_with_nulls_finds_rows_without_a_value(
    backend: Backend, clock: ManualClock
) -> None:
    by_customer = Index(
        Order, on=["customer"], table=Table("order_by_c", [Family("x")]), nulls=True
    )
    orders = IndexedRepository(Repository(Order, backend, clock=clock), [by_customer])
    orders.create_tables()
    orders.save(Order(order_id="o1", status="new", total=1))
    orders.save(Order(order_id="o2", status="new", total=2, customer="carl"))
    orders.save(Order(order_id="o3", status="new", total=3, customer="cleo"))
    assert [o.order_id for o in orders.find(by_customer, {"customer": None})] == ["o1"]
    assert [o.order_id for o in orders.find(by_customer)] == ["o1", "o2", "o3"]  # None first
    assert [o.order_id for o in orders.find(by_customer, startswith="cl")] == ["o3"]
    orders.update({"order_id": "o1"}, customer="carl")
    orders.update({"order_id": "o2"}, customer=None)
    assert [o.order_id for o in orders.find(by_customer, {"customer": None})] == ["o2"]
    assert [o.order_id for o in orders.find(by_customer, {"customer": "carl"})] == ["o1"]
    assert run_index_job(backend, by_customer, "verify").problems == 0


def test_a_unique_index_does_not_take_nulls() -> None:
    with pytest.raises(DeclarationError, match="None"):
        Index(Item, on=["colour"], table=Table("t", [Family("x")]), unique=True, nulls=True)
