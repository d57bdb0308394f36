"""Fixtures for the Thrift server tests: a fresh server per test and happybase clients of it."""

from __future__ import annotations

from collections.abc import Iterator

import happybase
import pytest

from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.testing import FakeHBaseServer

#: Every transport/protocol pair happybase supports, for tests parametrised over all four.
WIRE_FORMATS = [
    ("buffered", "binary"),
    ("buffered", "compact"),
    ("framed", "binary"),
    ("framed", "compact"),
]


@pytest.fixture
def clock() -> ManualClock:
    """The engine's clock: time moves only when a test says so."""
    return ManualClock(1_700_000_000_000)


@pytest.fixture
def server(clock: ManualClock) -> Iterator[FakeHBaseServer]:
    """A fresh server (buffered/binary) over an empty engine with a manual clock."""
    with FakeHBaseServer(MemoryBackend(clock=clock)) as running:
        yield running


@pytest.fixture
def connection(server: FakeHBaseServer) -> Iterator[happybase.Connection]:
    """A plain happybase connection to :func:`server`."""
    connection = happybase.Connection(server.host, server.port)
    yield connection
    connection.close()


@pytest.fixture
def client(connection: happybase.Connection) -> object:
    """happybase's raw Thrift client, for the Thrift1 calls happybase does not wrap."""
    return connection.client


@pytest.fixture
def table(connection: happybase.Connection) -> happybase.Table:
    """Table ``t`` with family ``f`` (3 versions) and family ``g`` (1 version)."""
    connection.create_table("t", {"f": {"max_versions": 3}, "g": {"max_versions": 1}})
    return connection.table("t")
