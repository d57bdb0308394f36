"""The differences the engine keeps on purpose from a real HBase, each shown on both.

Listed in docs/engine.md ("Differences kept on purpose"); the real-HBase agreement state
machine (``test_agreement_real.py``) models each by name. Others are shown by the facts
tests: versions beyond VERSIONS (``facts/test_reads_and_time.py``), PageFilter per region
and single-version deletes (``facts/test_thrift2.py``).
"""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Cell, Put, RowResult
from hmodel.clock import system_clock
from hmodel.errors import ColumnFamilyNotFoundError, CounterError
from hmodel.schema import Family, Table

LONG_MAX = 2**63 - 1


@pytest.fixture
def table(backend: Backend) -> str:
    """A fresh table with family ``f`` (VERSIONS 3)."""
    backend.create_table(Table("differences", [Family("f", versions=3)]))
    return "differences"


@pytest.fixture
def real(request: pytest.FixtureRequest) -> bool:
    """Whether the test's ``backend`` is a real HBase."""
    return request.node.callspec.params["hmodel_backend"] in ("hbase", "hbase2")


def test_a_counter_past_64_bits_wraps_on_hbase_and_is_refused_by_the_engine(
    backend: Backend, table: str, real: bool
) -> None:
    """HBase adds in Java longs and wraps around silently; the engine raises CounterError
    rather than hand back a counter that jumped to the most negative value."""
    backend.mutate(table, [Put(b"r", b"f:n", LONG_MAX.to_bytes(8, "big", signed=True))])
    if real:
        assert backend.increment(table, b"r", b"f:n") == -(2**63)
    else:
        with pytest.raises(CounterError):
            backend.increment(table, b"r", b"f:n")


def test_a_failed_check_with_an_unknown_family_is_false_on_hbase_and_raises_on_the_engine(
    backend: Backend, table: str, request: pytest.FixtureRequest
) -> None:
    """HBase answers a check that fails before it looks at the put's families (false); the
    engine checks every argument first (ColumnFamilyNotFoundError), as for any call. The
    fake servers answer as HBase does."""
    backend.mutate(table, [Put(b"r", b"f:v", b"1")])
    put = Put(b"r", b"nope:a", b"x")
    if request.node.callspec.params["hmodel_backend"] != "memory":
        assert backend.check_and_put(table, b"r", b"f:v", b"other", put) is False
    else:
        with pytest.raises(ColumnFamilyNotFoundError):
            backend.check_and_put(table, b"r", b"f:v", b"other", put)


def test_a_rewrite_of_a_cell_at_its_timestamp_by_an_expired_put(
    backend: Backend, table: str, real: bool
) -> None:
    """Two writes of one cell and timestamp: HBase keeps both until a compaction and a read
    skips an expired one, showing the other again; the engine keeps the later only."""
    stamp = system_clock() - 600_000
    backend.mutate(table, [Put(b"r", b"f:a", b"first", timestamp=stamp)])
    backend.mutate(table, [Put(b"r", b"f:a", b"second", timestamp=stamp, ttl=1)])
    found = backend.get(table, [b"r"])
    assert found == ([RowResult(b"r", {b"f:a": Cell(b"first", stamp)})] if real else [])
