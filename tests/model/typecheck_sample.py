"""A user's model module, type-checked by ``test_typecheck.py`` with ``mypy --strict``."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from hmodel.keys import Key, Str
from hmodel.model import counter, field, map_field, model, version_field
from hmodel.schema import Family, Table

USERS = Table("user", [Family("i"), Family("f")])


@model(USERS, key=Key(Str("user_id")))
class User:
    user_id: str
    nickname: str = field("i:n")
    dob: date | None = field("i:d", default=None)
    balance: Decimal = field("i:b", default=Decimal(0))
    fans: dict[str, str] = map_field("f")
    views: int = counter("i:v")
    version: int = version_field("i:_v")


def greeting(user: User) -> str:
    """Attribute access is typed: ``nickname`` is a ``str``, ``fans`` a ``dict[str, str]``."""
    mutual = [fan for fan, kind in user.fans.items() if kind == "mutual"]
    born = user.dob.year if user.dob is not None else 0
    return f"{user.nickname.title()} ({born}): {len(mutual)} mutual fans, {user.views} views"


def make() -> User:
    """Only key fields and required fields are needed; the rest have defaults."""
    return User(user_id="u1", nickname="bob")
