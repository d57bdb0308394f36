"""Engine administration: namespaces, declared families, regions, enable/disable, close."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Put, Region, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.errors import ConnectionLostError, TableDisabledError, TableNotFoundError
from hmodel.schema import Family, Table


def test_namespaced_tables_are_named_namespace_colon_name(engine: MemoryBackend) -> None:
    """A table outside the default namespace is ``ns:name`` everywhere."""
    engine.create_table(Table("orders", [Family("o")], namespace="shop"))
    engine.create_table(Table("orders", [Family("o")]))
    assert engine.list_tables() == ["orders", "shop:orders"]
    engine.mutate("shop:orders", [Put(b"r", b"o:q", b"v", timestamp=1)])
    assert engine.get("orders", [b"r"]) == []
    assert engine.get("shop:orders", [b"r"])[0].value(b"o:q") == b"v"


def test_describe_families_returns_the_declarations(engine: MemoryBackend) -> None:
    """Every option comes back as declared, not only what Thrift1 can see."""
    family = Family("e", versions=4, min_versions=1, ttl=60, keep_deleted_cells=True)
    engine.create_table(Table("t", [family, Family("d")]))
    assert engine.describe_families("t") == {"e": family, "d": Family("d")}


def test_region_of_finds_the_region_holding_a_row(engine: MemoryBackend) -> None:
    """start <= row < end, with b"" as the open ends."""
    engine.create_table(Table("t", [Family("f")], splits=[b"g", b"p"]))
    assert engine.region_of("t", b"a") == Region(b"", b"g")
    assert engine.region_of("t", b"g") == Region(b"g", b"p")
    assert engine.region_of("t", b"o\xff") == Region(b"g", b"p")
    assert engine.region_of("t", b"p") == Region(b"p", b"")
    assert engine.region_of("t", b"\xff\xff") == Region(b"p", b"")


def test_a_disabled_table_refuses_reads_and_writes(engine: MemoryBackend) -> None:
    """TableNotEnabledException: data calls fail; admin reads and enabling still work."""
    engine.create_table(Table("t", [Family("f")]))
    engine.mutate("t", [Put(b"r", b"f:q", b"v", timestamp=1)])
    engine.disable_table("t")
    assert not engine.is_table_enabled("t")
    for call in (
        lambda: engine.get("t", [b"r"]),
        lambda: engine.mutate("t", [Put(b"r", b"f:q", b"w")]),
        lambda: engine.scan("t", Scan()),
        lambda: engine.increment("t", b"r", b"f:n"),
    ):
        with pytest.raises(TableDisabledError) as caught:
            call()
        assert caught.value.table == "t"
    assert engine.table_exists("t")
    assert list(engine.describe_families("t")) == ["f"]
    engine.enable_table("t")
    assert engine.get("t", [b"r"])[0].value(b"f:q") == b"v"


def test_a_disabled_table_can_be_deleted(engine: MemoryBackend) -> None:
    """delete_table works whether or not the table is enabled."""
    engine.create_table(Table("t", [Family("f")]))
    engine.disable_table("t")
    engine.delete_table("t")
    assert engine.list_tables() == []


def test_a_scan_fails_when_its_table_is_disabled_midway(engine: MemoryBackend) -> None:
    """Each fetch looks the table up again, as an HBase scanner would hit the closed region."""
    engine.create_table(Table("t", [Family("f")]))
    engine.mutate("t", [Put(b"r%d" % n, b"f:q", b"v", timestamp=1) for n in range(4)])
    scanner = engine.scan("t", Scan(batch_size=2))
    assert [next(scanner).row, next(scanner).row] == [b"r0", b"r1"]
    engine.disable_table("t")
    with pytest.raises(TableDisabledError):
        next(scanner)


def test_a_scan_fails_when_its_table_is_deleted_midway(engine: MemoryBackend) -> None:
    """A deleted table ends open scanners with TableNotFoundError."""
    engine.create_table(Table("t", [Family("f")]))
    engine.mutate("t", [Put(b"r%d" % n, b"f:q", b"v", timestamp=1) for n in range(4)])
    scanner = engine.scan("t", Scan(batch_size=2))
    next(scanner)
    engine.delete_table("t")
    next(scanner)  # the rest of the batch was already fetched
    with pytest.raises(TableNotFoundError):
        next(scanner)


def test_a_closed_engine_refuses_every_request(engine: MemoryBackend) -> None:
    """After close() (or leaving ``with``) every call raises ConnectionLostError."""
    with engine:
        engine.create_table(Table("t", [Family("f")]))
    with pytest.raises(ConnectionLostError):
        engine.list_tables()
