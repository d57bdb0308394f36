"""HBASE_FACTS, "Reads and time": on the engine and on a real HBase."""

from __future__ import annotations

from hmodel.backend.base import Backend, Cell, Put, RowResult
from tests.backend.facts.conftest import Wire1


def test_a_thrift1_read_timestamp_is_an_exclusive_upper_bound(thrift1: Wire1) -> None:
    """Thrift1 ``timestamp=T`` reads ``[0, T)``: a cell stamped T is not seen, T - 1 is."""
    thrift1.table.put(b"r", {b"f:a": b"v10"}, timestamp=10)
    assert thrift1.table.row(b"r", timestamp=10) == {}
    assert thrift1.table.row(b"r", timestamp=11) == {b"f:a": b"v10"}
    assert thrift1.table.cells(b"r", b"f:a", timestamp=10) == []
    assert list(thrift1.table.scan(timestamp=11)) == [(b"r", {b"f:a": b"v10"})]


def test_versions_beyond_versions_stay_visible_to_time_range_reads_until_a_flush(
    backend: Backend, table: str, hmodel_target: str
) -> None:
    """put@5, put@20 on VERSIONS=1, then a read of ``[0, 10)``: HBase returns the put@5.

    Until a flush or compaction sees both versions together (HBase keeps every version in
    its memstore and counts VERSIONS among those of the read's time range). The engine
    discards the put@5 when the put@20 is written, as a flush would: a difference kept on
    purpose (docs/engine.md). A flush cannot be driven over either Thrift protocol (neither
    has a flush call; Thrift1's compactions do not flush the memstore), so the real side
    is checked before a flush only; reads without a time range agree.
    """
    backend.mutate(table, [Put(b"r", b"g:a", b"5", timestamp=5)])
    backend.mutate(table, [Put(b"r", b"g:a", b"20", timestamp=20)])
    found = backend.get(table, [b"r"], before=10)
    if hmodel_target in ("hbase", "hbase2"):
        assert found == [RowResult(b"r", {b"g:a": Cell(b"5", 5)})]
    else:
        assert found == []
    assert backend.get(table, [b"r"]) == [RowResult(b"r", {b"g:a": Cell(b"20", 20)})]


def test_a_thrift1_scan_whose_start_equals_its_stop_reads_that_row(thrift1: Wire1) -> None:
    """The Thrift1 server builds its scan with the deprecated ``setStopRow``, which turns a
    scan whose start row equals its stop row into a get: it returns that row; a missing
    row gives nothing."""
    thrift1.table.put(b"a", {b"f:q": b"1"})
    thrift1.table.put(b"b", {b"f:q": b"2"})
    assert [row for row, _ in thrift1.table.scan(row_start=b"a", row_stop=b"a")] == [b"a"]
    assert list(thrift1.table.scan(row_start=b"aa", row_stop=b"aa")) == []
