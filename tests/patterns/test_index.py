"""Secondary indexes: bytes, queries, pages, the write protocol step by step, unique values (I1)."""

from __future__ import annotations

from typing import Any

import pytest

from hmodel.backend.base import Backend
from hmodel.clock import ManualClock
from hmodel.errors import (
    ConnectionLostError,
    DeclarationError,
    QueryError,
    TokenError,
    UniqueViolationError,
)
from hmodel.keys import Int
from hmodel.patterns.index import Index
from hmodel.patterns.index_repository import IndexedRepository
from hmodel.repository import Repository
from hmodel.testing.fault import FaultyBackend
from tests.edges import Edge
from tests.patterns.index_edges import faulty as hooked
from tests.patterns.index_edges import indexed
from tests.patterns.index_models import (
    BY_NICK,
    GRACE,
    ITEMS_BY_COLOUR,
    Item,
    Order,
    User,
    colour_index,
    customer_index,
)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_700_000_000_000)


@pytest.fixture
def faulty(edge: Edge) -> FaultyBackend:
    """The edge's hooked backend (``AsyncFaultyBackend`` on the async edge)."""
    return hooked(edge)


@pytest.fixture
def items(edge: Edge, faulty: FaultyBackend, clock: ManualClock) -> Any:
    """An ``IndexedRepository`` or ``AsyncIndexedRepository`` of items by colour."""
    return indexed(edge, Item, [colour_index()], backend=faulty, clock=clock)


@pytest.fixture
def users(edge: Edge, faulty: FaultyBackend, clock: ManualClock) -> Any:
    index = Index(User, on=["nickname"], table=BY_NICK, unique=True, grace=GRACE)
    return indexed(edge, User, [index], backend=faulty, clock=clock)


def ids(found: Any) -> list[str]:
    return [o.item_id for o in found]


def fail_on(faulty: FaultyBackend, method: str, table: str, skip: int = 0) -> None:
    """Make a ``method`` call on ``table`` (after ``skip`` of them) fail before it is applied."""
    seen: list[int] = []

    def boom(name: str, args: tuple[Any, ...]) -> None:
        if args[0] == table:
            seen.append(1)
            if len(seen) <= skip:
                return
            faulty.hooks.remove(hook)
            raise ConnectionLostError(f"writer died before {name} on {table}")

    hook = faulty.on(method, nth=0, before=boom)


def step3_method(backend: Backend) -> str:
    return "check_and_mutate" if "check_and_mutate" in backend.capabilities else "mutate"


def fail_step_3(faulty: FaultyBackend, table: str) -> None:
    """Kill the writer at its step 3 on ``table`` (over Thrift1 step 1 is a mutate too)."""
    atomic = "check_and_mutate" in faulty.capabilities
    fail_on(faulty, step3_method(faulty), table, skip=0 if atomic else 1)


# --- declarations and bytes --------------------------------------------------------------


def test_index_rows_are_values_then_the_data_rowkey_with_a_status_cell() -> None:
    index = colour_index()
    row = index.entry_row({"colour": "red"}, b"i1\x00\x00")
    assert row == b"red\x00\x00" + b"i1\x00\xff\x00\xff\x00\x00"
    assert index.status(True, 5) == b"\x01" + (5).to_bytes(8, "big")
    assert index.status_column == b"x:_s"
    assert index.covering_column("size") == b"x:size"


def test_a_unique_index_row_is_the_value_alone_and_the_status_names_the_data_row() -> None:
    index = Index(User, on=["nickname"], table=BY_NICK, unique=True, salt=4)
    row = index.entry_row({"nickname": "bob"}, b"u1\x00\x00")
    assert row[1:] == b"bob\x00\x00" and row[0] < 4
    assert index.status(False, 7, b"u1") == b"\x00" + (7).to_bytes(8, "big") + b"u1"


def test_declarations_are_checked() -> None:
    with pytest.raises(DeclarationError):
        Index(Item, on=["nope"], table=ITEMS_BY_COLOUR)
    with pytest.raises(DeclarationError):
        Index(Item, on=["item_id"], table=ITEMS_BY_COLOUR)  # a key field: not indexed
    with pytest.raises(DeclarationError):
        Index(Item, on=["colour"], table=ITEMS_BY_COLOUR, covering=["colour"])
    with pytest.raises(DeclarationError):
        Index(User, on=["nickname"], table=BY_NICK, unique=True, covering=["city"])
    assert Index(Item, on=[Int("size", size=4)], table=ITEMS_BY_COLOUR).components[0].size == 4


# --- queries ---------------------------------------------------------------------------------


def test_query_by_value_pages_with_tokens_in_data_rowkey_order(
    edge: Edge,
    items: Any,
) -> None:
    for n in range(7):
        edge.call(items.save(Item(item_id=f"i{n}", colour="red" if n % 2 else "blue", size=n)))
    first = edge.call(items.page("item_by_colour", 2, {"colour": "blue"}))
    assert ids(first) == ["i0", "i2"]
    second = edge.call(items.page("item_by_colour", 2, {"colour": "blue"}, token=first.next_token))
    assert ids(second) == ["i4", "i6"] and second.next_token is None
    assert ids(edge.call(items.find("item_by_colour", {"colour": "red"}))) == ["i1", "i3", "i5"]
    with pytest.raises(TokenError):
        edge.call(items.page("item_by_colour", 2, {"colour": "red"}, token=first.next_token))


def test_a_page_reads_its_data_rows_in_one_multi_get(
    edge: Edge, items: Any, faulty: FaultyBackend
) -> None:
    for n in range(6):
        edge.call(items.save(Item(item_id=f"i{n}", colour="red", size=n)))
    faulty.calls.clear()
    page = edge.call(items.page("item_by_colour", 5, {"colour": "red"}))
    assert len(page) == 5
    assert faulty.calls.count("get") == 1


def test_a_covering_query_of_verified_entries_reads_no_data_row(
    edge: Edge, items: Any, faulty: FaultyBackend
) -> None:
    edge.call(items.save(Item(item_id="i1", colour="red", size=3)))
    faulty.calls.clear()
    page = edge.call(items.page_covered("item_by_colour", 10, {"colour": "red"}))
    assert page.items == [{"item_id": "i1", "colour": "red", "size": 3}]
    assert "get" not in faulty.calls


def test_value_prefix_range_and_reverse(edge: Edge, items: Any) -> None:
    for n, colour in enumerate(["red", "rose", "blue", "ruby", "green"]):
        edge.call(items.save(Item(item_id=f"i{n}", colour=colour)))
    assert ids(edge.call(items.find("item_by_colour", startswith="r"))) == ["i0", "i1", "i3"]
    assert ids(edge.call(items.find("item_by_colour", low="green", high="rose"))) == ["i4", "i0"]
    assert ids(edge.call(items.find("item_by_colour", reverse=True))) == [
        "i3",
        "i1",
        "i0",
        "i4",
        "i2",
    ]


def test_a_two_field_index_takes_equality_then_a_range(edge: Edge, clock: ManualClock) -> None:
    orders = indexed(edge, Order, [customer_index()], clock=clock)
    for n in range(6):
        edge.call(
            orders.save(Order(order_id=f"o{n}", status="new", total=n * 10, customer=f"c{n % 2}"))
        )
    found = edge.call(orders.find("order_by_customer", {"customer": "c0"}, low=10, high=40))
    assert [o.order_id for o in found] == ["o2"]
    found = edge.call(
        orders.find("order_by_customer", {"customer": "c1"}, low=10, high_inclusive=True)
    )
    assert [o.order_id for o in found] == ["o1", "o3", "o5"]


def test_a_salted_index_fans_out_and_merges_in_order(
    edge: Edge, faulty: FaultyBackend, clock: ManualClock
) -> None:
    items = indexed(edge, Item, [colour_index(salt=4)], backend=faulty, clock=clock)
    for n in range(12):
        edge.call(items.save(Item(item_id=f"i{n:02d}", colour="red")))
    plan = items.plan("item_by_colour", {"colour": "red"})
    assert len(plan.spans) == 4 and plan.merge_offset == 1
    pages = edge.list(items.pages("item_by_colour", 5, {"colour": "red"}))
    assert [ids(p) for p in pages] == [
        [f"i{n:02d}" for n in range(5)],
        [f"i{n:02d}" for n in range(5, 10)],
        ["i10", "i11"],
    ]
    assert "4 range(s)" in items.explain("item_by_colour", {"colour": "red"})
    assert "get_many of 'item'" in items.explain("item_by_colour", {"colour": "red"})


def test_bad_queries_are_refused(edge: Edge, items: Any) -> None:
    with pytest.raises(QueryError):
        edge.call(items.page("nope", 1))
    with pytest.raises(QueryError):
        edge.call(items.page("item_by_colour", 0))
    with pytest.raises(QueryError):
        items.plan("item_by_colour", startswith="r", low="a")


# --- the write protocol ------------------------------------------------------------------------


def test_a_value_changed_back_and_forth_is_found_under_its_current_value_only(
    edge: Edge,
    items: Any,
) -> None:
    item = Item(item_id="i1", colour="red")
    for colour in ["blue", "red", "blue", "red"]:
        item.colour = colour
        edge.call(items.save(item))
        other = "blue" if colour == "red" else "red"
        assert ids(edge.call(items.find("item_by_colour", {"colour": colour}))) == ["i1"]
        assert ids(edge.call(items.find("item_by_colour", {"colour": other}))) == []
    item.colour = None
    edge.call(items.save(item))
    assert ids(edge.call(items.find("item_by_colour"))) == []


def test_delete_and_recreate(edge: Edge, items: Any) -> None:
    item = edge.call(items.save(Item(item_id="i1", colour="red")))
    edge.call(items.delete(item))
    assert ids(edge.call(items.find("item_by_colour", {"colour": "red"}))) == []
    edge.call(items.save(Item(item_id="i1", colour="red")))
    assert ids(edge.call(items.find("item_by_colour", {"colour": "red"}))) == ["i1"]


def test_a_writer_dead_after_step_1_leaves_an_entry_readers_skip(
    edge: Edge, items: Any, faulty: FaultyBackend
) -> None:
    edge.call(items.save(Item(item_id="i1", colour="red", size=1)))
    fail_on(faulty, "mutate", "item")  # the data write never happens
    with pytest.raises(ConnectionLostError):
        edge.call(items.save(Item(item_id="i1", colour="blue", size=2)))
    assert ids(edge.call(items.find("item_by_colour", {"colour": "blue"}))) == []
    assert ids(edge.call(items.find("item_by_colour", {"colour": "red"}))) == ["i1"]
    # The red entry was re-marked unverified: a covering read checks the data row.
    assert edge.call(items.page_covered("item_by_colour", 5, {"colour": "red"})).items == [
        {"item_id": "i1", "colour": "red", "size": 1}
    ]


def test_a_writer_dead_after_step_2_is_served_from_the_data_then_repaired_after_the_grace(
    edge: Edge, items: Any, faulty: FaultyBackend, clock: ManualClock
) -> None:
    edge.call(items.save(Item(item_id="i1", colour="red", size=1)))
    fail_step_3(faulty, "item_by_colour")
    with pytest.raises(ConnectionLostError):
        edge.call(items.save(Item(item_id="i1", colour="blue", size=2)))
    assert ids(edge.call(items.find("item_by_colour", {"colour": "blue"}))) == ["i1"]
    assert ids(edge.call(items.find("item_by_colour", {"colour": "red"}))) == []
    assert items.stats.repaired_verified == items.stats.repaired_deleted == 0
    clock.advance(seconds=6)
    assert ids(edge.call(items.find("item_by_colour"))) == ["i1"]
    assert items.stats.repaired_verified == 1 and items.stats.repaired_deleted == 1
    faulty.calls.clear()
    assert edge.call(items.page_covered("item_by_colour", 5, {"colour": "blue"})).items == [
        {"item_id": "i1", "colour": "blue", "size": 2}
    ]
    assert "get" not in faulty.calls  # verified again: served from the index row


def test_a_slow_writer_cannot_re_verify_a_superseded_entry(
    edge: Edge, faulty: FaultyBackend, clock: ManualClock
) -> None:
    slow = indexed(edge, Item, [colour_index()], backend=faulty, clock=clock)
    fast = indexed(edge, Item, [colour_index()], clock=clock)
    edge.call(slow.save(Item(item_id="i1", colour="red")))

    def overtake(name: str, args: tuple[Any, ...]) -> Any:
        if args[0] == "item_by_colour":
            seen.append(1)
            if len(seen) == step and not done:
                done.append(True)
                return fast.save(Item(item_id="i1", colour="green"))  # awaited on async
        return None

    done: list[bool] = []
    seen: list[int] = []
    step = 1 if "check_and_mutate" in faulty.capabilities else 2  # Thrift1: step 1 mutates
    faulty.on(step3_method(faulty), nth=0, before=overtake)
    edge.call(slow.save(Item(item_id="i1", colour="blue")))  # its step 3 runs after the fast save
    assert done
    assert ids(edge.call(fast.find("item_by_colour"))) == ["i1"]
    assert ids(edge.call(fast.find("item_by_colour", {"colour": "green"}))) == ["i1"]
    # No verified entry for blue: a covering read of blue must check the data and skip it.
    assert edge.call(fast.page_covered("item_by_colour", 5, {"colour": "blue"})).items == []
    assert fast.stats.served_from_index == 0


def test_a_writer_dead_in_a_delete_leaves_nothing_a_reader_returns(
    edge: Edge, items: Any, faulty: FaultyBackend
) -> None:
    item = edge.call(items.save(Item(item_id="i1", colour="red")))
    fail_step_3(faulty, "item_by_colour")
    with pytest.raises(ConnectionLostError):
        edge.call(items.delete(item))
    assert edge.call(items.find("item_by_colour", {"colour": "red"})) == []
    assert edge.call(items.page_covered("item_by_colour", 5, {"colour": "red"})).items == []


# --- unique indexes ------------------------------------------------------------------------


def test_a_unique_index_refuses_a_duplicate_and_writes_nothing(
    edge: Edge,
    users: Any,
) -> None:
    edge.call(users.save(User(user_id="u1", nickname="bob")))
    with pytest.raises(UniqueViolationError):
        edge.call(users.save(User(user_id="u2", nickname="bob")))
    assert edge.call(users.repository.get(user_id="u2")) is None
    assert edge.call(users.get_unique("user_by_nick", nickname="bob")) == User(
        user_id="u1", nickname="bob"
    )
    edge.call(
        users.save(User(user_id="u1", nickname="bob", city="Oslo"))
    )  # same row, same value: fine


def test_a_released_value_can_be_taken_by_another_row(edge: Edge, users: Any) -> None:
    edge.call(users.save(User(user_id="u1", nickname="bob")))
    edge.call(users.save(User(user_id="u1", nickname="rob")))
    edge.call(users.save(User(user_id="u2", nickname="bob")))
    assert edge.call(users.get_unique("user_by_nick", nickname="bob")) == User(
        user_id="u2", nickname="bob"
    )
    assert edge.call(users.get_unique("user_by_nick", nickname="rob")) == User(
        user_id="u1", nickname="rob"
    )
    edge.call(users.delete(User(user_id="u1", nickname="rob")))
    edge.call(users.save(User(user_id="u3", nickname="rob")))
    assert edge.call(users.get_unique("user_by_nick", nickname="rob")) == User(
        user_id="u3", nickname="rob"
    )


def test_a_claim_in_flight_blocks_the_value_until_the_grace_has_passed(
    edge: Edge, users: Any, faulty: FaultyBackend, clock: ManualClock
) -> None:
    fail_on(faulty, "mutate", "user")  # u1 claims bob, then dies before its data write
    with pytest.raises(ConnectionLostError):
        edge.call(users.save(User(user_id="u1", nickname="bob")))
    assert edge.call(users.get_unique("user_by_nick", nickname="bob")) is None
    with pytest.raises(UniqueViolationError, match="another write is claiming"):
        edge.call(users.save(User(user_id="u2", nickname="bob")))
    clock.advance(seconds=6)
    edge.call(users.save(User(user_id="u2", nickname="bob")))
    assert edge.call(users.get_unique("user_by_nick", nickname="bob")) == User(
        user_id="u2", nickname="bob"
    )


def test_get_unique_needs_a_unique_index(edge: Edge, items: Any) -> None:
    with pytest.raises(QueryError):
        edge.call(items.get_unique("item_by_colour", colour="red"))


def test_indexes_of_another_model_are_refused(backend: Backend) -> None:
    with pytest.raises(Exception, match="not on"):
        IndexedRepository(Repository(User, backend), [colour_index()])
