"""Scans over Thrift1 with plain happybase: every scan argument, reversed bounds, scanner ids."""

from __future__ import annotations

from collections import OrderedDict

import happybase
import pytest
from thriftpy2.thrift import TApplicationException

from hmodel.clock import ManualClock
from hmodel.errors import ValidationError
from hmodel.testing import FakeHBaseServer
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT

IOError_ = HBASE_THRIFT.IOError
IllegalArgument = HBASE_THRIFT.IllegalArgument
TScan = HBASE_THRIFT.TScan

ROWS = [b"a", b"ab", b"ac", b"b", b"ba", b"c"]


@pytest.fixture
def filled(table: happybase.Table) -> happybase.Table:
    """Rows ``a ab ac b ba c``, each with ``f:x`` (= row key, ts 10) and ``g:y`` (ts 20)."""
    with table.batch(timestamp=10) as batch:
        for row in ROWS:
            batch.put(row, {b"f:x": row})
    with table.batch(timestamp=20) as batch:
        for row in ROWS:
            batch.put(row, {b"g:y": b"y" + row})
    return table


def keys(scan: object) -> list[bytes]:
    return [row for row, _ in scan]  # type: ignore[attr-defined]


def test_a_full_scan_returns_every_row_in_key_order(filled: happybase.Table) -> None:
    assert keys(filled.scan()) == ROWS


def test_row_start_is_inclusive_and_row_stop_exclusive(filled: happybase.Table) -> None:
    assert keys(filled.scan(row_start=b"ab", row_stop=b"ba")) == [b"ab", b"ac", b"b"]
    assert keys(filled.scan(row_start=b"b")) == [b"b", b"ba", b"c"]
    assert keys(filled.scan(row_stop=b"ab")) == [b"a"]


def test_row_prefix_returns_exactly_the_rows_with_that_prefix(filled: happybase.Table) -> None:
    assert keys(filled.scan(row_prefix=b"a")) == [b"a", b"ab", b"ac"]


def test_columns_select_columns_and_families(filled: happybase.Table) -> None:
    assert list(filled.scan(row_prefix=b"b", columns=[b"g"])) == [
        (b"b", {b"g:y": b"yb"}),
        (b"ba", {b"g:y": b"yba"}),
    ]
    assert list(filled.scan(row_stop=b"ab", columns=[b"f:x"])) == [(b"a", {b"f:x": b"a"})]


def test_timestamp_returns_only_cells_strictly_older(filled: happybase.Table) -> None:
    assert list(filled.scan(row_stop=b"ab", timestamp=20)) == [(b"a", {b"f:x": b"a"})]
    assert list(filled.scan(timestamp=10)) == []


def test_include_timestamp_pairs_values_with_timestamps(filled: happybase.Table) -> None:
    assert list(filled.scan(row_stop=b"ab", include_timestamp=True)) == [
        (b"a", {b"f:x": (b"a", 10), b"g:y": (b"ya", 20)})
    ]


def test_filter_strings_run_on_the_server(filled: happybase.Table) -> None:
    assert keys(filled.scan(filter=b"PrefixFilter('b')")) == [b"b", b"ba"]
    selected = filled.scan(filter="SingleColumnValueFilter('f', 'x', =, 'binary:ac', true, true)")
    assert keys(selected) == [b"ac"]


def test_a_bad_filter_fails_the_scan_with_an_internal_error(filled: happybase.Table) -> None:
    with pytest.raises(TApplicationException) as raised:
        list(filled.scan(filter="NoSuchFilter()"))
    assert raised.value.type == TApplicationException.INTERNAL_ERROR
    assert b"IllegalArgumentException" in raised.value.message


@pytest.mark.parametrize("batch_size", [1, 2, 5, 1000])
def test_every_batch_size_returns_every_row(filled: happybase.Table, batch_size: int) -> None:
    assert keys(filled.scan(batch_size=batch_size)) == ROWS


def test_scan_batching_cuts_wide_rows_into_parts_with_the_same_key(
    filled: happybase.Table,
) -> None:
    filled.put(b"a", {b"f:z": b"z"}, timestamp=10)
    assert list(filled.scan(row_stop=b"ab", scan_batching=2)) == [
        (b"a", {b"f:x": b"a", b"f:z": b"z"}),
        (b"a", {b"g:y": b"ya"}),
    ]


def test_limit_stops_after_that_many_rows(filled: happybase.Table) -> None:
    assert keys(filled.scan(limit=2)) == [b"a", b"ab"]
    assert keys(filled.scan(limit=4, batch_size=3)) == ROWS[:4]


def test_sorted_columns_come_back_in_column_order(filled: happybase.Table) -> None:
    filled.put(b"a", {b"f:w": b"w", b"f:z": b"z"}, timestamp=10)
    [(row, columns)] = filled.scan(row_stop=b"ab", sorted_columns=True, include_timestamp=True)
    assert row == b"a" and isinstance(columns, OrderedDict)
    assert list(columns.items()) == [
        (b"f:w", (b"w", 10)),
        (b"f:x", (b"a", 10)),
        (b"f:z", (b"z", 10)),
        (b"g:y", (b"ya", 20)),
    ]


def test_reverse_returns_rows_from_highest_to_lowest(filled: happybase.Table) -> None:
    assert keys(filled.scan(reverse=True)) == ROWS[::-1]


def test_reverse_start_is_the_inclusive_upper_and_stop_the_exclusive_lower_bound(
    filled: happybase.Table,
) -> None:
    assert keys(filled.scan(reverse=True, row_start=b"b", row_stop=b"a")) == [b"b", b"ac", b"ab"]
    assert keys(filled.scan(reverse=True, row_start=b"ab")) == [b"ab", b"a"]
    assert keys(filled.scan(reverse=True, row_stop=b"b")) == [b"c", b"ba"]


def test_reverse_prefix_scan_has_hbase_bounds_for_happybase_arguments(
    filled: happybase.Table,
) -> None:
    # happybase sends startRow=b"b" (prefix + 1) and stopRow=b"a" (the prefix): HBase
    # returns b"b" and leaves out b"a" itself; the fake does exactly the same.
    assert keys(filled.scan(reverse=True, row_prefix=b"a")) == [b"b", b"ac", b"ab"]


def test_reverse_with_limit_and_columns(filled: happybase.Table) -> None:
    assert list(filled.scan(reverse=True, limit=2, columns=[b"f"])) == [
        (b"c", {b"f:x": b"c"}),
        (b"ba", {b"f:x": b"ba"}),
    ]


def test_happybase_closes_its_server_side_scanners(
    server: FakeHBaseServer, filled: happybase.Table
) -> None:
    list(filled.scan(batch_size=2))
    for _ in filled.scan(limit=1):
        pass
    assert len(server.handler.scanners) == 0


def test_scanning_a_missing_table_raises_at_open(connection: happybase.Connection) -> None:
    with pytest.raises(IOError_, match="TableNotFoundException"):
        list(connection.table("nope").scan())


def test_an_unknown_scanner_id_raises_IllegalArgument(client: object) -> None:
    with pytest.raises(IllegalArgument, match="scanner ID is invalid"):
        client.scannerGetList(42, 1)  # type: ignore[attr-defined]
    with pytest.raises(IllegalArgument, match="scanner ID is invalid"):
        client.scannerClose(42)  # type: ignore[attr-defined]


def test_an_exhausted_scanner_returns_nothing_until_closed(
    filled: happybase.Table, client: object
) -> None:
    scanner = client.scannerOpenWithPrefix(b"t", b"c", [], {})  # type: ignore[attr-defined]
    assert [r.row for r in client.scannerGet(scanner)] == [b"c"]  # type: ignore[attr-defined]
    assert client.scannerGet(scanner) == []  # type: ignore[attr-defined]
    assert client.scannerGetList(scanner, 10) == []  # type: ignore[attr-defined]
    client.scannerClose(scanner)  # type: ignore[attr-defined]
    with pytest.raises(IllegalArgument):
        client.scannerGet(scanner)  # type: ignore[attr-defined]


def test_the_legacy_scanner_calls(filled: happybase.Table, client: object) -> None:
    def drain(scanner_id: int) -> list[bytes]:
        rows = [r.row for r in client.scannerGetList(scanner_id, 100)]  # type: ignore[attr-defined]
        client.scannerClose(scanner_id)  # type: ignore[attr-defined]
        return rows

    c = client
    assert drain(c.scannerOpen(b"t", b"b", [b"f"], {})) == [b"b", b"ba", b"c"]  # type: ignore[attr-defined]
    assert drain(c.scannerOpenWithStop(b"t", b"ab", b"b", [], {})) == [b"ab", b"ac"]  # type: ignore[attr-defined]
    assert drain(c.scannerOpenWithPrefix(b"t", b"b", [], {})) == [b"b", b"ba"]  # type: ignore[attr-defined]
    assert drain(c.scannerOpenTs(b"t", b"", [b"g"], 20, {})) == []  # type: ignore[attr-defined]
    assert drain(c.scannerOpenTs(b"t", b"c", [], 20, {})) == [b"c"]  # type: ignore[attr-defined]
    assert drain(c.scannerOpenWithStopTs(b"t", b"a", b"ac", [], 21, {})) == [b"a", b"ab"]  # type: ignore[attr-defined]


def test_happybase_compat_0_90_scans_through_the_legacy_calls(
    server: FakeHBaseServer, filled: happybase.Table
) -> None:
    old = happybase.Connection(server.host, server.port, compat="0.90")
    try:
        table = old.table("t")
        assert keys(table.scan(row_start=b"b")) == [b"b", b"ba", b"c"]
        assert keys(table.scan(row_start=b"a", row_stop=b"ac", timestamp=11)) == [b"a", b"ab"]
        assert keys(table.scan(row_prefix=b"b", columns=[b"g"])) == [b"b", b"ba"]
    finally:
        old.close()


def test_scannerOpenWithScan_caching_and_batch_size(
    filled: happybase.Table, client: object
) -> None:
    scan = TScan(startRow=b"a", stopRow=b"b", caching=1, batchSize=1, sortColumns=True)
    scanner = client.scannerOpenWithScan(b"t", scan, {})  # type: ignore[attr-defined]
    results = client.scannerGetList(scanner, 4)  # type: ignore[attr-defined]
    client.scannerClose(scanner)  # type: ignore[attr-defined]
    assert [(r.row, [c.columnName for c in r.sortedColumns]) for r in results] == [
        (b"a", [b"f:x"]),
        (b"a", [b"g:y"]),
        (b"ab", [b"f:x"]),
        (b"ab", [b"g:y"]),
    ]


def _open_rows(client: object, method: str, *args: object) -> list[bytes]:
    scanner = getattr(client, method)(b"t", *args)
    try:
        return [r.row for r in client.scannerGetList(scanner, 10)]  # type: ignore[attr-defined]
    finally:
        client.scannerClose(scanner)  # type: ignore[attr-defined]


def test_a_start_row_equal_to_the_stop_row_reads_that_row(
    filled: happybase.Table, client: object
) -> None:
    """HBase 2.2: the deprecated setStopRow turns equal bounds into a get, in both directions."""
    assert keys(filled.scan(row_start=b"ab", row_stop=b"ab")) == [b"ab"]
    assert keys(filled.scan(row_start=b"ab", row_stop=b"ab", reverse=True)) == [b"ab"]
    assert keys(filled.scan(row_start=b"aa", row_stop=b"aa")) == []  # a missing row: nothing
    for reverse in (False, True):
        scan = TScan(startRow=b"b", stopRow=b"b", reversed=reverse)
        assert _open_rows(client, "scannerOpenWithScan", scan, {}) == [b"b"]
    assert _open_rows(client, "scannerOpenWithStop", b"ba", b"ba", [], {}) == [b"ba"]
    assert _open_rows(client, "scannerOpenWithStopTs", b"ba", b"ba", [], 11, {}) == [b"ba"]


def test_a_scanner_left_unused_past_its_lease_is_an_unknown_id(
    filled: happybase.Table, client: object, clock: ManualClock, server: FakeHBaseServer
) -> None:
    """HBase 2.2 drops Thrift1 scanners unused for 2 x the scanner timeout (120 s by default)."""
    scanner = client.scannerOpenWithScan(b"t", TScan(caching=1), {})  # type: ignore[attr-defined]
    assert [r.row for r in client.scannerGetList(scanner, 1)] == [b"a"]  # type: ignore[attr-defined]
    clock.advance(119_999)
    assert [r.row for r in client.scannerGetList(scanner, 1)] == [b"ab"]  # type: ignore[attr-defined]
    clock.advance(120_000)
    with pytest.raises(IllegalArgument, match="scanner ID is invalid"):
        client.scannerGetList(scanner, 1)  # type: ignore[attr-defined]
    with pytest.raises(IllegalArgument, match="scanner ID is invalid"):
        client.scannerClose(scanner)  # type: ignore[attr-defined]
    assert len(server.handler.scanners) == 0


def test_the_scanner_lease_and_its_clock_can_be_chosen() -> None:
    """scanner_lease_ms and clock are injected; a bad lease is refused at construction."""
    lease_clock = ManualClock(0)
    with FakeHBaseServer(scanner_lease_ms=10, clock=lease_clock) as fake:
        connection = happybase.Connection(fake.host, fake.port)
        try:
            connection.create_table("t", {"f": {}})
            connection.table("t").put(b"r", {b"f:q": b"v"})
            scanner = connection.client.scannerOpenWithScan(b"t", TScan(), {})
            lease_clock.advance(9)
            assert len(fake.handler.scanners) == 1
            lease_clock.advance(1)
            assert len(fake.handler.scanners) == 0
            with pytest.raises(IllegalArgument):
                connection.client.scannerGetList(scanner, 1)
        finally:
            connection.close()
    with pytest.raises(ValidationError, match="scanner_lease_ms"):
        FakeHBaseServer(scanner_lease_ms=0)


def test_a_reverse_scan_with_families_on_demand_is_a_DoNotRetryIOException(
    filled: happybase.Table,
) -> None:
    """HBase refuses reverse + filterIfMissing over families f and g; one family is fine."""
    text = "SingleColumnValueFilter('f', 'x', =, 'binary:b', true, true)"
    with pytest.raises(IOError_) as caught:
        list(filled.scan(reverse=True, filter=text))
    assert caught.value.message.startswith(
        b"org.apache.hadoop.hbase.DoNotRetryIOException: "
        b"Reverse scan with loading CFs on demand is not supported"
    )
    assert keys(filled.scan(reverse=True, filter=text, columns=[b"f"])) == [b"b"]
    assert keys(filled.scan(filter=text)) == [b"b"]
