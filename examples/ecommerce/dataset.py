"""A deterministic synthetic shop: customers, goods, price changes and orders from one seed."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import attrs

from examples.ecommerce.models import Customer, Goods
from examples.ecommerce.service import OrderRequest, Shop
from hmodel.clock import ManualClock
from hmodel.ops.progress import progress

__all__ = [
    "CATEGORIES",
    "START",
    "DataSet",
    "PriceChange",
    "generate",
    "key_records",
    "key_sample",
    "load",
]

#: The first day of the synthetic order history, midnight UTC.
START = datetime(2024, 3, 1, tzinfo=timezone.utc)

#: Product categories and the products of each.
CATEGORIES: dict[str, tuple[str, ...]] = {
    "books": ("novel", "cookbook", "atlas", "poetry", "biography", "comic", "dictionary", "guide"),
    "electronics": ("phone", "tablet", "earbuds", "charger", "camera", "speaker", "watch", "drone"),
    "garden": ("hose", "shovel", "seeds", "planter", "rake", "gloves", "lantern", "bench"),
    "kitchen": ("kettle", "wok", "knife", "blender", "teapot", "grater", "scale", "toaster"),
    "toys": ("kite", "puzzle", "robot", "yo-yo", "blocks", "doll", "train", "ball"),
}
_CITIES = ("Beijing", "Shanghai", "Hangzhou", "Guangzhou", "Chengdu", "Wuhan")
_LEVELS = ("regular", "regular", "regular", "silver", "silver", "gold")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_NAMES = ("Li", "Wang", "Zhang", "Liu", "Chen", "Yang", "Zhao", "Huang", "Zhou", "Wu")


@attrs.frozen
class PriceChange:
    """A new price for a product, taking effect at the start of ``day`` (0-based)."""

    day: int
    goods_id: str
    price: Decimal


@attrs.frozen
class DataSet:
    """Everything the example loads, in the order it is loaded.

    Attributes:
        customers: The customers, registered first.
        goods: The products with their first prices, stocked next.
        price_changes: Price changes, applied at the start of their day.
        orders: The orders, sorted by time; ids ``o00001`` upwards in that order.
        days: How many days of orders, from :data:`START`.
    """

    customers: tuple[Customer, ...]
    goods: tuple[Goods, ...]
    price_changes: tuple[PriceChange, ...]
    orders: tuple[OrderRequest, ...]
    days: int

    def day_of(self, order: OrderRequest) -> int:
        """The 0-based day of an order."""
        return (order.ordered_at - START).days

    def price_on(self, goods_id: str, day: int) -> Decimal:
        """The price a product had on ``day``: its latest change on or before it, or the first."""
        (item,) = (g for g in self.goods if g.goods_id == goods_id)
        price = item.price
        for change in self.price_changes:
            if change.goods_id == goods_id and change.day <= day:
                price = change.price
        return price


def generate(
    seed: int = 2024,
    *,
    customers: int = 120,
    orders: int = 400,
    days: int = 30,
    price_changes: int = 8,
) -> DataSet:
    """Generate a shop from ``random.Random(seed)``: the same seed always gives the same data.

    Product popularity and customer activity are skewed (a few best-sellers, a few
    frequent buyers), as in a real shop; order times are whole milliseconds.
    """
    rng = random.Random(seed)
    people = tuple(
        Customer(
            customer_id=f"c{n:04d}",
            name=f"{rng.choice(_NAMES)} {chr(ord('A') + n % 26)}.",
            gender=rng.choice("FM"),
            birth_date=date(1960, 1, 1) + timedelta(days=rng.randrange(45 * 365)),
            city=rng.choice(_CITIES),
            level=rng.choice(_LEVELS),
        )
        for n in range(1, customers + 1)
    )
    catalogue = tuple(
        Goods(
            goods_id=f"g{n:03d}",
            name=product,
            category=category,
            price=Decimal(rng.randrange(300, 30_000)).scaleb(-2),
        )
        for n, (category, product) in enumerate(
            ((c, p) for c, products in CATEGORIES.items() for p in products), start=1
        )
    )
    changes = tuple(
        sorted(
            (
                PriceChange(
                    rng.randrange(1, days),
                    item.goods_id,
                    (item.price * Decimal(rng.choice((80, 90, 110, 125))))
                    .scaleb(-2)
                    .quantize(Decimal("0.01")),
                )
                for item in rng.sample(catalogue, price_changes)
            ),
            key=lambda c: (c.day, c.goods_id),
        )
    )
    goods_weights = [1 / (rank + 1) for rank in range(len(catalogue))]
    rng.shuffle(goods_weights)
    customer_weights = [rng.choice((1, 1, 1, 2, 5)) for _ in people]
    raw = sorted(
        (
            START + timedelta(milliseconds=rng.randrange(days * 86_400_000)),
            rng.choices(people, customer_weights)[0].customer_id,
            rng.choices(catalogue, goods_weights)[0].goods_id,
            rng.choice((1, 1, 1, 2, 3)),
        )
        for _ in range(orders)
    )
    requests = tuple(
        OrderRequest(f"o{n:05d}", customer, goods, quantity, at)
        for n, (at, customer, goods, quantity) in enumerate(raw, start=1)
    )
    return DataSet(people, catalogue, changes, requests, days)


def load(
    shop: Shop,
    data: DataSet,
    clock: ManualClock,
    *,
    step: Callable[[str], AbstractContextManager[object]] = lambda label: nullcontext(),
) -> int:
    """Load ``data`` into ``shop`` day by day; return the round trips it took.

    Customers and goods are saved first (one round trip each), then for each day the
    clock is set to that day's midnight, its price changes are applied (two round trips
    each) and its orders placed as one batch (five round trips, see
    :meth:`Shop.place_orders`). Cells are stamped with the day they belong to, so the
    price history reads like the shop's.

    Args:
        shop: Where to load, its tables created.
        data: What to load.
        clock: The shop's clock; it is moved forward to each day.
        step: Called with a label around each step, e.g.
            :meth:`examples.runner.RoundTripMeter.step`.

    At a terminal a progress bar counts the days (:func:`hmodel.ops.progress.progress`).
    """
    before = shop.backend.round_trips
    clock.set(max(clock(), _millis(START)))
    with step(f"register {len(data.customers)} customers"):
        shop.register(data.customers)
    with step(f"stock {len(data.goods)} goods"):
        shop.stock(data.goods)
    for day in progress(range(data.days), label="loading orders, day by day"):
        clock.set(max(clock(), _millis(START + timedelta(days=day))))
        for change in data.price_changes:
            if change.day == day:
                with step("change a price"):
                    shop.change_price(change.goods_id, change.price)
        with step("place a day's orders (one batch)"):
            shop.place_orders([o for o in data.orders if data.day_of(o) == day])
    return shop.backend.round_trips - before


def key_records(data: DataSet, model: type[Any]) -> list[dict[str, Any]]:
    """The key fields of every row ``data`` writes with ``model``, for ``hmodel spread``.

    Customers and goods give their ids; every order gives the fields of the order keys
    (``order_id``, ``category``, ``goods_id``, ``ordered_at``) and of the
    ``customer_order`` key (``customer_id`` too).
    """
    if model is Customer:
        return [{"customer_id": c.customer_id} for c in data.customers]
    if model is Goods:
        return [{"goods_id": g.goods_id} for g in data.goods]
    category = {g.goods_id: g.category for g in data.goods}
    return [
        {
            "order_id": o.order_id,
            "customer_id": o.customer_id,
            "goods_id": o.goods_id,
            "category": category[o.goods_id],
            "ordered_at": o.ordered_at,
        }
        for o in data.orders
    ]


def key_sample(model: type[Any]) -> Iterator[dict[str, Any]]:
    """Yield the key fields of the default data set's rows of ``model``.

    The sample generator of ``hmodel spread examples.ecommerce.models --keys
    examples.ecommerce.dataset:key_sample``.
    """
    yield from key_records(generate(), model)


def _millis(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(milliseconds=1)
