"""Family and table descriptors, as hmodel sends them and as a real HBase 2.2 answers them."""

from __future__ import annotations

import pytest

from hmodel.backend.thrift2.descriptor import (
    from_family_descriptor,
    from_table_descriptor,
    table_name,
    to_family_descriptor,
    to_table_descriptor,
)
from hmodel.backend.thrift2.idl import HBASE2, TColumnFamilyDescriptor, TTableDescriptor
from hmodel.errors import BackendError
from hmodel.schema import FOREVER, Family, Table


def test_every_option_is_sent_explicitly() -> None:
    """modifyColumnFamily replaces the whole descriptor: no field is left to the server."""
    sent = to_family_descriptor(Family("f"))
    assert (sent.maxVersions, sent.minVersions, sent.timeToLive) == (1, 0, FOREVER)
    assert sent.bloomnFilterType == HBASE2.TBloomFilterType.ROW
    assert sent.compressionType == HBASE2.TCompressionAlgorithm.NONE
    assert (sent.blockSize, sent.blockCacheEnabled, sent.inMemory, sent.scope) == (
        65_536,
        True,
        False,
        0,
    )
    assert sent.keepDeletedCells == HBASE2.TKeepDeletedCells.FALSE


def test_a_descriptor_as_hbase_answers_it_reads_back() -> None:
    """HBase fills every field and adds its own attributes and configuration: ignored."""
    answered = TColumnFamilyDescriptor(
        name=b"g",
        attributes={b"BLOOMFILTER": b"ROW", b"VERSIONS": b"10"},
        configuration={"some.other.setting": "1"},
        blockSize=65_536,
        bloomnFilterType=HBASE2.TBloomFilterType.ROW,
        compressionType=HBASE2.TCompressionAlgorithm.GZ,
        dfsReplication=0,
        dataBlockEncoding=HBASE2.TDataBlockEncoding.PREFIX,
        keepDeletedCells=HBASE2.TKeepDeletedCells.FALSE,
        maxVersions=10,
        minVersions=0,
        scope=0,
        timeToLive=FOREVER,
        blockCacheEnabled=True,
        inMemory=True,
    )
    expected = Family(
        "g", versions=10, compression="GZ", data_block_encoding="PREFIX", in_memory=True
    )
    assert from_family_descriptor(answered) == expected


def test_keep_deleted_cells_ttl_travels_both_ways() -> None:
    """KEEP_DELETED_CELLS => TTL (F9) is sent as the IDL's TTL and read back as ``"TTL"``."""
    family = Family("f", ttl=60, keep_deleted_cells="TTL")
    sent = to_family_descriptor(family)
    assert sent.keepDeletedCells == HBASE2.TKeepDeletedCells.TTL
    assert from_family_descriptor(sent) == family


@pytest.mark.parametrize(
    "field",
    [
        {"keepDeletedCells": 7},
        {"compressionType": HBASE2.TCompressionAlgorithm.BZIP2},
        {"maxVersions": 0},
    ],
)
def test_options_the_schema_cannot_hold_are_errors(field: dict[str, int]) -> None:
    """A family set up elsewhere with options hmodel cannot declare: a BackendError."""
    with pytest.raises(BackendError):
        from_family_descriptor(TColumnFamilyDescriptor(name=b"f", **field), table="t")


def test_table_names_and_options() -> None:
    """Namespaces travel in TTableName.ns; table options as attributes and durability."""
    assert table_name("ns:t") == HBASE2.TTableName(ns=b"ns", qualifier=b"t")
    assert table_name("t").ns is None
    declared = Table(
        "t",
        [Family("f")],
        namespace="ns",
        read_only=True,
        durability="FSYNC_WAL",
        max_filesize=2**31,
        memstore_flushsize=2**21,
    )
    sent = to_table_descriptor(declared, "ns:px_t")
    assert sent.tableName.qualifier == b"px_t"
    assert sent.attributes == {
        b"READONLY": b"true",
        b"MAX_FILESIZE": b"2147483648",
        b"MEMSTORE_FLUSHSIZE": b"2097152",
    }
    assert from_table_descriptor(sent, name="ns:t") == declared
    plain = TTableDescriptor(tableName=table_name("t"), columns=[to_family_descriptor(Family("f"))])
    assert from_table_descriptor(plain, name="t", splits=(b"m",)).splits == (b"m",)
