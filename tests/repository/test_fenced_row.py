"""A locked row fenced by a unique claim's takeover (b"F" + tag) is no row, until an insert."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from hmodel import Family, Key, Store, Str, Table, counter, field, model, version_field
from hmodel.backend.base import Backend
from hmodel.backend.op import run
from hmodel.clock import ManualClock
from hmodel.errors import RowExistsError
from tests.repository.test_locked_tombstone import ClaimedBackend

T0 = 1_700_000_000_000


@model(Table("fence_order", [Family("o")]), key=Key(Str("order_id")))
class Order:
    order_id: str
    customer: str | None = field("o:c", default=None)
    hits: int = counter("o:h")
    version: int = version_field("o:v")


PROTOCOLS: dict[str, Callable[[Backend], Backend]] = {
    "atomic": lambda backend: backend,
    "claimed": ClaimedBackend,
}


@pytest.fixture(params=list(PROTOCOLS))
def store(request: pytest.FixtureRequest, backend: Backend) -> Store:
    """A store of orders written through one locking protocol (atomic or Thrift1's)."""
    if request.param == "atomic" and "check_and_mutate" not in backend.capabilities:
        pytest.skip("the atomic protocol needs check_and_mutate")
    created = Store(PROTOCOLS[request.param](backend), clock=ManualClock(T0))
    created.create_tables(Order)
    return created


def fence(store: Store, order_id: str, tag: int) -> bool:
    """Fence the row as a unique index's claim takeover does (I1)."""
    orders = store.repository(Order)
    row = orders.mapper.key_of_values({"order_id": order_id})
    fenced: bool = run(orders._fence_op(row, tag), store.backend)
    return fenced


def raw_version(store: Store, order_id: str) -> bytes | None:
    row = store.repository(Order).mapper.key_of_values({"order_id": order_id})
    found = store.backend.get("fence_order", [row], columns=[b"o:v"])
    return found[0].value(b"o:v") if found else None


def test_a_fenced_row_is_no_row_to_any_read(store: Store) -> None:
    """Get, get_many, exists, scans and pages skip it, a counter written beside it too."""
    assert fence(store, "o1", T0 - 10)
    raw = raw_version(store, "o1")
    assert raw == b"F" + (T0 - 10).to_bytes(8, "big", signed=True)
    orders = store.repository(Order)
    orders.increment({"order_id": "o1"}, hits=1)  # a cell beside the fence: still no row
    assert orders.get(order_id="o1") is None
    assert orders.get_many([{"order_id": "o1"}]) == [None]
    assert not orders.exists(order_id="o1")
    assert list(orders.scan()) == []
    page = orders.page(10)
    assert (list(page), page.errors) == ([], ())
    assert [list(p) for p in orders.pages(10)] == []


def test_an_insert_stamped_past_the_fence_replaces_it(store: Store) -> None:
    """A later insert expects the fence and overwrites it in one check: the row is back."""
    assert fence(store, "o1", T0 - 10)
    orders = store.repository(Order)
    saved = orders.save(Order(order_id="o1", customer="ann"))
    assert saved.version > T0 - 10
    stored = orders.get(order_id="o1")
    assert stored is not None and (stored.customer, stored.version) == ("ann", saved.version)
    with pytest.raises(RowExistsError):  # the row exists now: a second insert is refused
        orders.save(Order(order_id="o1", customer="bob"))


def test_the_write_a_fence_is_put_against_is_refused_and_writes_nothing(store: Store) -> None:
    """An insert stamped at or before the fence's tag (the write in transit) is refused."""
    tag = T0 + 1_000
    assert fence(store, "o1", tag)
    orders = store.repository(Order)
    with pytest.raises(RowExistsError):
        orders.save(Order(order_id="o1", customer="ann"), write_stamp=tag)
    assert orders.get(order_id="o1") is None
    assert raw_version(store, "o1") == b"F" + tag.to_bytes(8, "big", signed=True)


def test_a_fence_is_put_only_over_an_absent_row_or_an_older_fence(store: Store) -> None:
    """A later tag replaces a fence, an older one keeps it; a committed version is left."""
    assert fence(store, "o1", T0 - 10)
    assert fence(store, "o1", T0 - 5)
    assert fence(store, "o1", T0 - 20)  # fenced already, by a later tag
    assert raw_version(store, "o1") == b"F" + (T0 - 5).to_bytes(8, "big", signed=True)
    saved = store.repository(Order).save(Order(order_id="o2", customer="ann"))
    assert not fence(store, "o2", saved.version + 1)  # the row exists: no fence
    assert store.repository(Order).get(order_id="o2") == saved
