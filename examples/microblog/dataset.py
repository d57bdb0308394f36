"""The microblog demo's data: five users, their follows, and a seeded purchase history."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

from examples.microblog.models import Purchase, User

__all__ = ["FOLLOWS", "START", "USERS", "purchases"]

#: When the purchase history starts, midnight UTC.
START = datetime(2024, 3, 1, tzinfo=timezone.utc)

#: The users of the demo.
USERS = (
    User(user_id="ann", nickname="Ann", gender="F", dob=date(1990, 5, 17), address="Hangzhou"),
    User(user_id="bob", nickname="Bob", gender="M", dob=date(1985, 1, 2), address="Beijing"),
    User(user_id="cy", nickname="Cy", gender="M", address="Chengdu"),
    User(user_id="dee", nickname="Dee", gender="F", dob=date(2001, 9, 30)),
    User(user_id="eve", nickname="Eve"),
)

#: ``(follower, followee)`` in the order the follows happen.
FOLLOWS = (
    ("ann", "bob"),
    ("cy", "bob"),
    ("dee", "bob"),
    ("bob", "ann"),
    ("eve", "ann"),
    ("ann", "cy"),
    ("cy", "ann"),
)

_PRODUCTS = ("tea", "book", "pen", "lamp", "mug", "scarf", "kite", "map", "soap", "bag")


def purchases(user_id: str, count: int, seed: int = 3) -> list[Purchase]:
    """``count`` purchases of ``user_id``, one every few hours from 2024-03-01 (seeded)."""
    rng = random.Random(seed)
    at = START
    made = []
    for n in range(count):
        at += timedelta(minutes=rng.randrange(30, 600))
        product = rng.choice(_PRODUCTS)
        made.append(
            Purchase(
                user_id=user_id,
                bought_at=at,
                product_id=f"p{n:03d}-{product}",
                product=product,
                price=Decimal(rng.randrange(100, 5000)).scaleb(-2),
            )
        )
    return made
