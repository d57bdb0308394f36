"""What the benchmarks store: the microblog's purchase key and models built on it (K3, K6)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, TypeVar

from hmodel import Family, Key, ReverseTimestamp, Salt, Str, Table, field, model
from hmodel.schema.split import SaltSplits

__all__ = [
    "BUCKETS",
    "EPOCH",
    "PURCHASE_KEY",
    "FlatPurchase",
    "Purchase",
    "purchase_keys",
    "purchases",
]

#: Salt buckets of the salted table (and its pre-split regions, K11).
BUCKETS = 16

#: The instant the generated purchases start from.
EPOCH = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)

#: ``[salt(user)][user][Long.MAX_VALUE - ts][product]``: a user's purchases, newest first.
PURCHASE_KEY = Key(
    Salt("user", buckets=BUCKETS), Str("user"), ReverseTimestamp("ts"), Str("product")
)

M = TypeVar("M")

SALTED = Table("bench_purchase", [Family("p")], splits=SaltSplits(BUCKETS))
FLAT = Table("bench_flat_purchase", [Family("p")])


@model(SALTED, key=PURCHASE_KEY)
class Purchase:
    """A purchase in the salted table: three key fields and three cells of about 50 bytes."""

    user: str
    ts: dt.datetime
    product: str
    price: int = field("p:p")
    title: str = field("p:t")
    quantity: int = field("p:q", default=1)


@model(FLAT, key=Key(Str("user"), ReverseTimestamp("ts"), Str("product")))
class FlatPurchase:
    """The same purchase under the same key without its salt: one range per scan."""

    user: str
    ts: dt.datetime
    product: str
    price: int = field("p:p")
    title: str = field("p:t")
    quantity: int = field("p:q", default=1)


def purchase_keys(count: int, *, start: int = 0, users: int = 100) -> list[dict[str, Any]]:
    """``count`` distinct key values: purchase ``i`` is by user ``i % users`` at second ``i``."""
    return [
        {
            "user": f"user-{i % users:05d}",
            "ts": EPOCH + dt.timedelta(seconds=i),
            "product": f"product-{i:08d}",
        }
        for i in range(start, start + count)
    ]


def purchases(make: Callable[..., M], count: int, *, start: int = 0) -> list[M]:
    """``count`` instances of ``make`` (a model class) with the keys of :func:`purchase_keys`."""
    title = "a product title of about forty characters"
    return [
        make(**key, price=100 + i, title=title)
        for i, key in enumerate(purchase_keys(count, start=start), start=start)
    ]
