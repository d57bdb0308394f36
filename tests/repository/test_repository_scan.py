"""Key-range scans, salted fan-out, pages with resume tokens and server-side conditions."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from hmodel import (
    Const,
    Family,
    Int,
    Key,
    ReverseTimestamp,
    Salt,
    Str,
    Table,
    Timestamp,
    field,
    model,
)
from hmodel.errors import QueryError, TokenError
from hmodel.repository import Repository, where
from hmodel.schema.split import SaltSplits

MakeRepo = Callable[..., Repository[Any]]
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)

purchases = Table("purchase", [Family("p")])


@model(purchases, key=Key(Str("user_id"), ReverseTimestamp("at"), Str("product")))
class Purchase:
    """The seed's ``[user][MAX-ts][product]`` purchase history, newest first (K6)."""

    user_id: str
    at: datetime
    product: str
    price: int = field("p:$")
    note: str | None = field("p:n", default=None)


events = Table("event", [Family("e")], splits=SaltSplits(4))


@model(events, key=Key(Salt("device", buckets=4), Str("device"), Timestamp("at")))
class Event:
    """A time series salted over 4 buckets so writes spread over 4 regions (K3, K8)."""

    device: str
    at: datetime
    reading: str = field("e:r")


crm = Table("crm_records", [Family("d")])


@model(crm, key=Key(Str("customer_id"), Const(b"\x01")))
class Customer:
    """Record type 1 of the single-table design ``[customer][type]`` (R1)."""

    customer_id: str
    name: str = field("d:n")


@model(crm, key=Key(Str("customer_id"), Const(b"\x02"), Int("order_no")))
class CustomerOrder:
    """Record type 2: ``[customer][type=2][order]`` (R1)."""

    customer_id: str
    order_no: int
    total: int = field("d:t")


@pytest.fixture
def shop(make_repo: MakeRepo) -> Repository[Purchase]:
    repo = make_repo(Purchase)
    repo.save_many(
        [
            Purchase(user_id=user, at=T0 + timedelta(days=day), product=f"p{day}", price=day * 10)
            for user in ("alice", "bob")
            for day in range(10)
        ]
    )
    return repo


def days(items: Any) -> list[int]:
    return [(p.at - T0).days for p in items]


def test_a_prefix_scan_returns_one_users_purchases_newest_first(shop: Repository[Purchase]) -> None:
    assert days(shop.scan({"user_id": "alice"})) == list(range(9, -1, -1))


def test_reverse_scans_return_oldest_first_for_a_reverse_timestamp(
    shop: Repository[Purchase],
) -> None:
    assert days(shop.scan({"user_id": "bob"}, reverse=True)) == list(range(10))


def test_logical_bounds_on_a_descending_component_select_the_interval(
    shop: Repository[Purchase],
) -> None:
    found = shop.scan(
        {"user_id": "alice"},
        low=T0 + timedelta(days=3),
        high=T0 + timedelta(days=6),
        high_inclusive=True,
    )
    assert days(found) == [6, 5, 4, 3]


def test_limit_and_the_first_page_of_a_tall_list(shop: Repository[Purchase]) -> None:
    assert days(shop.scan({"user_id": "alice"}, limit=3)) == [9, 8, 7]
    page = shop.page(3, {"user_id": "alice"})
    assert days(page) == [9, 8, 7] and page.next_token is not None


def test_pages_resume_exactly_after_the_previous_page(shop: Repository[Purchase]) -> None:
    seen = [days(p) for p in shop.pages(4, {"user_id": "alice"})]
    assert seen == [[9, 8, 7, 6], [5, 4, 3, 2], [1, 0]]
    seen_reverse = [days(p) for p in shop.pages(4, {"user_id": "alice"}, reverse=True)]
    assert seen_reverse == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_a_page_that_ends_the_scan_has_no_token(shop: Repository[Purchase]) -> None:
    assert shop.page(10, {"user_id": "alice"}).next_token is None


def test_tampered_or_foreign_tokens_are_rejected(shop: Repository[Purchase]) -> None:
    token = shop.page(3, {"user_id": "alice"}).next_token
    assert token is not None
    flipped = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    with pytest.raises(TokenError):
        shop.page(3, {"user_id": "alice"}, token=flipped)
    with pytest.raises(TokenError):
        shop.page(3, {"user_id": "bob"}, token=token)
    with pytest.raises(TokenError):
        shop.page(3, {"user_id": "alice"}, token="not a token!")


@pytest.fixture
def sensors(make_repo: MakeRepo) -> tuple[Repository[Event], list[tuple[str, int]]]:
    repo = make_repo(Event)
    rng = random.Random(7)
    keys = sorted({(f"dev{rng.randrange(12):02d}", rng.randrange(1000)) for _ in range(80)})
    repo.save_many(
        [Event(device=d, at=T0 + timedelta(seconds=s), reading=f"{d}/{s}") for d, s in keys]
    )
    return repo, keys


def natural(items: Any) -> list[tuple[str, int]]:
    return [(e.device, int((e.at - T0).total_seconds())) for e in items]


def test_a_salted_scan_fans_out_and_merges_into_natural_key_order(
    sensors: tuple[Repository[Event], list[tuple[str, int]]],
) -> None:
    repo, keys = sensors
    plan = repo.plan()
    assert len(plan.spans) == 4
    assert natural(repo.scan()) == keys
    assert natural(repo.scan(reverse=True)) == keys[::-1]
    assert natural(repo.scan(limit=7)) == keys[:7]


def test_a_salted_scan_with_the_salt_source_reads_one_bucket(
    sensors: tuple[Repository[Event], list[tuple[str, int]]],
) -> None:
    repo, keys = sensors
    device = keys[0][0]
    assert len(repo.plan({"device": device}).spans) == 1
    assert natural(repo.scan({"device": device})) == [k for k in keys if k[0] == device]


@pytest.mark.parametrize("reverse", [False, True])
def test_paging_a_salted_scan_visits_every_row_once_in_order(
    sensors: tuple[Repository[Event], list[tuple[str, int]]], reverse: bool
) -> None:
    repo, keys = sensors
    pages = list(repo.pages(9, reverse=reverse))
    assert all(len(p) == 9 for p in pages[:-1])
    collected = [k for p in pages for k in natural(p)]
    assert collected == (keys[::-1] if reverse else keys)


def test_conditions_filter_on_the_server_and_escape_user_input(
    shop: Repository[Purchase], clock: Any
) -> None:
    hostile = "x') OR (PrefixFilter('') AND 'it''s"
    clock.advance(1)
    shop.update({"user_id": "alice", "at": T0 + timedelta(days=2), "product": "p2"}, note=hostile)
    found = list(shop.scan({"user_id": "alice"}, where=where("note") == hostile))
    assert days(found) == [2]
    assert list(shop.scan(where=where("note") == "nothing like it")) == []


def test_prefix_and_substring_conditions(shop: Repository[Purchase], clock: Any) -> None:
    clock.advance(1)
    shop.update({"user_id": "bob", "at": T0 + timedelta(days=1), "product": "p1"}, note="Gift wrap")
    assert days(shop.scan(where=where("note").startswith("Gift"))) == [1]
    assert days(shop.scan(where=where("note").contains("WRAP"))) == [1]


def test_conditions_combine_with_and_or(shop: Repository[Purchase], clock: Any) -> None:
    clock.advance(1)
    for day, note in ((1, "a"), (2, "b"), (3, "c")):
        shop.update(
            {"user_id": "alice", "at": T0 + timedelta(days=day), "product": f"p{day}"}, note=note
        )
    either = where("note") == "a"
    either = either | (where("note") == "c")
    assert days(shop.scan({"user_id": "alice"}, where=either)) == [3, 1]
    both = (where("note") == "b") & (where("note") != "c")
    assert days(shop.scan({"user_id": "alice"}, where=both)) == [2]


def test_bad_conditions_are_typed_errors_before_any_request(
    shop: Repository[Purchase], backend: Any
) -> None:
    before = backend.round_trips
    with pytest.raises(QueryError):
        shop.plan(where=where("colour") == "red")
    with pytest.raises(QueryError):
        shop.plan(where=where("user_id") == "alice")  # key fields are bounded, not filtered
    with pytest.raises(QueryError):
        shop.plan(where=where("price") > 10)  # a long's bytes do not sort like its values
    with pytest.raises(QueryError):
        shop.plan(where=where("price") == "ten")
    assert backend.round_trips == before


def test_record_types_in_one_table_are_scanned_apart(make_repo: MakeRepo) -> None:
    customers, orders = make_repo(Customer), make_repo(CustomerOrder)
    customers.save(Customer(customer_id="c1", name="Ann"))
    orders.save_many([CustomerOrder(customer_id="c1", order_no=n, total=n * 5) for n in (3, 1, 2)])
    customers.save(Customer(customer_id="c2", name="Ben"))
    assert [c.name for c in customers.scan()] == ["Ann", "Ben"]
    assert [o.order_no for o in orders.scan({"customer_id": "c1"})] == [1, 2, 3]
    assert [o.order_no for o in orders.scan({"customer_id": "c1"}, low=2)] == [2, 3]


def test_the_plan_explains_the_byte_ranges_and_filter(shop: Repository[Purchase]) -> None:
    plan = shop.plan({"user_id": "alice"}, where=where("note") == "x")
    assert len(plan.spans) == 1
    assert plan.spans[0].start.startswith(b"alice")
    assert (
        plan.filter is not None
        and b"SingleColumnValueFilter('p', 'n', =, 'binary:x'" in plan.filter
    )
    assert "scan 'purchase'" in plan.describe()


def test_a_token_resumes_on_another_repository_of_the_same_process(
    shop: Repository[Purchase], backend: Any, clock: Any
) -> None:
    token = shop.page(3, {"user_id": "alice"}).next_token
    per_request = Repository(Purchase, backend, clock=clock)
    assert days(per_request.page(3, {"user_id": "alice"}, token=token)) == [6, 5, 4]
    other_service = Repository(Purchase, backend, clock=clock, token_secret=b"another key")
    with pytest.raises(TokenError):
        other_service.page(3, {"user_id": "alice"}, token=token)


folders = Table("folder", [Family("d")])


@model(folders, key=Key(Str("owner"), Const(b"\x01")))
class Folder:
    """Record type 1: ``[owner][01]``."""

    owner: str
    name: str = field("d:n")


@model(folders, key=Key(Str("owner"), Const(b"\x02"), Int("n")))
class Note:
    """Record type 2: ``[owner][02][n]``, sharing the qualifier ``d:n`` with Folder."""

    owner: str
    n: int
    name: str = field("d:n")


def test_limits_and_pages_count_models_not_rows_of_other_record_types(
    make_repo: MakeRepo,
) -> None:
    # A folder scan without a prefix spans the whole table, notes included (R1), and the
    # notes have the folder's column: they are read, skipped, and never counted.
    folder_repo, note_repo = make_repo(Folder), make_repo(Note)
    for i in range(5):
        folder_repo.save(Folder(owner=f"o{i}", name=f"folder{i}"))
        note_repo.save_many([Note(owner=f"o{i}", n=n, name=f"note{n}") for n in range(3)])
    assert folder_repo.plan().spans[0].start == b""
    assert [f.name for f in folder_repo.scan(limit=3)] == ["folder0", "folder1", "folder2"]
    pages = [[f.name for f in p] for p in folder_repo.pages(2)]
    assert pages == [["folder0", "folder1"], ["folder2", "folder3"], ["folder4"]]


@pytest.mark.parametrize("limit", [-1, "2", 1.5, True])
def test_a_scan_limit_must_be_a_non_negative_int(shop: Repository[Purchase], limit: Any) -> None:
    with pytest.raises(QueryError):
        shop.scan({"user_id": "alice"}, limit=limit)


@pytest.mark.parametrize("size", [0, "2", 2.5, True])
def test_a_page_size_must_be_a_positive_int(shop: Repository[Purchase], size: Any) -> None:
    with pytest.raises(QueryError):
        shop.page(size, {"user_id": "alice"})


people = Table("person", [Family("i"), Family("a"), Family("s")])


@model(people, key=Key(Str("name")))
class Person:
    """Three families: HBase loads the ones a filterIfMissing condition does not test lazily."""

    name: str
    city: str | None = field("a:c", default=None)
    age: int | None = field("i:g", default=None)
    bio: str | None = field("s:b", default=None)


@pytest.fixture
def residents(make_repo: MakeRepo) -> Repository[Person]:
    repo = make_repo(Person)
    repo.save_many(
        [
            Person(name="ann", city="Paris", age=30, bio="a"),
            Person(name="bea", city="Rome", age=40, bio="b"),
            Person(name="cid", age=50, bio="c"),  # no city: a condition on it is false
            Person(name="dan", city="Paris"),
            Person(name="eve", city="Paris", bio="e"),
        ]
    )
    return repo


def test_a_reverse_scan_with_a_condition_works_on_a_model_of_several_families(
    residents: Repository[Person],
) -> None:
    """HBase refuses reverse + filterIfMissing over several families; the plan avoids it."""
    found = list(residents.scan(where=where("city") == "Paris", reverse=True))
    assert found == [
        Person(name="eve", city="Paris", bio="e"),
        Person(name="dan", city="Paris"),
        Person(name="ann", city="Paris", age=30, bio="a"),
    ]
    forward = list(residents.scan(where=where("city") == "Paris"))
    assert forward == found[::-1]


def test_reverse_conditions_combine_and_project_on_every_backend(
    residents: Repository[Person],
) -> None:
    """AND / OR over two families, a projection, pages: same rows as forward, reversed."""
    either = (where("city") == "Rome") | (where("age") == 50)
    assert [p.name for p in residents.scan(where=either, reverse=True)] == ["cid", "bea"]
    both = (where("city") == "Paris") & (where("bio") != "x")
    assert [p.name for p in residents.scan(where=both, reverse=True)] == ["eve", "ann"]
    ages = residents.scan(where=where("city") == "Paris", reverse=True, fields=["age"])
    assert [(p.name, p.age) for p in ages] == [("eve", None), ("dan", None), ("ann", 30)]
    pages = residents.pages(2, where=where("city") == "Paris", reverse=True)
    assert [[p.name for p in page] for page in pages] == [["eve", "dan"], ["ann"]]


def test_a_reverse_plan_needs_every_family(residents: Repository[Person]) -> None:
    """The reverse plan sends the condition AND FamilyFilter(>=, 'binary:'); forward does not."""
    reverse = residents.plan(where=where("city") == "Paris", reverse=True)
    forward = residents.plan(where=where("city") == "Paris")
    assert reverse.filter == b"(" + (forward.filter or b"") + b") AND FamilyFilter(>=, 'binary:')"
    assert reverse.fingerprint() != forward.fingerprint()
