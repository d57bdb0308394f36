"""An application's own fixtures on a real HBase reuse tables as the kit does (TablePool)."""

from __future__ import annotations

import ast
import os

import pytest

pytest_plugins = ["pytester"]

CONFTEST = """
import os

import pytest

from hmodel.testing.table_reuse import TablePool


@pytest.fixture(scope="session")
def tables():
    host, port = os.environ["HMODEL_TEST_HBASE2"].rsplit(":", 1)
    prefix = os.environ["USER_SUITE_PREFIX"]
    with TablePool.thrift2(host, int(port), prefix=prefix, copies=2) as pool:
        yield pool
        pool.drain()
        with open(os.environ["USER_SUITE_COUNTS"], "w") as out:
            out.write(repr(dict(pool.counts)))


@pytest.fixture
def backend(tables):
    with tables.for_test() as backend:
        yield backend
"""

SUITE = """
from hmodel import Family, Key, Repository, Str, Table, field, model

ORDERS = Table("user_orders", [Family("o")], splits=[b"c", b"m", b"t"])
EVENTS = Table("user_events", [Family("e")])


@model(ORDERS, key=Key(Str("order_id")))
class Order:
    order_id: str
    status: str = field("o:s")


@model(EVENTS, key=Key(Str("event_id")))
class Event:
    event_id: str
    kind: str = field("e:k")


def _fresh(backend, mark):
    orders = Repository(Order, backend)
    orders.create_table()
    assert list(orders.scan()) == []  # no row of an earlier test
    orders.save_many([Order(order_id=f"{c}{mark}", status=mark) for c in "aknz"])
    assert {o.status for o in orders.scan()} == {mark}
    return orders


def test_one(backend):
    _fresh(backend, "one")
    events = Repository(Event, backend)
    events.create_table()
    events.save(Event(event_id="e1", kind="one"))


def test_two(backend):
    orders = _fresh(backend, "two")
    assert not backend.table_exists("user_events")  # made by test_one, not by this test
    orders.delete(order_id="atwo")


def test_three(backend):
    _fresh(backend, "three")
    events = Repository(Event, backend)
    events.create_table()
    assert list(events.scan()) == []
"""


@pytest.mark.skipif(
    not os.environ.get("HMODEL_TEST_HBASE2"), reason="HMODEL_TEST_HBASE2 names no real Thrift2"
)
def test_a_user_suite_reuses_tables_on_a_real_hbase_with_no_rows_of_an_earlier_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three tests of an application creating a pre-split table each (and another): each
    sees no row of an earlier test and no table it did not create; the second and third
    get the first's tables back, emptied, instead of creating them."""
    base = os.environ.get("HMODEL_TEST_PREFIX") or "hmodel_test"
    monkeypatch.setenv("USER_SUITE_PREFIX", f"{base}_user")
    counts = pytester.path / "counts.txt"
    monkeypatch.setenv("USER_SUITE_COUNTS", str(counts))
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_user_suite=SUITE)
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    found = ast.literal_eval(counts.read_text())
    assert found.get("reused", 0) >= 2  # user_orders handed back, not created again
