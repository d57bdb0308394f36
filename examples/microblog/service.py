"""The microblog's application service: follow and unfollow on both sides, purchase timelines."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from examples.microblog.models import (
    MUTUAL,
    ONE_WAY,
    Post,
    Profile,
    Purchase,
    TimelineEntry,
    User,
)
from examples.microblog.schema import USER_BY_NICKNAME
from hmodel.backend.base import Backend
from hmodel.clock import Clock, system_clock
from hmodel.errors import NotFoundError, ValidationError
from hmodel.patterns import Index, IndexedRepository, Relation
from hmodel.repository import Listener, Page, Store

__all__ = ["Microblog"]


class Microblog:
    """Users, their fans and follows (F6, R6), and their purchases newest first (K6, R8).

    The follow relationship is declared once, as a :class:`~hmodel.patterns.Relation`
    between ``User.follows`` and ``User.fans``: both sides are written together.

    Args:
        backend: The memory engine, or a Thrift backend to HBase.
        clock: Epoch-millisecond clock the write stamps follow.
        listeners: Told of every repository call and unit of work.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        clock: Clock = system_clock,
        listeners: Sequence[Listener] = (),
    ) -> None:
        self.store = Store(backend, clock=clock, listeners=listeners)
        self.backend = backend
        self.users = self.store.repository(User)
        self.purchases = self.store.repository(Purchase)
        self.posts = self.store.repository(Post)
        self.timeline = self.store.repository(TimelineEntry)
        self.follows = Relation(self.store, User, "follows", User, "fans")
        #: Nicknames are unique (I1): the profile is saved through this index, which
        #: claims a nickname with a conditional write before the profile row changes.
        self.by_nickname = Index(Profile, on=["nickname"], unique=True, table=USER_BY_NICKNAME)
        self.profiles = IndexedRepository(self.store.repository(Profile), [self.by_nickname])

    def create_tables(self, *, exist_ok: bool = False) -> None:
        """Create the user, purchase, post, timeline and nickname tables (one round trip each)."""
        self.store.create_tables(User, Purchase, Post, TimelineEntry, exist_ok=exist_ok)
        self.profiles.create_tables(exist_ok=True)

    # --- users and relationships --------------------------------------------------------

    def register(self, users: Sequence[User]) -> None:
        """Save new users, each through the nickname index (a few round trips each).

        Only the profile is written (relationships start empty and change through
        :meth:`follow`), so registering again never clears anyone's fans.

        Raises:
            UniqueViolationError: A nickname is taken; the users before it are saved.
        """
        for user in users:
            self.profiles.save(
                Profile(
                    user_id=user.user_id,
                    nickname=user.nickname,
                    gender=user.gender,
                    dob=user.dob,
                    address=user.address,
                )
            )

    def update_profile(self, user_id: str, **changes: Any) -> None:
        """Change profile fields (``nickname``, ``gender``, ``dob``, ``address``).

        One round trip, or, when the nickname changes, a profile read and a save through
        the unique nickname index (the new nickname is claimed first, I1).

        Raises:
            ValidationError: A relationship field, or an unknown field. Nothing is written.
            UniqueViolationError: The new nickname is taken. Nothing is written.
        """
        for name in ("fans", "follows"):
            if name in changes:
                raise ValidationError(
                    "relationships change through follow() and unfollow()", field=name
                )
        if "nickname" not in changes:
            self.users.update({"user_id": user_id}, **changes)
            return
        profile = self.store.repository(Profile).get(user_id=user_id, required=True)
        assert profile is not None  # required=True
        for name, value in changes.items():
            setattr(profile, name, value)
        self.profiles.save(profile)

    def user_by_nickname(self, nickname: str) -> User | None:
        """The user holding ``nickname`` (two round trips: the unique index, the user)."""
        profile = self.profiles.get_unique(self.by_nickname.name, nickname=nickname)
        return None if profile is None else self.users.get(user_id=profile.user_id)

    def user(self, user_id: str) -> User | None:
        """A user with their fans and follows (one round trip)."""
        return self.users.get(user_id=user_id)

    def fans_of(self, user_id: str) -> dict[str, str]:
        """Who follows ``user_id``, with the relation type: one family read (one round trip)."""
        return self.follows.of_right(user_id)

    def followed_by(self, user_id: str) -> dict[str, str]:
        """Whom ``user_id`` follows, with the relation type (one round trip)."""
        return self.follows.of_left(user_id)

    def follow(self, follower: str, followee: str) -> str:
        """Make ``follower`` a fan of ``followee`` on both sides (R6); return the relation type.

        The type is ``"mutual"`` when ``followee`` already follows ``follower`` (then both
        users' entries about each other become ``"mutual"``), else ``"one-way"``. Three round
        trips: a multi-get checking that both users exist, a read of the one entry that says
        whether ``followee`` follows back, and one unit of work writing every entry (one
        ``mutate``: both rows are in the user table). Each row changes atomically; the two
        rows are not one transaction (HBase has none across rows), but the entries are
        idempotent, so calling again repairs a half-done follow, and
        ``self.follows.verify()`` finds one-sided ones.

        Raises:
            ValidationError: A user following themselves.
            NotFoundError: Either user does not exist.
        """
        self._check_pair(follower, followee)
        follows_back = bool(self.users.get_entries({"user_id": follower}, "fans", [followee]))
        kind = MUTUAL if follows_back else ONE_WAY
        with self.store.unit_of_work() as unit:
            self.follows.queue_link(unit, follower, followee, kind)
            if follows_back:
                self.follows.queue_link(unit, followee, follower, MUTUAL)
        return kind

    def unfollow(self, follower: str, followee: str) -> bool:
        """Remove ``follower`` from ``followee``'s fans on both sides; whether they were one.

        If the two were mutual, ``followee``'s remaining follow becomes ``"one-way"`` on
        both sides. Two round trips (one read, one unit of work), or one when ``follower``
        did not follow ``followee``. The deletes are write stamps, so a follow right after
        an unfollow, even in the same millisecond, is not hidden by them.
        """
        current = self.follows.of_left(follower)
        if followee not in current:
            return False
        with self.store.unit_of_work() as unit:
            self.follows.queue_unlink(unit, follower, followee)
            if current[followee] == MUTUAL:
                self.follows.queue_link(unit, followee, follower, ONE_WAY)
        return True

    def _check_pair(self, follower: str, followee: str) -> None:
        if follower == followee:
            raise ValidationError(
                "a user cannot follow themselves", field="followee", value=followee
            )
        found = self.users.get_many(
            [{"user_id": follower}, {"user_id": followee}], fields=["nickname"]
        )
        missing = [u for u, user in zip((follower, followee), found, strict=True) if user is None]
        if missing:
            raise NotFoundError("no such user", table=self.users.table, value=missing)

    # --- purchases --------------------------------------------------------------------

    def record(self, purchases: Sequence[Purchase]) -> None:
        """Save purchases in one round trip."""
        self.purchases.save_many(purchases)

    def purchases_page(
        self, user_id: str, size: int = 30, token: str | None = None
    ) -> Page[Purchase]:
        """A page of a user's purchases, newest first (K6, R8).

        The first page is a prefix scan with a limit; pass its ``next_token`` back for the
        page after it. About one round trip per page.
        """
        return self.purchases.page(size, {"user_id": user_id}, token=token)

    # --- posts and the home timeline ------------------------------------------------------

    def post(self, author: str, post_id: str, text: str, posted_at: datetime) -> int:
        """Publish a post and copy it into the home timeline of the author and every fan.

        Fan-out on write: three round trips however many fans (a read of the author's
        fans, then one unit of work: one ``mutate`` per table, the post and every timeline
        row). Returns how many timelines received it. A fan who follows later does not get
        older posts; one who unfollows keeps what was delivered (a family TTL would age
        it out).
        """
        fans = self.follows.of_right(author)
        readers = [author, *sorted(fans)]
        with self.store.unit_of_work() as unit:
            unit.save(Post(author=author, posted_at=posted_at, post_id=post_id, text=text))
            for reader in readers:
                unit.save(
                    TimelineEntry(
                        reader=reader,
                        posted_at=posted_at,
                        post_id=post_id,
                        author=author,
                        text=text,
                    )
                )
        return len(readers)

    def home_timeline(
        self, reader: str, size: int = 30, token: str | None = None
    ) -> Page[TimelineEntry]:
        """A page of ``reader``'s home timeline, newest first (K6, R8): one prefix scan."""
        return self.timeline.page(size, {"reader": reader}, token=token)
