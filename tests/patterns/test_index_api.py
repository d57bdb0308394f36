"""IndexedRepository conveniences: update, pages_covered, find(limit=), indexes by object (I1)."""

from __future__ import annotations

from typing import Any

import pytest

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
from hmodel.schema import Family, Table
from tests.edges import Edge
from tests.patterns.index_edges import indexed
from tests.patterns.index_models import Item, Order, colour_index, status_index


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_700_000_000_000)


@pytest.fixture
def items(edge: Edge, clock: ManualClock) -> Any:
    """An indexed repository of the edge (sync or async) with five items saved."""
    repo = indexed(edge, Item, [colour_index()], clock=clock)
    for n, colour in enumerate(["red", "blue", "red", "red", "green"]):
        edge.call(repo.save(Item(item_id=f"i{n}", colour=colour, size=n)))
    return repo


def ids(found: list[Item]) -> list[str]:
    return [o.item_id for o in found]


def test_update_moves_the_entry_and_writes_only_the_changed_fields(edge: Edge, items: Any) -> None:
    changed = edge.call(items.update({"item_id": "i0"}, colour="blue"))
    assert changed == Item(item_id="i0", colour="blue", size=0)
    assert ids(edge.call(items.find("item_by_colour", {"colour": "blue"}))) == ["i0", "i1"]
    assert ids(edge.call(items.find("item_by_colour", {"colour": "red"}))) == ["i2", "i3"]
    # A concurrent writer's change of another field is kept: only i:c was written.
    edge.call(items.repository.update({"item_id": "i2"}, size=42))
    edge.call(items.update({"item_id": "i2"}, colour="green"))
    assert edge.call(items.repository.get(item_id="i2")) == Item(
        item_id="i2", colour="green", size=42
    )


def test_update_refuses_keys_unknown_fields_and_missing_rows(edge: Edge, items: Any) -> None:
    with pytest.raises(ValidationError, match="key field"):
        edge.call(items.update({"item_id": "i0"}, item_id="x"))
    with pytest.raises(ValidationError, match="no field"):
        edge.call(items.update({"item_id": "i0"}, weight=3))
    with pytest.raises(NotFoundError):
        edge.call(items.update({"item_id": "nope"}, colour="red"))
    with pytest.raises(ValidationError):
        edge.call(items.update({"item_id": "i0"}, size="big"))
    assert ids(edge.call(items.find("item_by_colour", {"colour": "red"}))) == ["i0", "i2", "i3"]


def test_update_of_a_versioned_model_checks_the_version(edge: Edge, clock: ManualClock) -> None:
    orders = indexed(edge, Order, [status_index()], clock=clock)
    edge.call(orders.save(Order(order_id="o1", status="new", total=5)))
    updated = edge.call(orders.update({"order_id": "o1"}, status="paid"))
    assert updated.status == "paid" and updated.version > 0
    assert [o.order_id for o in edge.call(orders.find("order_by_status", {"status": "paid"}))] == [
        "o1"
    ]
    stale = Order(order_id="o1", status="new", total=5, version=1)
    with pytest.raises(ConflictError):
        edge.call(orders.save(stale))


def test_pages_covered_iterates_every_page(edge: Edge, items: Any) -> None:
    pages = edge.list(items.pages_covered("item_by_colour", 2, {"colour": "red"}))
    assert [len(p.items) for p in pages] == [2, 1]
    assert [d["item_id"] for p in pages for d in p.items] == ["i0", "i2", "i3"]
    assert pages[0].items[0] == {"item_id": "i0", "colour": "red", "size": 0}


def test_find_with_a_limit_stops_early(edge: Edge, items: Any) -> None:
    assert ids(edge.call(items.find("item_by_colour", {"colour": "red"}, limit=2))) == ["i0", "i2"]
    assert ids(edge.call(items.find("item_by_colour", limit=10))) == ["i1", "i4", "i0", "i2", "i3"]
    for bad in (0, -1, True, 1.5):
        with pytest.raises(QueryError):
            edge.call(items.find("item_by_colour", limit=bad))


def test_an_index_is_named_by_its_object_too(edge: Edge, items: Any) -> None:
    index = items.index("item_by_colour")
    assert ids(edge.call(items.find(index, {"colour": "green"}))) == ["i4"]
    assert edge.call(items.page(index, 1, {"colour": "red"})).items[0].item_id == "i0"
    with pytest.raises(QueryError):
        edge.call(items.find(colour_index(salt=2), {"colour": "red"}))  # not this repository's
    with pytest.raises(QueryError):
        items.index("nope")


def test_an_index_declared_with_nulls_finds_rows_without_a_value(
    edge: Edge, clock: ManualClock
) -> None:
    by_customer = Index(
        Order, on=["customer"], table=Table("order_by_c", [Family("x")]), nulls=True
    )
    orders = indexed(edge, Order, [by_customer], clock=clock)
    edge.call(orders.save(Order(order_id="o1", status="new", total=1)))
    edge.call(orders.save(Order(order_id="o2", status="new", total=2, customer="carl")))
    edge.call(orders.save(Order(order_id="o3", status="new", total=3, customer="cleo")))
    assert [o.order_id for o in edge.call(orders.find(by_customer, {"customer": None}))] == ["o1"]
    assert [o.order_id for o in edge.call(orders.find(by_customer))] == [
        "o1",
        "o2",
        "o3",
    ]  # None first
    assert [o.order_id for o in edge.call(orders.find(by_customer, startswith="cl"))] == ["o3"]
    edge.call(orders.update({"order_id": "o1"}, customer="carl"))
    edge.call(orders.update({"order_id": "o2"}, customer=None))
    assert [o.order_id for o in edge.call(orders.find(by_customer, {"customer": None}))] == ["o2"]
    assert [o.order_id for o in edge.call(orders.find(by_customer, {"customer": "carl"}))] == ["o1"]
    assert run_index_job(edge.backend, by_customer, "verify").problems == 0


def test_a_unique_index_does_not_take_nulls() -> None:
    with pytest.raises(DeclarationError, match="None"):
        Index(Item, on=["colour"], table=Table("t", [Family("x")]), unique=True, nulls=True)
