"""Fixtures of the example tests: a shop and a microblog on every backend of the suite."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import pytest

from examples.ecommerce.dataset import DataSet, generate, load
from examples.ecommerce.schema import TABLES as SHOP_TABLES
from examples.ecommerce.service import Shop
from examples.microblog.schema import TABLES as BLOG_TABLES
from examples.microblog.service import Microblog
from hmodel.backend.base import Backend
from hmodel.backend.thrift import ThriftBackend
from hmodel.clock import ManualClock
from hmodel.schema import Table


def thrift1_table(table: Table) -> Table:
    """``table`` without what HBase's Thrift1 ``createTable`` cannot carry.

    Split points (K11) and DATA_BLOCK_ENCODING are set with the HBase shell in
    production; neither changes what reads and writes return.
    """
    families = [attrs.evolve(f, data_block_encoding="NONE") for f in table.families]
    return table.without_splits().with_families(families)


def create_tables(backend: Backend, tables: Sequence[Table]) -> None:
    """Create ``tables`` on ``backend``; over Thrift as :func:`thrift1_table` says."""
    for table in tables:
        backend.create_table(thrift1_table(table) if isinstance(backend, ThriftBackend) else table)


@pytest.fixture(scope="session")
def data() -> DataSet:
    """A small synthetic shop: 30 customers, 40 goods, 120 orders over 10 days."""
    return generate(7, customers=30, orders=120, days=10, price_changes=5)


@pytest.fixture
def clock() -> ManualClock:
    """The clock stamping the example's cells."""
    return ManualClock()


@pytest.fixture
def shop(backend: Backend, clock: ManualClock) -> Shop:
    """An empty shop with its four tables."""
    create_tables(backend, SHOP_TABLES)
    return Shop(backend, clock=clock)


@pytest.fixture
def loaded(shop: Shop, data: DataSet, clock: ManualClock) -> Shop:
    """The shop with ``data`` loaded."""
    load(shop, data, clock)
    return shop


@pytest.fixture
def blog(backend: Backend, clock: ManualClock) -> Microblog:
    """An empty microblog with its two tables."""
    create_tables(backend, BLOG_TABLES)
    return Microblog(backend, clock=clock)
