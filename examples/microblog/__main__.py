"""A small microblog demo: follows kept on both sides (R6), a purchase timeline paged by 30 (R8)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime, timezone

from examples.microblog.dataset import FOLLOWS, START, USERS, purchases
from examples.microblog.schema import TABLES
from examples.microblog.service import Microblog
from examples.runner import RoundTripMeter, create_fresh, open_backend, parser
from hmodel.backend.base import Backend
from hmodel.cli import quiet_stdout
from hmodel.clock import ManualClock
from hmodel.errors import HModelError, UniqueViolationError
from hmodel.schema import create_statement

__all__ = ["main", "run"]


def _heading(title: str) -> None:
    print(f"\n== {title} ==")


def _relations(entries: dict[str, str]) -> str:
    return ", ".join(f"{user} ({kind})" for user, kind in sorted(entries.items())) or "-"


def run(backend: Backend, *, replace: bool = False) -> None:
    """Run the demo on ``backend``, printing as it goes.

    Raises:
        HModelError: Anything the backend refused (e.g. the tables exist and not
            ``replace``).
    """
    meter = RoundTripMeter(backend)
    clock = ManualClock(int(START.timestamp() * 1000))
    blog = Microblog(backend, clock=clock, listeners=[meter])

    _heading("Tables (HBase shell DDL)")
    for table in TABLES:
        print(create_statement(table))
    with meter.step(f"check and create the {len(TABLES)} tables"):
        notes = create_fresh(backend, TABLES, blog.create_tables, replace=replace)
    for note in notes:
        print(f"  {note}")
    with meter.step(f"register {len(USERS)} users"):
        blog.register(USERS)

    _heading("Follows, kept on both sides (R6): fans in family f, follows in family o (F6)")
    for follower, followee in FOLLOWS:
        clock.advance(seconds=1)
        with meter.step("follow"):
            kind = blog.follow(follower, followee)
        print(f"{follower} follows {followee}: {kind}")
    clock.advance(seconds=1)
    with meter.step("unfollow"):
        blog.unfollow("bob", "ann")
    print("bob unfollows ann: ann's follow of bob is one-way again")
    for user in USERS:
        with meter.step("read a user's fans (one family)"):
            fans = blog.fans_of(user.user_id)
        with meter.step("read whom a user follows"):
            follows = blog.followed_by(user.user_id)
        print(f"{user.user_id:<4} fans: {_relations(fans):<40} follows: {_relations(follows)}")

    bought = purchases("bob", 45)
    _heading(f"bob's {len(bought)} purchases, newest first (K6), 30 a page (R8)")
    with meter.step(f"record {len(bought)} purchases"):
        blog.record(bought)
    token: str | None = None
    number = 0
    while True:
        number += 1
        with meter.step(f"purchases page {number}"):
            page = blog.purchases_page("bob", 30, token)
        newest, oldest = page.items[0], page.items[-1]
        print(
            f"page {number}: {len(page)} purchases, {newest.product_id} "
            f"({newest.bought_at:%Y-%m-%d %H:%M}) .. {oldest.product_id} "
            f"({oldest.bought_at:%Y-%m-%d %H:%M})"
        )
        token = page.next_token
        if token is None:
            break

    _heading("Nicknames are unique (a declared unique index, I1)")
    with meter.step("find a user by nickname (unique index)"):
        found = blog.user_by_nickname(USERS[1].nickname)
    print(f"{USERS[1].nickname!r} is {found.user_id if found else None}")
    try:
        with meter.step("take a nickname already held (refused)"):
            blog.update_profile(USERS[0].user_id, nickname=USERS[1].nickname)
    except UniqueViolationError as refused:
        print(f"{USERS[0].user_id} cannot take it: {type(refused).__name__}")
    with meter.step("change a nickname (the claim moves)"):
        blog.update_profile(USERS[0].user_id, nickname="annie")
    renamed = blog.user_by_nickname("annie")
    print(f"'annie' is now {renamed.user_id if renamed else None}")

    _heading("Home timelines, written on post (fan-out on write), newest first (K6, R8)")
    for number, (author, text) in enumerate(
        [("ann", "hello"), ("bob", "new bike"), ("ann", "tea time"), ("cy", "hi all")], 1
    ):
        clock.advance(seconds=60)
        posted_at = datetime.fromtimestamp(clock() / 1000, timezone.utc)
        with meter.step("post (to every fan's timeline)"):
            readers = blog.post(author, f"p{number}", text, posted_at)
        print(f"{author} posts {text!r}: delivered to {readers} timelines")
    for user in USERS:
        with meter.step("read a home timeline page"):
            timeline = blog.home_timeline(user.user_id, 30)
        shown = "; ".join(f"{e.author}: {e.text}" for e in timeline) or "-"
        print(f"{user.user_id:<4} sees {shown}")

    _heading("Round trips")
    print(meter.table())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the demo; return the exit code (0, or 1 when the backend refused something)."""
    args = parser(
        "python -m examples.microblog",
        "The microblog example on the in-memory engine, or on HBase over Thrift1.",
    ).parse_args(argv)
    backend, where_to = open_backend(args)
    print(f"hmodel microblog example on {where_to}")
    try:
        with backend:
            run(backend, replace=args.replace)
    except HModelError as exc:
        print(f"python -m examples.microblog: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    with quiet_stdout():  # `python -m ... | head -2` ends quietly
        code = main()
    sys.exit(code)
