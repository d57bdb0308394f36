"""HBASE_FACTS, "Thrift2": the fake Thrift2 server and a real one, spoken to raw."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from thriftpy2.thrift import TApplicationException

from hmodel.backend.thrift2.idl import (
    HBASE2,
    TTL_ATTRIBUTE,
    TAppend,
    TColumn,
    TColumnFamilyDescriptor,
    TColumnIncrement,
    TColumnValue,
    TDelete,
    TGet,
    TIllegalArgument,
    TIncrement,
    TIOError,
    TMutation,
    TPut,
    TRowMutations,
    TScan,
    TTimeRange,
)
from hmodel.schema import Family
from tests.backend.facts.conftest import Wire2, now, raises_with

_Delete = HBASE2.TDeleteType
_Op = HBASE2.TCompareOperator


def _put(row: bytes, *cells: tuple[bytes, bytes, bytes, int | None], **fields: Any) -> Any:
    return TPut(
        row=row,
        columnValues=[
            TColumnValue(family=f, qualifier=q, value=v, timestamp=t) for f, q, v, t in cells
        ],
        **fields,
    )


def _cells(result: Any) -> list[tuple[bytes, int, bytes]]:
    return [
        (v.family + b":" + v.qualifier, v.timestamp, v.value or b"")
        for v in result.columnValues or []
    ]


def _columns(result: Any) -> list[bytes]:
    return [cell[0] for cell in _cells(result)]


def _ttl(millis: int) -> dict[bytes, bytes]:
    return {TTL_ATTRIBUTE: millis.to_bytes(8, "big", signed=True)}


def _rows(client: Any, name: bytes, tscan: Any, fetch: int = 100) -> list[bytes]:
    scanner = client.openScanner(name, tscan)
    try:
        return [result.row for result in client.getScannerRows(scanner, fetch)]
    finally:
        client.closeScanner(scanner)


@pytest.fixture
def t(thrift2: Wire2) -> bytes:
    """The test's table: ``f`` (VERSIONS 3) and ``g`` (1), split at ``m``."""
    return thrift2.standard()


MALFORMED: dict[str, Callable[[Any, bytes], object]] = {
    "get-empty-row": lambda c, t: c.get(t, TGet(row=b"")),
    "put-empty-row": lambda c, t: c.put(t, _put(b"", (b"f", b"a", b"1", None))),
    "delete-empty-row": lambda c, t: c.deleteSingle(t, TDelete(row=b"")),
    "increment-empty-row": lambda c, t: c.increment(
        t, TIncrement(row=b"", columns=[TColumnIncrement(family=b"f", qualifier=b"n")])
    ),
    "put-no-columns": lambda c, t: c.put(t, TPut(row=b"r", columnValues=[])),
    "increment-no-columns": lambda c, t: c.increment(t, TIncrement(row=b"r", columns=[])),
    "append-no-columns": lambda c, t: c.append(t, TAppend(row=b"r", columns=[])),
    "delete-family-version-without-timestamp": lambda c, t: c.deleteSingle(
        t,
        TDelete(
            row=b"r",
            columns=[TColumn(family=b"f")],
            deleteType=_Delete.DELETE_FAMILY_VERSION,
        ),
    ),
    "unknown-filter": lambda c, t: c.openScanner(t, TScan(filterString=b"NoSuchFilter()")),
    "malformed-filter": lambda c, t: c.openScanner(t, TScan(filterString=b"RowFilter(<")),
    "inverted-time-range": lambda c, t: c.get(
        t, TGet(row=b"r", timeRange=TTimeRange(minStamp=5, maxStamp=1))
    ),
    "existence-only": lambda c, t: c.get(t, TGet(row=b"r", existence_only=True)),
    "check-and-mutate-null-value": lambda c, t: c.checkAndMutate(
        t,
        b"r",
        b"f",
        b"a",
        _Op.EQUAL,
        None,
        TRowMutations(row=b"r", mutations=[TMutation(put=_put(b"r", (b"f", b"a", b"", 1)))]),
    ),
    "check-and-mutate-no-mutations": lambda c, t: c.checkAndMutate(
        t, b"r", b"f", b"a", _Op.EQUAL, b"1", TRowMutations(row=b"r", mutations=[])
    ),
}


@pytest.mark.parametrize("call", list(MALFORMED))
def test_malformed_requests_are_application_exceptions(thrift2: Wire2, t: bytes, call: str) -> None:
    """``TApplicationException`` (type 6, "Internal error processing X"), not ``TIOError``,
    answers: an empty row in get/put/delete/increment; a put, increment or append with no
    columns; DELETE_FAMILY_VERSION without a timestamp; a malformed or unknown filter
    string; an inverted time range; any get with ``existence_only``; checkAndMutate with a
    null value or an empty mutation list."""
    error = raises_with(lambda: MALFORMED[call](thrift2.client, t), TApplicationException)
    assert error.type == TApplicationException.INTERNAL_ERROR
    assert error.message.startswith("Internal error processing ")


def test_a_negative_fetch_is_an_application_exception_and_the_scanner_lives_on(
    thrift2: Wire2, t: bytes
) -> None:
    """``getScannerRows`` with ``numRows < 0``: an internal error; the scanner stays usable."""
    client = thrift2.client
    client.putMultiple(t, [_put(r, (b"f", b"q", r, 1)) for r in (b"a", b"b", b"c")])
    scanner = client.openScanner(t, TScan())
    try:
        error = raises_with(lambda: client.getScannerRows(scanner, -1), TApplicationException)
        assert error.type == TApplicationException.INTERNAL_ERROR
        assert [r.row for r in client.getScannerRows(scanner, 2)] == [b"a", b"b"]
    finally:
        client.closeScanner(scanner)


def test_io_errors_start_with_the_java_class_and_batch_calls_wrap_them(
    thrift2: Wire2, t: bytes
) -> None:
    """``TIOError`` messages start with the Java class name; the batch calls (putMultiple,
    getMultiple, deleteMultiple, mutateRow, checkAndDelete) wrap it as ``Failed N
    action(s): <class>: ...``. A missing table: the message is the table name alone.
    maxVersions <= 0: "versions must be positive"."""
    client = thrift2.client
    nsfe = "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: "
    bad = _put(b"r", (b"zz", b"a", b"1", None))
    single = raises_with(lambda: client.put(t, bad), TIOError)
    assert single.message.startswith(nsfe)
    batch = raises_with(lambda: client.putMultiple(t, [bad]), TIOError)
    assert batch.message.startswith("Failed 1 action: " + nsfe)
    rows = TRowMutations(row=b"r", mutations=[TMutation(put=bad)])
    mutated = raises_with(lambda: client.mutateRow(t, rows), TIOError)
    assert mutated.message.startswith("Failed 1 action: " + nsfe)
    missing = raises_with(lambda: client.get(b"facts_no_such_table", TGet(row=b"r")), TIOError)
    assert missing.message == "facts_no_such_table"
    versions = raises_with(lambda: client.get(t, TGet(row=b"r", maxVersions=0)), TIOError)
    assert "versions must be positive" in versions.message


def test_a_closed_or_unknown_scanner_is_an_illegal_argument(thrift2: Wire2, t: bytes) -> None:
    """A fetch from a closed or unknown scanner id: ``TIllegalArgument`` "Invalid scanner
    Id". (Closing one again, or an unknown one, is no error on 2.6.1.)"""
    client = thrift2.client
    scanner = client.openScanner(t, TScan())
    client.closeScanner(scanner)
    for call in (
        lambda: client.getScannerRows(scanner, 1),
        lambda: client.getScannerRows(2**30, 1),
    ):
        error = raises_with(call, TIllegalArgument)
        assert error.message == "Invalid scanner Id"
    assert client.closeScanner(scanner) is None
    assert client.closeScanner(2**30) is None


def test_unknown_families_rows_and_counters_in_conditional_writes(thrift2: Wire2, t: bytes) -> None:
    """An unknown family is NoSuchColumnFamilyException, but a checkAndPut whose check
    fails returns false first; a put or delete of another row than the checked one is
    DoNotRetryIOException, even when the check fails; an increment of a cell that is not
    8 bytes is DoNotRetryIOException."""
    client = thrift2.client
    client.put(t, _put(b"r", (b"f", b"v", b"1", 1), (b"f", b"s", b"abc", 1)))
    bad = _put(b"r", (b"zz", b"a", b"1", None))
    assert client.checkAndPut(t, b"r", b"f", b"v", b"other", bad) is False
    unknown = raises_with(lambda: client.checkAndPut(t, b"r", b"f", b"v", b"1", bad), TIOError)
    assert "NoSuchColumnFamilyException" in unknown.message
    elsewhere = _put(b"other", (b"f", b"a", b"1", None))
    for expected in (b"1", b"no"):
        error = raises_with(
            lambda e=expected: client.checkAndPut(t, b"r", b"f", b"v", e, elsewhere), TIOError
        )
        assert "DoNotRetryIOException" in error.message
    counter = TIncrement(row=b"r", columns=[TColumnIncrement(family=b"f", qualifier=b"s")])
    error = raises_with(lambda: client.increment(t, counter), TIOError)
    assert error.message.startswith("org.apache.hadoop.hbase.DoNotRetryIOException")


def test_calls_that_answer_no_error(thrift2: Wire2, t: bytes) -> None:
    """No error: getAllRegionLocations of a missing table (``[]``); openScanner on a
    missing table returns an id (the error comes at getScannerRows); empty multi calls;
    deleteMultiple always returns ``[]``. (2.2.5 took a mutateRow with no mutations too;
    2.6.1 answers it an internal error.)"""
    client = thrift2.client
    assert client.getAllRegionLocations(b"facts_no_such_table") == []
    scanner = client.openScanner(b"facts_no_such_table", TScan())
    raises_with(lambda: client.getScannerRows(scanner, 1), TIOError)
    empty = TRowMutations(row=b"r", mutations=[])
    raises_with(lambda: client.mutateRow(t, empty), TApplicationException)
    assert client.putMultiple(t, []) is None
    assert client.getMultiple(t, []) == []
    assert client.deleteMultiple(t, []) == []
    client.put(t, _put(b"r", (b"f", b"a", b"1", 1)))
    assert client.deleteMultiple(t, [TDelete(row=b"r")]) == []
    assert client.get(t, TGet(row=b"r")).columnValues in (None, [])


def test_the_ttl_attribute_counts_from_the_cell_timestamp(thrift2: Wire2, t: bytes) -> None:
    """``_ttl`` (8-byte big-endian ms): a cell expires when its timestamp + ttl < now,
    counted from the cell's timestamp, not the write time; ttl <= 0 is gone by the next
    read; the TTL tag is never returned. (Stamps are placed so no expiry is a race.)"""
    client = thrift2.client
    moment = now()
    client.put(t, _put(b"r", (b"f", b"old", b"1", moment - 60_000), attributes=_ttl(30_000)))
    client.put(t, _put(b"r", (b"f", b"young", b"1", moment - 60_000), attributes=_ttl(600_000)))
    client.put(t, _put(b"r", (b"f", b"zero", b"1", moment - 1_000), attributes=_ttl(0)))
    client.put(t, _put(b"r", (b"f", b"negative", b"1", moment - 1_000), attributes=_ttl(-1)))
    found = client.get(t, TGet(row=b"r"))
    assert _columns(found) == [b"f:young"]
    assert all(not value.tags for value in found.columnValues)


def test_delete_fields_as_hbase_reads_them(thrift2: Wire2, t: bytes) -> None:
    """An unset deleteType means DELETE_COLUMNS; ``TDelete.timestamp`` is ignored when
    columns are given; ``columns=[]`` deletes the whole row; DELETE_COLUMNS of a
    family-only column deletes only the empty qualifier; DELETE_FAMILY ignores the
    qualifier."""
    client = thrift2.client
    cells = [(b"f", b"", b"e", 5), (b"f", b"a", b"1", 5), (b"g", b"b", b"2", 5)]
    client.put(t, _put(b"r", *cells))
    client.deleteSingle(t, TDelete(row=b"r", columns=[TColumn(family=b"f")]))
    assert _columns(client.get(t, TGet(row=b"r"))) == [b"f:a", b"g:b"]
    columns = [TColumn(family=b"f", qualifier=b"a")]
    client.deleteSingle(t, TDelete(row=b"r", columns=columns, timestamp=1))
    assert _columns(client.get(t, TGet(row=b"r"))) == [b"g:b"]
    family = TDelete(
        row=b"r",
        columns=[TColumn(family=b"g", qualifier=b"zz")],
        deleteType=_Delete.DELETE_FAMILY,
    )
    client.deleteSingle(t, family)
    assert _cells(client.get(t, TGet(row=b"r"))) == []
    client.put(t, _put(b"s", (b"f", b"a", b"1", 5), (b"g", b"b", b"2", 5)))
    client.deleteSingle(t, TDelete(row=b"s", columns=[]))
    assert _cells(client.get(t, TGet(row=b"s"))) == []


def _delete_column(row: bytes, family: bytes, qualifier: bytes, stamp: int | None = None) -> Any:
    """A DELETE_COLUMN (one version): at ``stamp``, or the latest without one."""
    column = TColumn(family=family, qualifier=qualifier, timestamp=stamp)
    return TDelete(row=row, columns=[column], deleteType=_Delete.DELETE_COLUMN)


def _all(client: Any, name: bytes, row: bytes, **fields: Any) -> list[tuple[bytes, int, bytes]]:
    """Every visible version of ``row``'s cells."""
    return _cells(client.get(name, TGet(row=row, maxVersions=100, **fields)))


def test_delete_column_removes_the_latest_version(thrift2: Wire2, t: bytes) -> None:
    """DELETE_COLUMN without a timestamp masks the newest visible version, and only it
    (a Delete marker at its timestamp: a later put there stays hidden); repeated in one
    TDelete it masks the next newest too; a DeleteColumns-masked version is not counted."""
    client = thrift2.client
    client.put(t, _put(b"r", *[(b"f", b"a", str(s).encode(), s) for s in (3, 5, 9)]))
    client.deleteSingle(t, _delete_column(b"r", b"f", b"a"))
    assert _all(client, t, b"r") == [(b"f:a", 5, b"5"), (b"f:a", 3, b"3")]
    client.put(t, _put(b"r", (b"f", b"a", b"again", 9)))
    assert _all(client, t, b"r") == [(b"f:a", 5, b"5"), (b"f:a", 3, b"3")]
    client.put(t, _put(b"s", *[(b"f", b"a", str(s).encode(), s) for s in (3, 5, 9)]))
    twice = TDelete(
        row=b"s",
        columns=[TColumn(family=b"f", qualifier=b"a")] * 2,
        deleteType=_Delete.DELETE_COLUMN,
    )
    client.deleteSingle(t, twice)
    assert _all(client, t, b"s") == [(b"f:a", 3, b"3")]
    client.put(t, _put(b"u", (b"f", b"a", b"3", 3), (b"f", b"a", b"5", 5)))
    columns = [TColumn(family=b"f", qualifier=b"a", timestamp=3)]
    client.deleteSingle(t, TDelete(row=b"u", columns=columns, deleteType=_Delete.DELETE_COLUMNS))
    client.deleteSingle(t, _delete_column(b"u", b"f", b"a"))
    assert _all(client, t, b"u") == []


def test_delete_column_at_a_timestamp_masks_that_version_only(thrift2: Wire2) -> None:
    """DELETE_COLUMN at ``t`` masks the column's version at exactly ``t``: older and
    newer versions, and other columns at ``t``, stay; at a timestamp without a version it
    masks nothing now and hides a put arriving there later. (VERSIONS 100: a masked
    version counts towards VERSIONS in the engine, and in HBase after a flush only, the
    documented ``unflushed_versions`` difference.)"""
    client = thrift2.client
    t = thrift2.create(Family("f", versions=100))
    cells = [(b"f", b"a", str(s).encode(), s) for s in (3, 5, 9)]
    client.put(t, _put(b"r", *cells, (b"f", b"b", b"b5", 5)))
    client.deleteSingle(t, _delete_column(b"r", b"f", b"a", 5))
    assert _all(client, t, b"r") == [(b"f:a", 9, b"9"), (b"f:a", 3, b"3"), (b"f:b", 5, b"b5")]
    client.deleteSingle(t, _delete_column(b"r", b"f", b"a", 7))
    assert len(_all(client, t, b"r")) == 3
    client.put(t, _put(b"r", (b"f", b"a", b"7", 7), (b"f", b"a", b"8", 8)))
    assert _all(client, t, b"r", columns=[TColumn(family=b"f", qualifier=b"a")]) == [
        (b"f:a", 9, b"9"),
        (b"f:a", 8, b"8"),
        (b"f:a", 3, b"3"),
    ]
    assert _cells(client.get(t, TGet(row=b"r", timeRange=TTimeRange(minStamp=0, maxStamp=9)))) == [
        (b"f:a", 8, b"8"),
        (b"f:b", 5, b"b5"),
    ]


def test_delete_family_version_masks_every_column_at_one_timestamp(
    thrift2: Wire2, t: bytes
) -> None:
    """DELETE_FAMILY_VERSION at ``t`` masks every column's version at exactly ``t`` in
    that family (the qualifier ignored), later puts there too; other timestamps and
    other families stay."""
    client = thrift2.client
    client.put(
        t, _put(b"r", (b"f", b"a", b"a5", 5), (b"f", b"a", b"a7", 7), (b"f", b"b", b"b5", 5))
    )
    client.put(t, _put(b"r", (b"g", b"a", b"g5", 5)))
    family_version = TDelete(
        row=b"r",
        columns=[TColumn(family=b"f", qualifier=b"zz", timestamp=5)],
        deleteType=_Delete.DELETE_FAMILY_VERSION,
    )
    client.deleteSingle(t, family_version)
    assert _all(client, t, b"r") == [(b"f:a", 7, b"a7"), (b"g:a", 5, b"g5")]
    client.put(t, _put(b"r", (b"f", b"c", b"c5", 5), (b"f", b"c", b"c6", 6)))
    assert _all(client, t, b"r") == [(b"f:a", 7, b"a7"), (b"f:c", 6, b"c6"), (b"g:a", 5, b"g5")]


def test_single_version_deletes_on_a_keep_deleted_cells_family(thrift2: Wire2) -> None:
    """With KEEP_DELETED_CELLS a single-version marker still masks its version to every
    read whose time range holds the marker (a range ending before it cannot hold the
    version either); the versions beside it stay."""
    client = thrift2.client
    name = thrift2.create(Family("k", versions=10, keep_deleted_cells=True))
    client.put(name, _put(b"r", *[(b"k", b"a", str(s).encode(), s) for s in (3, 5, 9)]))
    client.deleteSingle(name, _delete_column(b"r", b"k", b"a", 5))
    client.deleteSingle(name, _delete_column(b"r", b"k", b"a"))
    assert _all(client, name, b"r") == [(b"k:a", 3, b"3")]
    for low, high in [(0, 6), (5, 6), (0, 10), (4, 100)]:
        found = _all(client, name, b"r", timeRange=TTimeRange(minStamp=low, maxStamp=high))
        assert found == [c for c in [(b"k:a", 3, b"3")] if low <= 3 < high]


def test_delete_column_of_a_missing_column_marks_now(thrift2: Wire2) -> None:
    """On a missing column DELETE_COLUMN without a timestamp places a marker at "now": of
    puts at every millisecond around the call, exactly the one stamped then is hidden."""
    client = thrift2.client
    name = thrift2.create(Family("f", versions=10_000))
    delete = _delete_column(b"r", b"f", b"x")
    before = now()
    client.deleteSingle(name, delete)
    after = now()
    stamps = range(before - 2, after + 3)
    client.put(name, _put(b"r", *[(b"f", b"x", b"v", stamp) for stamp in stamps]))
    found = client.get(name, TGet(row=b"r", maxVersions=10_000))
    hidden = set(stamps) - {cell[1] for cell in _cells(found)}
    assert len(hidden) == 1
    assert before <= hidden.pop() <= after


@pytest.mark.parametrize("order", ["put-first", "delete-first"])
def test_one_mutate_row_has_one_timestamp(thrift2: Wire2, t: bytes, order: str) -> None:
    """Within one mutateRow there is one timestamp, so a server-stamped delete masks the
    puts of the same call whatever their order."""
    put = TMutation(put=_put(b"r", (b"f", b"a", b"1", None)))
    delete = TMutation(
        deleteSingle=TDelete(
            row=b"r", columns=[TColumn(family=b"f")], deleteType=_Delete.DELETE_FAMILY
        )
    )
    mutations = [put, delete] if order == "put-first" else [delete, put]
    thrift2.client.mutateRow(t, TRowMutations(row=b"r", mutations=mutations))
    assert _cells(thrift2.client.get(t, TGet(row=b"r"))) == []


def test_put_and_increment_timestamps_and_results(thrift2: Wire2, t: bytes) -> None:
    """A cell's own timestamp overrides ``TPut.timestamp``; duplicate cells in one put: the
    last wins. Increment and append stamp ``max(now, old + 1)``. ``returnResults=false``
    gives an empty TResult."""
    client = thrift2.client
    client.put(t, _put(b"r", (b"f", b"a", b"1", 7), (b"f", b"b", b"2", None), timestamp=9))
    client.put(t, _put(b"r", (b"f", b"c", b"x", 3), (b"f", b"c", b"y", 3)))
    assert _cells(client.get(t, TGet(row=b"r"))) == [
        (b"f:a", 7, b"1"),
        (b"f:b", 9, b"2"),
        (b"f:c", 3, b"y"),
    ]
    ahead = now() + 86_400_000
    client.put(t, _put(b"r", (b"f", b"n", (1).to_bytes(8, "big"), ahead)))
    column = TColumnIncrement(family=b"f", qualifier=b"n", amount=2)
    quiet = client.increment(t, TIncrement(row=b"r", columns=[column], returnResults=False))
    assert quiet.row is None and not quiet.columnValues
    loud = client.increment(t, TIncrement(row=b"r", columns=[column]))
    assert _cells(loud) == [(b"f:n", ahead + 2, (5).to_bytes(8, "big"))]
    client.put(t, _put(b"r", (b"f", b"s", b"ab", ahead)))
    appended = client.append(t, TAppend(row=b"r", columns=[TColumnValue(b"f", b"s", b"c")]))
    assert _cells(appended) == [(b"f:s", ahead + 1, b"abc")]
    before = now()
    fresh = client.increment(
        t, TIncrement(row=b"r", columns=[TColumnIncrement(family=b"f", qualifier=b"m")])
    )
    assert before <= _cells(fresh)[0][1] <= now()


def test_check_and_mutate_compares_given_op_stored(thrift2: Wire2, t: bytes) -> None:
    """The check passes iff ``given OP stored`` (stored 5: LESS passes for given 3); a
    missing column with a non-null value is false for every operator. (NO_OP on an existing
    cell makes the server retry for minutes: not sent.)"""
    client = thrift2.client
    client.put(t, _put(b"r", (b"f", b"v", b"5", 1)))

    def attempt(column: bytes, op: int, given: bytes) -> bool:
        rows = TRowMutations(
            row=b"r", mutations=[TMutation(put=_put(b"r", (b"f", b"w", given, None)))]
        )
        return bool(client.checkAndMutate(t, b"r", b"f", column, op, given, rows))

    assert attempt(b"v", _Op.LESS, b"3")
    assert not attempt(b"v", _Op.GREATER, b"3")
    assert attempt(b"v", _Op.EQUAL, b"5")
    assert not any(
        attempt(b"missing", op, b"5")
        for op in (
            _Op.LESS,
            _Op.LESS_OR_EQUAL,
            _Op.EQUAL,
            _Op.NOT_EQUAL,
            _Op.GREATER_OR_EQUAL,
            _Op.GREATER,
        )
    )


def test_if_not_exists_also_passes_on_an_empty_value(thrift2: Wire2, t: bytes) -> None:
    """A null value (if-not-exists) is also true when the stored value is empty."""
    client = thrift2.client
    client.put(t, _put(b"r", (b"f", b"e", b"", 1)))
    assert client.checkAndPut(t, b"r", b"f", b"e", None, _put(b"r", (b"f", b"x", b"1", None)))
    assert not client.checkAndPut(t, b"r", b"f", b"x", None, _put(b"r", (b"f", b"y", b"1", None)))


def test_get_columns_are_order_dependent(thrift2: Wire2, t: bytes) -> None:
    """``[family, family:qual]`` returns only that qualifier, ``[family:qual, family]`` the
    whole family."""
    client = thrift2.client
    client.put(t, _put(b"r", (b"f", b"a", b"1", 1), (b"f", b"b", b"2", 1)))
    narrow = [TColumn(family=b"f"), TColumn(family=b"f", qualifier=b"a")]
    wide = [TColumn(family=b"f", qualifier=b"a"), TColumn(family=b"f")]
    assert _columns(client.get(t, TGet(row=b"r", columns=narrow))) == [b"f:a"]
    assert _columns(client.get(t, TGet(row=b"r", columns=wide))) == [b"f:a", b"f:b"]


def test_scan_bounds_limits_and_fetches(thrift2: Wire2, t: bytes) -> None:
    """Reversed scans take startRow as the inclusive upper bound and stopRow as the
    exclusive lower one (start < stop gives nothing); limit counts rows, limit 0 returns
    only the rows of the first region visited; a negative limit meant none on 2.2.5 and
    means every row on 2.6.1; getScannerRows(n) returns exactly min(n, remaining)."""
    client = thrift2.client
    client.putMultiple(t, [_put(r, (b"f", b"q", r, 1)) for r in (b"a", b"c", b"e", b"n", b"x")])
    assert _rows(client, t, TScan(startRow=b"e", stopRow=b"a", reversed=True)) == [b"e", b"c"]
    assert _rows(client, t, TScan(startRow=b"a", stopRow=b"e", reversed=True)) == []
    assert _rows(client, t, TScan(limit=-1)) == [b"a", b"c", b"e", b"n", b"x"]
    assert _rows(client, t, TScan(limit=0)) == [b"a", b"c", b"e"]
    assert _rows(client, t, TScan(limit=0, reversed=True)) == [b"x", b"n"]
    assert _rows(client, t, TScan(limit=2)) == [b"a", b"c"]
    scanner = client.openScanner(t, TScan())
    try:
        assert [len(client.getScannerRows(scanner, n)) for n in (2, 2, 2, 2)] == [2, 2, 1, 0]
    finally:
        client.closeScanner(scanner)


def test_batched_scans_mark_every_chunk_but_a_rows_last_partial(thrift2: Wire2, t: bytes) -> None:
    """With batchSize every chunk of a row but its last is ``partial=True``."""
    client = thrift2.client
    cells = [(b"f", b"%d" % i, b"v", 1) for i in range(5)]
    client.put(t, _put(b"r", *cells))
    scanner = client.openScanner(t, TScan(batchSize=2))
    try:
        chunks = client.getScannerRows(scanner, 10)
    finally:
        client.closeScanner(scanner)
    assert [(len(c.columnValues), bool(c.partial)) for c in chunks] == [
        (2, True),
        (2, True),
        (1, False),
    ]


def test_page_filter_applies_per_region(thrift2: Wire2) -> None:
    """PageFilter(2) gives 2 rows per region: 6 rows over 3 regions.

    The engine has no regions at runtime and runs one filter over the whole scan: 2 rows
    (a difference kept on purpose, docs/engine.md).
    """
    client = thrift2.client
    name = thrift2.create(Family("f"), splits=[b"g", b"p"])
    rows = [b"a", b"b", b"c", b"h", b"i", b"j", b"q", b"r", b"s"]
    client.putMultiple(name, [_put(r, (b"f", b"q", r, 1)) for r in rows])
    found = _rows(client, name, TScan(filterString=b"PageFilter(2)"))
    if thrift2.real:
        assert found == [b"a", b"b", b"h", b"i", b"q", b"r"]
    else:
        assert found == [b"a", b"b"]


def test_min_versions_keeps_the_newest_expired_version(thrift2: Wire2) -> None:
    """A TTL family with MIN_VERSIONS 1 keeps the newest expired version of each column."""
    client = thrift2.client
    name = thrift2.create(Family("f", versions=3, ttl=3600, min_versions=1))
    old = now() - 3 * 3600_000
    client.put(name, _put(b"r", (b"f", b"a", b"1", old), (b"f", b"b", b"1", old)))
    client.put(name, _put(b"r", (b"f", b"a", b"2", old + 1)))
    found = client.get(name, TGet(row=b"r", maxVersions=3))
    assert _cells(found) == [(b"f:a", old + 1, b"2"), (b"f:b", old, b"1")]


def test_modify_column_family_replaces_the_whole_descriptor(thrift2: Wire2) -> None:
    """modifyColumnFamily replaces the whole family descriptor: unset options fall back to
    HBase's defaults."""
    client = thrift2.client
    name = thrift2.create(Family("f", versions=5, ttl=3600))
    client.modifyColumnFamily(
        thrift2.tname(name), TColumnFamilyDescriptor(name=b"f", maxVersions=2)
    )
    [family] = client.getTableDescriptor(thrift2.tname(name)).columns
    assert family.maxVersions == 2
    assert family.timeToLive in (None, 2147483647)


def test_adding_a_family_reopens_the_regions_as_a_flush(thrift2: Wire2) -> None:
    """Adding (or modifying) a family reopens the regions, which flushes them: a version
    beyond VERSIONS a time-range read saw before is gone after. The engine dropped it when
    it was written (the kept difference of "Reads and time")."""
    client = thrift2.client
    name = thrift2.create(Family("f"))
    client.put(name, _put(b"r", (b"f", b"a", b"5", 5)))
    client.put(name, _put(b"r", (b"f", b"a", b"20", 20)))
    ranged = TGet(row=b"r", timeRange=TTimeRange(minStamp=0, maxStamp=10))
    assert _cells(client.get(name, ranged)) == ([(b"f:a", 5, b"5")] if thrift2.real else [])
    client.addColumnFamily(thrift2.tname(name), TColumnFamilyDescriptor(name=b"g"))
    assert _cells(client.get(name, ranged)) == []


def test_truncation_comes_back_enabled_with_or_without_its_splits(thrift2: Wire2) -> None:
    """A truncated table comes back enabled; ``preserveSplits=false`` leaves one region."""
    client = thrift2.client
    name = thrift2.create(Family("f"), splits=[b"m"])
    client.put(name, _put(b"r", (b"f", b"a", b"1", 1)))
    client.disableTable(thrift2.tname(name))
    client.truncateTable(thrift2.tname(name), False)
    assert client.isTableEnabled(thrift2.tname(name))
    assert len(client.getAllRegionLocations(name)) == 1
    assert _cells(client.get(name, TGet(row=b"r"))) == []


def _scanned(client: Any, name: bytes, tscan: Any) -> list[tuple[bytes, bytes, int, bytes]]:
    """Every cell a scan returns, as ``(row, column, timestamp, value)``."""
    scanner = client.openScanner(name, tscan)
    try:
        results = client.getScannerRows(scanner, 100)
    finally:
        client.closeScanner(scanner)
    return [(r.row, *cell) for r in results for cell in _cells(r)]


def _versioned(thrift2: Wire2) -> bytes:
    """A table ``f`` (VERSIONS 10): row ``r`` with ``f:a`` at 3, 5, 7, 9 valued 1, 1, 2,
    1 and ``f:b`` at 4 valued 1; row ``s`` with ``f:a`` at 6 valued 2."""
    name = thrift2.create(Family("f", versions=10))
    values = {3: b"1", 5: b"1", 7: b"2", 9: b"1"}
    cells = [(b"f", b"a", v, s) for s, v in values.items()]
    thrift2.client.put(name, _put(b"r", *cells, (b"f", b"b", b"1", 4)))
    thrift2.client.put(name, _put(b"s", (b"f", b"a", b"2", 6)))
    return name


def test_a_scan_with_max_versions_returns_every_version(thrift2: Wire2) -> None:
    """A Thrift2 scan with maxVersions n returns each column's n newest versions, newest
    first, in column order; the time range bounds them (minimum inclusive)."""
    client = thrift2.client
    name = _versioned(thrift2)
    assert _scanned(client, name, TScan(maxVersions=3)) == [
        (b"r", b"f:a", 9, b"1"),
        (b"r", b"f:a", 7, b"2"),
        (b"r", b"f:a", 5, b"1"),
        (b"r", b"f:b", 4, b"1"),
        (b"s", b"f:a", 6, b"2"),
    ]
    ranged = TScan(maxVersions=10, timeRange=TTimeRange(minStamp=5, maxStamp=9))
    assert _scanned(client, name, ranged) == [
        (b"r", b"f:a", 7, b"2"),
        (b"r", b"f:a", 5, b"1"),
        (b"s", b"f:a", 6, b"2"),
    ]


def test_a_filter_judges_every_version_of_a_multi_version_read(thrift2: Wire2) -> None:
    """With maxVersions n a ValueFilter sees each version: the n newest of those it keeps
    come back (a get and a scan alike); a row none of whose versions passes is gone."""
    client = thrift2.client
    name = _versioned(thrift2)
    ones = b"ValueFilter(=, 'binary:1')"
    assert _cells(client.get(name, TGet(row=b"r", maxVersions=2, filterString=ones))) == [
        (b"f:a", 9, b"1"),
        (b"f:a", 5, b"1"),
        (b"f:b", 4, b"1"),
    ]
    twos = TGet(row=b"r", maxVersions=5, filterString=b"ValueFilter(=, 'binary:2')")
    assert _cells(client.get(name, twos)) == [(b"f:a", 7, b"2")]
    assert _scanned(client, name, TScan(maxVersions=5, filterString=ones)) == [
        (b"r", b"f:a", 9, b"1"),
        (b"r", b"f:a", 5, b"1"),
        (b"r", b"f:a", 3, b"1"),
        (b"r", b"f:b", 4, b"1"),
    ]
    stamps = TGet(row=b"r", maxVersions=5, filterString=b"TimestampsFilter(3, 7)")
    assert _cells(client.get(name, stamps)) == [(b"f:a", 7, b"2"), (b"f:a", 3, b"1")]


def test_a_filter_sees_only_the_versions_in_the_time_range(thrift2: Wire2) -> None:
    """A time range with a minimum drops the versions outside it before the filter looks:
    FirstKeyOnlyFilter over [4, 5) keeps ``f:b`` at 4, the row's first cell in the range
    (``f:a`` has none there: its version at 3 is older), a get and a scan alike."""
    client = thrift2.client
    name = _versioned(thrift2)
    first = b"FirstKeyOnlyFilter()"
    in_range = TTimeRange(minStamp=4, maxStamp=5)
    get = TGet(row=b"r", timeRange=in_range, filterString=first)
    assert _cells(client.get(name, get)) == [(b"f:b", 4, b"1")]
    scan = TScan(timeRange=in_range, filterString=first)
    assert _scanned(client, name, scan) == [(b"r", b"f:b", 4, b"1")]


@pytest.mark.parametrize("versions", [0, -1])
def test_a_scan_of_no_versions_returns_nothing(thrift2: Wire2, versions: int) -> None:
    """A Thrift2 scan with maxVersions 0 or below opens and returns no row."""
    name = _versioned(thrift2)
    assert _scanned(thrift2.client, name, TScan(maxVersions=versions)) == []
