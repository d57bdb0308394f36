"""Models of the index tests: orders by status (covering total), users by unique nickname."""

from __future__ import annotations

from datetime import timedelta

from hmodel import Key, Str, field, model
from hmodel.model import version_field
from hmodel.patterns.index import Index
from hmodel.schema import Family, Table

ORDERS = Table("order", [Family("o")])
BY_STATUS = Table("order_by_status", [Family("x")])
BY_CUSTOMER = Table("order_by_customer", [Family("x")])
USERS = Table("user", [Family("i")])
BY_NICK = Table("user_by_nick", [Family("x")])


@model(ORDERS, key=Key(Str("order_id")))
class Order:
    order_id: str
    status: str = field("o:s")
    total: int = field("o:t")
    customer: str | None = field("o:c", default=None)
    version: int = version_field("o:v")


@model(USERS, key=Key(Str("user_id")))
class User:
    user_id: str
    nickname: str | None = field("i:n", default=None)
    city: str | None = field("i:c", default=None)


def status_index(salt: int | None = None) -> Index[Order]:
    return Index(Order, on=["status"], table=BY_STATUS, covering=["total"], salt=salt)


def customer_index() -> Index[Order]:
    return Index(Order, on=["customer", "total"], table=BY_CUSTOMER)


def nick_index() -> Index[User]:
    return Index(User, on=["nickname"], table=BY_NICK, unique=True)


GRACE = timedelta(seconds=5)


@model(Table("item", [Family("i")]), key=Key(Str("item_id")))
class Item:
    item_id: str
    colour: str | None = field("i:c", default=None)
    size: int = field("i:s", default=0)


ITEMS_BY_COLOUR = Table("item_by_colour", [Family("x")])


def colour_index(salt: int | None = None) -> Index[Item]:
    return Index(
        Item, on=["colour"], table=ITEMS_BY_COLOUR, covering=["size"], salt=salt, grace=GRACE
    )


ACCOUNTS = Table("account", [Family("a")])
ACCOUNTS_BY_EMAIL = Table("account_by_email", [Family("x")])


@model(ACCOUNTS, key=Key(Str("account_id")))
class Account:
    """A versioned model with a unique value (issue 16: double submits)."""

    account_id: str
    email: str | None = field("a:e", default=None)
    version: int = version_field("a:v")


def email_index() -> Index[Account]:
    return Index(Account, on=["email"], table=ACCOUNTS_BY_EMAIL, unique=True, grace=GRACE)


MEMOS = Table("memo", [Family("m")])
MEMOS_BY_TAG = Table("memo_by_tag", [Family("x")])


@model(MEMOS, key=Key(Str("memo_id")))
class Memo:
    """A versioned model whose every field may be ``None``: a save may leave only its
    version cell (I1 on a row that may hold no data cell)."""

    memo_id: str
    tag: str | None = field("m:t", default=None)
    version: int = version_field("m:v")


def tag_index() -> Index[Memo]:
    return Index(Memo, on=["tag"], table=MEMOS_BY_TAG)
