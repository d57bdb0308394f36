"""Models several pattern tests share: a shipment and its lines (R1, R3), users (R6)."""

from __future__ import annotations

from hmodel import Const, Family, Int, Key, Str, Table, field, map_field, model

ORDERS = Table("cr_order", [Family("o")])
USERS = Table("cr_user", [Family("i"), Family("f"), Family("g")])


@model(ORDERS, key=Key(Str("order_id"), Const(b"\x02", name="SHIPPING"), Int("ship", size=2)))
class Shipping:
    """A shipment of an order: the source of the lines' copied city (R3)."""

    order_id: str
    ship: int
    city: str = field("o:t")


@model(
    ORDERS,
    key=Key(Str("order_id"), Const(b"\x03", name="LINE"), Int("ship", size=2), Int("line", size=2)),
)
class Line:
    """A line of a shipment, in the same table (R1), holding a copy of its city."""

    order_id: str
    ship: int
    line: int
    item: str = field("o:i")
    ship_city: str = field("o:c")  # a copy of Shipping.city (R3)


@model(USERS, key=Key(Str("user_id")))
class User:
    """A user with both sides of the follow relation (R6)."""

    user_id: str
    nickname: str = field("i:n")
    follows: dict[str, str] = map_field("g")
    fans: dict[str, str] = map_field("f")
