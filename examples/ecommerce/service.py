"""The shop's application service: place orders and answer the design's three questions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import TypeVar

import attrs

from examples.ecommerce.models import Buyer, Customer, CustomerOrder, Goods, Order
from hmodel.backend.base import Backend
from hmodel.clock import Clock, system_clock
from hmodel.errors import NotFoundError, ValidationError
from hmodel.patterns import Copy
from hmodel.repository import Condition, Listener, Page, Query, Store, where

__all__ = [
    "BuyerProfile",
    "OrderRequest",
    "ProductSales",
    "PurchasedProduct",
    "Sales",
    "Shop",
    "cents",
]

T = TypeVar("T")


def cents(amount: Decimal, *, field: str = "price") -> int:
    """Return ``amount`` in whole cents, refusing amounts that are not a whole number of cents.

    Revenue is a server-side counter (F10), an integer: rounding a price of ``1.005`` would
    silently change the books, so such a price is refused instead.

    Raises:
        ValidationError: ``amount`` is not a finite ``Decimal`` with at most two decimals.
    """
    if not isinstance(amount, Decimal) or not amount.is_finite():
        raise ValidationError("amounts are finite Decimals", field=field, value=amount)
    scaled = amount.scaleb(2)
    if scaled != scaled.to_integral_value():
        raise ValidationError("amounts are whole cents", field=field, value=amount)
    return int(scaled)


@attrs.frozen
class OrderRequest:
    """An order to place: ``quantity`` units of one product for one customer.

    Attributes:
        order_id: The order's id, unique across the shop.
        customer_id: Who orders.
        goods_id: What is ordered.
        quantity: How many units (at least 1).
        ordered_at: When, as a timezone-aware datetime (millisecond precision).
    """

    order_id: str
    customer_id: str
    goods_id: str
    quantity: int
    ordered_at: datetime


@attrs.frozen
class Sales:
    """Sales figures: orders, units sold and revenue."""

    orders: int = 0
    units: int = 0
    revenue: Decimal = Decimal("0.00")

    def __add__(self, other: Sales) -> Sales:
        return Sales(
            self.orders + other.orders, self.units + other.units, self.revenue + other.revenue
        )


@attrs.frozen
class ProductSales:
    """One product and its sales."""

    goods_id: str
    name: str
    category: str
    sales: Sales


@attrs.frozen
class BuyerProfile:
    """Who bought something: the distinct buyers and how their attributes are distributed.

    Each buyer is counted once, with the attributes copied into the first of their orders
    the scan returned (R7: the attributes as they were when they ordered).

    Attributes:
        orders: Orders read.
        buyers: The distinct customer ids.
        by_gender: Buyers per gender.
        by_age_band: Buyers per decade of birth, e.g. ``"1980s"``.
        by_city: Buyers per city.
        by_level: Buyers per membership level.
    """

    orders: int
    buyers: frozenset[str]
    by_gender: Mapping[str, int]
    by_age_band: Mapping[str, int]
    by_city: Mapping[str, int]
    by_level: Mapping[str, int]

    @classmethod
    def of(cls, rows: Iterable[Buyer]) -> BuyerProfile:
        """Aggregate the buyer copies of some orders."""
        orders = 0
        first: dict[str, Buyer] = {}
        for row in rows:
            orders += 1
            first.setdefault(row.customer_id, row)
        buyers = first.values()
        return cls(
            orders=orders,
            buyers=frozenset(first),
            by_gender=_count(b.gender for b in buyers),
            by_age_band=_count(f"{b.birth_date.year // 10 * 10}s" for b in buyers),
            by_city=_count(b.city for b in buyers),
            by_level=_count(b.level for b in buyers),
        )


def _count(values: Iterable[str]) -> dict[str, int]:
    """Count values, most frequent first (ties by value)."""
    counted = Counter(values)
    return dict(sorted(counted.items(), key=lambda item: (-item[1], item[0])))


@attrs.frozen
class PurchasedProduct:
    """A product one customer bought, over all their orders of it."""

    goods_id: str
    name: str
    category: str
    orders: int
    units: int
    last_ordered_at: datetime


#: What buyer analysis reads: the buyer copy's fields, all in the ``c`` family (F1, R7).
_BUYER_FIELDS = ("customer_id", "gender", "birth_date", "city", "level")
#: What an order listing reads: the ``o`` family.
_ORDER_FIELDS = ("customer_id", "quantity", "unit_price", "total")


class Shop:
    """The e-commerce application over any backend: the four tables of its design.

    Every method states its round trips. The repositories (one per model; ``orders`` and
    ``buyers`` share the order table) tell ``listeners`` of each call
    (:class:`~hmodel.repository.QueryEvent`).

    Args:
        backend: The memory engine, or a Thrift backend to HBase.
        clock: Epoch-millisecond clock stamping the cells written.
        listeners: Told of every repository call.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        clock: Clock = system_clock,
        listeners: Sequence[Listener] = (),
    ) -> None:
        self.backend = backend
        self.clock = clock
        self.store = Store(backend, clock=clock, listeners=listeners)
        self.customers = self.store.repository(Customer)
        self.goods = self.store.repository(Goods)
        self.orders = self.store.repository(Order)
        self.buyers = self.store.repository(Buyer)
        self.purchases = self.store.repository(CustomerOrder)
        #: The buyer's attributes copied into each order row (R7), declared once. The copy
        #: is a snapshot (the buyer as they were when they ordered), so it is filled when
        #: an order is placed and never synced; ``buyer_copy.verify`` would list the orders
        #: of customers who changed since (a filtered scan of the order table).
        self.buyer_copy: Copy[Customer, Buyer] = Copy(
            self.store,
            Customer,
            Buyer,
            fields={name: name for name in _BUYER_FIELDS},
            locate=lambda c: Query(where=where("customer_id") == c.customer_id),
        )

    def create_tables(self, *, exist_ok: bool = False) -> None:
        """Create the four tables from their declarations (one round trip each)."""
        self.store.create_tables(Customer, Goods, Order, CustomerOrder, exist_ok=exist_ok)

    # --- catalogue and customers ------------------------------------------------------

    def register(self, customers: Sequence[Customer]) -> None:
        """Save customers (one round trip)."""
        self.customers.save_many(customers)

    def stock(self, goods: Sequence[Goods]) -> None:
        """Save products (one round trip); their sales counters are left untouched.

        Raises:
            ValidationError: A price is not a whole number of cents. Nothing is written.
        """
        for item in goods:
            cents(item.price)
        self.goods.save_many(goods)

    def change_price(self, goods_id: str, price: Decimal) -> None:
        """Set a product's price; the old one stays in its history (F7).

        Two round trips: an existence check, so that no price is written for a product
        that does not exist, and the write of the one cell.

        Raises:
            ValidationError: The price is not a whole number of cents.
            NotFoundError: No such product.
        """
        cents(price)
        if not self.goods.exists(goods_id=goods_id):
            raise NotFoundError("no such product", table=self.goods.table, value=goods_id)
        self.goods.update({"goods_id": goods_id}, price=price)

    def price_history(self, goods_id: str) -> list[tuple[Decimal, int]]:
        """The product's last ten prices, newest first, as ``(price, epoch ms)``; one round trip."""
        return self.goods.history("price", goods_id=goods_id)

    # --- orders -----------------------------------------------------------------------

    def place_order(self, request: OrderRequest) -> Order:
        """Place one order; see :meth:`place_orders` (five round trips)."""
        return self.place_orders([request])[0]

    def place_orders(self, requests: Sequence[OrderRequest]) -> list[Order]:
        """Place orders in **five round trips**, however many there are.

        1. one multi-get of the customers and 2. one of the products (their attributes and
        current prices); 3. one request writing every order row, both families at once
        (:class:`Order` and its :class:`Buyer` copy, R7), and 4. one writing every
        customer_order row (a unit of work sends one request per table); 5. one request
        incrementing the products' sales counters (F10), summed per product first.

        Each row is written atomically, but the batch is not a transaction (HBase has no
        cross-row transactions): a failure part-way can leave orders without their
        customer_order rows or counts.

        Raises:
            ValidationError: A quantity below 1, or a naive order time (its instant is
                unknown). Nothing is written.
            NotFoundError: An unknown customer or product. Nothing is written.
        """
        if not requests:
            return []
        for request in requests:
            if request.quantity < 1:
                raise ValidationError(
                    "an order is for at least one unit", field="quantity", value=request.quantity
                )
        customer_ids = sorted({r.customer_id for r in requests})
        goods_ids = sorted({r.goods_id for r in requests})
        customers = _by_id(
            customer_ids,
            self.customers.get_many([{"customer_id": i} for i in customer_ids]),
            self.customers.table,
        )
        goods = _by_id(
            goods_ids, self.goods.get_many([{"goods_id": i} for i in goods_ids]), self.goods.table
        )
        placed: list[Order] = []
        counts: dict[str, Counter[str]] = {}
        with self.store.unit_of_work() as unit:
            for request in requests:
                customer, item = customers[request.customer_id], goods[request.goods_id]
                total = item.price * request.quantity
                order = Order(
                    order_id=request.order_id,
                    category=item.category,
                    goods_id=item.goods_id,
                    ordered_at=request.ordered_at,
                    customer_id=customer.customer_id,
                    quantity=request.quantity,
                    unit_price=item.price,
                    total=total,
                )
                unit.save(order)
                # The declared buyer copy shares the order row (R7): a save of the Buyer
                # model writes only its own family, next to the order's cells.
                unit.save(
                    Buyer(
                        order_id=request.order_id,
                        category=item.category,
                        goods_id=item.goods_id,
                        ordered_at=request.ordered_at,
                        **self.buyer_copy.values(customer),
                    )
                )
                unit.save(
                    CustomerOrder(
                        customer_id=customer.customer_id,
                        goods_id=item.goods_id,
                        ordered_at=request.ordered_at,
                        order_id=request.order_id,
                        name=item.name,
                        category=item.category,
                        quantity=request.quantity,
                        unit_price=item.price,
                    )
                )
                count = counts.setdefault(item.goods_id, Counter())
                count.update(units_sold=request.quantity, revenue_cents=cents(total), orders=1)
                placed.append(order)
        self.goods.increment_many([({"goods_id": g}, dict(c)) for g, c in sorted(counts.items())])
        return placed

    # --- question 1: sales per product and per category ------------------------------

    def sales_of_product(self, goods_id: str) -> Sales:
        """One product's sales, read from its counters (one round trip).

        Raises:
            NotFoundError: No such product.
        """
        item = self.goods.get(goods_id=goods_id, required=True)
        assert item is not None  # required=True
        return _sales(item)

    def product_sales(self) -> list[ProductSales]:
        """Every product's sales, best-selling first (units, then revenue, then id).

        One scan of the goods table: one range per salt bucket, merged (K3); the catalogue
        is small and ``IN_MEMORY``.
        """
        found = [ProductSales(g.goods_id, g.name, g.category, _sales(g)) for g in self.goods.scan()]
        return sorted(found, key=lambda p: (-p.sales.units, -p.sales.revenue, p.goods_id))

    def sales_by_category(self) -> dict[str, Sales]:
        """Sales per category, summed over the product counters (one scan of goods)."""
        totals: dict[str, Sales] = {}
        for item in self.goods.scan():
            totals[item.category] = totals.get(item.category, Sales()) + _sales(item)
        return dict(sorted(totals.items()))

    def sales_of_category(self, category: str) -> Sales:
        """One category's sales: a goods scan with a server-side filter on the category (I4).

        Only the products of the category cross the network.
        """
        total = Sales()
        for item in self.goods.scan(where=where("category") == category):
            total += _sales(item)
        return total

    # --- question 2: who buys a product or a category --------------------------------

    def buyers_of_product(
        self,
        goods_id: str,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        condition: Condition | None = None,
    ) -> BuyerProfile:
        """Profile the buyers of one product from the order table's ``c`` family (R7).

        One Get for the product's category, then one scan per salt bucket over the key
        range ``[bucket][category][goods]`` (K1, I5), reading only the ``c`` family.
        ``since`` (inclusive) and ``until`` (exclusive) bound the order time inside the key
        (K6); ``condition`` filters on buyer attributes on the server (I4), e.g.
        ``where("city") == "Hangzhou"``.

        Raises:
            NotFoundError: No such product.
        """
        item = self.goods.get(goods_id=goods_id, required=True)
        assert item is not None  # required=True
        return BuyerProfile.of(
            self.buyers.scan(
                {"category": item.category, "goods_id": goods_id},
                low=since,
                high=until,
                fields=_BUYER_FIELDS,
                where=condition,
            )
        )

    def buyers_of_category(
        self, category: str, *, condition: Condition | None = None
    ) -> BuyerProfile:
        """Profile the buyers of a category: one scan per salt bucket of ``[bucket][category]``.

        Reads only the ``c`` family (F1, R7); ``condition`` filters on the server (I4).
        """
        return BuyerProfile.of(
            self.buyers.scan({"category": category}, fields=_BUYER_FIELDS, where=condition)
        )

    def orders_page(self, category: str, size: int, token: str | None = None) -> Page[Order]:
        """A page of a category's orders, by product and newest first within a product (R8).

        Pass the page's ``next_token`` back for the next page; the token holds a position
        per salt bucket (about one round trip per bucket per page).
        """
        return self.orders.page(size, {"category": category}, token=token, fields=_ORDER_FIELDS)

    # --- question 3: what one customer bought -------------------------------------------

    def products_bought(self, customer_id: str) -> list[PurchasedProduct]:
        """What a customer bought, latest purchase first: one prefix scan of customer_order.

        The rows of one customer are contiguous (K1), grouped by product, and each
        product's newest purchase comes first (K6), so the first row of each product
        gives its last purchase time.
        """
        products: dict[str, PurchasedProduct] = {}
        for row in self.purchases.scan({"customer_id": customer_id}):
            seen = products.get(row.goods_id)
            if seen is None:
                products[row.goods_id] = PurchasedProduct(
                    row.goods_id, row.name, row.category, 1, row.quantity, row.ordered_at
                )
            else:
                products[row.goods_id] = attrs.evolve(
                    seen, orders=seen.orders + 1, units=seen.units + row.quantity
                )
        return sorted(
            products.values(), key=lambda p: (p.last_ordered_at, p.goods_id), reverse=True
        )

    def last_purchase(self, customer_id: str, goods_id: str) -> CustomerOrder | None:
        """The customer's latest order of one product: a prefix scan with limit 1 (K6)."""
        return next(
            iter(self.purchases.scan({"customer_id": customer_id, "goods_id": goods_id}, limit=1)),
            None,
        )


def _sales(item: Goods) -> Sales:
    return Sales(item.orders, item.units_sold, Decimal(item.revenue_cents).scaleb(-2))


def _by_id(ids: Sequence[str], found: Sequence[T | None], table: str) -> dict[str, T]:
    """Map ids to the models a multi-get found, refusing any id that was not found."""
    by_id = {i: model for i, model in zip(ids, found, strict=True) if model is not None}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise NotFoundError(f"no such row for {len(missing)} id(s)", table=table, value=missing)
    return by_id
