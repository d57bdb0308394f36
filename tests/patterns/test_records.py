"""Record types in one table, read in one scan (R1, R2), on every backend."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from hmodel import Const, Family, Int, Key, Store, Str, Table, field, model
from hmodel.aio import AsyncMemoryBackend, AsyncRecordTypes, AsyncStore
from hmodel.backend.base import Backend, Put
from hmodel.clock import ManualClock
from hmodel.errors import DeclarationError, DecodeError
from hmodel.patterns import RecordTypes
from tests.edges import Edge

orders = Table("rt_order", [Family("o")])


@model(orders, key=Key(Str("order_id"), Const(b"\x01", name="ORDER")))
class Order:
    """[order][ORDER] (R2)."""

    order_id: str
    customer: str = field("o:c")


@model(orders, key=Key(Str("order_id"), Const(b"\x02", name="SHIPPING"), Int("ship", size=2)))
class Shipping:
    """[order][SHIPPING][ship#]."""

    order_id: str
    ship: int
    city: str = field("o:t")


@model(
    orders,
    key=Key(Str("order_id"), Const(b"\x03", name="LINE"), Int("ship", size=2), Int("line", size=2)),
)
class Line:
    """[order][LINE][ship#][line#]."""

    order_id: str
    ship: int
    line: int
    item: str = field("o:i")
    price: Decimal = field("o:p")


@pytest.fixture
def store(backend: Backend) -> Store:
    created = Store(backend, clock=ManualClock())
    created.create_tables(Order)
    with created.unit_of_work() as unit:
        for order_id in ("o1", "o2"):
            unit.save(Order(order_id=order_id, customer="ann"))
            unit.save(Shipping(order_id=order_id, ship=1, city="Paris"))
            unit.save(Shipping(order_id=order_id, ship=2, city="Rome"))
            for line in (1, 2):
                unit.save(
                    Line(order_id=order_id, ship=1, line=line, item=f"i{line}", price=Decimal(1))
                )
    return created


def _types(edge: Edge, store: Store, *models: type) -> Any:
    """``RecordTypes`` or ``AsyncRecordTypes`` of ``models`` on the edge's backend."""
    return edge.pick(RecordTypes, AsyncRecordTypes)(edge.store(clock=store.clock), *models)


def test_one_scan_reads_every_record_type_in_key_order_R2(store: Store, edge: Edge) -> None:
    """ORDER, then SHIPPING rows, then LINE rows: typed objects, one scan."""
    graph = _types(edge, store, Order, Shipping, Line)
    before = edge.round_trips
    records = edge.call(graph.read({"order_id": "o1"}))
    assert [type(r).__name__ for r in records] == ["Order", "Shipping", "Shipping", "Line", "Line"]
    assert edge.round_trips - before <= 3  # open, fetch (and a close over Thrift)
    assert graph.plan({"order_id": "o1"}).spans[0].start == b"o1\x00\x00\x01"
    reverse = edge.list(graph.scan({"order_id": "o1"}, reverse=True))
    assert [type(r).__name__ for r in reverse] == ["Line", "Line", "Shipping", "Shipping", "Order"]


def test_aggregates_group_members_under_their_root(store: Store, edge: Edge) -> None:
    """An Order with its shipments and lines, per order, in key order."""
    graph = _types(edge, store, Order, Shipping, Line)
    aggregates = edge.list(graph.groups(Order, {}))
    assert [a.root.order_id for a in aggregates] == ["o1", "o2"]
    first = aggregates[0]
    assert [s.city for s in first.of(Shipping)] == ["Paris", "Rome"]
    assert [(x.ship, x.line) for x in first.of(Line)] == [(1, 1), (1, 2)]
    one = edge.call(graph.group(Order, {"order_id": "o2"}))
    assert one is not None and one.root.order_id == "o2" and len(one.members) == 4
    with pytest.raises(DeclarationError, match="records under this prefix"):
        edge.call(graph.group(Order, {}))


def test_a_single_type_scan_reads_only_its_own_rows(store: Store, backend: Backend) -> None:
    """The repository's range includes the type tag after the prefix: no other rows fetched."""
    lines = store.repository(Line)
    plan = lines.plan({"order_id": "o1"})
    assert plan.spans[0].start == b"o1\x00\x00\x03"
    assert [x.line for x in lines.scan({"order_id": "o1"})] == [1, 2]


def test_an_orphan_member_is_reported(store: Store, edge: Edge) -> None:
    """A line whose order was deleted is an error, or skipped and reported."""
    store.repository(Order).delete(order_id="o2")
    graph = _types(edge, store, Order, Shipping, Line)
    with pytest.raises(DecodeError):
        edge.list(graph.groups(Order, {}))
    reported: list[DecodeError] = []
    aggregates = edge.list(graph.groups(Order, {}, on_error=reported.append))
    assert [a.root.order_id for a in aggregates] == ["o1"]
    assert len(reported) == 4
    with pytest.raises(DeclarationError, match="not one of these record types"):
        graph.groups(Store, {})  # checked at once, before any request


def test_a_row_of_no_declared_type_is_an_error(store: Store, backend: Backend, edge: Edge) -> None:
    """Corrupt keys under the prefix are not silently skipped."""
    backend.mutate("rt_order", [Put(b"o1\x00\x00\x02j", b"o:t", b"x")])  # truncated
    graph = _types(edge, store, Order, Shipping, Line)
    with pytest.raises(DecodeError):
        edge.call(graph.read({"order_id": "o1"}))
    assert len(edge.call(graph.read({"order_id": "o1"}, on_error="skip"))) == 5


def test_record_types_live_in_one_table(store: Store) -> None:
    """Declaring types of two tables together is refused."""

    @model(Table("rt_other", [Family("x")]), key=Key(Str("order_id")))
    class Other:
        order_id: str
        value: str = field("x:v")

    with pytest.raises(DeclarationError):
        RecordTypes(store, Order, Other)
    with pytest.raises(DeclarationError):
        RecordTypes(store, Order)
    with pytest.raises(DeclarationError):
        AsyncRecordTypes(AsyncStore(AsyncMemoryBackend()), Order, Other)
