"""Scans over Thrift1: exact bounds both ways, limit, batches, and the scanner's release."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hmodel.backend.base import Put, Scan
from hmodel.backend.thrift import ThriftBackend
from hmodel.errors import FilterError, TableNotFoundError
from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer

_ROWS = [b"a", b"ab", b"abc", b"b", b"ba", b"c", b"c\x00", b"d"]


@pytest.fixture
def rows(thrift: ThriftBackend, table: str) -> str:
    """Table ``t`` holding :data:`_ROWS`, each with ``f:q`` at timestamp 10."""
    thrift.mutate(table, [Put(row, b"f:q", row, timestamp=10) for row in _ROWS])
    return table


def _rows(thrift: ThriftBackend, table: str, scan: Scan) -> list[bytes]:
    return [result.row for result in thrift.scan(table, scan)]


def _open_scanners(server: FakeHBaseServer) -> int:
    return len(server.handler.scanners)


@pytest.mark.parametrize(
    ("start", "stop"),
    [(b"", b""), (b"ab", b"c"), (b"ab", b"ba"), (b"abc", b"c\x00"), (b"b", b""), (b"", b"b")],
)
def test_both_directions_return_exactly_start_inclusive_to_stop_exclusive(
    thrift: ThriftBackend, rows: str, start: bytes, stop: bytes
) -> None:
    expected = [row for row in _ROWS if row >= start and (not stop or row < stop)]
    assert _rows(thrift, rows, Scan(start=start, stop=stop)) == expected
    assert _rows(thrift, rows, Scan(start=start, stop=stop, reverse=True)) == expected[::-1]


def test_a_reverse_scan_drops_the_exclusive_stop_row_the_server_includes(
    thrift: ThriftBackend, rows: str
) -> None:
    # HBase's reversed scan starts AT its startRow (inclusive): b"c" must not come back.
    assert _rows(thrift, rows, Scan(start=b"b", stop=b"c", reverse=True)) == [b"ba", b"b"]


def test_a_reverse_scan_stops_at_the_inclusive_start_below_which_rows_exist(
    thrift: ThriftBackend, rows: str
) -> None:
    # stopRow is sent as start[:-1] = b"a"; rows b"abc", b"ab" lie between it and start.
    assert _rows(thrift, rows, Scan(start=b"abd", stop=b"c", reverse=True, batch_size=1)) == [
        b"ba",
        b"b",
    ]


def test_limit_is_applied_in_both_directions(thrift: ThriftBackend, rows: str) -> None:
    assert _rows(thrift, rows, Scan(limit=3)) == [b"a", b"ab", b"abc"]
    assert _rows(thrift, rows, Scan(limit=2, reverse=True)) == [b"d", b"c\x00"]


def test_a_zero_limit_opens_no_scanner(thrift: ThriftBackend, rows: str) -> None:
    before = thrift.round_trips
    assert _rows(thrift, rows, Scan(limit=0)) == []
    assert thrift.round_trips == before


def test_a_scan_costs_open_one_fetch_per_batch_and_close(thrift: ThriftBackend, rows: str) -> None:
    before = thrift.round_trips
    assert len(_rows(thrift, rows, Scan(batch_size=3))) == 8  # fetches of 3, 3, 2
    assert thrift.round_trips == before + 1 + 3 + 1


def test_reaching_the_limit_closes_without_another_fetch(thrift: ThriftBackend, rows: str) -> None:
    before = thrift.round_trips
    assert len(_rows(thrift, rows, Scan(batch_size=3, limit=3))) == 3
    assert thrift.round_trips == before + 3  # open, one fetch of 3, close


def test_columns_filter_and_before_reach_the_server(thrift: ThriftBackend, table: str) -> None:
    thrift.mutate(
        table,
        [
            Put(b"a", b"f:q", b"old", timestamp=1),
            Put(b"a", b"f:q", b"new", timestamp=5),
            Put(b"a", b"g:x", b"x", timestamp=1),
            Put(b"b", b"g:x", b"y", timestamp=1),
        ],
    )
    (only,) = thrift.scan(table, Scan(columns=[b"f"], before=5))
    assert (only.row, dict(only.cells)) == (b"a", {b"f:q": only.cells[b"f:q"]})
    assert only.cells[b"f:q"].value == b"old"
    kept = thrift.scan(table, Scan(filter=b"ValueFilter(=, 'binary:y')"))
    assert [(r.row, list(r.cells)) for r in kept] == [(b"b", [b"g:x"])]


def test_scan_errors_surface_when_the_scan_is_made(thrift: ThriftBackend, table: str) -> None:
    with pytest.raises(TableNotFoundError):
        thrift.scan("nope", Scan())
    with pytest.raises(FilterError):
        thrift.scan(table, Scan(filter="NoSuchFilter('x')"))


def test_the_scanner_is_released_when_exhausted(
    server: FakeHBaseServer, thrift: ThriftBackend, rows: str
) -> None:
    iterator = thrift.scan(rows, Scan(batch_size=100))
    assert _open_scanners(server) == 1
    assert len(list(iterator)) == len(_ROWS)
    assert _open_scanners(server) == 0


def test_the_scanner_is_released_by_close_and_by_with(
    server: FakeHBaseServer, thrift: ThriftBackend, rows: str
) -> None:
    iterator = thrift.scan(rows, Scan(batch_size=2))
    next(iterator)
    iterator.close()  # type: ignore[attr-defined]
    assert _open_scanners(server) == 0
    assert list(iterator) == []
    with thrift.scan(rows, Scan(batch_size=2)) as scanning:  # type: ignore[attr-defined]
        next(scanning)
    assert _open_scanners(server) == 0


def test_the_scanner_is_released_when_the_iterator_is_garbage_collected(
    server: FakeHBaseServer, thrift: ThriftBackend, rows: str
) -> None:
    iterator: Iterator[object] | None = thrift.scan(rows, Scan(batch_size=2))
    assert iterator is not None
    next(iterator)
    iterator = None
    gc.collect()
    assert _open_scanners(server) == 0


def test_more_open_scans_than_pooled_connections_interleave(
    server: FakeHBaseServer, rows: str
) -> None:
    narrow = ThriftBackend(server.host, server.port, pool_size=1)
    try:
        scans = [narrow.scan(rows, Scan(batch_size=1)) for _ in range(3)]
        seen = [[next(s).row for s in scans] for _ in range(2)]
        assert seen == [[b"a"] * 3, [b"ab"] * 3]
        for scanning in scans:
            scanning.close()  # type: ignore[attr-defined]
    finally:
        narrow.close()


# --- agreement with the memory engine ----------------------------------------------


@pytest.fixture(scope="module")
def agreement(server: FakeHBaseServer) -> Iterator[ThriftBackend]:
    """A backend to ``server`` for the agreement property."""
    backend = ThriftBackend(server.host, server.port)
    try:
        yield backend
    finally:
        backend.close()


_key = st.lists(st.sampled_from([0x00, 0x61, 0x62, 0xFF]), min_size=1, max_size=3).map(bytes)
_scans = st.builds(
    Scan,
    start=st.just(b"") | _key,
    stop=st.just(b"") | _key,
    columns=st.sampled_from([(), (b"f",), (b"f:q",), (b"f:r",)]),
    before=st.none() | st.integers(1, 4),
    reverse=st.booleans(),
    limit=st.none() | st.integers(0, 5),
    batch_size=st.integers(1, 4),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=st.lists(st.tuples(_key, st.integers(1, 4)), max_size=10), scan=_scans)
def test_thrift_scans_agree_with_the_memory_engine_behind_the_server(
    server: FakeHBaseServer,
    agreement: ThriftBackend,
    rows: list[tuple[bytes, int]],
    scan: Scan,
) -> None:
    engine = server.backend
    if engine.table_exists("agree"):
        engine.delete_table("agree")
    engine.create_table(Table("agree", [Family("f", versions=2)]))
    agreement.mutate("agree", [Put(row, b"f:q", row, timestamp=ts) for row, ts in rows])
    assert list(agreement.scan("agree", scan)) == list(engine.scan("agree", scan))
