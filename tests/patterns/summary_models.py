"""Models the summary-table tests share: orders and their rollup per customer per day (I3)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hmodel import Family, Key, Store, Str, Table, counter, field, model
from hmodel.aio import AsyncStore, AsyncSummary
from hmodel.model import version_field
from hmodel.patterns import Count, Sum, Summary

ORDERS = Table("sm_order", [Family("o")])
LOCKED_ORDERS = Table("sm_locked_order", [Family("o")])
DAILY = Table("sm_daily", [Family("s")])


@model(ORDERS, key=Key(Str("order_id")))
class Order:
    """An order; its total in cents (a counter sums integers)."""

    order_id: str
    customer_id: str = field("o:c")
    placed_at: datetime = field("o:t")
    total: int = field("o:m")
    note: str | None = field("o:n", default=None)


@model(LOCKED_ORDERS, key=Key(Str("order_id")))
class LockedOrder:
    """The same order with a version field (optimistic locking)."""

    order_id: str
    customer_id: str = field("o:c")
    placed_at: datetime = field("o:t")
    total: int = field("o:m")
    version: int = version_field("o:v")


@model(DAILY, key=Key(Str("customer_id"), Str("day")))
class DailyOrders:
    """Orders per customer per day: the group is the key, the measures are counters."""

    customer_id: str
    day: str
    orders: int = counter("s:n")
    revenue: int = counter("s:r")


def day_of(order: Order | LockedOrder) -> str:
    """The ISO day of an order (sorts like the dates: a customer's days in order)."""
    return order.placed_at.date().isoformat()


def daily(store: Store | AsyncStore, data: type = Order) -> Any:
    """The rollup of ``data`` (``Order`` or ``LockedOrder``) per customer per day.

    A ``Summary`` on a ``Store``, an ``AsyncSummary`` on an ``AsyncStore``.
    """
    kind: Any = AsyncSummary if isinstance(store, AsyncStore) else Summary
    return kind(
        store,
        data,
        DailyOrders,
        by={"customer_id": "customer_id", "day": day_of},
        measures={"orders": Count(), "revenue": Sum("total")},
    )


def at(day: int, hour: int = 12) -> datetime:
    """A time on day ``day`` of November 2026 (UTC)."""
    return datetime(2026, 11, day, hour, tzinfo=UTC)
