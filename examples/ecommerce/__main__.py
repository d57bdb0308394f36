"""The main job: build the e-commerce tables, load a synthetic shop, answer its questions."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from decimal import Decimal

from examples.ecommerce.dataset import START, DataSet, generate, key_records, load
from examples.ecommerce.fulfilment import (
    BY_STATUS,
    FULFILMENT,
    Fulfilment,
    Line,
    Shipment,
    ShipTo,
)
from examples.ecommerce.models import Customer, CustomerOrder, Goods, Order
from examples.ecommerce.schema import TABLES
from examples.ecommerce.service import BuyerProfile, Shop
from examples.runner import RoundTripMeter, create_fresh, open_backend, parser
from hmodel.backend.base import Backend
from hmodel.cli import quiet_stdout
from hmodel.clock import ManualClock
from hmodel.errors import HModelError
from hmodel.model import model_info
from hmodel.ops import render_spread, spread_of
from hmodel.repository import where
from hmodel.schema import create_statement

__all__ = ["main", "run"]

#: Data set seed; the output of the in-memory run is the same on every machine.
SEED = 2024
PAGE_SIZE = 20


def _heading(title: str) -> None:
    print(f"\n== {title} ==")


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in counts.items())


def _profile(profile: BuyerProfile) -> None:
    print(f"  {profile.orders} orders by {len(profile.buyers)} distinct buyers")
    print(f"  gender:   {_counts(profile.by_gender)}")
    print(f"  born in:  {_counts(profile.by_age_band)}")
    print(f"  city:     {_counts(profile.by_city)}")
    print(f"  level:    {_counts(profile.by_level)}")


def run(backend: Backend, *, replace: bool = False) -> None:
    """Run the whole job on ``backend``, printing as it goes.

    Raises:
        HModelError: Anything the backend refused (e.g. the tables exist and not
            ``replace``).
    """
    meter = RoundTripMeter(backend)
    clock = ManualClock()
    shop = Shop(backend, clock=clock, listeners=[meter])

    _heading("Tables (HBase shell DDL)")
    for table in TABLES:
        print(create_statement(table))
    with meter.step("check and create the 4 tables"):
        notes = create_fresh(backend, TABLES, shop.create_tables, replace=replace)
    if notes:
        print("Thrift1 cannot carry all of this; for the production layout run the DDL above:")
        for note in notes:
            print(f"  {note}")

    data = generate(SEED)
    _heading(f"Synthetic shop (random.Random({SEED}))")
    round_trips = load(shop, data, clock, step=meter.step)
    print(
        f"{len(data.customers)} customers, {len(data.goods)} goods in "
        f"{len({g.category for g in data.goods})} categories, "
        f"{len(data.orders)} orders over {data.days} days from {START:%Y-%m-%d}, "
        f"{len(data.price_changes)} price changes"
    )
    print(f"loaded in {round_trips} round trips, one batch of orders a day")

    _spread(data)
    _questions(shop, meter, data)
    _listing(shop, meter)
    _fulfilment(shop, meter, backend, data.days, replace=replace)

    _heading("Explain: buyers of a category (I5 fan-out, I4 filter, F1 one family)")
    print(
        shop.buyers.plan(
            {"category": "garden"},
            fields=["customer_id", "gender", "birth_date", "city", "level"],
            where=where("level") == "gold",
        ).describe()
    )

    _heading("Round trips")
    print(meter.table())


def _spread(data: DataSet) -> None:
    _heading("Region spread of the loaded keys (K3, K11; hmodel spread)")
    spreads = [
        render_spread(spread_of(model_info(model), key_records(data, model)))
        for model in (Customer, Goods, Order, CustomerOrder)
    ]
    print("\n\n".join(spreads))


def _questions(shop: Shop, meter: RoundTripMeter, data: DataSet) -> None:
    _heading("Q1: sales per category (goods counters, F10)")
    with meter.step("sales per category (goods scan)"):
        by_category = shop.sales_by_category()
    print(f"{'category':<12} {'orders':>6} {'units':>6} {'revenue':>11}")
    for category, sales in by_category.items():
        print(f"{category:<12} {sales.orders:>6} {sales.units:>6} {sales.revenue:>11}")
    with meter.step("sales of one category (server-side filter)"):
        garden = shop.sales_of_category("garden")
    print(f"garden alone, filtered on the server (I4): {garden.orders} orders, {garden.revenue}")

    _heading("Q1: best-selling products")
    with meter.step("sales per product (goods scan)"):
        ranking = shop.product_sales()
    for product in ranking[:5]:
        sales = product.sales
        print(
            f"{product.goods_id} {product.name:<10} {product.category:<12} "
            f"{sales.units:>4} units {sales.revenue:>10}"
        )
    best = ranking[0]
    with meter.step("sales of one product (get)"):
        sales = shop.sales_of_product(best.goods_id)
    print(f"{best.goods_id} read by key: {sales.orders} orders, {sales.units} units")
    changed = data.price_changes[0].goods_id
    with meter.step("price history (cell versions, F7)"):
        history = shop.price_history(changed)
    prices = ", ".join(
        f"{price} since {datetime.fromtimestamp(ts / 1000, timezone.utc):%m-%d}"
        for price, ts in history
    )
    print(f"price history of {changed}, newest first: {prices}")

    _heading(f"Q2: buyers of {best.goods_id} ({best.name}), from the order table's c family (R7)")
    with meter.step("buyers of one product"):
        profile = shop.buyers_of_product(best.goods_id)
    _profile(profile)
    last_week = START + timedelta(days=data.days - 7)
    with meter.step("buyers of one product, last 7 days, one city"):
        recent = shop.buyers_of_product(
            best.goods_id, since=last_week, condition=where("city") == "Hangzhou"
        )
    print(
        f"  since {last_week:%m-%d} (a key range, K6) in Hangzhou (a server-side filter, I4): "
        f"{recent.orders} orders by {len(recent.buyers)} buyers"
    )

    _heading("Q2: buyers of the category electronics")
    with meter.step("buyers of one category"):
        _profile(shop.buyers_of_category("electronics"))
    with meter.step("gold buyers of one category (filter)"):
        gold = shop.buyers_of_category("electronics", condition=where("level") == "gold")
    print(f"  gold members only (I4): {len(gold.buyers)} buyers, {gold.orders} orders")

    frequent = max(
        sorted({o.customer_id for o in data.orders}),
        key=lambda c: sum(o.customer_id == c for o in data.orders),
    )
    _heading(f"Q3: what {frequent} bought (customer_order prefix scan, K1, K6)")
    with meter.step("products one customer bought"):
        bought = shop.products_bought(frequent)
    for item in bought:
        print(
            f"{item.goods_id} {item.name:<10} {item.category:<12} "
            f"{item.orders} order(s) {item.units:>2} unit(s), "
            f"last {item.last_ordered_at:%Y-%m-%d %H:%M}"
        )
    favourite = max(bought, key=lambda p: (p.orders, p.goods_id))
    with meter.step("last purchase of one product (limit 1)"):
        last = shop.last_purchase(frequent, favourite.goods_id)
    if last is not None:
        print(
            f"latest of {frequent}'s {favourite.orders} {last.goods_id} orders, read first (K6): "
            f"{last.order_id} at {last.ordered_at.isoformat(timespec='milliseconds')}"
        )


def _listing(shop: Shop, meter: RoundTripMeter) -> None:
    _heading(f"Listing: orders of the category books, {PAGE_SIZE} a page (R8)")
    token: str | None = None
    number = 0
    while True:
        number += 1
        with meter.step(f"orders page {number}"):
            page = shop.orders_page("books", PAGE_SIZE, token)
        if page.items:
            first, last = page.items[0], page.items[-1]
            print(
                f"page {number}: {len(page)} orders, "
                f"{first.goods_id}/{first.order_id} .. {last.goods_id}/{last.order_id}"
            )
        token = page.next_token
        if token is None:
            break


def _fulfilment(
    shop: Shop, meter: RoundTripMeter, backend: Backend, data_days: int, *, replace: bool
) -> None:
    _heading("Fulfilment: order graph (R2), ship-to copies (R3), order BLOB (R4), by status (I1)")
    fulfilment = Fulfilment(shop.store)
    with meter.step("check and create the fulfilment table"):
        create_fresh(backend, [FULFILMENT, BY_STATUS], fulfilment.create_table, replace=replace)
    placed = START + timedelta(days=data_days)
    with meter.step("place a two-shipment order (lines, order, index)"):
        fulfilment.place(
            "F-1001",
            "C0001",
            [
                ShipTo(
                    "1 Quai Nord",
                    "Lyon",
                    [("G001", 2, Decimal("9.90")), ("G002", 1, Decimal("5.00"))],
                ),
                ShipTo("8 Via Roma", "Turin", [("G003", 4, Decimal("2.50"))]),
            ],
            placed,
        )
    for number in range(2, 6):
        fulfilment.place(
            f"F-100{number}",
            f"C000{number}",
            [ShipTo("9 Rue", "Paris", [("G004", number, Decimal("1.00"))])],
            placed + timedelta(hours=number),
        )
    for order_id in ("F-1002", "F-1004"):
        with meter.step("ship an order (its index entry moves, I1)"):
            fulfilment.set_status(order_id, "shipped")
    with meter.step("orders by status (index scan + one get_many)"):
        waiting = fulfilment.orders_with_status("placed", since=placed)
        shipped = fulfilment.orders_with_status("shipped")
    print(
        f"by status (a declared index, I1): placed {[o.order_id for o in waiting]}, "
        f"shipped {[o.order_id for o in shipped]}"
    )

    with meter.step("read an order graph (one scan, R2)"):
        order = fulfilment.order("F-1001")
    print(
        f"{order.root.order_id}: {order.root.status}, {len(order.of(Shipment))} shipments, "
        f"{len(order.of(Line))} lines; the BLOB holds {len(order.root.blob['lines'])} lines "
        f"in {order.root.blob['currency']}"
    )
    for line in order.of(Line):
        print(
            f"  line {line.ship}.{line.line}: {line.quantity} x {line.goods_id} to {line.ship_city}"
        )
    with meter.step("move shipment 1 and sync its lines (R3)"):
        report = fulfilment.change_address("F-1001", 1, "2 Rue Sud", "Grenoble")
    shipments = shop.store.repository(Shipment).scan({"order_id": "F-1001"})
    stale = fulfilment.ship_to.verify(shipments)
    print(
        f"shipment 1 moved to Grenoble: {report.touched} of {report.examined} line copies "
        f"rewritten; stale copies now: {len(stale)}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the job; return the exit code (0, or 1 when the backend refused something)."""
    args = parser(
        "python -m examples.ecommerce",
        "The e-commerce example on the in-memory engine, or on HBase over Thrift1.",
    ).parse_args(argv)
    backend, where_to = open_backend(args)
    print(f"hmodel e-commerce example on {where_to}")
    try:
        with backend:
            run(backend, replace=args.replace)
    except HModelError as exc:
        print(f"python -m examples.ecommerce: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    with quiet_stdout():  # `python -m ... | head -2` ends quietly
        code = main()
    sys.exit(code)
