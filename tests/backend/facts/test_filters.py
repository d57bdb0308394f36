"""HBASE_FACTS, "Filters": on the engine and on a real HBase."""

from __future__ import annotations

from typing import Any

import pytest
from thriftpy2.thrift import TApplicationException

from hmodel.backend.base import Backend, Delete, Put, RowResult, Scan
from hmodel.errors import FilterError, UnsupportedOperationError
from hmodel.schema import Family, Table
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT
from tests.backend.facts.conftest import Wire1, raises_with


@pytest.fixture
def two_families(backend: Backend) -> str:
    """Families ``a`` and ``b``: r1 = a:x a:y a:z b:x, r2 = b:y, r3 = a:x, at ts 10."""
    backend.create_table(Table("wide", [Family("a"), Family("b")]))
    cells = [
        (b"r1", b"a:x", b"1"),
        (b"r1", b"a:y", b"1"),
        (b"r1", b"a:z", b"1"),
        (b"r1", b"b:x", b"1"),
        (b"r2", b"b:y", b"2"),
        (b"r3", b"a:x", b"3"),
    ]
    backend.mutate("wide", [Put(row, column, value, timestamp=10) for row, column, value in cells])
    return "wide"


def _rows(backend: Backend, table: str, **options: Any) -> list[bytes]:
    return [result.row for result in backend.scan(table, Scan(**options))]


@pytest.mark.parametrize("if_missing", [False, True])
def test_single_column_value_filter_keeps_rows_missing_the_column_unless_told(
    backend: Backend, two_families: str, if_missing: bool
) -> None:
    """SingleColumnValueFilter keeps rows missing the column unless filterIfMissing is true."""
    flag = b"true" if if_missing else b"false"
    text = b"SingleColumnValueFilter('a', 'x', =, 'binary:1', " + flag + b", true)"
    rows = _rows(backend, two_families, filter=text)
    assert rows == ([b"r1"] if if_missing else [b"r1", b"r2"])


def test_skip_and_while_are_unary_operators(backend: Backend, two_families: str) -> None:
    """``SKIP`` and ``WHILE`` prefix one filter (HBase's ``SkipFilter``/``WhileMatchFilter``)."""
    assert _rows(backend, two_families, filter="SKIP ValueFilter(=, 'binary:1')") == [b"r1"]
    assert _rows(backend, two_families, filter="WHILE RowFilter(<, 'binary:r2')") == [b"r1"]


def test_while_match_filter_is_not_a_filter_string(backend: Backend, two_families: str) -> None:
    """``WhileMatchFilter(...)`` is no name of the filter language: refused, never run.

    HBase's parser does not register it; on 2.2.5 the Thrift1 server dropped the
    connection over it. hmodel refuses it before it is sent (``FilterError``), on every
    backend.
    """
    with pytest.raises(FilterError):
        _rows(backend, two_families, filter="WhileMatchFilter(RowFilter(<, 'binary:r2'))")


def test_a_raw_while_match_filter_string_fails_the_thrift1_scan(thrift1: Wire1) -> None:
    """Sent as is over Thrift1, the string fails the scan's opening: an internal error.

    2.2.5 dropped the connection; 2.6.1 answers ``TApplicationException`` "Internal error
    processing scannerOpenWithScan" (the fake server adds the parser's message after it).
    """
    scan = HBASE_THRIFT.TScan(filterString=b"WhileMatchFilter(RowFilter(<, 'binary:r2'))")
    error = raises_with(
        lambda: thrift1.client.scannerOpenWithScan(thrift1.name, scan, {}), TApplicationException
    )
    assert error.type == TApplicationException.INTERNAL_ERROR
    message = error.message
    text = message.decode() if isinstance(message, bytes) else message
    assert text.startswith("Internal error processing scannerOpenWithScan")


@pytest.mark.parametrize(
    ("columns", "filter_if_missing", "refused"),
    [
        ((), True, True),
        ((b"a",), True, False),
        ((), False, False),
    ],
    ids=["both-families", "the-filtered-family", "filter-if-missing-false"],
)
def test_a_reverse_scan_with_families_loaded_on_demand_is_refused(
    backend: Backend,
    two_families: str,
    columns: tuple[bytes, ...],
    filter_if_missing: bool,
    refused: bool,
) -> None:
    """A reverse scan whose SingleColumnValueFilter(..., filterIfMissing=true) spans more
    than one family: "Reverse scan with loading CFs on demand is not supported". Only the
    filtered column's family, or filterIfMissing false, is accepted."""
    flag = b"true" if filter_if_missing else b"false"
    text = b"SingleColumnValueFilter('a', 'x', =, 'binary:1', " + flag + b", true)"
    scan = {"filter": text, "reverse": True, "columns": columns}
    if refused:
        with pytest.raises(UnsupportedOperationError):
            _rows(backend, two_families, **scan)
    else:
        assert _rows(backend, two_families, **scan) == (
            [b"r1"] if filter_if_missing else [b"r2", b"r1"]
        )


@pytest.mark.parametrize("hidden", ["deleted", "not-requested", "outside-the-time-range"])
def test_column_count_get_filter_ends_a_family_at_any_of_its_cells(
    backend: Backend, two_families: str, hidden: str
) -> None:
    """ColumnCountGetFilter(n): the count of a family ends at any cell of that family in the
    row, including deleted cells, cells not requested and cells outside the time range.

    r1's b:x, hidden one way or another, closes family b's scanner once a:x and a:y are
    counted, so r2's b:y never comes.
    """
    options: dict[str, Any] = {"filter": "ColumnCountGetFilter(2)"}
    if hidden == "deleted":
        backend.mutate(two_families, [Delete(b"r1", b"b:x", timestamp=10)])
    elif hidden == "not-requested":
        options["columns"] = (b"a:x", b"a:y", b"a:z", b"b:y")
    else:
        backend.mutate(two_families, [Delete(b"r1", b"b:x", timestamp=10)])
        backend.mutate(two_families, [Put(b"r1", b"b:x", b"new", timestamp=50)])
        options["before"] = 20
    rows = list(backend.scan(two_families, Scan(**options)))
    assert [row.row for row in rows] == [b"r1"]
    assert rows[0] == RowResult(
        b"r1", {b"a:x": rows[0].cells[b"a:x"], b"a:y": rows[0].cells[b"a:y"]}
    )
