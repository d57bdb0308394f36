"""Issue 26's differential workload, bounded: the fake servers agree with a real HBase."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hmodel.testing.fake import FakeHBaseServer
from tests.backend.differential import DOCUMENTED, Side, close_side, open_side, run
from tests.backend.facts.conftest import _chosen, _prefix

#: Operations per protocol in an ordinary run (about 20 s each on 2 loaded cores).
_OPS = 300


@pytest.fixture(params=[1, 2], ids=["thrift1", "thrift2"])
def sides(
    request: pytest.FixtureRequest, hmodel_thrift_server: FakeHBaseServer
) -> Iterator[tuple[int, Side, Side]]:
    """The protocol, then the fake's and the real HBase's sides, each with a fresh table."""
    protocol = int(request.param)
    _chosen("hbase" if protocol == 1 else "hbase2")
    real1 = request.getfixturevalue("hmodel_real_hbase_address")
    real2 = request.getfixturevalue("hmodel_real_hbase2_address")
    server = hmodel_thrift_server
    assert server.thrift2_port is not None
    fake_addresses = ((server.host, server.port), (server.host, server.thrift2_port))
    short = f"{_prefix()}_diff{protocol}"
    fake = open_side(*fake_addresses, short)
    real = open_side(real1, real2, short)
    try:
        yield protocol, fake, real
    finally:
        close_side(fake, fake_addresses[1])
        close_side(real, real2)


@pytest.mark.parametrize("seed", [26])
def test_random_calls_agree_with_a_real_hbase(sides: tuple[int, Side, Side], seed: int) -> None:
    """Every answer and error of a seeded random run, and the table after each call, are
    HBase's, outside the documented differences (whose calls are not sent) (I4, S1)."""
    protocol, fake, real = sides
    report = run(fake, real, ops=_OPS, seed=seed, protocols=(protocol,))
    assert set(report.skipped) <= set(DOCUMENTED)
    assert report.differences == [], "\n".join(report.differences[:3])
    assert sum(report.sent.values()) > _OPS
