"""A locked row deleted over Thrift1 (its version cell left as b"") is no row to any read."""

from __future__ import annotations

import pytest

from hmodel import (
    Const,
    Family,
    Int,
    Key,
    Store,
    Str,
    Table,
    counter,
    field,
    map_field,
    model,
    version_field,
)
from hmodel.backend.base import Backend, Scan
from hmodel.backend.forwarding import ForwardingBackend
from hmodel.clock import ManualClock
from hmodel.patterns import RecordTypes
from hmodel.patterns.index import Index
from hmodel.patterns.index_job import run_index_job
from hmodel.patterns.index_repository import IndexedRepository

ORDERS = Table("tomb_order", [Family("o")])
BY_CUSTOMER = Table("tomb_order_by_customer", [Family("x")])


@model(ORDERS, key=Key(Str("order_id"), Const(b"\x01", name="ORDER")))
class Order:
    """[order][ORDER] (R2), locked; its tags share the version cell's family."""

    order_id: str
    customer: str = field("o:c")
    tags: dict[str, str] = map_field("o", prefix="t_")
    hits: int = counter("o:h")
    version: int = version_field("o:v")


@model(ORDERS, key=Key(Str("order_id"), Const(b"\x02", name="LINE"), Int("line", size=2)))
class Line:
    """[order][LINE][line#]: another record type under the same prefix (R1, R2)."""

    order_id: str
    line: int
    item: str = field("o:i")


class ClaimedBackend(ForwardingBackend):
    """The wrapped backend without ``check_and_mutate``: locked writes take the Thrift1
    protocol (claim, data, commit) on every target."""

    @property
    def capabilities(self) -> frozenset[str]:  # type: ignore[override]
        return self.inner.capabilities - {"check_and_mutate"}


@pytest.fixture
def store(backend: Backend) -> Store:
    created = Store(ClaimedBackend(backend), clock=ManualClock())
    created.create_tables(Order)
    return created


def _deleted_order(store: Store) -> None:
    """o1 saved with tags and a line, then deleted with Repository.delete (the claimed way)."""
    orders = store.repository(Order)
    saved = orders.save(Order(order_id="o1", customer="ann", tags={"gift": "yes"}))
    store.repository(Line).save(Line(order_id="o1", line=1, item="pen"))
    orders.delete(saved)


def _assert_every_read_finds_no_order(store: Store) -> None:
    orders = store.repository(Order)
    assert orders.get(order_id="o1") is None
    assert orders.get_many([{"order_id": "o1"}]) == [None]
    assert not orders.exists(order_id="o1")
    assert list(orders.scan()) == []
    assert list(orders.scan({"order_id": "o1"})) == []
    page = orders.page(10)
    assert (list(page), page.errors) == ([], ())
    assert [list(p) for p in orders.pages(10)] == []
    records = RecordTypes(store, Order, Line).read({"order_id": "o1"})
    assert records == [Line(order_id="o1", line=1, item="pen")]


def test_a_scan_of_record_types_skips_an_order_deleted_the_thrift1_way_R2(store: Store) -> None:
    """The delete removes the tags sharing the version's family: only the tombstone is left."""
    _deleted_order(store)
    rows = list(store.backend.scan("tomb_order", Scan(columns=(b"o",))))
    key = store.repository(Order).mapper.key_of(order_id="o1")
    order_row = [r for r in rows if r.row == key]
    assert [sorted(r.cells) for r in order_row] == [[b"o:v"]]
    assert order_row[0].value(b"o:v") == b""
    _assert_every_read_finds_no_order(store)


def test_cells_written_after_the_delete_do_not_bring_the_row_back(store: Store) -> None:
    """A counter or an entry written to the deleted row (no version check) is no order."""
    _deleted_order(store)
    orders = store.repository(Order)
    orders.increment({"order_id": "o1"}, hits=1)
    orders.put_entries({"order_id": "o1"}, "tags", {"late": "yes"})
    _assert_every_read_finds_no_order(store)
    assert orders.get_fields(["hits", "tags"], order_id="o1") is None
    assert orders.get_entries({"order_id": "o1"}, "tags") == {}
    orders.save(Order(order_id="o1", customer="bob"))  # re-created: the save replaces maps
    again = orders.get(order_id="o1")
    assert again is not None and (again.customer, again.tags) == ("bob", {})


def test_index_reads_and_jobs_take_the_deleted_row_for_absent(store: Store) -> None:
    """An entry left pointing at the deleted row finds nothing; verify sees no row to index."""
    index = Index(Order, on=["customer"], table=BY_CUSTOMER)
    indexed = IndexedRepository(store.repository(Order), [index])
    indexed.create_tables(exist_ok=True)
    saved = indexed.save(Order(order_id="o1", customer="ann"))
    store.repository(Order).delete(saved)  # bypasses the index: the entry stays
    store.repository(Order).increment({"order_id": "o1"}, hits=1)
    assert indexed.find(index.name, {"customer": "ann"}) == []
    report = run_index_job(store.backend, index, "verify", clock=store.clock)
    assert report.counts["undecodable"] == 0 and report.counts["missing"] == 0
    assert report.counts["orphans"] == 1


def test_entries_and_fields_of_a_live_order_are_read_as_before(store: Store) -> None:
    """The version column read beside them changes nothing for a row that exists."""
    orders = store.repository(Order)
    orders.save(Order(order_id="o2", customer="ann", tags={"gift": "yes"}))
    assert orders.get_entries({"order_id": "o2"}, "tags") == {"gift": "yes"}
    assert orders.get_entries({"order_id": "o2"}, "tags", ["gift"]) == {"gift": "yes"}
    assert orders.get_fields(["customer"], order_id="o2") == {"order_id": "o2", "customer": "ann"}
    assert orders.get_fields(["hits"], order_id="o2") is None  # no counter cell yet
