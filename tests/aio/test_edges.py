"""The repository on both edges: one test body each, run sync and async on every target.

The async edge runs the synchronous repository's own operations (one sans-I/O core), so
these bodies check that both edges give the same models, the same errors, the same round
trips and the same events: K1 (key-range scans), K3 (salted scans merged), R8 (page
tokens), F10 (counters).
"""

from __future__ import annotations

import pytest

from hmodel import Family, Int, Key, Str, Table, counter, field, model, version_field
from hmodel.errors import (
    ConflictError,
    NotFoundError,
    QueryError,
    RowExistsError,
    TokenError,
    ValidationError,
)
from hmodel.keys import Salt
from tests.edges import Edge

users = Table("aio_user", [Family("i")])


@model(users, key=Key(Str("user_id")))
class User:
    user_id: str
    nickname: str = field("i:n")
    age: int | None = field("i:a", default=None)


orders = Table("aio_order", [Family("o")])


@model(orders, key=Key(Str("customer_id"), Int("order_no")))
class Order:
    customer_id: str
    order_no: int
    total: int = field("o:t")


events = Table("aio_event", [Family("e")])


@model(events, key=Key(Salt("device", buckets=4), Str("device"), Int("seq")))
class Event:
    device: str
    seq: int
    kind: str = field("e:k")


stats = Table("aio_stat", [Family("c")])


@model(stats, key=Key(Str("page")))
class Stat:
    page: str
    views: int = counter("c:v")
    likes: int = counter("c:l")


def test_a_saved_model_reads_back_equal_and_a_missing_one_is_none_or_an_error(
    edge: Edge,
) -> None:
    repo = edge.repo(User)
    bob = User(user_id="u1", nickname="bob", age=42)
    assert edge.call(repo.save(bob)) is bob
    assert edge.call(repo.get(user_id="u1")) == bob
    assert edge.call(repo.get(user_id="nobody")) is None
    with pytest.raises(NotFoundError) as info:
        edge.call(repo.get(user_id="nobody", required=True))
    assert info.value.table == "aio_user" and info.value.row is not None


def test_get_many_is_one_round_trip_aligned_with_the_keys(edge: Edge) -> None:
    repo = edge.repo(User)
    edge.call(repo.save_many([User(user_id=f"u{i}", nickname=f"n{i}") for i in range(5)]))
    before = edge.round_trips
    found = edge.call(repo.get_many([{"user_id": "u3"}, {"user_id": "zz"}, {"user_id": "u0"}]))
    assert edge.round_trips - before == 1
    assert [u and u.nickname for u in found] == ["n3", None, "n0"]
    assert edge.call(repo.get_many([])) == []


def test_exists_delete_and_delete_many(edge: Edge) -> None:
    repo = edge.repo(User)
    edge.call(repo.save_many([User(user_id=f"u{i}", nickname="n") for i in range(4)]))
    assert edge.call(repo.exists(user_id="u1")) is True
    edge.call(repo.delete(user_id="u1"))
    assert edge.call(repo.exists(user_id="u1")) is False
    u2 = edge.call(repo.get(user_id="u2"))
    edge.call(repo.delete(u2))
    edge.call(repo.delete_many([{"user_id": "u0"}, {"user_id": "u3"}]))
    assert edge.call(repo.get_many([{"user_id": f"u{i}"} for i in range(4)])) == [None] * 4


def test_an_invalid_model_is_refused_with_a_typed_error_and_nothing_is_written(
    edge: Edge,
) -> None:
    repo = edge.repo(User)
    before = edge.round_trips
    with pytest.raises(ValidationError) as info:
        edge.call(repo.save(User(user_id="u1", nickname=7)))  # type: ignore[arg-type]
    assert info.value.table == "aio_user"
    with pytest.raises(ValidationError):
        edge.call(repo.delete(User(user_id="u1", nickname="x"), user_id="u1"))
    assert edge.round_trips == before
    assert edge.call(repo.get(user_id="u1")) is None


def test_a_prefix_scan_returns_the_customers_orders_in_key_order_with_a_limit(
    edge: Edge,
) -> None:
    repo = edge.repo(Order)
    edge.call(
        repo.save_many(
            [
                Order(customer_id=c, order_no=n, total=n * 10)
                for c in ("c1", "c2")
                for n in (3, 1, 2)
            ]
        )
    )
    assert [o.order_no for o in edge.list(repo.scan({"customer_id": "c1"}))] == [1, 2, 3]
    assert [o.order_no for o in edge.list(repo.scan({"customer_id": "c2"}, reverse=True))] == [
        3,
        2,
        1,
    ]
    assert [o.order_no for o in edge.list(repo.scan({"customer_id": "c1"}, low=2))] == [2, 3]
    assert [(o.customer_id, o.order_no) for o in edge.list(repo.scan(limit=4))] == [
        ("c1", 1),
        ("c1", 2),
        ("c1", 3),
        ("c2", 1),
    ]
    assert edge.list(repo.scan(limit=0)) == []


def test_a_bad_query_is_refused_when_the_scan_is_made_before_any_round_trip(
    edge: Edge,
) -> None:
    repo = edge.repo(Order)
    before = edge.round_trips
    with pytest.raises(QueryError):
        repo.scan({"customer_id": "c1"}, fields=["nope"])
    assert edge.round_trips == before


def test_a_salted_scan_merges_the_buckets_in_natural_key_order(edge: Edge) -> None:
    repo = edge.repo(Event)
    edge.call(
        repo.save_many(
            [Event(device=d, seq=s, kind="k") for d in ("a", "b", "c", "d", "e") for s in (2, 1)]
        )
    )
    assert [(e.device, e.seq) for e in edge.list(repo.scan())] == [
        (d, s) for d in ("a", "b", "c", "d", "e") for s in (1, 2)
    ]
    assert [(e.device, e.seq) for e in edge.list(repo.scan(reverse=True, limit=3))] == [
        ("e", 2),
        ("e", 1),
        ("d", 2),
    ]


def test_pages_and_tokens_walk_every_row_once(edge: Edge) -> None:
    repo = edge.repo(Event)
    edge.call(repo.save_many([Event(device=f"d{i}", seq=1, kind="k") for i in range(7)]))
    seen: list[str] = []
    token = None
    while True:
        page = edge.call(repo.page(3, token=token))
        seen += [e.device for e in page.items]
        token = page.next_token
        if token is None:
            break
    assert seen == [f"d{i}" for i in range(7)]
    pages = edge.list(repo.pages(3))
    assert [[e.device for e in p.items] for p in pages] == [
        ["d0", "d1", "d2"],
        ["d3", "d4", "d5"],
        ["d6"],
    ]
    with pytest.raises(TokenError):
        edge.call(repo.page(3, token=page_token_of_another_query(edge)))


def page_token_of_another_query(edge: Edge) -> str:
    repo = edge.sync_repo(Event)
    token = repo.page(1, query=None, reverse=True).next_token
    assert token is not None
    return token


def test_a_page_token_of_one_edge_resumes_on_the_other(edge: Edge) -> None:
    repo = edge.repo(Order, token_secret=b"shared")
    edge.call(repo.save_many([Order(customer_id="c", order_no=n, total=0) for n in range(5)]))
    first = edge.call(repo.page(2, {"customer_id": "c"}))
    other = edge.sync_repo(Order, token_secret=b"shared")
    rest = other.page(10, {"customer_id": "c"}, token=first.next_token)
    assert [o.order_no for o in first.items + rest.items] == [0, 1, 2, 3, 4]


def test_counters_increment_one_or_several(edge: Edge) -> None:
    repo = edge.repo(Stat)
    assert edge.call(repo.increment({"page": "p"}, views=2)) == {"views": 2}
    assert edge.call(repo.increment({"page": "p"}, views=1, likes=5)) == {"views": 3, "likes": 5}
    with pytest.raises(ValidationError):
        edge.call(repo.increment({"page": "p"}))


def test_each_call_tells_the_listeners_with_its_round_trips(edge: Edge) -> None:
    repo = edge.repo(User)
    # The first write over Thrift1 may read the table's families once (then cached).
    edge.call(repo.save(User(user_id="u0", nickname="warm")))
    edge.events.clear()
    edge.call(repo.save(User(user_id="u1", nickname="bob")))
    edge.call(repo.get(user_id="u1"))
    edge.list(repo.scan())
    kinds = [(e.operation, e.round_trips, e.results) for e in edge.events]
    assert kinds[0][:2] == ("save", 1)
    assert kinds[1] == ("get", 1, 1)
    assert kinds[2][0] == "scan" and kinds[2][2] == 2
    assert [e.error for e in edge.events] == [None] * 3


locked = Table("aio_locked", [Family("d")])


@model(locked, key=Key(Str("doc_id")))
class Doc:
    doc_id: str
    body: str = field("d:b")
    version: int = version_field("d:v")


def test_a_locked_model_saves_with_its_version_checked_and_refuses_a_stale_write(
    edge: Edge,
) -> None:
    """R5 on both edges: a save sets a new version; a stale instance is refused, nothing
    written; a new instance over an existing row is refused; a delete checks the version."""
    repo = edge.repo(Doc)
    saved = edge.call(repo.save(Doc(doc_id="d1", body="v1")))
    assert saved.version > 0
    first = edge.call(repo.get(doc_id="d1"))
    stale = edge.call(repo.get(doc_id="d1"))
    first.body = "v2"
    edge.call(repo.save(first))
    stale.body = "lost update"
    with pytest.raises(ConflictError) as info:
        edge.call(repo.save(stale))
    assert info.value.table == "aio_locked"
    with pytest.raises(RowExistsError):
        edge.call(repo.save(Doc(doc_id="d1", body="again")))
    assert edge.call(repo.get(doc_id="d1")).body == "v2"
    with pytest.raises(ConflictError):
        edge.call(repo.delete(stale))
    edge.call(repo.delete(first))
    assert edge.call(repo.exists(doc_id="d1")) is False
    with pytest.raises(ValidationError):
        edge.call(repo.delete(doc_id="d1"))  # a locked row is deleted through its instance
