"""The microblog on every backend: relationships on both sides (R6, F6), purchase pages (R8)."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta, timezone

import pytest

from examples.microblog.dataset import purchases
from examples.microblog.models import MUTUAL, ONE_WAY, User
from examples.microblog.service import Microblog
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.errors import NotFoundError, UniqueViolationError, ValidationError

NAMES = ("ann", "bob", "cy", "dee", "eve")


def register(blog: Microblog) -> None:
    blog.register([User(user_id=name, nickname=name.title()) for name in NAMES])


def expected_fans(edges: set[tuple[str, str]], user: str) -> dict[str, str]:
    return {
        fan: MUTUAL if (user, fan) in edges else ONE_WAY
        for fan, followee in edges
        if followee == user
    }


def expected_follows(edges: set[tuple[str, str]], user: str) -> dict[str, str]:
    return {
        followee: MUTUAL if (followee, user) in edges else ONE_WAY
        for follower, followee in edges
        if follower == user
    }


def test_a_follow_is_written_on_both_sides_R6(blog: Microblog) -> None:
    register(blog)
    assert blog.follow("ann", "bob") == ONE_WAY
    assert blog.fans_of("bob") == {"ann": ONE_WAY}
    assert blog.followed_by("ann") == {"bob": ONE_WAY}
    assert blog.fans_of("ann") == {} and blog.followed_by("bob") == {}


def test_following_back_makes_both_sides_mutual(blog: Microblog, clock: ManualClock) -> None:
    register(blog)
    blog.follow("ann", "bob")
    clock.advance(1)
    assert blog.follow("bob", "ann") == MUTUAL
    for user, other in (("ann", "bob"), ("bob", "ann")):
        assert blog.fans_of(user) == {other: MUTUAL}
        assert blog.followed_by(user) == {other: MUTUAL}


def test_unfollowing_a_mutual_fan_leaves_a_one_way_follow(
    blog: Microblog, clock: ManualClock
) -> None:
    register(blog)
    blog.follow("ann", "bob")
    clock.advance(1)
    blog.follow("bob", "ann")
    clock.advance(1)
    assert blog.unfollow("bob", "ann") is True
    assert blog.fans_of("bob") == {"ann": ONE_WAY}
    assert blog.followed_by("ann") == {"bob": ONE_WAY}
    assert blog.fans_of("ann") == {} and blog.followed_by("bob") == {}


def test_unfollowing_someone_not_followed_changes_nothing(blog: Microblog) -> None:
    register(blog)
    blog.follow("ann", "bob")
    assert blog.unfollow("bob", "ann") is False
    assert blog.fans_of("bob") == {"ann": ONE_WAY}


def test_random_follows_and_unfollows_keep_both_sides_mirrored(
    blog: Microblog, clock: ManualClock
) -> None:
    register(blog)
    rng = random.Random(6)
    edges: set[tuple[str, str]] = set()
    for _ in range(60):
        follower, followee = rng.sample(NAMES, 2)
        clock.advance(1)
        if (follower, followee) in edges and rng.random() < 0.6:
            assert blog.unfollow(follower, followee) is True
            edges.discard((follower, followee))
        else:
            kind = blog.follow(follower, followee)
            assert kind == (MUTUAL if (followee, follower) in edges else ONE_WAY)
            edges.add((follower, followee))
    for user in NAMES:
        stored = blog.user(user)
        assert stored is not None
        assert stored.fans == expected_fans(edges, user)
        assert stored.follows == expected_follows(edges, user)


def test_following_oneself_or_a_stranger_is_refused_and_writes_nothing(blog: Microblog) -> None:
    register(blog)
    with pytest.raises(ValidationError):
        blog.follow("ann", "ann")
    with pytest.raises(NotFoundError) as caught:
        blog.follow("ann", "zed")
    assert caught.value.value == ["zed"]
    assert blog.followed_by("ann") == {} and blog.fans_of("zed") == {}


def test_profile_changes_keep_relationships(blog: Microblog, clock: ManualClock) -> None:
    register(blog)
    blog.follow("ann", "bob")
    clock.advance(1)
    blog.update_profile("bob", address="Hangzhou", dob=date(1985, 1, 2))
    bob = blog.user("bob")
    assert bob is not None
    assert (bob.address, bob.dob, bob.fans) == ("Hangzhou", date(1985, 1, 2), {"ann": ONE_WAY})
    with pytest.raises(ValidationError):
        blog.update_profile("bob", fans={})


def test_purchases_come_newest_first_30_a_page_then_the_rest_R8(blog: Microblog) -> None:
    bought = purchases("bob", 45)
    blog.record(bought)
    blog.record(purchases("ann", 5))
    first = blog.purchases_page("bob")
    assert len(first) == 30 and first.next_token is not None
    second = blog.purchases_page("bob", token=first.next_token)
    assert len(second) == 15 and second.next_token is None
    newest_first = sorted(bought, key=lambda p: p.bought_at, reverse=True)
    assert [*first, *second] == newest_first


def test_a_follow_takes_three_round_trips_and_an_unfollow_two() -> None:
    backend = MemoryBackend()
    blog = Microblog(backend, clock=ManualClock())
    blog.create_tables()
    register(blog)
    before = backend.round_trips
    blog.follow("ann", "bob")
    assert backend.round_trips - before == 3
    before = backend.round_trips
    blog.unfollow("ann", "bob")
    assert backend.round_trips - before == 2


def test_a_post_reaches_the_home_timeline_of_every_fan_newest_first(
    blog: Microblog, clock: ManualClock
) -> None:
    """Fan-out on write: three round trips per post; one prefix scan per timeline page."""
    register(blog)
    blog.follow("bob", "ann")
    blog.follow("cy", "ann")
    blog.follow("ann", "bob")
    start = datetime(2024, 5, 1, tzinfo=timezone.utc)
    before = blog.backend.round_trips
    assert blog.post("ann", "p1", "hello", start) == 3
    assert blog.backend.round_trips - before == 3
    blog.post("bob", "p2", "bike", start + timedelta(minutes=1))
    blog.post("ann", "p3", "tea", start + timedelta(minutes=2))
    assert [e.post_id for e in blog.home_timeline("ann")] == ["p3", "p2", "p1"]
    assert [e.post_id for e in blog.home_timeline("cy")] == ["p3", "p1"]
    assert [e.text for e in blog.home_timeline("bob")] == ["tea", "bike", "hello"]
    first = blog.home_timeline("ann", 2)
    rest = blog.home_timeline("ann", 2, first.next_token)
    assert [e.post_id for e in [*first, *rest]] == ["p3", "p2", "p1"]


def test_nicknames_are_unique_and_found_through_the_index_I1(blog: Microblog) -> None:
    """A taken nickname is refused; a rename moves the claim; fans survive a rename."""
    register(blog)
    blog.follow("bob", "ann")
    found = blog.user_by_nickname("Ann")
    assert found is not None and found.user_id == "ann"
    with pytest.raises(UniqueViolationError):
        blog.update_profile("cy", nickname="Ann")
    with pytest.raises(UniqueViolationError):
        blog.register([User(user_id="zed", nickname="Bob")])
    blog.update_profile("ann", nickname="Annie", address="1 Quai")
    assert blog.user_by_nickname("Ann") is None
    renamed = blog.user_by_nickname("Annie")
    assert renamed is not None and renamed.user_id == "ann" and renamed.address == "1 Quai"
    assert blog.fans_of("ann") == {"bob": ONE_WAY}  # the profile save kept the relation
    blog.update_profile("cy", nickname="Ann")  # the old nickname is free again
    assert blog.user_by_nickname("Ann").user_id == "cy"  # type: ignore[union-attr]
