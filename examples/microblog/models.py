"""The microblog models: a user with fans and follows (F6, R6), and a purchase (K6, R8)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from examples.microblog.schema import POST, PURCHASE, TIMELINE, USER
from hmodel import Hashed, Key, ReverseTimestamp, Str, field, map_field, model

__all__ = ["MUTUAL", "ONE_WAY", "Post", "Profile", "Purchase", "TimelineEntry", "User"]

#: Relation type of a one-way follow, stored as ``f:<fan>`` and ``o:<followed user>``.
ONE_WAY = "one-way"
#: Relation type when both users follow each other ("mutual fans").
MUTUAL = "mutual"


@model(USER, key=Key(Hashed("user_id"), Str("user_id")))
class User:
    """A user: ``[md5(user id)[:4]][user id]``, the profile in ``i``, relationships in ``f``/``o``.

    The hash prefix spreads users evenly (K4) and a Get by user id still works, since the
    hash is recomputed from the id. ``fans`` maps each follower's id to the relation type
    (``f:<user id> = type``, F6); ``follows`` is the same relationship seen from the other
    side (R6), so both questions are one family read and no join table is needed.
    """

    user_id: str
    nickname: str = field("i:n")
    gender: str | None = field("i:g", default=None)
    dob: date | None = field("i:d", default=None)
    address: str | None = field("i:a", default=None)
    fans: dict[str, str] = map_field("f")
    follows: dict[str, str] = map_field("o")


@model(USER, key=Key(Hashed("user_id"), Str("user_id")))
class Profile:
    """The profile alone: :class:`User`'s ``i`` family, over the same rows.

    Saving a profile (to change a nickname through its unique index) rewrites only the
    ``i`` family, never the relationship maps, which a full save of a :class:`User`
    would replace with the entries it read.
    """

    user_id: str
    nickname: str = field("i:n")
    gender: str | None = field("i:g", default=None)
    dob: date | None = field("i:d", default=None)
    address: str | None = field("i:a", default=None)


@model(
    PURCHASE,
    key=Key(Hashed("user_id"), Str("user_id"), ReverseTimestamp("bought_at"), Str("product_id")),
)
class Purchase:
    """One purchase: ``[md5(user)[:4]][user][Long.MAX_VALUE - ts][product]`` (K4, K6).

    The reversed time makes a user's newest purchase the first row of their prefix (K6),
    so "the last 30 purchases" is a prefix scan with a limit, and the next 30 a resumed
    scan (R8, tall list).
    """

    user_id: str
    bought_at: datetime
    product_id: str
    product: str = field("p:n")
    price: Decimal = field("p:p")


@model(
    POST,
    key=Key(Hashed("author"), Str("author"), ReverseTimestamp("posted_at"), Str("post_id")),
)
class Post:
    """One post: ``[md5(author)[:4]][author][Long.MAX_VALUE - ts][post]``, newest first (K6)."""

    author: str
    posted_at: datetime
    post_id: str
    text: str = field("t:x")


@model(
    TIMELINE,
    key=Key(Hashed("reader"), Str("reader"), ReverseTimestamp("posted_at"), Str("post_id")),
)
class TimelineEntry:
    """A post in one reader's home timeline: a copy written when the post is made.

    ``[md5(reader)[:4]][reader][Long.MAX_VALUE - ts][post]``: one prefix scan gives the
    reader's timeline newest first (K6), paged like any tall list (R8).
    """

    reader: str
    posted_at: datetime
    post_id: str
    author: str = field("t:a")
    text: str = field("t:x")
