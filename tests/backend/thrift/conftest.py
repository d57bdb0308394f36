"""Fixtures of the Thrift backend tests: a FakeHBaseServer per module and a fresh table."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hmodel.backend.thrift import ThriftBackend
from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer

#: The table the tests use: ``f`` keeps 3 versions, ``g`` one.
TABLE = "t"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeHBaseServer]:
    """One project Thrift server for the module's tests."""
    with FakeHBaseServer() as fake:
        yield fake


@pytest.fixture
def thrift(server: FakeHBaseServer) -> Iterator[ThriftBackend]:
    """A ThriftBackend to ``server``; every table is dropped afterwards."""
    backend = ThriftBackend(server.host, server.port, retry_backoff_ms=0)
    try:
        yield backend
    finally:
        for name in backend.list_tables():
            backend.delete_table(name)
        backend.close()


@pytest.fixture
def table(thrift: ThriftBackend) -> str:
    """A fresh table ``t`` with families ``f`` (VERSIONS 3) and ``g`` (VERSIONS 1)."""
    thrift.create_table(Table(TABLE, [Family("f", versions=3), Family("g")]))
    return TABLE
