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
