"""Thrift2 admin: whole schemas created, described back exactly, altered one call per change."""

from __future__ import annotations

import pytest

from examples.ecommerce.schema import GOODS, TABLES
from hmodel.backend.base import Put
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import (
    ColumnFamilyNotFoundError,
    IllegalArgumentError,
    SchemaError,
    TableExistsError,
    TableNotFoundError,
    UnsupportedOperationError,
)
from hmodel.schema import Family, HexSplits, Table, alter_statements
from hmodel.testing import FakeHBaseServer

#: A family with every option away from HBase's default.
EVERY_OPTION = Family(
    "e",
    versions=5,
    min_versions=2,
    ttl=86_400,
    keep_deleted_cells=True,
    compression="SNAPPY",
    data_block_encoding="FAST_DIFF",
    bloom_filter="ROWPREFIX_FIXED_LENGTH",
    bloom_prefix_length=4,
    block_size=16_384,
    block_cache=False,
    in_memory=True,
    replication_scope=1,
)


def _same(stored: Table, declared: Table) -> None:
    assert stored.full_name == declared.full_name
    assert {f.name: f for f in stored.families} == {f.name: f for f in declared.families}
    assert stored.splits == declared.splits
    for option in ("read_only", "durability", "max_filesize", "memstore_flushsize"):
        assert getattr(stored, option) == getattr(declared, option), option


def test_the_four_ecommerce_tables_come_back_exactly_as_declared(thrift2: Thrift2Backend) -> None:
    """Seed 000's tables: split points and every family option survive create + describe."""
    for declared in TABLES:
        thrift2.create_table(declared)
    for declared in TABLES:
        _same(thrift2.describe_table(declared.full_name), declared)
        families = thrift2.describe_families(declared.full_name)
        assert families == {f.name: f for f in sorted(declared.families, key=lambda f: f.name)}
    assert len(thrift2.regions("goods")) == 10 and len(thrift2.regions("customer")) == 1


def test_create_table_is_one_round_trip_with_its_splits(thrift2: Thrift2Backend) -> None:
    """One createTable carries the descriptor and the split keys."""
    before = thrift2.round_trips
    thrift2.create_table(GOODS)
    assert thrift2.round_trips - before == 1
    regions = thrift2.regions("goods")
    assert [r.start for r in regions] == [b"", *GOODS.splits]
    assert [r.end for r in regions] == [*GOODS.splits, b""]


def test_every_family_and_table_option_round_trips(thrift2: Thrift2Backend) -> None:
    """Every option the schema layer declares, set away from its default, is described back."""
    declared = Table(
        "full",
        [EVERY_OPTION, Family("d", compression="ZSTD", bloom_filter="ROWCOL")],
        namespace=None,
        splits=HexSplits(4),
        read_only=True,
        durability="ASYNC_WAL",
        max_filesize=10 * 1024**3,
        memstore_flushsize=256 * 1024**2,
    )
    thrift2.create_table(declared)
    _same(thrift2.describe_table("full"), declared)


def test_adding_a_family_and_changing_versions_take_one_call_each(
    thrift2: Thrift2Backend,
) -> None:
    """F5 over Thrift2: addColumnFamily and modifyColumnFamily, one round trip each."""
    thrift2.create_table(GOODS)
    before = thrift2.round_trips
    thrift2.add_family("goods", Family("s", versions=2))
    assert thrift2.round_trips - before == 1
    before = thrift2.round_trips
    thrift2.alter_family("goods", Family("g", versions=20, compression="GZ"))
    assert thrift2.round_trips - before == 1
    families = thrift2.describe_families("goods")
    assert families["s"] == Family("s", versions=2)
    assert families["g"] == Family("g", versions=20, compression="GZ")
    assert len(thrift2.regions("goods")) == 10  # altering keeps the regions


def test_alter_table_dry_run_prints_the_shell_and_changes_nothing(thrift2: Thrift2Backend) -> None:
    """The dry run returns the HBase shell statements of the change and sends no change."""
    thrift2.create_table(GOODS)
    wanted = GOODS.with_families([*GOODS.families, Family("s")])
    statements = thrift2.alter_table(wanted, dry_run=True)
    assert statements == alter_statements(GOODS, wanted)
    assert statements[1] == "alter 'goods', {NAME => 's'}"
    assert set(thrift2.describe_families("goods")) == {"g"}


def test_alter_table_applies_every_change_and_reports_it(thrift2: Thrift2Backend) -> None:
    """Families deleted, added and changed, a table option changed: stored as declared."""
    old = Table("alt", [Family("a"), Family("b", versions=2)], splits=[b"m"])
    thrift2.create_table(old)
    thrift2.mutate("alt", [Put(b"r", b"a:x", b"1"), Put(b"r", b"b:x", b"2")])
    new = Table(
        "alt",
        [Family("b", versions=4, ttl=3600), Family("c")],
        splits=[b"m"],
        durability="SKIP_WAL",
    )
    statements = thrift2.alter_table(new)
    assert statements == alter_statements(old, new)
    _same(thrift2.describe_table("alt"), new)
    assert thrift2.get("alt", [b"r"])[0].cells.keys() == {b"b:x"}  # family a went with its cells
    assert thrift2.alter_table(new) == []


def test_alter_table_refuses_other_split_points(thrift2: Thrift2Backend) -> None:
    """Regions are set at creation; a declaration with other splits is refused."""
    thrift2.create_table(Table("s", [Family("f")], splits=[b"m"]))
    with pytest.raises(SchemaError):
        thrift2.alter_table(Table("s", [Family("f")], splits=[b"n"]))


def test_delete_family_and_modify_table(thrift2: Thrift2Backend) -> None:
    """deleteColumnFamily drops a family with its cells; modifyTable replaces the rest."""
    thrift2.create_table(Table("m", [Family("a"), Family("b")]))
    thrift2.mutate("m", [Put(b"r", b"b:x", b"1")])
    thrift2.delete_family("m", "b")
    assert set(thrift2.describe_families("m")) == {"a"}
    with pytest.raises(ColumnFamilyNotFoundError):
        thrift2.mutate("m", [Put(b"r", b"b:x", b"1")])
    thrift2.modify_table(Table("m", [Family("a", versions=3)], read_only=True))
    stored = thrift2.describe_table("m")
    assert stored.read_only and stored.families == (Family("a", versions=3),)


def test_family_changes_refused_as_hbase_refuses_them(thrift2: Thrift2Backend, table: str) -> None:
    """An existing family cannot be added, a missing one not altered, the last not deleted."""
    with pytest.raises(IllegalArgumentError):
        thrift2.add_family(table, Family("f"))
    with pytest.raises(IllegalArgumentError):
        thrift2.alter_family(table, Family("zz"))
    thrift2.delete_family(table, "g")
    with pytest.raises(IllegalArgumentError):
        thrift2.delete_family(table, "f")
    with pytest.raises(TableNotFoundError):
        thrift2.add_family("missing", Family("f"))


def test_truncate_keeps_or_drops_the_splits_and_enables(thrift2: Thrift2Backend) -> None:
    """truncate_table empties the table; preserve_splits=False leaves one region."""
    thrift2.create_table(Table("tr", [Family("f")], splits=[b"g", b"p"]))
    thrift2.mutate("tr", [Put(b"a", b"f:q", b"1"), Put(b"z", b"f:q", b"2")])
    thrift2.truncate_table("tr")
    assert thrift2.get("tr", [b"a", b"z"]) == []
    assert len(thrift2.regions("tr")) == 3 and thrift2.is_table_enabled("tr")
    thrift2.disable_table("tr")
    thrift2.truncate_table("tr", preserve_splits=False)
    assert len(thrift2.regions("tr")) == 1 and thrift2.is_table_enabled("tr")


def test_region_locations_name_the_server(thrift2: Thrift2Backend, server: FakeHBaseServer) -> None:
    """getAllRegionLocations: each region with the server holding it."""
    thrift2.create_table(Table("loc", [Family("f")], splits=[b"k"]))
    locations = thrift2.region_locations("loc")
    assert [(x.start, x.end) for x in locations] == [(b"", b"k"), (b"k", b"")]
    assert {(x.host, x.port) for x in locations} == {(server.host, server.thrift2_port)}


def test_admin_errors(thrift2: Thrift2Backend, table: str) -> None:
    """Existing and missing tables give the typed errors, naming the table."""
    with pytest.raises(TableExistsError):
        thrift2.create_table(Table(table, [Family("f")]))
    for call in (thrift2.delete_table, thrift2.describe_families, thrift2.regions):
        with pytest.raises(TableNotFoundError) as caught:
            call("nope")
        assert caught.value.table == "nope"
    assert not thrift2.table_exists("nope") and thrift2.table_exists(table)


def test_prefix_tree_encoding_is_refused_before_sending(thrift2: Thrift2Backend) -> None:
    """HBase 2 has no PREFIX_TREE: refused client-side, nothing created."""
    with pytest.raises(UnsupportedOperationError):
        thrift2.create_table(Table("p", [Family("f", data_block_encoding="PREFIX_TREE")]))
    assert not thrift2.table_exists("p")


def test_table_prefix_and_namespaces(server: FakeHBaseServer) -> None:
    """A prefix is applied inside the namespace and hidden from list_tables."""
    assert server.thrift2_port is not None
    with Thrift2Backend(server.host, server.thrift2_port, table_prefix="px") as backend:
        backend.create_table(Table("t", [Family("f")], namespace="ns"))
        backend.create_table(Table("u", [Family("f")]))
        try:
            assert backend.list_tables() == ["ns:t", "u"]
            assert set(server.backend.list_tables()) >= {"ns:px_t", "px_u"}
            _same(backend.describe_table("ns:t"), Table("t", [Family("f")], namespace="ns"))
        finally:
            backend.delete_table("ns:t")
            backend.delete_table("u")
