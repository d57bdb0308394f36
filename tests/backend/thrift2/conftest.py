"""Fixtures of the Thrift2 backend tests: a fake server per module and a fresh backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer

#: The table the tests use: ``f`` keeps 3 versions, ``g`` one.
TABLE = "t"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeHBaseServer]:
    """One fake server (Thrift1 and Thrift2 over one engine) for the module's tests."""
    with FakeHBaseServer(thrift2_port=0) as fake:
        yield fake


@pytest.fixture
def thrift2(server: FakeHBaseServer) -> Iterator[Thrift2Backend]:
    """A Thrift2Backend to ``server``; every table is dropped afterwards."""
    assert server.thrift2_port is not None
    backend = Thrift2Backend(server.host, server.thrift2_port, retry_backoff_ms=0)
    try:
        yield backend
    finally:
        for name in backend.list_tables():
            backend.delete_table(name)
        backend.close()


@pytest.fixture
def table(thrift2: Thrift2Backend) -> str:
    """A fresh table ``t`` with families ``f`` (VERSIONS 3) and ``g`` (VERSIONS 1)."""
    thrift2.create_table(Table(TABLE, [Family("f", versions=3), Family("g")]))
    return TABLE
