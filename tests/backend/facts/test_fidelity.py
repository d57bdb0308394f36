"""HBASE_FACTS found by issue 26's differential runs: the fake servers and a real one, raw."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from thriftpy2.thrift import TApplicationException

from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.backend.thrift2.idl import (
    HBASE2,
    TColumn,
    TColumnValue,
    TDelete,
    TGet,
    TIOError,
    TMutation,
    TPut,
    TRowMutations,
    TScan,
    TTableName,
    TTimeRange,
)
from hmodel.schema import Family, Table
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT
from tests.backend.facts.conftest import Wire1, Wire2, _prefix, raises_with

_Op = HBASE2.TCompareOperator
Mutation = HBASE_THRIFT.Mutation

#: Every compare operator of the IDL, ``NO_OP`` included.
_OPERATORS = tuple(_Op._VALUES_TO_NAMES)


def _put(row: bytes, *cells: tuple[bytes, bytes, bytes]) -> Any:
    return TPut(
        row=row, columnValues=[TColumnValue(family=f, qualifier=q, value=v) for f, q, v in cells]
    )


def _cells(result: Any) -> list[tuple[bytes, bytes]]:
    return [(v.family + b":" + v.qualifier, v.value) for v in result.columnValues or []]


@pytest.fixture
def t(thrift2: Wire2) -> bytes:
    """The test's table: ``f`` (VERSIONS 3) and ``g`` (1), split at ``m``."""
    return thrift2.standard()


def test_an_empty_expected_value_is_null_for_every_operator(thrift2: Wire2, t: bytes) -> None:
    """A zero-length expected value means null (HBASE-26742): it matches a missing or
    empty cell for every operator but NOT_EQUAL, which matches a non-empty one (S1)."""
    client = thrift2.client
    client.put(t, _put(b"r", (b"f", b"full", b"v"), (b"f", b"empty", b"")))

    def attempt(column: bytes, op: int) -> bool:
        rows = TRowMutations(row=b"r", mutations=[TMutation(put=_put(b"r", (b"g", b"x", b"1")))])
        return bool(client.checkAndMutate(t, b"r", b"f", column, op, b"", rows))

    answers = {(column, op): attempt(column, op) for column in (b"full", b"empty", b"missing")
               for op in _OPERATORS}  # fmt: skip
    for op in _OPERATORS:
        assert answers[b"full", op] is (op == _Op.NOT_EQUAL)
        assert answers[b"empty", op] is (op != _Op.NOT_EQUAL)
        assert answers[b"missing", op] is (op != _Op.NOT_EQUAL)


def test_check_and_put_and_delete_take_an_empty_value_as_null(thrift2: Wire2, t: bytes) -> None:
    """``checkAndPut``/``checkAndDelete`` with ``b""`` pass on a missing column (S1)."""
    client = thrift2.client
    assert client.checkAndPut(t, b"r", b"f", b"a", b"", _put(b"r", (b"f", b"a", b"v")))
    assert not client.checkAndPut(t, b"r", b"f", b"a", b"", _put(b"r", (b"f", b"a", b"w")))
    delete = TDelete(row=b"r", columns=[TColumn(family=b"f", qualifier=b"a")])
    assert client.checkAndDelete(t, b"r", b"f", b"missing", b"", delete)
    assert _cells(client.get(t, TGet(row=b"r"))) == []


def test_no_op_with_a_value_fails_on_a_missing_cell(thrift2: Wire2, t: bytes) -> None:
    """``NO_OP`` with a value is served: false on a missing cell. (On an existing one
    HBase 2.6.1 retries until the client times out: not sent, see docs/engine.md.)"""
    rows = TRowMutations(row=b"r", mutations=[TMutation(put=_put(b"r", (b"g", b"x", b"1")))])
    assert not thrift2.client.checkAndMutate(t, b"r", b"f", b"a", _Op.NO_OP, b"v", rows)
    assert _cells(thrift2.client.get(t, TGet(row=b"r"))) == []


def test_the_table_descriptor_carries_attributes_and_the_namespace(thrift2: Wire2) -> None:
    """``getTableDescriptor`` names the namespace, gives each family its options again as
    ``attributes`` text with ``dfsReplication`` 0, and the table's own attributes."""
    name = thrift2.create(
        Family("f", versions=3, ttl=1000, min_versions=1),
        Family("g", bloom_filter="ROWCOL", block_cache=False, keep_deleted_cells=True),
    )
    descriptor = thrift2.client.getTableDescriptor(TTableName(qualifier=name))
    assert descriptor.tableName.ns == b"default"
    f, g = descriptor.columns
    assert f.attributes == {
        b"INDEX_BLOCK_ENCODING": b"NONE",
        b"VERSIONS": b"3",
        b"KEEP_DELETED_CELLS": b"FALSE",
        b"BLOOMFILTER": b"ROW",
        b"BLOCKSIZE": b"65536",
        b"BLOCKCACHE": b"true",
        b"DATA_BLOCK_ENCODING": b"NONE",
        b"MIN_VERSIONS": b"1",
        b"TTL": b"1000",
        b"REPLICATION_SCOPE": b"0",
        b"IN_MEMORY": b"false",
        b"COMPRESSION": b"NONE",
    }
    assert g.attributes is not None
    assert (g.attributes[b"BLOOMFILTER"], g.attributes[b"BLOCKCACHE"]) == (b"ROWCOL", b"false")
    assert g.attributes[b"KEEP_DELETED_CELLS"] == b"TRUE"
    assert f.dfsReplication == g.dfsReplication == 0
    assert descriptor.attributes == {
        b"IS_META": b"false",
        b"DURABILITY": b"USE_DEFAULT",
        b"hbase.store.file-tracker.impl": b"DEFAULT",
    }


def test_keep_deleted_cells_ttl_is_served_and_described(thrift2: Wire2) -> None:
    """A family with KEEP_DELETED_CELLS => TTL is created (the fake refused it before),
    described as ``TTL`` both ways, and read back by hmodel's Thrift2 backend as ``"TTL"``."""
    name = thrift2.create(Family("k", ttl=3600, keep_deleted_cells="TTL"))
    (column,) = thrift2.client.getTableDescriptor(TTableName(qualifier=name)).columns
    assert column.keepDeletedCells == HBASE2.TKeepDeletedCells.TTL
    assert column.attributes is not None
    assert column.attributes[b"KEEP_DELETED_CELLS"] == b"TTL"
    short = thrift2.made[-1]
    assert thrift2.admin.describe_families(short)["k"].keep_deleted_cells == "TTL"


def test_exists_and_exists_all_answer_whether_a_get_finds_a_cell(thrift2: Wire2, t: bytes) -> None:
    """``exists``/``existsAll`` are served: a get's columns and filter apply; bad input
    answers as ``get`` does (``existsAll`` wraps its errors as a batch's)."""
    client = thrift2.client
    client.put(t, _put(b"a", (b"f", b"x", b"1"), (b"g", b"z", b"3")))
    assert client.exists(t, TGet(row=b"a"))
    assert not client.exists(t, TGet(row=b"q"))
    assert not client.exists(t, TGet(row=b"a", columns=[TColumn(family=b"g", qualifier=b"q")]))
    assert not client.exists(t, TGet(row=b"a", filterString=b"ValueFilter(=, 'binary:9')"))
    assert client.existsAll(t, [TGet(row=b"a"), TGet(row=b"q")]) == [True, False]
    assert client.existsAll(t, []) == []
    raises_with(lambda: client.exists(t, TGet(row=b"")), TApplicationException)
    versions = raises_with(lambda: client.exists(t, TGet(row=b"a", maxVersions=0)), TIOError)
    assert versions.message == "versions must be positive"
    missing = raises_with(lambda: client.exists(b"h_fake_nosuchtable", TGet(row=b"a")), TIOError)
    assert missing.message == "h_fake_nosuchtable"
    family = [TGet(row=b"a"), TGet(row=b"a", columns=[TColumn(family=b"nope")])]
    batch = raises_with(lambda: client.existsAll(t, family), TIOError)
    assert batch.message.startswith(
        "Failed 1 action: org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: "
    )


def test_get_scanner_results_scans_in_one_call(thrift2: Wire2, t: bytes) -> None:
    """``getScannerResults`` opens, fetches ``numRows`` results and closes a scanner in
    one call: with ``batchSize`` it counts chunks; a missing table, a negative count."""
    client = thrift2.client
    client.put(t, _put(b"a", (b"f", b"x", b"1"), (b"f", b"y", b"2"), (b"g", b"z", b"3")))
    client.put(t, _put(b"b", (b"f", b"x", b"1")))
    client.put(t, _put(b"n", (b"f", b"x", b"1")))
    assert [r.row for r in client.getScannerResults(t, TScan(), 2)] == [b"a", b"b"]
    assert [r.row for r in client.getScannerResults(t, TScan(reversed=True), 5)] == [
        b"n", b"b", b"a"
    ]  # fmt: skip
    chunks = client.getScannerResults(t, TScan(batchSize=2), 3)
    assert [(r.row, len(r.columnValues), r.partial) for r in chunks] == [
        (b"a", 2, True), (b"a", 1, False), (b"b", 1, False)
    ]  # fmt: skip
    assert client.getScannerResults(t, TScan(startRow=b"b"), 0) == []
    assert [r.row for r in client.getScannerResults(t, TScan(limit=1), 5)] == [b"a"]
    raises_with(lambda: client.getScannerResults(t, TScan(), -1), TApplicationException)
    raises_with(lambda: client.getScannerResults(t, TScan(filterString=b"Bad("), 5),
                TApplicationException)  # fmt: skip
    missing = raises_with(
        lambda: client.getScannerResults(b"h_fake_nosuchtable", TScan(), 5), TIOError
    )
    assert missing.message == "h_fake_nosuchtable"


def _opened(client: Any, t: bytes, tscan: Any) -> int:
    return int(client.openScanner(t, tscan))


def test_a_scanner_the_region_refuses_fails_at_its_first_fetch(thrift2: Wire2, t: bytes) -> None:
    """An unknown family, or a reverse scan loading families on demand, gets a scanner
    id; the first ``getScannerRows`` answers the error (I4)."""
    client = thrift2.client
    client.put(t, _put(b"a", (b"f", b"x", b"1")))
    unknown = _opened(client, t, TScan(columns=[TColumn(family=b"nope")]))
    error = raises_with(lambda: client.getScannerRows(unknown, 10), TIOError)
    assert error.message.startswith(
        "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: "
    )
    on_demand = b"SingleColumnValueFilter('f', 'x', =, 'binary:1', true, true)"
    reverse = _opened(client, t, TScan(reversed=True, filterString=on_demand))
    error = raises_with(lambda: client.getScannerRows(reverse, 10), TIOError)
    assert error.message.startswith(
        "org.apache.hadoop.hbase.DoNotRetryIOException: Reverse scan with loading CFs on "
        "demand is not supported"
    )


def _chunks(client: Any, t: bytes, tscan: Any) -> list[tuple[bytes, int, bool]]:
    scanner = _opened(client, t, tscan)
    try:
        return [
            (r.row, len(r.columnValues), bool(r.partial))
            for r in client.getScannerRows(scanner, 20)
        ]
    finally:
        client.closeScanner(scanner)


def test_a_full_last_chunk_with_hidden_cells_after_it_is_partial(thrift2: Wire2, t: bytes) -> None:
    """With ``batchSize``, a row's last visible chunk is ``partial`` when it is full and
    cells the scan hides follow it (filtered, deleted, out of the time range), unless it
    ends its region's RPC (``caching`` results, a region's all when unset) (I4, R5)."""
    client = thrift2.client
    for row in (b"a", b"c", b"n", b"p"):  # split at m: a, c | n, p
        client.put(t, _put(row, (b"f", b"x", b"1"), (b"f", b"y", b"2"), (b"f", b"z", b"9")))
    hide_z = b"ValueFilter(!=, 'binary:9')"
    assert _chunks(client, t, TScan(batchSize=2, filterString=hide_z)) == [
        (b"a", 2, True), (b"c", 2, False), (b"n", 2, True), (b"p", 2, False)
    ]  # fmt: skip
    assert _chunks(client, t, TScan(batchSize=2, filterString=hide_z, caching=1)) == [
        (b"a", 2, True), (b"c", 2, True), (b"n", 2, True), (b"p", 2, True)
    ]  # fmt: skip
    assert _chunks(client, t, TScan(batchSize=2, filterString=hide_z, caching=2)) == [
        (b"a", 2, True), (b"c", 2, True), (b"n", 2, True), (b"p", 2, True)
    ]  # fmt: skip
    assert _chunks(client, t, TScan(batchSize=2, filterString=hide_z, limit=1)) == [
        (b"a", 2, True)
    ]  # fmt: skip
    assert _chunks(client, t, TScan(batchSize=2, filterString=hide_z, reversed=True)) == [
        (b"p", 2, True), (b"n", 2, False), (b"c", 2, True), (b"a", 2, False)
    ]  # fmt: skip
    client.deleteSingle(t, TDelete(row=b"a", columns=[TColumn(family=b"f", qualifier=b"z")]))
    client.put(t, TPut(row=b"c", columnValues=[
        TColumnValue(family=b"g", qualifier=b"old", value=b"1", timestamp=5)
    ]))  # fmt: skip
    since = TTimeRange(minStamp=50, maxStamp=2**62)
    assert _chunks(client, t, TScan(batchSize=2, timeRange=since, stopRow=b"d")) == [
        (b"a", 2, True), (b"c", 2, True), (b"c", 1, False)
    ]  # fmt: skip
    assert _chunks(client, t, TScan(batchSize=2, columns=[TColumn(family=b"f")], stopRow=b"d")) == [
        (b"a", 2, True), (b"c", 2, True), (b"c", 1, False)
    ]  # fmt: skip


def test_an_older_version_of_the_last_column_read_with_its_family_is_hidden_after_it(
    thrift2: Wire2,
) -> None:
    """An older version of a row's last column follows its newest as a hidden cell when
    the column is read with its whole family (HBase's wildcard tracker steps onto it), not
    when it is named (the explicit tracker seeks past it once it has returned maxVersions
    of them); a row at the scan's ``limit``
    is ``partial`` then only if another row of the scanned families follows in the
    region (R5, I4)."""
    name = thrift2.create(Family("f", versions=10), Family("g"))
    client = thrift2.client
    for row, family_name, qualifier, stamp in [
        (b"r1", b"f", b"s", 20), (b"r1", b"f", b"s", 25), (b"r2", b"f", b"a", 24),
        (b"r3", b"g", b"a", 24),
    ]:  # fmt: skip
        cell = TColumnValue(family=family_name, qualifier=qualifier, value=b"v", timestamp=stamp)
        client.put(name, TPut(row=row, columnValues=[cell]))
    family, named = [TColumn(family=b"f")], [TColumn(family=b"f", qualifier=b"s")]
    assert _chunks(client, name, TScan(batchSize=1, columns=family)) == [
        (b"r1", 1, True), (b"r2", 1, False)
    ]  # fmt: skip
    assert _chunks(client, name, TScan(batchSize=1)) == [
        (b"r1", 1, True), (b"r2", 1, False), (b"r3", 1, False)
    ]  # fmt: skip
    assert _chunks(client, name, TScan(batchSize=1, columns=named)) == [(b"r1", 1, False)]
    assert _chunks(client, name, TScan(batchSize=1, columns=family, limit=1)) == [
        (b"r1", 1, True)
    ]  # fmt: skip
    last = TScan(startRow=b"r1", stopRow=b"r2", batchSize=1, columns=family, limit=1)
    assert _chunks(client, name, last) == [(b"r1", 1, False)]
    both = TScan(batchSize=1, columns=family, maxVersions=2)
    assert _chunks(client, name, both) == [(b"r1", 1, True), (b"r1", 1, False), (b"r2", 1, False)]
    masked = TColumn(family=b"f", qualifier=b"s", timestamp=20)
    one = HBASE2.TDeleteType.DELETE_COLUMN
    client.deleteSingle(name, TDelete(row=b"r1", columns=[masked], deleteType=one))
    # Named, with fewer versions returned than maxVersions: the explicit tracker steps on.
    both_named = [*named, TColumn(family=b"f", qualifier=b"a")]
    for versions, partial in [(1, False), (2, True)]:
        named_versions = TScan(batchSize=1, columns=both_named, maxVersions=versions)
        assert _chunks(client, name, named_versions) == [(b"r1", 1, partial), (b"r2", 1, False)]


def _ttl_versions(client: Any, name: bytes) -> None:
    """Puts at 5, 10 and now in ``f:a`` and at 7 in ``f:b`` (``f``: a TTL of an hour)."""
    cells = [(b"a", b"5", 5), (b"a", b"10", 10), (b"a", b"now", None), (b"b", b"7", 7)]
    for qualifier, value, stamp in cells:
        client.put(name, TPut(row=b"r", columnValues=[
            TColumnValue(family=b"f", qualifier=qualifier, value=value, timestamp=stamp)
        ]))  # fmt: skip


_TTL_FAMILY = Family("f", versions=3, ttl=3600, min_versions=1)


def test_min_versions_keeps_fewer_expired_versions_on_whole_family_reads(thrift2: Wire2) -> None:
    """MIN_VERSIONS 1 with a TTL: a family or row read (the wildcard tracker) shows an
    expired version only where the column has no live one; a column named shows the
    first expired version too (the explicit tracker) (R3)."""
    name = thrift2.create(_TTL_FAMILY)
    client = thrift2.client
    _ttl_versions(client, name)

    def values(columns: list[Any] | None) -> list[bytes]:
        got = client.get(name, TGet(row=b"r", columns=columns, maxVersions=5))
        return [v.value for v in got.columnValues or []]

    assert values(None) == [b"now", b"7"]
    assert values([TColumn(family=b"f")]) == [b"now", b"7"]
    assert values([TColumn(family=b"f", qualifier=b"a")]) == [b"now", b"10"]


@pytest.fixture
def ttl_table1(thrift1: Wire1, request: pytest.FixtureRequest) -> Iterator[bytes]:
    """A table of ``_TTL_FAMILY`` beside ``thrift1``'s, made over the Thrift2 server next
    to it (Thrift1's ``createTable`` cannot set MIN_VERSIONS); its name on the wire."""
    if thrift1.real:
        host, port = request.getfixturevalue("hmodel_real_hbase2_address")
    else:
        server = request.getfixturevalue("hmodel_thrift_server")
        host, port = server.host, server.thrift2_port
    short = f"{thrift1.name.decode().rsplit('_', 1)[-1]}ttl"
    admin = Thrift2Backend(host, port, table_prefix=_prefix())
    admin.create_table(Table(short, [_TTL_FAMILY]))
    try:
        yield f"{_prefix()}_{short}".encode()
    finally:
        admin.delete_table(short)
        admin.close()


def test_thrift1_get_ver_of_a_bare_family_reads_it_whole(thrift1: Wire1, ttl_table1: bytes) -> None:
    """Thrift1 ``getVer`` of a bare family goes through the wildcard tracker (R3)."""
    client = thrift1.client
    cells = [(b"f:a", b"5", 5), (b"f:a", b"10", 10), (b"f:b", b"7", 7)]
    for column, value, stamp in cells:
        client.mutateRowTs(ttl_table1, b"r", [Mutation(column=column, value=value)], stamp, {})
    client.mutateRow(ttl_table1, b"r", [Mutation(column=b"f:a", value=b"now")], {})

    def values(column: bytes) -> list[bytes]:
        return [c.value for c in client.getVer(ttl_table1, b"r", column, 5, {})]

    assert values(b"f") == [b"now", b"7"]
    assert values(b"f:a") == [b"now", b"10"]


def _text(error: Any) -> str:
    """A Thrift1 error's message as text (happybase's IDL declares it binary)."""
    message = error.message
    return message.decode("utf-8", "replace") if isinstance(message, bytes) else str(message)


def _t1rows(thrift1: Wire1, *rows: bytes) -> dict[bytes, dict[bytes, bytes]]:
    found = thrift1.client.getRows(thrift1.name, list(rows), {})
    return {r.row: {c: v.value for c, v in r.columns.items()} for r in found}


def test_a_thrift1_batch_applies_its_good_rows_and_names_the_failed_actions(
    thrift1: Wire1,
) -> None:
    """``mutateRows`` with a bad row: the good rows' puts are applied, then the deletes;
    the error is ``RetriesExhaustedWithDetailsException: Failed N action(s): <cause>``;
    a put of a bare family fails the whole call (an internal error) (S2)."""
    batch = HBASE_THRIFT.BatchMutation
    client, name = thrift1.client, thrift1.name
    error = raises_with(lambda: client.mutateRows(name, [
        batch(row=b"r1", mutations=[Mutation(column=b"f:a", value=b"1")]),
        batch(row=b"r2", mutations=[Mutation(column=b"nope:a", value=b"2")]),
        batch(row=b"r3", mutations=[Mutation(column=b"f:a", value=b"3")]),
    ], {}), HBASE_THRIFT.IOError)  # fmt: skip
    assert _text(error).startswith(
        "org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException: Failed 1 action: "
        "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: Column family nope "
        "does not exist in region "
    )
    assert _t1rows(thrift1, b"r1", b"r2", b"r3") == {b"r1": {b"f:a": b"1"}, b"r3": {b"f:a": b"3"}}
    error = raises_with(lambda: client.mutateRows(name, [
        batch(row=b"r1", mutations=[Mutation(column=b"f:a", isDelete=True)]),
        batch(row=b"r2", mutations=[Mutation(column=b"nope:a", isDelete=True)]),
        batch(row=b"r4", mutations=[Mutation(column=b"nope:a", isDelete=True)]),
        batch(row=b"r3", mutations=[Mutation(column=b"f:b", value=b"x")]),
    ], {}), HBASE_THRIFT.IOError)  # fmt: skip
    assert "Failed 2 actions: " in _text(error)
    assert _t1rows(thrift1, b"r1", b"r3") == {b"r3": {b"f:a": b"3", b"f:b": b"x"}}
    raises_with(lambda: client.mutateRows(name, [
        batch(row=b"r5", mutations=[Mutation(column=b"f:a", value=b"5")]),
        batch(row=b"r6", mutations=[Mutation(column=b"f", value=b"6")]),
    ], {}), TApplicationException)  # fmt: skip
    assert _t1rows(thrift1, b"r5") == {}


def test_a_thrift1_row_mutation_of_an_unknown_family_wraps_the_region_error(
    thrift1: Wire1,
) -> None:
    """``mutateRow`` of an unknown family: the region's exception, wrapped once (S2)."""
    mutation = Mutation(column=b"nope:a", value=b"1")
    error = raises_with(
        lambda: thrift1.client.mutateRow(thrift1.name, b"r", [mutation], {}), HBASE_THRIFT.IOError
    )
    family_error = "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException"
    assert _text(error).startswith(
        f"{family_error}: {family_error}: Column family nope does not exist in region "
    )


def test_an_increment_of_a_short_cell_names_its_width(thrift2: Wire2, t: bytes) -> None:
    """Incrementing a 4-byte cell: ``Field is not a long, it's 4 bytes wide`` (F10)."""
    client = thrift2.client
    client.put(t, _put(b"r", (b"f", b"c", b"abcd")))
    increment = HBASE2.TIncrement(
        row=b"r", columns=[HBASE2.TColumnIncrement(family=b"f", qualifier=b"c", amount=1)]
    )
    error = raises_with(lambda: client.increment(t, increment), TIOError)
    assert error.message.startswith(
        "org.apache.hadoop.hbase.DoNotRetryIOException: Field is not a long, it's 4 bytes wide"
    )


def test_a_thrift2_scan_with_start_equal_to_stop_reads_that_row(thrift2: Wire2, t: bytes) -> None:
    """``startRow == stopRow`` (non-empty) reads that row, forward or reversed: HBase's
    ``setStopRow`` makes the scan a get (hmodel's backends drop it: ``[start, stop)``)."""
    client = thrift2.client
    for row in (b"a", b"b", b"c"):
        client.put(t, _put(row, (b"f", b"x", b"1")))
    for reverse in (False, True):
        scan = TScan(startRow=b"b", stopRow=b"b", reversed=reverse)
        assert [r.row for r in client.getScannerResults(t, scan, 5)] == [b"b"]
    assert client.getScannerResults(t, TScan(startRow=b"q", stopRow=b"q"), 5) == []


def test_an_unknown_family_in_the_checked_column_is_no_failed_action(
    thrift2: Wire2, t: bytes
) -> None:
    """``checkAndDelete`` checking a column of an unknown family: the check's read fails,
    before any batch (no ``Failed N action`` prefix) (S1)."""
    delete = TDelete(row=b"r", columns=[TColumn(family=b"f", qualifier=b"a")])
    error = raises_with(
        lambda: thrift2.client.checkAndDelete(t, b"r", b"x", b"a", b"v", delete), TIOError
    )
    assert error.message.startswith(
        "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: "
    )


def test_unknown_families_in_conditional_writes_as_hbase_wraps_them(
    thrift2: Wire2, t: bytes
) -> None:
    """``checkAndMutate`` runs its check and mutations as a batch: an unknown family in
    the checked column is a ``Failed 1 action``; ``checkAndDelete``'s delete of an unknown
    family fails as a single delete does, unwrapped (S1)."""
    nsfe = "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: "
    client = thrift2.client
    put = TPut(row=b"r", columnValues=[TColumnValue(family=b"f", qualifier=b"a", value=b"1")])
    rows = TRowMutations(row=b"r", mutations=[TMutation(put=put)])
    error = raises_with(
        lambda: client.checkAndMutate(t, b"r", b"x", b"a", _Op.EQUAL, b"1", rows), TIOError
    )
    assert error.message.startswith("Failed 1 action: " + nsfe)
    delete = TDelete(row=b"r", columns=[TColumn(family=b"x", qualifier=b"a", timestamp=3)])
    error = raises_with(lambda: client.checkAndDelete(t, b"r", b"f", b"a", None, delete), TIOError)
    assert error.message.startswith(nsfe)
