"""Backend fixtures shared by the whole suite: one test body, every backend (ARCHITECTURE 6)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from hmodel.backend.base import Backend

# Property tests check behaviour, not speed: on a loaded 2-core machine an example may take
# longer than hypothesis's default 200 ms deadline, which would fail a correct test.
settings.register_profile("hmodel", deadline=None)
settings.load_profile("hmodel")

# Each target is tried in turn. The thrift targets appear as soon as the server and the
# Thrift backend exist; the real-HBase one is skipped with a reason unless HBase is reachable.
BACKEND_TARGETS = [
    "memory",
    "thrift",
    "thrift2",
    pytest.param("hbase", marks=pytest.mark.hbase),
    pytest.param("hbase2", marks=pytest.mark.hbase),
]

#: ``host:port`` of a real HBase Thrift2 server (``hbase thrift2``) for the "hbase2" target.
HBASE2_ADDRESS_VARIABLE = "HMODEL_TEST_HBASE2"


@pytest.fixture(scope="session")
def fake_hbase_server() -> Iterator[object]:
    """One project Thrift server for the session; tests clean up the tables they create."""
    from hmodel.testing.thrift_server import FakeHBaseServer

    with FakeHBaseServer(host="127.0.0.1", port=0, thrift2_port=0) as server:
        yield server


@pytest.fixture(scope="session")
def real_hbase_address() -> Iterator[tuple[str, int]]:
    """A real HBase Thrift1 server: ``HMODEL_TEST_HBASE=host:port`` or a testcontainer."""
    from hmodel.testing.hbase_container import real_hbase

    with real_hbase() as address:
        yield address


@pytest.fixture(scope="session")
def real_hbase2_address() -> tuple[str, int]:
    """A real HBase Thrift2 server: ``HMODEL_TEST_HBASE2=host:port``, else the test is skipped."""
    from hmodel.testing.hbase_container import parse_address

    text = os.environ.get(HBASE2_ADDRESS_VARIABLE)
    if not text:
        pytest.skip(f"{HBASE2_ADDRESS_VARIABLE} unset: real-HBase Thrift2 tests skipped")
    return parse_address(text)


def _drop_all(backend: Backend) -> None:
    for name in backend.list_tables():
        backend.delete_table(name)


@pytest.fixture(params=BACKEND_TARGETS)
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """A clean backend: memory, Thrift1 or Thrift2 to the project server, or a real HBase."""
    target = request.param
    if target == "memory":
        from hmodel.backend.memory import MemoryBackend

        yield MemoryBackend()
        return
    from hmodel.backend.thrift import ThriftBackend
    from hmodel.backend.thrift2 import Thrift2Backend

    prefix = os.environ.get("HMODEL_TEST_PREFIX")
    if target in ("thrift2", "hbase2"):
        if target == "thrift2":
            server = request.getfixturevalue("fake_hbase_server")
            host, port = server.host, server.thrift2_port  # type: ignore[attr-defined]
        else:
            host, port = request.getfixturevalue("real_hbase2_address")
            prefix = prefix or "hmodel_test"
        thrift2 = Thrift2Backend(host, port, table_prefix=prefix)
        _drop_all(thrift2)
        try:
            yield thrift2
        finally:
            _drop_all(thrift2)
            thrift2.close()
        return
    if target == "thrift":
        server = request.getfixturevalue("fake_hbase_server")
        host, port = server.host, server.port  # type: ignore[attr-defined]
    else:
        host, port = request.getfixturevalue("real_hbase_address")
        # The fixture drops every table it can see: on a real cluster, only our own.
        prefix = prefix or "hmodel_test"
    thrift = ThriftBackend(host, port, table_prefix=prefix)
    _drop_all(thrift)
    try:
        yield thrift
    finally:
        _drop_all(thrift)
        thrift.close()
