"""Models of the seed documents' worked examples, shared by the mapping tests."""

from __future__ import annotations

import uuid
from datetime import date, datetime, timedelta
from decimal import Decimal

from hmodel.codecs import DateTime, Json
from hmodel.keys import Const, Int, Key, Str
from hmodel.model import counter, field, map_field, model, version_field
from hmodel.schema import Family, Table

# --- microblog (seed 003): info:nickname,gender,dob,address and fans:<user_id>=type -----------

MICROBLOG = Table("user", [Family("i"), Family("f")])


@model(MICROBLOG, key=Key(Str("user_id")))
class User:
    user_id: str
    nickname: str = field("i:n")
    gender: str | None = field("i:g", default=None)
    dob: date | None = field("i:d", default=None)
    address: str | None = field("i:a", default=None)
    fans: dict[str, str] = map_field("f")


# --- e-commerce (seed 000): order data in `o`, buyer attributes copied into `c` (R7) ----------

ORDERS = Table("order", [Family("o", versions=3), Family("c")])


@model(ORDERS, key=Key(Str("order_id")), ttl=timedelta(days=365))
class Order:
    order_id: str
    status: str = field("o:s", history=True)
    total: Decimal = field("o:t")
    placed_at: datetime = field("o:p", codec=DateTime(unit="ms"))
    lines: dict[str, int] = map_field("o", prefix="l_")
    buyer_city: str | None = field("c:c", default=None)
    buyer_gender: str | None = field("c:g", default=None)
    views: int = counter("o:v")
    version: int = version_field("o:_v")


# --- customer and orders in one table (seed 001 §45.3.1, R1) ---------------------------------

CRM = Table("customer", [Family("d")])


@model(CRM, key=Key(Str("customer_id"), Const(b"\x01", name="customer")))
class Customer:
    customer_id: str
    name: str = field("d:n")


@model(CRM, key=Key(Str("customer_id"), Const(b"\x02", name="order"), Str("order_id")))
class CustomerOrder:
    customer_id: str
    order_id: str
    total: Decimal = field("d:t")


# --- every field kind, for the round-trip property --------------------------------------------

EVERYTHING = Table("everything", [Family("a", versions=3), Family("m")])


@model(EVERYTHING, key=Key(Str("name"), Int("n")))
class Everything:
    name: str
    n: int
    text: str = field("a:s")
    blob: bytes = field("a:b")
    number: int | None = field("a:i", default=None)
    ratio: float = field("a:f", default=0.0)
    flag: bool = field("a:o", default=False)
    price: Decimal | None = field("a:d", default=None)
    when: datetime | None = field("a:w", default=None)
    day: date | None = field("a:y", default=None)
    ident: uuid.UUID | None = field("a:u", default=None)
    doc: list[int] = field("a:j", codec=Json(), factory=list)
    tags: dict[str, str] = map_field("a", prefix="t_")
    scores: dict[str, int] = map_field("m")
    hits: int = counter("a:h")
    version: int = version_field("a:_v")
