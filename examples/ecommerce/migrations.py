"""The e-commerce example's data revisions: orders moved from 10 salt buckets to 16."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from examples.ecommerce.models import Buyer, Order
from hmodel import Key, ReverseTimestamp, Salt, Str, field, model
from hmodel.patterns import DataMigration
from hmodel.schema import Family, SaltSplits, Table

__all__ = ["BUCKETS16", "BUYERS_SALT16", "ORDER16", "ORDERS_SALT16", "Buyer16", "Order16"]

#: The new salt bucket count: the cluster grew from 10 region servers to 16.
BUCKETS16 = 16

#: The new order table: the same families, pre-split into 16 regions, one per bucket.
ORDER16 = Table("order16", [Family("o"), Family("c")], splits=SaltSplits(BUCKETS16))

#: The order rowkey with 16 buckets; every other component as in ``ORDER_KEY``.
ORDER16_KEY = Key(
    Salt("order_id", buckets=BUCKETS16),
    Str("category"),
    Str("goods_id"),
    ReverseTimestamp("ordered_at"),
    Str("order_id"),
)


@model(ORDER16, key=ORDER16_KEY)
class Order16:
    """An order in the 16-bucket layout: the fields of :class:`Order`, another key."""

    order_id: str
    category: str
    goods_id: str
    ordered_at: datetime
    customer_id: str = field("o:c")
    quantity: int = field("o:q")
    unit_price: Decimal = field("o:p")
    total: Decimal = field("o:t")


@model(ORDER16, key=ORDER16_KEY)
class Buyer16:
    """The buyer's copy (R7) in the 16-bucket layout: the fields of :class:`Buyer`."""

    order_id: str
    category: str
    goods_id: str
    ordered_at: datetime
    customer_id: str = field("c:i")
    gender: str = field("c:g")
    birth_date: str = field("c:b")
    city: str = field("c:c")
    level: str = field("c:l")


def order16(order: Order) -> Order16:
    """The same order, keyed for 16 buckets (the key fields are unchanged)."""
    return Order16(
        order_id=order.order_id,
        category=order.category,
        goods_id=order.goods_id,
        ordered_at=order.ordered_at,
        customer_id=order.customer_id,
        quantity=order.quantity,
        unit_price=order.unit_price,
        total=order.total,
    )


def buyer16(buyer: Buyer) -> Buyer16:
    """The same buyer copy, keyed for 16 buckets."""
    return Buyer16(
        order_id=buyer.order_id,
        category=buyer.category,
        goods_id=buyer.goods_id,
        ordered_at=buyer.ordered_at,
        customer_id=buyer.customer_id,
        gender=buyer.gender,
        birth_date=buyer.birth_date.isoformat(),
        city=buyer.city,
        level=buyer.level,
    )


#: Orders from 10 salt buckets to 16: a new key layout, in a new table (expand/contract).
ORDERS_SALT16: DataMigration[Order, Order16] = DataMigration(
    revision="2026_11_orders_salt16",
    down_revision=None,
    old=Order,
    new=Order16,
    transform=order16,
    description="orders: salt of 10 buckets to 16 (table order16)",
)

#: The buyer copies of the same rows (family ``c``), moved by a revision of their own.
BUYERS_SALT16: DataMigration[Buyer, Buyer16] = DataMigration(
    revision="2026_11_buyers_salt16",
    down_revision="2026_11_orders_salt16",
    old=Buyer,
    new=Buyer16,
    transform=buyer16,
    description="buyer copies: salt of 10 buckets to 16 (table order16)",
)
