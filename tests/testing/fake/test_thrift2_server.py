"""The fake server's Thrift2 side, spoken to with a raw thriftpy2 client (HBASE_FACTS, Thrift2)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import happybase
import pytest
import thriftpy2.rpc
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.thrift import TApplicationException
from thriftpy2.transport import TBufferedTransportFactory

from hmodel.backend.base import Put
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift2.idl import (
    HBASE2,
    TTL_ATTRIBUTE,
    TColumn,
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
    TTableName,
    TTimeRange,
)
from hmodel.clock import ManualClock
from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer
from hmodel.testing.fake import FakeThrift2Server

NOW = 1_700_000_000_000
T = b"t"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(NOW)


@pytest.fixture
def server(clock: ManualClock) -> Iterator[FakeHBaseServer]:
    """Thrift1 and Thrift2 over one engine; table ``t`` (f: 3 versions, g) split at ``m``."""
    engine = MemoryBackend(clock=clock)
    engine.create_table(Table("t", [Family("f", versions=3), Family("g")], splits=[b"m"]))
    with FakeHBaseServer(engine, thrift2_port=0) as running:
        yield running


@pytest.fixture
def client(server: FakeHBaseServer) -> Iterator[Any]:
    """A plain thriftpy2 client of the Thrift2 port (buffered transport, binary protocol)."""
    assert server.thrift2_port is not None
    made = thriftpy2.rpc.make_client(
        HBASE2.THBaseService,
        server.host,
        server.thrift2_port,
        proto_factory=TBinaryProtocolFactory(),
        trans_factory=TBufferedTransportFactory(),
        timeout=5000,
    )
    yield made
    made.close()


def _cells(result: Any) -> list[tuple[bytes, int, bytes]]:
    return [(v.family + b":" + v.qualifier, v.timestamp, v.value) for v in result.columnValues]


def _put(row: bytes, *cells: tuple[bytes, bytes, bytes, int | None], **fields: Any) -> Any:
    return TPut(
        row=row,
        columnValues=[
            TColumnValue(family=f, qualifier=q, value=v, timestamp=t) for f, q, v, t in cells
        ],
        **fields,
    )


def test_both_protocols_serve_one_engine(client: Any, server: FakeHBaseServer) -> None:
    """A put over Thrift2 is read over Thrift1 (happybase) and the other way round."""
    client.put(T, _put(b"r", (b"f", b"a", b"1", 5)))
    connection = happybase.Connection(server.host, server.port)
    try:
        assert connection.table("t").row(b"r") == {b"f:a": b"1"}
        connection.table("t").put(b"s", {b"g:b": b"2"})
    finally:
        connection.close()
    assert _cells(client.get(T, TGet(row=b"s")))[0][2] == b"2"


def test_application_exceptions_answer_malformed_requests(client: Any) -> None:
    """Empty rows, no columns, existence_only, an unset checkAndMutate value: type 6."""
    calls = [
        lambda: client.get(T, TGet(row=b"")),
        lambda: client.put(T, TPut(row=b"r", columnValues=[])),
        lambda: client.get(T, TGet(row=b"r", existence_only=True)),
        lambda: client.get(T, TGet(row=b"r", timeRange=TTimeRange(minStamp=5, maxStamp=1))),
        lambda: client.checkAndMutate(
            T, b"r", b"f", b"a", HBASE2.TCompareOperator.EQUAL, None,
            TRowMutations(row=b"r", mutations=[TMutation(put=_put(b"r", (b"f", b"a", b"", 1)))]),
        ),
        lambda: client.checkAndMutate(
            T, b"r", b"f", b"a", HBASE2.TCompareOperator.EQUAL, b"1",
            TRowMutations(row=b"r", mutations=[]),
        ),
        lambda: client.openScanner(T, TScan(filterString=b"NoSuchFilter()")),
    ]  # fmt: skip
    for call in calls:
        with pytest.raises(TApplicationException) as caught:
            call()
        assert caught.value.type == TApplicationException.INTERNAL_ERROR
        assert caught.value.message.startswith("Internal error processing ")


def test_io_errors_start_with_the_java_class(client: Any) -> None:
    """Unknown family: NoSuchColumnFamilyException; batch calls wrap it as a failed action."""
    with pytest.raises(TIOError) as caught:
        client.put(T, _put(b"r", (b"zz", b"a", b"1", None)))
    assert caught.value.message.startswith(
        "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: "
    )
    with pytest.raises(TIOError) as caught:
        client.putMultiple(T, [_put(b"r", (b"zz", b"a", b"1", None))])
    assert caught.value.message.startswith(
        "Failed 1 action: org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: "
    )
    with pytest.raises(TIOError) as caught:
        client.get(b"missing", TGet(row=b"r"))
    assert caught.value.message == "missing"
    with pytest.raises(TIOError) as caught:
        client.get(T, TGet(row=b"r", maxVersions=0))
    assert "versions must be positive" in caught.value.message


def test_quiet_answers(client: Any) -> None:
    """No error: regions of a missing table, empty multi calls (an empty mutateRow is an
    internal error on HBase 2.6.1)."""
    assert client.getAllRegionLocations(b"missing") == []
    assert client.putMultiple(T, []) is None
    assert client.getMultiple(T, []) == []
    assert client.deleteMultiple(T, [TDelete(row=b"r")]) == []
    with pytest.raises(TApplicationException):
        client.mutateRow(T, TRowMutations(row=b"r", mutations=[]))


def test_scanner_ids(client: Any) -> None:
    """A missing table fails at the first fetch; fetching from a closed or unknown id:
    Invalid scanner Id; closing one: no error (HBase 2.6.1)."""
    scanner = client.openScanner(b"missing", TScan())
    with pytest.raises(TIOError):
        client.getScannerRows(scanner, 1)
    scanner = client.openScanner(T, TScan())
    client.closeScanner(scanner)
    with pytest.raises(TIllegalArgument) as caught:
        client.getScannerRows(scanner, 1)
    assert caught.value.message == "Invalid scanner Id"
    assert client.closeScanner(scanner) is None  # HBase 2.6.1: no error
    assert client.closeScanner(999) is None


def test_scan_bounds_limits_and_counts(client: Any) -> None:
    """Reversed: startRow inclusive upper, stopRow exclusive lower; limits; exact fetches."""
    client.putMultiple(T, [_put(r, (b"f", b"q", r, 1)) for r in (b"a", b"c", b"e", b"n", b"x")])

    def rows(tscan: Any, fetch: int = 100) -> list[bytes]:
        scanner = client.openScanner(T, tscan)
        try:
            return [r.row for r in client.getScannerRows(scanner, fetch)]
        finally:
            client.closeScanner(scanner)

    assert rows(TScan(startRow=b"e", stopRow=b"a", reversed=True)) == [b"e", b"c"]
    assert rows(TScan(startRow=b"a", stopRow=b"e", reversed=True)) == []
    assert rows(TScan(limit=-1)) == [b"a", b"c", b"e", b"n", b"x"]  # HBase 2.6.1
    assert rows(TScan(limit=0)) == [b"a", b"c", b"e"]  # the first region visited only
    assert rows(TScan(limit=0, reversed=True)) == [b"x", b"n"]
    assert rows(TScan(limit=2)) == [b"a", b"c"]
    assert rows(TScan(), fetch=3) == [b"a", b"c", b"e"]
    scanner = client.openScanner(T, TScan())
    with pytest.raises(TApplicationException):
        client.getScannerRows(scanner, -1)
    assert len(client.getScannerRows(scanner, 2)) == 2  # still usable
    client.closeScanner(scanner)


def test_delete_fields_as_hbase_reads_them(client: Any) -> None:
    """Unset type is DELETE_COLUMNS; family-only DELETE_COLUMNS is the empty qualifier;
    DELETE_FAMILY ignores the qualifier; TDelete.timestamp is ignored with columns."""
    cells = [(b"f", b"", b"e", 5), (b"f", b"a", b"1", 5), (b"g", b"b", b"2", 5)]
    client.put(T, _put(b"r", *cells))
    client.deleteSingle(T, TDelete(row=b"r", columns=[TColumn(family=b"f")]))
    assert [c[0] for c in _cells(client.get(T, TGet(row=b"r")))] == [b"f:a", b"g:b"]
    client.deleteSingle(
        T, TDelete(row=b"r", columns=[TColumn(family=b"f", qualifier=b"a")], timestamp=1)
    )
    assert [c[0] for c in _cells(client.get(T, TGet(row=b"r")))] == [b"g:b"]
    client.deleteSingle(
        T,
        TDelete(
            row=b"r",
            columns=[TColumn(family=b"g", qualifier=b"zz")],
            deleteType=HBASE2.TDeleteType.DELETE_FAMILY,
        ),
    )
    assert _cells(client.get(T, TGet(row=b"r"))) == []


def test_put_timestamps_ttl_and_results(client: Any, clock: ManualClock) -> None:
    """A cell's own timestamp beats TPut.timestamp; _ttl counts from the cell timestamp;
    returnResults=false answers an empty TResult."""
    ttl = {TTL_ATTRIBUTE: (1_000).to_bytes(8, "big")}
    client.put(T, _put(b"r", (b"f", b"a", b"1", 7), (b"f", b"b", b"2", None), timestamp=9))
    client.put(T, _put(b"r", (b"g", b"t", b"x", NOW), attributes=ttl))
    assert _cells(client.get(T, TGet(row=b"r"))) == [
        (b"f:a", 7, b"1"),
        (b"f:b", 9, b"2"),
        (b"g:t", NOW, b"x"),
    ]
    clock.advance(1_001)
    assert [c[0] for c in _cells(client.get(T, TGet(row=b"r")))] == [b"f:a", b"f:b"]
    column = TColumnIncrement(family=b"f", qualifier=b"n", amount=3)
    quiet = client.increment(T, TIncrement(row=b"r", columns=[column], returnResults=False))
    assert quiet.row is None and quiet.columnValues == []
    loud = client.increment(T, TIncrement(row=b"r", columns=[column]))
    assert _cells(loud)[0][2] == (6).to_bytes(8, "big")


def test_get_columns_are_order_dependent(client: Any) -> None:
    """[family, family:qual] reads that qualifier; [family:qual, family] the whole family."""
    client.put(T, _put(b"r", (b"f", b"a", b"1", 1), (b"f", b"b", b"2", 1)))
    narrow = [TColumn(family=b"f"), TColumn(family=b"f", qualifier=b"a")]
    wide = [TColumn(family=b"f", qualifier=b"a"), TColumn(family=b"f")]
    assert [c[0] for c in _cells(client.get(T, TGet(row=b"r", columns=narrow)))] == [b"f:a"]
    assert len(_cells(client.get(T, TGet(row=b"r", columns=wide)))) == 2


def test_versions_and_time_ranges(client: Any) -> None:
    """maxVersions and a time range with a minimum; an exact timestamp."""
    for stamp in (10, 20, 30):
        client.put(T, _put(b"r", (b"f", b"a", b"v%d" % stamp, stamp)))
    versions = client.get(T, TGet(row=b"r", maxVersions=3, timeRange=TTimeRange(15, 31)))
    assert [c[1] for c in _cells(versions)] == [30, 20]
    assert [c[1] for c in _cells(client.get(T, TGet(row=b"r", timestamp=20)))] == [20]
    assert _cells(client.get(T, TGet(row=b"r", timeRange=TTimeRange(11, 15)))) == []


def test_check_and_mutate_compares_given_op_stored(client: Any) -> None:
    """stored 5: LESS passes for given 3; a missing column fails every operator."""
    client.put(T, _put(b"r", (b"f", b"v", b"5", 1)))
    ops = HBASE2.TCompareOperator

    def attempt(column: bytes, op: int, given: bytes) -> bool:
        put = TMutation(put=_put(b"r", (b"f", b"w", given, None)))
        rows = TRowMutations(row=b"r", mutations=[put])
        return bool(client.checkAndMutate(T, b"r", b"f", column, op, given, rows))

    assert attempt(b"v", ops.LESS, b"3")
    assert not attempt(b"v", ops.GREATER, b"3")
    assert attempt(b"v", ops.EQUAL, b"5")
    assert not any(attempt(b"missing", op, b"5") for op in range(6))
    with pytest.raises(TIOError) as caught:
        client.checkAndPut(T, b"r", b"f", b"v", b"no", _put(b"other", (b"f", b"a", b"1", None)))
    assert "DoNotRetryIOException" in caught.value.message


def test_check_and_put_if_not_exists_passes_on_an_empty_value(client: Any) -> None:
    """An unset value means absent or empty, as HBase reads it."""
    client.put(T, _put(b"r", (b"f", b"e", b"", 1)))
    assert client.checkAndPut(T, b"r", b"f", b"e", None, _put(b"r", (b"f", b"x", b"1", None)))
    assert not client.checkAndPut(T, b"r", b"f", b"x", None, _put(b"r", (b"f", b"y", b"1", None)))


def test_admin_over_the_wire(client: Any, server: FakeHBaseServer) -> None:
    """Descriptors, deleting an enabled table (refused), region locations with regionId 0."""
    name = TTableName(qualifier=b"t")
    descriptor = client.getTableDescriptor(name)
    assert [c.name for c in descriptor.columns] == [b"f", b"g"]
    with pytest.raises(TIOError) as caught:
        client.deleteTable(name)
    assert caught.value.message.startswith("org.apache.hadoop.hbase.TableNotDisabledException")
    locations = client.getAllRegionLocations(T)
    assert [(x.regionInfo.startKey, x.regionInfo.endKey) for x in locations] == [
        (b"", b"m"),
        (b"m", b""),
    ]
    assert {x.regionInfo.regionId for x in locations} == {0}
    assert [n.qualifier for n in client.getTableNamesByPattern("t.*", False)] == [b"t"]


def test_unknown_methods_and_a_standalone_server() -> None:
    """FakeThrift2Server runs alone too."""
    with FakeThrift2Server() as alone:
        assert "FakeThrift2Server" in repr(alone)
        made = thriftpy2.rpc.make_client(
            HBASE2.THBaseService,
            alone.host,
            alone.port,
            proto_factory=TBinaryProtocolFactory(),
            trans_factory=TBufferedTransportFactory(),
        )
        try:
            assert made.tableExists(TTableName(qualifier=b"nope")) is False
        finally:
            made.close()
        assert len(alone.handler.scanners) == 0


def test_cli_serves_thrift2_on_its_own_port() -> None:
    """``hmodel fake-hbase --port 0 --thrift2-port 0`` prints both addresses."""
    command = [sys.executable, "-m", "hmodel.cli", "fake-hbase", "--port", "0"]
    process = subprocess.Popen([*command, "--thrift2-port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        process.stdout.readline()
        line = process.stdout.readline()
        found = re.search(r"Thrift2 server listening on (\S+):(\d+)", line)
        assert found, line
        made = thriftpy2.rpc.make_client(
            HBASE2.THBaseService,
            found[1],
            int(found[2]),
            proto_factory=TBinaryProtocolFactory(),
            trans_factory=TBufferedTransportFactory(),
        )
        try:
            assert made.getTableNamesByPattern(None, False) == []
        finally:
            made.close()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def test_the_engine_is_shared(server: FakeHBaseServer, client: Any) -> None:
    """What the Thrift2 port writes is in the server's engine."""
    client.put(T, _put(b"r", (b"f", b"a", b"1", 3)))
    assert server.backend.get("t", [b"r"])[0].value(b"f:a") == b"1"
    server.backend.mutate("t", [Put(b"s", b"f:a", b"2", timestamp=4)])
    assert _cells(client.get(T, TGet(row=b"s"))) == [(b"f:a", 4, b"2")]


def test_one_increment_is_all_or_nothing(client: Any) -> None:
    """A TIncrement touching a cell that is not a long changes none of its cells."""
    client.put(T, _put(b"r", (b"f", b"s", b"abc", 1)))
    columns = [
        TColumnIncrement(family=b"f", qualifier=b"n", amount=1),
        TColumnIncrement(family=b"f", qualifier=b"s", amount=1),
    ]
    with pytest.raises(TIOError) as caught:
        client.increment(T, TIncrement(row=b"r", columns=columns))
    assert caught.value.message.startswith("org.apache.hadoop.hbase.DoNotRetryIOException")
    assert [c[0] for c in _cells(client.get(T, TGet(row=b"r")))] == [b"f:s"]


def test_a_failed_check_answers_false_before_the_family_is_looked_at(client: Any) -> None:
    """checkAndPut whose check fails returns false, even with a put to an unknown family."""
    client.put(T, _put(b"r", (b"f", b"v", b"1", 1)))
    bad = _put(b"r", (b"zz", b"a", b"1", None))
    assert client.checkAndPut(T, b"r", b"f", b"v", b"other", bad) is False
    with pytest.raises(TIOError) as caught:
        client.checkAndPut(T, b"r", b"f", b"v", b"1", bad)
    assert "NoSuchColumnFamilyException" in caught.value.message


def test_a_second_family_delete_of_one_family_replaces_the_first(client: Any) -> None:
    """In one TDelete, HBase's ``Delete.addFamily`` keeps the family's last delete only
    (2.6.1 measured): deletes up to 20 then up to 5 delete up to 5."""
    client.put(T, _put(b"r", (b"g", b"a", b"1", 10)))
    family = HBASE2.TDeleteType.DELETE_FAMILY
    columns = [TColumn(family=b"g", timestamp=20), TColumn(family=b"g", timestamp=5)]
    client.deleteSingle(T, TDelete(row=b"r", columns=columns, deleteType=family))
    assert [c[0] for c in _cells(client.get(T, TGet(row=b"r")))] == [b"g:a"]
