"""HBASE_FACTS, "Admin": on the fake servers and on a real HBase."""

from __future__ import annotations

import pytest

from hmodel.backend.thrift2.idl import (
    HBASE2,
    TColumnFamilyDescriptor,
    TTableDescriptor,
)
from hmodel.schema import Family
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT
from tests.backend.facts.conftest import Wire1, Wire2


def test_thrift1_major_compact_leaves_delete_markers(thrift1: Wire1) -> None:
    """The 2.x Thrift1 ``majorCompact`` purges no delete marker: a later put at an older
    timestamp stays hidden (2.2.5 ran a minor compaction; 1.x a major one).

    Whether a marker flushed to a store file survives too cannot be driven over Thrift:
    neither protocol can flush, and compactions run in the background.
    """
    thrift1.table.put(b"r", {b"f:a": b"5"}, timestamp=5)
    thrift1.table.delete(b"r", [b"f:a"], timestamp=10)
    thrift1.client.majorCompact(thrift1.name)
    thrift1.table.put(b"r", {b"f:a": b"7"}, timestamp=7)
    assert thrift1.table.row(b"r") == {}


def test_thrift1_create_table_carries_six_family_options(thrift1: Wire1) -> None:
    """Thrift1's ``ColumnDescriptor`` carries VERSIONS, TTL, COMPRESSION, IN_MEMORY,
    BLOOMFILTER and BLOCKCACHE, and ``getColumnDescriptors`` reports them back."""
    descriptor = HBASE_THRIFT.ColumnDescriptor(
        name=b"o:",
        maxVersions=4,
        compression="GZ",
        inMemory=True,
        bloomFilterType="ROWCOL",
        blockCacheEnabled=False,
        timeToLive=3600,
    )
    name = thrift1.name + b"_options"
    thrift1.client.createTable(name, [descriptor])
    try:
        [found] = thrift1.client.getColumnDescriptors(name).values()
        text = [
            value.decode() if isinstance(value, bytes) else value
            for value in (found.compression, found.bloomFilterType)
        ]
        assert (found.maxVersions, found.inMemory, found.timeToLive) == (4, True, 3600)
        assert text == ["GZ", "ROWCOL"]
        assert found.blockCacheEnabled is False
    finally:
        thrift1.client.disableTable(name)
        thrift1.client.deleteTable(name)


def test_thrift2_admin_takes_a_full_descriptor_and_split_keys(thrift2: Wire2) -> None:
    """Thrift2 (2.2+) ``createTable`` takes a full table descriptor and split keys, and
    has add/modify/delete column family, modifyTable, truncateTable, getTableDescriptor
    and getAllRegionLocations (``regionId`` always 0)."""
    name = thrift2.create(
        Family("f", versions=3, min_versions=1, ttl=3600, keep_deleted_cells=True),
        splits=[b"g", b"p"],
    )
    client, tname = thrift2.client, thrift2.tname(name)
    descriptor = client.getTableDescriptor(tname)
    [family] = descriptor.columns
    assert (family.maxVersions, family.minVersions, family.timeToLive) == (3, 1, 3600)
    assert family.keepDeletedCells == HBASE2.TKeepDeletedCells.TRUE
    locations = client.getAllRegionLocations(name)
    assert [(x.regionInfo.startKey or b"", x.regionInfo.endKey or b"") for x in locations] == [
        (b"", b"g"),
        (b"g", b"p"),
        (b"p", b""),
    ]
    assert {x.regionInfo.regionId for x in locations} == {0}
    client.addColumnFamily(tname, TColumnFamilyDescriptor(name=b"g"))
    client.modifyColumnFamily(tname, TColumnFamilyDescriptor(name=b"g", maxVersions=5))
    names = {c.name: c.maxVersions for c in client.getTableDescriptor(tname).columns}
    assert names == {b"f": 3, b"g": 5}
    client.deleteColumnFamily(tname, b"g")
    client.modifyTable(TTableDescriptor(tableName=tname, columns=descriptor.columns))
    assert [c.name for c in client.getTableDescriptor(tname).columns] == [b"f"]
    client.disableTable(tname)
    client.truncateTable(tname, True)
    assert client.isTableEnabled(tname)
    assert len(client.getAllRegionLocations(name)) == 3


@pytest.mark.skip(
    reason="needs 60 s of idleness (hbase.thrift.server.socket.read.timeout): a timing fact "
    "no deterministic test can show; the fake servers' bounds are tested with short limits "
    "of their own"
)
def test_an_idle_thrift_connection_is_closed_after_the_read_timeout() -> None:
    """The 2.x server closes a connection idle for ``hbase.thrift.server.socket.read.
    timeout`` (60 s by default); 1.x had no such timeout."""
