"""Backend fixtures shared by the whole suite: the shipped test kit (ARCHITECTURE 6).

The project's tests use the same fixtures as application teams do
(:mod:`hmodel.testing.plugin`): ``backend`` is the kit's ``hmodel_backend``, run on the
memory engine, Thrift1 and Thrift2 against the session's fake server, and a real HBase
(over Thrift1 and Thrift2) that the kit starts when Java is present, or the one
``HMODEL_TEST_HBASE`` / ``HMODEL_TEST_HBASE2`` name.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import settings

from hmodel.backend.base import Backend
from hmodel.testing.kit import TARGETS
from tests.edges import edge, loop  # noqa: F401 -- the sync/async edge fixtures, for every suite

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


# Every test that takes ``backend`` (the kit's ``hmodel_backend``) runs on all five targets,
# the real ones included: the backend contract, the backends, the repository, the patterns,
# the examples end to end and the test kit (about 490 tests per real target). The kit keeps
# several emptied copies of each table on the real server and empties them in the
# background (hmodel.testing.table_reuse): the whole suite ran in 11.3 minutes on a busy
# 2-core machine, 6.2 without the real targets; tests/repository on both real targets took
# 0.6 s a test instead of 1.4 s (a create, truncate or drop waited for in each). What runs
# on the engine or the fake servers only, and why (docs/testing.md lists the same):
#   - pure code that never reaches a backend: tests/codecs, tests/keys, tests/model,
#     tests/mapping, tests/schema, tests/repository/test_condition.py, test_plan.py, and the
#     declaration checks of the patterns (bad options refused before any call);
#   - the engine itself (tests/backend/memory), the fake servers (tests/testing/fake,
#     tests/testing/test_thrift_*.py) and the Thrift clients' wire-level tests
#     (tests/backend/thrift, tests/backend/thrift2): retries and scanner drops are injected
#     at an exact call by a fake server's hook, which a real server does not offer;
#   - the interleaving explorer (tests/patterns/test_interleavings.py, hmodel.testing
#     .interleave): it replays every order of two clients' calls, and needs the engine's
#     ManualClock to make TTLs, leases and stamps deterministic;
#   - engine-clock behaviour (TTL expiry read through a ManualClock the engine shares, e.g.
#     test_cells_written_with_a_ttl_expire_on_the_engine_clock): a real server's clock is
#     its own, and waiting for it would be a sleep;
#   - round-trip counts measured on the memory engine (test_placing_orders_takes_five_round_
#     trips_however_many, ...): the count is the code's, not the server's;
#   - the command line and operations tools (tests/ops), the documentation (tests/docs) and
#     the agreement state machine (tests/backend/test_agreement.py), which compares
#     backends itself.
