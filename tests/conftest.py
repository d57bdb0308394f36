"""Backend fixtures shared by the whole suite: the shipped test kit (ARCHITECTURE 6).

The project's tests use the same fixtures as application teams do
(:mod:`hmodel.testing.plugin`): ``backend`` is the kit's ``hmodel_backend``, run on the
memory engine, Thrift1 and Thrift2 against the session's fake server, and a real HBase
(over Thrift1 and Thrift2) that the kit starts when Java is present, or the one
``HMODEL_TEST_HBASE`` / ``HMODEL_TEST_HBASE2`` name.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import settings

from hmodel.backend.base import Backend
from hmodel.testing.kit import TARGETS, is_real

# Property tests check behaviour, not speed: on a loaded 2-core machine an example may take
# longer than hypothesis's default 200 ms deadline, which would fail a correct test.
settings.register_profile("hmodel", deadline=None)
settings.load_profile("hmodel")

#: The backends every contract test runs on (see :mod:`hmodel.testing.kit`).
BACKEND_TARGETS = TARGETS


@pytest.fixture
def backend(hmodel_backend: Backend) -> Backend:
    """A clean backend of each target (the kit's ``hmodel_backend``)."""
    return hmodel_backend


@pytest.fixture(scope="session")
def fake_hbase_server(hmodel_thrift_server: Any) -> Any:
    """The session's fake HBase server: Thrift1, and Thrift2 on ``thrift2_port``."""
    return hmodel_thrift_server


@pytest.fixture(scope="session")
def real_hbase_address(hmodel_real_hbase_address: tuple[str, int]) -> tuple[str, int]:
    """A real HBase Thrift1 server (see the kit's ``hmodel_real_hbase_address``)."""
    return hmodel_real_hbase_address


#: Where this suite runs the real-HBase targets (``hbase``, ``hbase2``) by default: the
#: backend contract, the backends, the test kit, the examples end to end, and the
#: concurrency regressions of the patterns. Elsewhere a real target costs a table create,
#: truncate or drop per test (0.5 to 1 s each on the standalone server) and would take the
#: run past CI's budget; those tests run on memory, thrift and thrift2, whose agreement
#: with the real server the contract suite checks. ``HMODEL_REAL_ALL=1`` runs every test
#: on the real targets too (about 40 minutes on 2 cores).
REAL_SCOPE = (
    "tests/contract/",
    "tests/backend/",
    "tests/testing/",
    "tests/examples/",
    "tests/patterns/test_index_races.py",
    "tests/patterns/test_copies_under_concurrency.py",
    "tests/patterns/test_relations_under_concurrency.py",
    "tests/repository/test_locked_tombstone.py",
    "tests/repository/test_map_entry_change.py",
    "tests/repository/test_page_token_secret.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect real-target runs outside :data:`REAL_SCOPE` (unless ``HMODEL_REAL_ALL=1``)."""
    if os.environ.get("HMODEL_REAL_ALL") == "1":
        return
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        target = callspec.params.get("hmodel_backend") if callspec is not None else None
        real = target is not None and is_real(str(target))
        (dropped if real and not item.nodeid.startswith(REAL_SCOPE) else keep).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
