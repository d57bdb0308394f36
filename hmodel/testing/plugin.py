"""The hmodel pytest plugin: one test body on every backend, for hmodel and its users."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from hmodel.testing.kit import open_target, target_params

if TYPE_CHECKING:
    from hmodel.backend.base import Backend
    from hmodel.backend.memory import MemoryBackend
    from hmodel.clock import ManualClock
    from hmodel.testing.fake.thrift1_server import FakeHBaseServer

__all__ = [
    "hmodel_backend",
    "hmodel_clock",
    "hmodel_memory_backend",
    "hmodel_real_hbase2_address",
    "hmodel_real_hbase_address",
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
    from hmodel.testing.fake.thrift1_server import FakeHBaseServer

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


def pytest_configure(config: pytest.Config) -> None:
    """Register the kit's markers (so ``--strict-markers`` accepts them)."""
    config.addinivalue_line(
        "markers",
        "requires(*capabilities): run only on backends whose capabilities include these "
        '(e.g. requires("check_and_mutate")); skipped with the reason elsewhere',
    )
    config.addinivalue_line(
        "markers", "hbase: needs a real HBase (HMODEL_TEST_HBASE / HMODEL_TEST_HBASE2)"
    )


@pytest.fixture(scope="session")
def hmodel_real_hbase_address() -> Iterator[tuple[str, int]]:
    """A real HBase Thrift1 server: ``HMODEL_TEST_HBASE=host:port``, a testcontainer, or skip."""
    from hmodel.testing.hbase_container import real_hbase

    with real_hbase() as address:
        yield address


@pytest.fixture(scope="session")
def hmodel_real_hbase2_address() -> tuple[str, int]:
    """A real HBase Thrift2 server: ``HMODEL_TEST_HBASE2=host:port``, else the test is skipped."""
    import os

    from hmodel.testing.hbase_container import parse_address

    text = os.environ.get("HMODEL_TEST_HBASE2")
    if not text:
        pytest.skip("HMODEL_TEST_HBASE2 unset: real-HBase Thrift2 tests skipped")
    return parse_address(text)


@pytest.fixture
def hmodel_clock() -> ManualClock:
    """A :class:`~hmodel.clock.ManualClock` for repositories and stores under test.

    It moves only when told (``advance``/``set``), so write stamps, TTLs and leases are
    deterministic; the backends keep their own clocks (the fake servers the system's).
    """
    from hmodel.clock import ManualClock

    return ManualClock()


@pytest.fixture(params=target_params())
def hmodel_backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """One clean backend per target: each test using it runs once per target.

    Targets (see :mod:`hmodel.testing.kit`): ``memory``; ``thrift`` and ``thrift2``,
    HBase's two Thrift APIs against the session's fake server; ``hbase`` and ``hbase2``,
    a real cluster (skipped with the reason unless ``HMODEL_TEST_HBASE`` /
    ``HMODEL_TEST_HBASE2`` is set or, for Thrift1, a Docker engine runs). Choose with
    ``HMODEL_TARGETS=memory,thrift2``. A test marked ``@pytest.mark.requires("cap")`` is
    skipped, with the reason, on targets whose backend lacks the capability.
    """
    target = str(request.param)
    wanted = {c for mark in request.node.iter_markers("requires") for c in mark.args}
    with open_target(target, request) as backend:
        missing = sorted(wanted - set(backend.capabilities))
        if missing:
            pytest.skip(f"{type(backend).__name__} ({target}) lacks {', '.join(missing)}")
        yield backend
