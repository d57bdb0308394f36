"""The e-commerce fulfilment part: order graph (R2), ship-to copies (R3), order BLOB (R4)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest

from examples.ecommerce.fulfilment import (
    BY_STATUS,
    FULFILMENT,
    ORDER_BLOB,
    Fulfilment,
    Line,
    OrderSheet,
    Shipment,
    ShipTo,
)
from examples.ecommerce.service import Shop
from hmodel.backend.base import Backend
from hmodel.codecs import VersionedAvro
from hmodel.errors import NotFoundError
from tests.examples.conftest import create_tables

NOON = datetime(2024, 3, 1, 12, tzinfo=timezone.utc)


@pytest.fixture
def fulfilment(shop: Shop, backend: Backend) -> Fulfilment:
    create_tables(backend, [FULFILMENT, BY_STATUS])
    created = Fulfilment(shop.store)
    created.place(
        "F1",
        "C1",
        [
            ShipTo("1 Quai", "Lyon", [("G1", 2, Decimal("1.00")), ("G2", 1, Decimal("2.00"))]),
            ShipTo("8 Via", "Turin", [("G3", 4, Decimal("3.00"))]),
        ],
        NOON,
    )
    return created


def test_a_placed_order_reads_back_as_a_graph_in_one_scan_R2(shop: Shop, backend: Backend) -> None:
    """Every record type of the order in one mutate; one scan reads the aggregate back."""
    create_tables(backend, [FULFILMENT, BY_STATUS])
    fulfilment = Fulfilment(shop.store)
    fulfilment.place("F2", "C9", [ShipTo("a", "Oslo", [("G1", 1, Decimal("1.00"))])], NOON)
    order = fulfilment.order("F2")
    assert order.root.customer_id == "C9" and order.root.status == "placed"
    assert [s.city for s in order.of(Shipment)] == ["Oslo"]
    assert [x.ship_city for x in order.of(Line)] == ["Oslo"]


def test_the_order_blob_holds_the_whole_order_and_evolves_R4(fulfilment: Fulfilment) -> None:
    """The BLOB is version 2; a version-1 cell reads in version 2's shape (currency CNY)."""
    blob = fulfilment.order("F1").root.blob
    assert [(x["ship"], x["line"], x["goods_id"]) for x in blob["lines"]] == [
        (1, 1, "G1"),
        (1, 2, "G2"),
        (2, 1, "G3"),
    ]
    assert blob["currency"] == "EUR"
    # A row written before version 2 existed: version byte 1, no currency.
    v1 = {k: v for k, v in blob.items() if k != "currency"}
    old = VersionedAvro({1: ORDER_BLOB.schemas[1]}).encode(v1)
    assert old[0] == 1 and ORDER_BLOB.decode(old)["currency"] == "CNY"


def test_moving_a_shipment_rewrites_its_lines_only_R3(fulfilment: Fulfilment) -> None:
    """The moved shipment's lines get the new city; the other shipment's stay."""
    report = fulfilment.change_address("F1", 1, "2 Rue", "Grenoble")
    assert (report.examined, report.touched) == (2, 2)
    order = fulfilment.order("F1")
    assert [(x.ship, x.ship_city) for x in order.of(Line)] == [
        (1, "Grenoble"),
        (1, "Grenoble"),
        (2, "Turin"),
    ]
    shipments = fulfilment.store.repository(Shipment).scan({"order_id": "F1"})
    assert fulfilment.ship_to.verify(shipments) == []


def test_an_unknown_order_is_not_found(fulfilment: Fulfilment) -> None:
    with pytest.raises(NotFoundError):
        fulfilment.order("nope")
    with pytest.raises(NotFoundError):
        fulfilment.change_address("nope", 1, "x", "y")
    assert fulfilment.store.repository(OrderSheet).get(order_id="F1") is not None


def test_orders_are_found_by_status_and_time_through_the_index_I1(
    fulfilment: Fulfilment,
) -> None:
    """Placing indexes the order; a status change moves its entry; a window bounds the time."""
    for n in (2, 3, 4):
        fulfilment.place(
            f"F{n}", f"C{n}", [ShipTo("x", "Oslo", [("G1", 1, Decimal("1.00"))])],
            NOON + timedelta(hours=n),
        )  # fmt: skip
    fulfilment.set_status("F3", "shipped")
    assert [o.order_id for o in fulfilment.orders_with_status("placed")] == ["F1", "F2", "F4"]
    assert [o.order_id for o in fulfilment.orders_with_status("shipped")] == ["F3"]
    window = fulfilment.orders_with_status(
        "placed", since=NOON + timedelta(hours=1), until=NOON + timedelta(hours=4)
    )
    assert [o.order_id for o in window] == ["F2"]
    with pytest.raises(NotFoundError):
        fulfilment.set_status("nope", "shipped")
