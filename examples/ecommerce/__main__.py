"""The main job: build the e-commerce tables, load a synthetic shop, answer seed 000's questions."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

from examples.ecommerce.dataset import START, DataSet, generate, load
from examples.ecommerce.schema import TABLES
from examples.ecommerce.service import BuyerProfile, Shop
from hmodel.backend.base import Backend
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift import ThriftBackend
from hmodel.clock import ManualClock
from hmodel.errors import HModelError
from hmodel.repository import QueryEvent, where
from hmodel.schema import create_statement

__all__ = ["RoundTripMeter", "main", "run"]

#: Data set seed; the output of the in-memory run is the same on every machine.
SEED = 2024
PAGE_SIZE = 20


class RoundTripMeter:
    """Counts what labelled steps cost: backend round trips and repository calls.

    Register it as a repository listener (it is told of every
    :class:`~hmodel.repository.QueryEvent`) and wrap each step in :meth:`step`.
    """

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.events: list[QueryEvent] = []
        self.steps: list[tuple[str, int, int]] = []

    def __call__(self, event: QueryEvent) -> None:
        """Record one repository call."""
        self.events.append(event)

    @contextmanager
    def step(self, label: str) -> Iterator[None]:
        """Record the round trips and repository calls of the block under ``label``."""
        round_trips, events = self.backend.round_trips, len(self.events)
        yield
        self.steps.append(
            (label, self.backend.round_trips - round_trips, len(self.events) - events)
        )


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


def _create_tables(shop: Shop, backend: Backend, *, replace: bool) -> None:
    names = [table.full_name for table in TABLES]
    existing = [name for name in names if backend.table_exists(name)]
    if existing and not replace:
        raise HModelError(
            f"the example tables exist already ({', '.join(existing)}); "
            "pass --replace to drop and recreate them, or another --table-prefix"
        )
    for name in existing:
        backend.delete_table(name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        shop.create_tables()
    for warning in caught:
        print(f"  note: {warning.message}")


def run(backend: Backend, *, replace: bool = False) -> None:
    """Run the whole job on ``backend``, printing as it goes.

    Raises:
        HModelError: Anything the backend refused (e.g. the tables exist and not
            ``replace``).
    """
    meter = RoundTripMeter(backend)
    clock = ManualClock()
    shop = Shop(backend, clock=clock, listeners=[meter])

    _heading("Tables (HBase shell DDL, seed 000)")
    for table in TABLES:
        print(create_statement(table))
    if isinstance(backend, ThriftBackend):
        print(
            "  Thrift1 cannot create pre-split tables or set DATA_BLOCK_ENCODING: the tables "
            "below are created without them;\n  run the DDL above in the HBase shell to get "
            "the production layout."
        )
    with meter.step("create the 4 tables"):
        _create_tables(shop, backend, replace=replace)

    data = generate(SEED)
    _heading(f"Synthetic shop (random.Random({SEED}))")
    with meter.step(f"load everything ({data.days} daily batches)"):
        round_trips = load(shop, data, clock)
    print(
        f"{len(data.customers)} customers, {len(data.goods)} goods in 5 categories, "
        f"{len(data.orders)} orders over {data.days} days from {START:%Y-%m-%d}, "
        f"{len(data.price_changes)} price changes"
    )
    print(f"loaded in {round_trips} round trips")

    _questions(shop, meter, data)
    _listing(shop, meter)

    _heading("Explain: buyers of a category (I5 fan-out, I4 filter, F1 one family)")
    print(
        shop.buyers.plan(
            {"category": "garden"},
            fields=["customer_id", "gender", "birth_date", "city", "level"],
            where=where("level") == "gold",
        ).describe()
    )

    _heading("Round trips")
    width = max(len(label) for label, _, _ in meter.steps)
    print(f"{'operation':<{width}}  round trips  repository calls")
    for label, round_trips, calls in meter.steps:
        print(f"{label:<{width}}  {round_trips:>11}  {calls:>16}")


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


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected host:port, got {text!r}")
    return host, int(port)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m examples.ecommerce",
        description="The e-commerce example of seed 000 on the in-memory engine, "
        "or on HBase over Thrift1 (e.g. `hmodel fake-hbase`).",
    )
    parser.add_argument(
        "--thrift",
        type=_address,
        metavar="HOST:PORT",
        help="run against an HBase Thrift1 server instead of the in-memory engine",
    )
    parser.add_argument(
        "--table-prefix",
        default="hmodel_example",
        help="with --thrift: prefix of the example's table names (default: %(default)s)",
    )
    parser.add_argument(
        "--replace",
        action="store_true",
        help="with --thrift: drop the example tables first if they exist",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the job; return the exit code (0, or 1 when the backend refused something)."""
    args = _parser().parse_args(argv)
    backend: Backend
    if args.thrift is None:
        backend = MemoryBackend()
        print("hmodel e-commerce example (seed 000) on the in-memory engine")
    else:
        host, port = args.thrift
        backend = ThriftBackend(host, port, table_prefix=args.table_prefix, lenient_ddl=True)
        print(f"hmodel e-commerce example (seed 000) on HBase Thrift1 at {host}:{port}")
    try:
        with backend:
            run(backend, replace=args.replace)
    except HModelError as exc:
        print(f"python -m examples.ecommerce: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
