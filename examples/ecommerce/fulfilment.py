"""Fulfilment: the order graph as record types (R2), ship-to copies (R3), the order BLOB (R4).

The HBase reference guide ("Case Study - Customer/Order": "Order Object Design") designs
an order with several shipping locations and line items in one table: ``[order][ORDER]``,
``[order][SHIPPING][ship#]``, ``[order][LINE][ship#][line#]``.
Every line carries a copy of its shipment's city so a picking list needs no second read
(R3), and the whole order is also kept as one Avro BLOB in the ORDER row, whose schema can
evolve while old rows stay readable (R4). This module declares the three record types, the
copy, and a small service over them; the main job runs it after the shop's three questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

import attrs

from hmodel import Const, Int, Key, Query, Store, Str, field, model
from hmodel.codecs import VersionedAvro
from hmodel.errors import NotFoundError
from hmodel.patterns import Aggregate, Copy, CopyReport, Index, IndexedRepository, RecordTypes
from hmodel.schema import Family, Table

__all__ = [
    "BY_STATUS",
    "FULFILMENT",
    "ORDER_BLOB",
    "Fulfilment",
    "Line",
    "OrderSheet",
    "ShipTo",
    "Shipment",
]

#: The order graph's table: one family, as every record type is read with the others.
FULFILMENT = Table("fulfilment", [Family("f", compression="GZ")])

#: The orders-by-status index table (I1): ``[salt][status][placed at][order rowkey]``.
BY_STATUS = Table("fulfilment_by_status", [Family("x")])

_LINE_ITEM = {
    "type": "record",
    "name": "LineItem",
    "fields": [
        {"name": "ship", "type": "int"},
        {"name": "line", "type": "int"},
        {"name": "goods_id", "type": "string"},
        {"name": "quantity", "type": "int"},
    ],
}
_ORDER_V1 = {
    "type": "record",
    "name": "Order",
    "fields": [
        {"name": "order_id", "type": "string"},
        {"name": "customer_id", "type": "string"},
        {"name": "lines", "type": {"type": "array", "items": _LINE_ITEM}},
    ],
}
#: Version 2 added the currency; rows written with version 1 read as ``"CNY"`` (R4).
_ORDER_V2 = {
    **_ORDER_V1,
    "fields": [*_ORDER_V1["fields"], {"name": "currency", "type": "string", "default": "CNY"}],
}
#: The order BLOB's codec: a version byte, then schemaless Avro (R4).
ORDER_BLOB = VersionedAvro({1: _ORDER_V1, 2: _ORDER_V2})


@model(FULFILMENT, key=Key(Str("order_id"), Const(b"\x01", name="ORDER")))
class OrderSheet:
    """``[order][0x01]``: the order's status and the whole order as one BLOB (R4)."""

    order_id: str
    customer_id: str = field("f:c")
    status: str = field("f:s")
    placed_at: datetime = field("f:d")
    blob: dict[str, Any] = field("f:b", codec=ORDER_BLOB)


@model(FULFILMENT, key=Key(Str("order_id"), Const(b"\x02", name="SHIPPING"), Int("ship", size=2)))
class Shipment:
    """``[order][0x02][ship#]``: where one shipment goes."""

    order_id: str
    ship: int
    address: str = field("f:a")
    city: str = field("f:t")


@model(
    FULFILMENT,
    key=Key(Str("order_id"), Const(b"\x03", name="LINE"), Int("ship", size=2), Int("line", size=2)),
)
class Line:
    """``[order][0x03][ship#][line#]``: one line item, with its shipment's city copied (R3)."""

    order_id: str
    ship: int
    line: int
    goods_id: str = field("f:g")
    quantity: int = field("f:q")
    unit_price: Decimal = field("f:p")
    ship_city: str = field("f:t")


@attrs.frozen
class ShipTo:
    """One shipment of an order to place, with its lines: ``(goods id, quantity, price)``."""

    address: str
    city: str
    lines: Sequence[tuple[str, int, Decimal]]


class Fulfilment:
    """Places multi-shipment orders and keeps their line items' ship-to copies in sync.

    Args:
        store: The store the shop uses (same backend, stamps and listeners).
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.graph = RecordTypes(store, OrderSheet, Shipment, Line)
        #: Orders by status, then by time placed (I1): a consistent secondary index, its
        #: rows salted over 4 buckets by the order so one busy status does not make a
        #: hot region (K3); it covers the customer, so a listing reads no order row.
        self.by_status = Index(
            OrderSheet,
            on=["status", "placed_at"],
            table=BY_STATUS,
            covering=["customer_id"],
            salt=4,
        )
        self.sheets = IndexedRepository(store.repository(OrderSheet), [self.by_status])
        #: Line items copy their shipment's city (R3): found by the key prefix
        #: ``[order][LINE][ship#]``, rewritten in batches when the address changes.
        self.ship_to: Copy[Shipment, Line] = Copy(
            store,
            Shipment,
            Line,
            fields={"ship_city": "city"},
            locate=lambda s: Query({"order_id": s.order_id, "ship": s.ship}),
        )

    def create_table(self) -> None:
        """Create the fulfilment table and its index table (nothing if they exist)."""
        self.store.create_tables(OrderSheet)
        self.sheets.create_tables(exist_ok=True)

    def place(
        self,
        order_id: str,
        customer_id: str,
        shipments: Sequence[ShipTo],
        placed_at: datetime,
    ) -> None:
        """Write the shipments and lines (one request), then the order and its index entry.

        The ORDER row goes through the index's write protocol (an unverified index entry,
        the row, then the entry verified), so the index never answers wrongly; a crash
        before it leaves shipments and lines without an order, which ``graph.groups``
        reports as orphans.
        """
        lines: list[dict[str, Any]] = []
        with self.store.unit_of_work() as unit:
            for ship, target in enumerate(shipments, 1):
                shipment = Shipment(
                    order_id=order_id, ship=ship, address=target.address, city=target.city
                )
                unit.save(shipment)
                for number, (goods_id, quantity, price) in enumerate(target.lines, 1):
                    line = Line(
                        order_id=order_id,
                        ship=ship,
                        line=number,
                        goods_id=goods_id,
                        quantity=quantity,
                        unit_price=price,
                        **self.ship_to.values(shipment),
                    )
                    unit.save(line)
                    lines.append(
                        {"ship": ship, "line": number, "goods_id": goods_id, "quantity": quantity}
                    )
        blob = {"order_id": order_id, "customer_id": customer_id, "lines": lines, "currency": "EUR"}
        self.sheets.save(
            OrderSheet(
                order_id=order_id,
                customer_id=customer_id,
                status="placed",
                placed_at=placed_at,
                blob=blob,
            )
        )

    def set_status(self, order_id: str, status: str) -> None:
        """Move an order to ``status``; its index entry moves with it (I1).

        Raises:
            NotFoundError: No such order.
        """
        sheet = self.store.repository(OrderSheet).get(order_id=order_id, required=True)
        assert sheet is not None  # required=True
        sheet.status = status
        self.sheets.save(sheet)

    def orders_with_status(
        self, status: str, *, since: datetime | None = None, until: datetime | None = None
    ) -> list[OrderSheet]:
        """The orders in ``status`` placed in ``[since, until)``, oldest first (I1).

        One scan of the index per salt bucket, merged, and one ``get_many`` of the orders.
        """
        return self.sheets.find(self.by_status.name, {"status": status}, low=since, high=until)

    def order(self, order_id: str) -> Aggregate[OrderSheet]:
        """The order with its shipments and lines: one scan of its prefix (R2).

        Raises:
            NotFoundError: No such order.
        """
        found = self.graph.group(OrderSheet, {"order_id": order_id})
        if found is None:
            raise NotFoundError("no such order", table=FULFILMENT.full_name, value=order_id)
        return found

    def change_address(self, order_id: str, ship: int, address: str, city: str) -> CopyReport:
        """Move one shipment; every line of it gets the new city (R3). Returns the report.

        Between the shipment's save and the lines' rewrite a reader sees the new address
        and old cities; ``self.ship_to.verify`` finds lines left stale by a crash and
        ``repair`` fixes them.

        Raises:
            NotFoundError: No such shipment.
        """
        shipments = self.store.repository(Shipment)
        shipment = shipments.get(order_id=order_id, ship=ship, required=True)
        assert shipment is not None  # required=True
        shipment.address, shipment.city = address, city
        return self.ship_to.save(shipment)
