"""The hmodel pytest plugin: backend fixtures for application tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from hmodel.backend.memory import MemoryBackend
    from hmodel.testing.thrift_server import FakeHBaseServer

__all__ = [
    "hmodel_memory_backend",
    "hmodel_thrift2_address",
    "hmodel_thrift_address",
    "hmodel_thrift_server",
]


@pytest.fixture
def hmodel_memory_backend() -> MemoryBackend:
    """A fresh, empty in-memory engine for each test: no tables, nothing to clean up."""
    from hmodel.backend.memory import MemoryBackend

    return MemoryBackend()


@pytest.fixture(scope="session")
def hmodel_thrift_server() -> Iterator[FakeHBaseServer]:
    """One running :class:`FakeHBaseServer` for the whole test session.

    It listens on loopback, on a free port, with the buffered transport and the binary
    protocol (happybase's defaults), and serves HBase 2's Thrift2 API over the same engine
    on a second free port (:func:`hmodel_thrift2_address`).

    It is shared by every test: tests must delete the tables they create (or use unique
    table names / a happybase ``table_prefix``) so they do not see each other's data.
    """
    from hmodel.testing.thrift_server import FakeHBaseServer

    with FakeHBaseServer(thrift2_port=0) as server:
        yield server


@pytest.fixture(scope="session")
def hmodel_thrift_address(hmodel_thrift_server: FakeHBaseServer) -> tuple[str, int]:
    """``(host, port)`` of :func:`hmodel_thrift_server`, for ``happybase.Connection(*address)``."""
    return hmodel_thrift_server.address


@pytest.fixture(scope="session")
def hmodel_thrift2_address(hmodel_thrift_server: FakeHBaseServer) -> tuple[str, int]:
    """``(host, port)`` of the Thrift2 side of :func:`hmodel_thrift_server`.

    For ``Thrift2Backend(*address)`` or any client of HBase's ``THBaseService``.
    """
    port = hmodel_thrift_server.thrift2_port
    assert port is not None
    return hmodel_thrift_server.host, port
