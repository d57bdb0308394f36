"""The e-commerce models: customers, goods with price history and sales counters, orders."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from examples.ecommerce.schema import CUSTOMER, CUSTOMER_ORDER, GOODS, ORDER, REGIONS
from hmodel import Key, ReverseTimestamp, Salt, Str, counter, field, model

__all__ = ["ORDER_KEY", "Buyer", "Customer", "CustomerOrder", "Goods", "Order"]


@model(CUSTOMER, key=Key(Str("customer_id")))
class Customer:
    """A customer: one row ``[customer id]`` of family ``c`` (K1, F2).

    Its attributes are what buyer analysis groups by; placing an order copies them into
    the order row (R7), see :class:`Buyer`.
    """

    customer_id: str
    name: str = field("c:n")
    gender: str = field("c:g")
    birth_date: date = field("c:b")
    city: str = field("c:c")
    level: str = field("c:l")


@model(GOODS, key=Key(Salt("goods_id", buckets=REGIONS), Str("goods_id")))
class Goods:
    """A product: one row ``[salt(goods id)][goods id]`` of family ``g``.

    The key leads with a salt bucket computed from the goods id (K3, K4): every product
    lands in one of the 10 pre-split regions and a Get by goods id still works, because
    the bucket is recomputed from the id. ``price`` keeps its history as cell versions
    of the ``VERSIONS 10`` family (F7): changing a price writes a new version, and
    :meth:`~hmodel.repository.Repository.history` reads the last ten. The sales figures
    are server-side counters (F10), incremented atomically by every order and never
    overwritten by a save; revenue is counted in cents because a counter is an integer.
    """

    goods_id: str
    name: str = field("g:n")
    category: str = field("g:c")
    price: Decimal = field("g:p", history=True)
    units_sold: int = counter("g:u")
    revenue_cents: int = counter("g:r")
    orders: int = counter("g:o")


#: The order rowkey: ``[salt(order id)][category][goods id][Long.MAX_VALUE - order time]
#: [order id]``. Category and goods lead the natural key because buyer analysis reads the
#: orders of one category or one product (K1); the time is reversed so the newest orders
#: come first and a time window is a key range (K6); the order id ends the key and makes it
#: unique (K10). The salt is computed from the order id, so even the orders of a single
#: best-selling product spread evenly over the 10 regions (K3, K8); the price is paid on
#: reads, which fan out to one scan per bucket and merge them (I5).
ORDER_KEY = Key(
    Salt("order_id", buckets=REGIONS),
    Str("category"),
    Str("goods_id"),
    ReverseTimestamp("ordered_at"),
    Str("order_id"),
)


@model(ORDER, key=ORDER_KEY)
class Order:
    """An order of one product: the ``o`` family of an order row.

    An order row has two families read by different code (F1), so each has its own
    model over the same rows: this one is the order itself, :class:`Buyer` the copy of
    the buyer's attributes. Placing an order saves both in one request.
    """

    order_id: str
    category: str
    goods_id: str
    ordered_at: datetime
    customer_id: str = field("o:c")
    quantity: int = field("o:q")
    unit_price: Decimal = field("o:p")
    total: Decimal = field("o:t")


@model(ORDER, key=ORDER_KEY)
class Buyer:
    """The buyer's attributes copied into an order row: the ``c`` family (R7).

    Copied from :class:`Customer` when the order is placed, so buyer analysis reads the
    orders of a product or category alone, with no join and no Get per buyer, and sees
    each buyer as they were when they ordered. The copy is never updated afterwards.
    """

    order_id: str
    category: str
    goods_id: str
    ordered_at: datetime
    customer_id: str = field("c:i")
    gender: str = field("c:g")
    birth_date: date = field("c:b")
    city: str = field("c:c")
    level: str = field("c:l")


@model(
    CUSTOMER_ORDER,
    key=Key(Str("customer_id"), Str("goods_id"), ReverseTimestamp("ordered_at"), Str("order_id")),
)
class CustomerOrder:
    """One product a customer bought: ``[customer][goods][Long.MAX_VALUE - order time][order]``.

    The design's key ``[customer][goods][order time]`` (K1): one prefix scan lists what a
    customer bought, grouped by product; the reversed time puts each product's latest
    purchase first (K6), and the order id makes two orders in one millisecond two rows
    (K10). Family ``g`` holds only what taste analysis needs, copied from the goods (R7).
    """

    customer_id: str
    goods_id: str
    ordered_at: datetime
    order_id: str
    name: str = field("g:n")
    category: str = field("g:c")
    quantity: int = field("g:q")
    unit_price: Decimal = field("g:p")
