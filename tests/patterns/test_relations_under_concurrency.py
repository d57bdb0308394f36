"""Relations (R6) never create rows, compose with locked sides and take multi-field keys."""

from __future__ import annotations

import threading
import time

import pytest

from hmodel import (
    Family,
    Int,
    Key,
    Repository,
    Store,
    Str,
    Table,
    field,
    map_field,
    model,
    version_field,
)
from hmodel.backend.base import Backend
from hmodel.clock import ManualClock, WriteStamps
from hmodel.errors import DeclarationError, NotFoundError, ValidationError
from hmodel.patterns import Relation
from hmodel.testing.fault import FaultyBackend
from tests.patterns.shared_models import User

START = 1_700_000_000_000


groups = Table("rc_group", [Family("i"), Family("m")])


@model(groups, key=Key(Str("group_id")))
class Group:
    group_id: str
    title: str = field("i:t")
    members: dict[bytes, str] = map_field("m")  # entry keys: Member rowkeys
    version: int = version_field("i:v")


members = Table("rc_member", [Family("i"), Family("g")])


@model(members, key=Key(Str("tenant"), Int("number", size=4)))
class Member:
    tenant: str
    number: int
    name: str = field("i:n")
    groups: dict[str, str] = map_field("g")


def _store(backend: Backend) -> tuple[FaultyBackend, Store]:
    faulty = FaultyBackend(backend)
    store = Store(faulty, clock=ManualClock(START))
    store.create_tables(User, Group, Member)
    return faulty, store


def test_a_link_to_a_missing_row_is_refused_and_writes_nothing(backend: Backend) -> None:
    """Defect 8: linking to a missing user raises NotFoundError; get and scan still decode."""
    _, store = _store(backend)
    follow = Relation(store, User, "follows", User, "fans")
    users = store.repository(User)
    users.save(User(user_id="ann", nickname="Ann"))
    with pytest.raises(NotFoundError) as raised:
        follow.link("ann", "ghost", "one-way")
    assert raised.value.table is not None and raised.value.row is not None
    assert users.get(user_id="ghost") is None
    assert [u.user_id for u in users.scan()] == ["ann"]
    assert follow.of_left("ann") == {} and follow.verify() == []
    follow.unlink("ann", "ghost")  # deletes only
    assert [u.user_id for u in users.scan()] == ["ann"]


def test_a_side_deleted_during_the_link_is_not_brought_back(backend: Backend) -> None:
    """The right row is deleted (by a writer 15 ms behind) between the read and the writes."""
    faulty, store = _store(backend)
    follow = Relation(store, User, "follows", User, "fans")
    users = store.repository(User)
    for name in ("ann", "bob"):
        users.save(User(user_id=name, nickname=name))
    store.clock.advance(20)  # type: ignore[attr-defined]
    behind = Repository(User, backend, stamps=WriteStamps(ManualClock(START + 5)))
    faulty.on("get", before=lambda *_: None, after=lambda *_: behind.delete(user_id="bob"))
    with pytest.raises(NotFoundError):
        follow.link("ann", "bob", "one-way")
    assert [u.user_id for u in users.scan()] == ["ann"]  # no partial row for bob
    assert follow.of_left("ann") == {} and follow.verify() == []


def test_a_locked_side_and_a_multi_field_key(backend: Backend) -> None:
    """Group (versioned) <-> Member (two-field key): links go through the group's lock."""
    _, store = _store(backend)
    groups_repo, members_repo = store.repository(Group), store.repository(Member)
    groups_repo.save(Group(group_id="g1", title="chess", members={}))
    members_repo.save(Member(tenant="t", number=7, name="Ann", groups={}))
    belongs = Relation(store, Group, "members", Member, "groups")
    stale = groups_repo.get(group_id="g1", required=True)
    belongs.link("g1", ("t", 7), "admin")
    belongs.link("g1", {"tenant": "t", "number": 7}, "admin")  # idempotent
    assert belongs.of_left("g1") == {("t", 7): "admin"}
    assert belongs.of_right(("t", 7)) == {"g1": "admin"}
    assert belongs.verify() == [] and belongs.verify(["g1"]) == []
    assert stale is not None
    stale.title = "go"
    with pytest.raises(Exception, match="changed or deleted"):
        groups_repo.save(stale)  # a save holding the old map cannot drop the link
    with pytest.raises(NotFoundError):
        belongs.link("g2", ("t", 7), "x")
    with pytest.raises(ValidationError, match="link"), store.unit_of_work() as unit:
        belongs.queue_link(unit, "g1", ("t", 7), "x")
    belongs.unlink("g1", ("t", 7))
    assert belongs.of_left("g1") == {} and belongs.of_right(("t", 7)) == {}


def test_a_link_on_a_locked_side_waits_for_another_save_in_progress_R6(
    backend: Backend,
) -> None:
    """Over Thrift1 a locked side held by another writer's claim is linked after a pause.

    The other writer claims the group, then stalls 300 ms before its data write; the
    link meets the claim within its lease (manual clocks: it never runs out) and backs
    off (``backoff_op``) until the other save is done, then links on top of it.
    """
    if "check_and_mutate" in backend.capabilities:
        pytest.skip("an atomic save has no claim in progress to wait for")
    _, store = _store(backend)
    groups_repo, members_repo = store.repository(Group), store.repository(Member)
    groups_repo.save(Group(group_id="g1", title="chess", members={}))
    members_repo.save(Member(tenant="t", number=7, name="Ann", groups={}))
    belongs = Relation(store, Group, "members", Member, "groups")
    slow = FaultyBackend(backend)
    other = Repository(Group, slow, clock=ManualClock(START))
    claimed = threading.Event()

    def stall(*_: object) -> None:
        claimed.set()
        time.sleep(0.3)

    slow.on("mutate", nth=1, before=stall)
    group = other.get(group_id="g1", required=True)
    assert group is not None
    group.title = "go"
    writer = threading.Thread(target=other.save, args=(group,))
    writer.start()
    try:
        assert claimed.wait(10)
        belongs.link("g1", ("t", 7), "admin")
    finally:
        writer.join(10)
    got = groups_repo.get(group_id="g1", required=True)
    assert got is not None and got.title == "go"  # the other save landed, then the link
    assert belongs.of_left("g1") == {("t", 7): "admin"}
    assert belongs.of_right(("t", 7)) == {"g1": "admin"}
    assert belongs.verify() == []


def test_a_multi_field_key_needs_bytes_entry_keys(backend: Backend) -> None:
    """A map keyed by str cannot hold the ids of a two-field key: refused at declaration."""
    _, store = _store(backend)
    with pytest.raises(DeclarationError, match="dict\\[bytes"):
        Relation(store, Member, "groups", Member, "groups")
