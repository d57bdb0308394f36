"""Table administration over Thrift1 with plain happybase: create, list, enable, delete, regions."""

from __future__ import annotations

import happybase
import pytest
from thriftpy2.thrift import TApplicationException

from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT

IOError_ = HBASE_THRIFT.IOError
IllegalArgument = HBASE_THRIFT.IllegalArgument
AlreadyExists = HBASE_THRIFT.AlreadyExists


def test_created_tables_are_listed_sorted(connection: happybase.Connection) -> None:
    connection.create_table("b", {"f": {}})
    connection.create_table("a", {"f": {}})
    assert connection.tables() == [b"a", b"b"]


def test_creating_an_existing_table_raises_AlreadyExists(connection: happybase.Connection) -> None:
    connection.create_table("t", {"f": {}})
    with pytest.raises(AlreadyExists) as raised:
        connection.create_table("t", {"g": {}})
    assert raised.value.message == b"table name already in use"


def test_families_report_the_options_thrift1_carries(connection: happybase.Connection) -> None:
    connection.create_table(
        "t",
        {
            "f": {
                "max_versions": 5,
                "compression": "gz",
                "in_memory": True,
                "bloom_filter_type": "ROWCOL",
                "block_cache_enabled": True,
                "time_to_live": 3600,
            }
        },
    )
    assert connection.table("t").families()[b"f"] == {
        "name": b"f:",
        "max_versions": 5,
        "compression": b"GZ",
        "in_memory": True,
        "bloom_filter_type": b"ROWCOL",
        "bloom_filter_vector_size": 0,
        "bloom_filter_nb_hashes": 0,
        "block_cache_enabled": True,
        "time_to_live": 3600,
    }


def test_family_defaults_are_the_thrift_idl_defaults(
    server: FakeHBaseServer, connection: happybase.Connection
) -> None:
    connection.create_table("t", {"f": {}})
    family = server.backend.describe_families("t")["f"]
    assert (family.versions, family.bloom_filter.value, family.block_cache) == (3, "NONE", False)


def test_a_time_to_live_of_minus_one_means_forever(connection: happybase.Connection) -> None:
    connection.create_table("t", {"f": {"time_to_live": -1}})
    assert connection.table("t").families()[b"f"]["time_to_live"] == 2_147_483_647


@pytest.mark.parametrize(
    "options",
    [{"max_versions": 0}, {"compression": "brotli"}, {"bloom_filter_type": "row"}],
    ids=["versions", "compression", "bloom-case"],
)
def test_invalid_family_options_raise_IllegalArgument(
    connection: happybase.Connection, options: dict[str, object]
) -> None:
    with pytest.raises(IllegalArgument):
        connection.create_table("t", {"f": options})
    assert connection.tables() == []


def test_a_table_in_a_namespace_keeps_its_full_name(connection: happybase.Connection) -> None:
    connection.create_table("ns:t", {"f": {}})
    assert connection.tables() == [b"ns:t"]
    connection.table("ns:t").put(b"r", {b"f:q": b"v"})
    assert connection.table("ns:t").row(b"r") == {b"f:q": b"v"}


def test_disable_and_enable_switch_is_table_enabled(connection: happybase.Connection) -> None:
    connection.create_table("t", {"f": {}})
    assert connection.is_table_enabled("t")
    connection.disable_table("t")
    assert not connection.is_table_enabled("t")
    connection.enable_table("t")
    assert connection.is_table_enabled("t")


def test_a_disabled_table_refuses_reads_with_TableNotEnabledException(
    connection: happybase.Connection,
) -> None:
    connection.create_table("t", {"f": {}})
    connection.disable_table("t")
    with pytest.raises(IOError_, match="TableNotEnabledException"):
        connection.table("t").row(b"r")


def test_enabling_an_enabled_table_raises_TableNotDisabledException(
    connection: happybase.Connection,
) -> None:
    connection.create_table("t", {"f": {}})
    with pytest.raises(IOError_, match="TableNotDisabledException"):
        connection.enable_table("t")


def test_disabling_a_disabled_table_raises_TableNotEnabledException(
    connection: happybase.Connection,
) -> None:
    connection.create_table("t", {"f": {}})
    connection.disable_table("t")
    with pytest.raises(IOError_, match="TableNotEnabledException"):
        connection.disable_table("t")


def test_deleting_an_enabled_table_raises_as_in_hbase(connection: happybase.Connection) -> None:
    connection.create_table("t", {"f": {}})
    with pytest.raises(IOError_, match="TableNotDisabledException"):
        connection.delete_table("t")
    assert connection.tables() == [b"t"]


def test_delete_table_with_disable_removes_the_table(connection: happybase.Connection) -> None:
    connection.create_table("t", {"f": {}})
    connection.delete_table("t", disable=True)
    assert connection.tables() == []


def test_deleting_a_missing_table_raises_IOError(connection: happybase.Connection) -> None:
    """HBase 2.2's answer: TableNotFoundException, with a trace naming checkTableExists."""
    with pytest.raises(IOError_) as caught:
        connection.delete_table("nope")
    message = caught.value.message
    assert isinstance(message, bytes)
    assert message.startswith(b"org.apache.hadoop.hbase.TableNotFoundException: nope\n")
    assert b"checkTableExists" in message


def test_families_of_a_missing_table_raise_TableNotFoundException(
    connection: happybase.Connection,
) -> None:
    with pytest.raises(IOError_, match="TableNotFoundException"):
        connection.table("nope").families()


def test_an_unsplit_table_has_one_region_covering_every_key(
    server: FakeHBaseServer, connection: happybase.Connection
) -> None:
    connection.create_table("t", {"f": {}})
    [region] = connection.table("t").regions()
    assert (region["start_key"], region["end_key"]) == (b"", b"")
    assert region["name"].startswith(b"t,,1.") and region["name"].endswith(b".")
    assert (region["server_name"], region["port"], region["version"]) == (
        b"127.0.0.1",
        server.port,
        1,
    )


def test_regions_follow_the_engine_split_points(
    server: FakeHBaseServer, connection: happybase.Connection
) -> None:
    server.backend.create_table(Table("t", [Family("f")], splits=[b"g", b"p"]))
    regions = connection.table("t").regions()
    assert [(r["start_key"], r["end_key"]) for r in regions] == [
        (b"", b"g"),
        (b"g", b"p"),
        (b"p", b""),
    ]
    assert len({r["name"] for r in regions}) == 3


def test_regions_of_a_missing_table_are_empty_as_in_hbase(connection: happybase.Connection) -> None:
    assert connection.table("nope").regions() == []


def test_getRegionInfo_finds_the_region_of_a_meta_key(
    server: FakeHBaseServer, client: object
) -> None:
    server.backend.create_table(Table("t", [Family("f")], splits=[b"g", b"p"]))
    info = client.getRegionInfo(b"t,k,99999999999999")  # type: ignore[attr-defined]
    assert (info.startKey, info.endKey) == (b"g", b"p")
    assert info.name == server.handler.get_table_regions(b"t")[1].name


def test_getRegionInfo_of_an_unknown_table_raises_IOError(client: object) -> None:
    with pytest.raises(IOError_, match="Cannot find row in hbase:meta"):
        client.getRegionInfo(b"nope,k,99999999999999")  # type: ignore[attr-defined]


def test_major_compaction_purges_nothing_as_on_hbase_2(
    server: FakeHBaseServer, table: happybase.Table, connection: happybase.Connection
) -> None:
    """HBase 2's Thrift1 majorCompact leaves delete markers: a later put at an older
    timestamp stays hidden (2.6.1 measured; HBase 1.x purged them)."""
    table.put(b"r", {b"f:q": b"v"}, timestamp=5)
    table.delete(b"r", columns=[b"f:q"], timestamp=10)
    table.put(b"s", {b"f:q": b"w"})
    connection.compact_table("t", major=True)
    connection.compact_table("t")
    table.put(b"r", {b"f:q": b"late"}, timestamp=7)
    assert list(table.scan()) == [(b"s", {b"f:q": b"w"})]
    assert len(server.backend.raw("t", b"r")) == 3


def test_compaction_accepts_a_region_name(server: FakeHBaseServer, table: happybase.Table) -> None:
    table.put(b"r", {b"f:q": b"v"})
    table.delete(b"r")
    [region] = table.regions()
    table.connection.client.majorCompact(region["name"])
    kinds = sorted(cell.kind.value for cell in server.backend.raw("t", b"r"))
    assert kinds == ["DeleteFamily", "DeleteFamily", "Put"]


def test_compacting_a_missing_table_raises_IOError(connection: happybase.Connection) -> None:
    with pytest.raises(IOError_, match="TableNotFoundException"):
        connection.compact_table("nope")


def test_createTable_without_families_raises_IllegalArgument(client: object) -> None:
    with pytest.raises(IllegalArgument, match="at least one column family"):
        client.createTable(b"t", [])  # type: ignore[attr-defined]


def test_createTable_with_an_unnamed_family_raises_IllegalArgument(client: object) -> None:
    with pytest.raises(IllegalArgument, match="column name is empty"):
        client.createTable(b"t", [HBASE_THRIFT.ColumnDescriptor(name=b"")])  # type: ignore[attr-defined]


def test_an_unknown_method_gets_UNKNOWN_METHOD(server: FakeHBaseServer) -> None:
    from thriftpy2.protocol import TBinaryProtocol
    from thriftpy2.thrift import TMessageType
    from thriftpy2.transport import TBufferedTransport, TSocket

    transport = TBufferedTransport(TSocket(server.host, server.port))
    transport.open()
    protocol = TBinaryProtocol(transport)
    protocol.write_message_begin("getThriftServerType", TMessageType.CALL, 1)
    protocol.write_struct(HBASE_THRIFT.Hbase.getTableNames_args())
    protocol.write_message_end()
    transport.flush()
    _name, message_type, _seqid = protocol.read_message_begin()
    error = TApplicationException()
    protocol.read_struct(error)
    transport.close()
    assert message_type == TMessageType.EXCEPTION
    assert error.type == TApplicationException.UNKNOWN_METHOD
