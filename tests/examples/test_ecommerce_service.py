"""The shop's answers against expectations computed from the synthetic data alone, every backend."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from examples.ecommerce.dataset import START, DataSet, generate, load
from examples.ecommerce.models import Customer, Goods
from examples.ecommerce.schema import ORDER, REGIONS
from examples.ecommerce.service import BuyerProfile, OrderRequest, Sales, Shop, cents
from hmodel.backend.base import Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.errors import NotFoundError, ValidationError
from hmodel.repository import where

Figures = tuple[int, int, Decimal]  # orders, units, revenue


def product_figures(data: DataSet) -> dict[str, Figures]:
    figures = {g.goods_id: (0, 0, Decimal("0.00")) for g in data.goods}
    for order in data.orders:
        orders, units, revenue = figures[order.goods_id]
        price = data.price_on(order.goods_id, data.day_of(order))
        figures[order.goods_id] = (
            orders + 1,
            units + order.quantity,
            revenue + price * order.quantity,
        )
    return figures


def figures_of(sales: Sales) -> Figures:
    return sales.orders, sales.units, sales.revenue


def category_of(data: DataSet) -> dict[str, str]:
    return {g.goods_id: g.category for g in data.goods}


def expected_profile(data: DataSet, orders: list[OrderRequest]) -> dict[str, object]:
    people = {c.customer_id: c for c in data.customers}
    buyers = [people[i] for i in sorted({o.customer_id for o in orders})]
    return {
        "orders": len(orders),
        "buyers": {b.customer_id for b in buyers},
        "by_gender": Counter(b.gender for b in buyers),
        "by_age_band": Counter(f"{b.birth_date.year // 10 * 10}s" for b in buyers),
        "by_city": Counter(b.city for b in buyers),
        "by_level": Counter(b.level for b in buyers),
    }


def profile_dict(profile: BuyerProfile) -> dict[str, object]:
    return {
        "orders": profile.orders,
        "buyers": set(profile.buyers),
        "by_gender": Counter(profile.by_gender),
        "by_age_band": Counter(profile.by_age_band),
        "by_city": Counter(profile.by_city),
        "by_level": Counter(profile.by_level),
    }


def best_sellers(data: DataSet, n: int) -> list[str]:
    units = Counter[str]()
    for order in data.orders:
        units[order.goods_id] += order.quantity
    return [goods_id for goods_id, _ in units.most_common(n)]


def test_sales_of_every_product_are_its_orders_counters_F10(loaded: Shop, data: DataSet) -> None:
    expected = product_figures(data)
    assert {g: figures_of(loaded.sales_of_product(g)) for g in expected} == expected


def test_product_sales_rank_best_sellers_first(loaded: Shop, data: DataSet) -> None:
    expected = product_figures(data)
    ranking = loaded.product_sales()
    assert {p.goods_id: figures_of(p.sales) for p in ranking} == expected
    units = [p.sales.units for p in ranking]
    assert units == sorted(units, reverse=True)


def test_sales_by_category_add_up_the_products_of_each_category(
    loaded: Shop, data: DataSet
) -> None:
    categories = category_of(data)
    expected: dict[str, Figures] = {}
    for goods_id, (orders, units, revenue) in product_figures(data).items():
        o, u, r = expected.get(categories[goods_id], (0, 0, Decimal("0.00")))
        expected[categories[goods_id]] = (o + orders, u + units, r + revenue)
    answer = loaded.sales_by_category()
    assert {c: figures_of(s) for c, s in answer.items()} == expected
    assert list(answer) == sorted(expected)


def test_sales_of_one_category_filtered_on_the_server_agree_I4(loaded: Shop) -> None:
    for category, sales in loaded.sales_by_category().items():
        assert loaded.sales_of_category(category) == sales
    assert loaded.sales_of_category("no such category") == Sales()


def test_price_history_lists_each_change_newest_first_F7(loaded: Shop, data: DataSet) -> None:
    for change in data.price_changes:
        (original,) = (g.price for g in data.goods if g.goods_id == change.goods_id)
        history = loaded.price_history(change.goods_id)
        day_ms = int((START + timedelta(days=change.day)).timestamp() * 1000)
        start_ms = int(START.timestamp() * 1000)
        assert [price for price, _ in history] == [change.price, original]
        # Write stamps are the day's midnight, plus one per earlier write in that millisecond
        # (the loader's clock stands still within a day).
        (_, changed), (_, created) = history
        assert day_ms <= changed < day_ms + 10_000
        assert start_ms <= created < start_ms + 10_000


def test_buyers_of_a_product_are_profiled_from_the_order_rows_R7(
    loaded: Shop, data: DataSet
) -> None:
    for goods_id in best_sellers(data, 3):
        orders = [o for o in data.orders if o.goods_id == goods_id]
        profile = loaded.buyers_of_product(goods_id)
        assert profile_dict(profile) == expected_profile(data, orders)


def test_buyers_of_a_product_in_a_time_window_use_the_key_K6(loaded: Shop, data: DataSet) -> None:
    goods_id = best_sellers(data, 1)[0]
    since, until = START + timedelta(days=3), START + timedelta(days=7)
    orders = [o for o in data.orders if o.goods_id == goods_id and since <= o.ordered_at < until]
    profile = loaded.buyers_of_product(goods_id, since=since, until=until)
    assert profile_dict(profile) == expected_profile(data, orders)
    plan = loaded.buyers.plan(
        {"category": category_of(data)[goods_id], "goods_id": goods_id}, low=since, high=until
    )
    assert len(plan.spans) == REGIONS and plan.filter is None


def test_buyers_of_a_product_filtered_by_city_on_the_server_I4(loaded: Shop, data: DataSet) -> None:
    people = {c.customer_id: c for c in data.customers}
    goods_id = best_sellers(data, 1)[0]
    for city in sorted({c.city for c in data.customers}):
        orders = [
            o for o in data.orders if o.goods_id == goods_id and people[o.customer_id].city == city
        ]
        profile = loaded.buyers_of_product(goods_id, condition=where("city") == city)
        assert profile_dict(profile) == expected_profile(data, orders)


def test_buyers_of_a_category_with_and_without_a_condition(loaded: Shop, data: DataSet) -> None:
    people = {c.customer_id: c for c in data.customers}
    categories = category_of(data)
    for category in sorted(set(categories.values())):
        orders = [o for o in data.orders if categories[o.goods_id] == category]
        assert profile_dict(loaded.buyers_of_category(category)) == expected_profile(data, orders)
        gold = [o for o in orders if people[o.customer_id].level == "gold"]
        profile = loaded.buyers_of_category(category, condition=where("level") == "gold")
        assert profile_dict(profile) == expected_profile(data, gold)


def test_products_bought_by_each_customer_latest_first(loaded: Shop, data: DataSet) -> None:
    names = {g.goods_id: g.name for g in data.goods}
    for customer in data.customers:
        mine = [o for o in data.orders if o.customer_id == customer.customer_id]
        per_goods: dict[str, list[OrderRequest]] = defaultdict(list)
        for order in mine:
            per_goods[order.goods_id].append(order)
        expected = sorted(
            (
                (
                    max(o.ordered_at for o in orders),
                    goods_id,
                    names[goods_id],
                    len(orders),
                    sum(o.quantity for o in orders),
                )
                for goods_id, orders in per_goods.items()
            ),
            reverse=True,
        )
        answer = loaded.products_bought(customer.customer_id)
        assert [
            (p.last_ordered_at, p.goods_id, p.name, p.orders, p.units) for p in answer
        ] == expected


def test_last_purchase_is_the_newest_order_of_that_product_K6(loaded: Shop, data: DataSet) -> None:
    latest: dict[tuple[str, str], OrderRequest] = {}
    for order in data.orders:  # sorted by time
        latest[order.customer_id, order.goods_id] = order
    for (customer_id, goods_id), order in sorted(latest.items())[:25]:
        found = loaded.last_purchase(customer_id, goods_id)
        assert found is not None
        assert (found.order_id, found.ordered_at, found.quantity) == (
            order.order_id,
            order.ordered_at,
            order.quantity,
        )
    assert loaded.last_purchase("c9999", data.goods[0].goods_id) is None


def test_order_pages_list_a_category_once_by_product_newest_first_R8(
    loaded: Shop, data: DataSet
) -> None:
    categories = category_of(data)
    category = categories[best_sellers(data, 1)[0]]
    expected = [
        o.order_id
        for o in sorted(
            (o for o in data.orders if categories[o.goods_id] == category),
            key=lambda o: (o.goods_id, -o.ordered_at.timestamp(), o.order_id),
        )
    ]
    seen: list[str] = []
    sizes: list[int] = []
    token: str | None = None
    while True:
        page = loaded.orders_page(category, 7, token)
        seen += [o.order_id for o in page]
        sizes.append(len(page))
        token = page.next_token
        if token is None:
            break
    assert seen == expected
    assert all(size == 7 for size in sizes[:-1]) and 1 <= sizes[-1] <= 7


def test_orders_spread_over_every_salt_bucket_K3(loaded: Shop, data: DataSet) -> None:
    rows = [r.row for r in loaded.backend.scan(ORDER.full_name, Scan(columns=(b"o:q",)))]
    assert len(rows) == len(data.orders)
    per_bucket = Counter(row[0] for row in rows)
    assert sorted(per_bucket) == list(range(REGIONS))
    assert max(per_bucket.values()) < 3 * len(rows) / REGIONS


def test_buyer_attributes_are_copied_when_ordering_R7(shop: Shop, clock: ManualClock) -> None:
    at = datetime(2024, 5, 1, 12, tzinfo=timezone.utc)
    shop.register(
        [
            Customer(
                customer_id="c1",
                name="Li",
                gender="F",
                birth_date=date(1990, 1, 1),
                city="Wuhan",
                level="gold",
            )
        ]
    )
    shop.stock([Goods(goods_id="g1", name="kite", category="toys", price=Decimal("9.90"))])
    shop.place_order(OrderRequest("o1", "c1", "g1", 2, at))
    clock.advance(seconds=1)
    shop.customers.update({"customer_id": "c1"}, city="Chengdu")
    shop.place_order(OrderRequest("o2", "c1", "g1", 1, at + timedelta(days=1)))
    cities = [b.city for b in shop.buyers.scan({"category": "toys"})]
    assert cities == ["Chengdu", "Wuhan"]  # newest order first; the old copy is kept
    assert shop.buyers_of_product("g1").by_city == {"Chengdu": 1}
    order = shop.orders.get(order_id="o1", category="toys", goods_id="g1", ordered_at=at)
    assert order is not None and order.total == Decimal("19.80")
    assert shop.sales_of_product("g1") == Sales(2, 3, Decimal("29.70"))


def test_an_unknown_customer_or_product_writes_nothing(shop: Shop, data: DataSet) -> None:
    shop.register(list(data.customers[:2]))
    shop.stock(list(data.goods[:2]))
    known = data.customers[0].customer_id
    at = START
    with pytest.raises(NotFoundError) as caught:
        shop.place_orders(
            [
                OrderRequest("o1", known, data.goods[0].goods_id, 1, at),
                OrderRequest("o2", "nobody", data.goods[0].goods_id, 1, at),
            ]
        )
    assert caught.value.value == ["nobody"]
    with pytest.raises(NotFoundError):
        shop.place_order(OrderRequest("o3", known, "g999", 1, at))
    assert list(shop.orders.scan()) == []
    assert list(shop.purchases.scan()) == []
    assert shop.sales_of_product(data.goods[0].goods_id) == Sales()


def test_bad_orders_and_prices_are_refused_before_writing(shop: Shop, data: DataSet) -> None:
    shop.register(list(data.customers[:1]))
    shop.stock(list(data.goods[:1]))
    customer, goods_id = data.customers[0].customer_id, data.goods[0].goods_id
    with pytest.raises(ValidationError) as caught:
        shop.place_order(OrderRequest("o1", customer, goods_id, 0, START))
    assert caught.value.field == "quantity"
    with pytest.raises(ValidationError) as caught:
        shop.place_order(OrderRequest("o1", customer, goods_id, 1, datetime(2024, 3, 1)))
    assert caught.value.field == "ordered_at"
    with pytest.raises(ValidationError):
        shop.change_price(goods_id, Decimal("1.005"))
    with pytest.raises(NotFoundError):
        shop.change_price("g999", Decimal("1.00"))
    assert shop.goods.get(goods_id="g999") is None
    with pytest.raises(ValidationError):
        shop.stock([Goods(goods_id="gx", name="x", category="y", price=Decimal("NaN"))])
    assert list(shop.orders.scan()) == []
    assert shop.goods.get(goods_id="gx") is None


def test_cents_are_exact() -> None:
    assert cents(Decimal("12.30")) == 1230
    assert cents(Decimal("7")) == 700
    with pytest.raises(ValidationError):
        cents(Decimal("0.001"))


def test_placing_orders_takes_five_round_trips_however_many() -> None:
    backend = MemoryBackend()
    clock = ManualClock()
    data = generate(11, customers=10, orders=60, days=3)
    shop = Shop(backend, clock=clock)
    shop.create_tables()
    shop.register(data.customers)
    shop.stock(data.goods)
    for batch in (data.orders[:1], data.orders[1:]):
        before = backend.round_trips
        shop.place_orders(batch)
        assert backend.round_trips - before == 5


def test_the_buyer_scan_reads_only_the_c_family_F1() -> None:
    shop = Shop(MemoryBackend())
    plan = shop.buyers.plan(
        {"category": "toys"},
        fields=["customer_id", "gender", "birth_date", "city", "level"],
    )
    assert plan.columns and all(c.startswith(b"c:") for c in plan.columns)
    assert len(plan.spans) == REGIONS


def test_load_reports_its_round_trips_and_steps(data: DataSet) -> None:
    backend = MemoryBackend()
    clock = ManualClock()
    shop = Shop(backend, clock=clock)
    shop.create_tables()
    labels: list[str] = []

    @contextmanager
    def step(label: str) -> Iterator[None]:
        labels.append(label)
        yield

    spent = load(shop, data, clock, step=step)
    assert spent == 2 + 2 * len(data.price_changes) + 5 * data.days
    assert labels.count("place a day's orders (one batch)") == data.days
    assert labels.count("change a price") == len(data.price_changes)
