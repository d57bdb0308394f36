"""Table declarations: names, families (F1), split points (K11) and table options (F4)."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from hmodel.errors import SchemaError
from hmodel.schema import (
    Durability,
    ExplicitSplits,
    Family,
    HexSplits,
    NumRegions,
    SaltSplits,
    Table,
)

MIB = 1024 * 1024


class ListPolicy:
    """A third-party split policy: anything with points() (the SplitPolicy protocol)."""

    def __init__(self, points: Any) -> None:
        self._points = points

    def points(self) -> Any:
        return self._points


class FailingPolicy:
    """A policy whose computation refuses its own input."""

    def points(self) -> list[bytes]:
        raise SchemaError("bucket count out of range", value=0)


def test_defaults() -> None:
    """A table has the default namespace, no split points and HBase's table defaults."""
    table = Table("user", [Family("i")])
    assert table.full_name == "user"
    assert table.namespace is None
    assert (table.splits, table.split_policy) == ((), None)
    assert (table.read_only, table.durability) == (False, Durability.USE_DEFAULT)
    assert (table.max_filesize, table.memstore_flushsize) == (None, None)


def test_full_name_includes_the_namespace() -> None:
    """full_name is namespace:name."""
    assert Table("order", [Family("o")], namespace="shop").full_name == "shop:order"


def test_families_from_any_iterable_and_lookup_by_name() -> None:
    """Families are kept in order as a tuple; family(name) finds one."""
    o, c = Family("o"), Family("c")
    table = Table("order", iter([o, c]))
    assert table.families == (o, c)
    assert table.family("c") is c


def test_missing_family_lookup_names_table_and_family() -> None:
    """family() of an unknown name raises SchemaError with table and column context."""
    table = Table("order", [Family("o")], namespace="shop")
    with pytest.raises(SchemaError, match="no column family 'x'") as caught:
        table.family("x")
    assert (caught.value.table, caught.value.column) == ("shop:order", "x")


def test_every_table_option_is_kept() -> None:
    """The F4 options given are stored; durability also by name."""
    table = Table(
        "log",
        [Family("d")],
        read_only=True,
        durability="async_wal",
        max_filesize=10 * 1024**3,
        memstore_flushsize=128 * MIB,
    )
    assert table.read_only is True
    assert table.durability is Durability.ASYNC_WAL
    assert (table.max_filesize, table.memstore_flushsize) == (10 * 1024**3, 128 * MIB)


def test_list_of_bytes_becomes_explicit_splits() -> None:
    """Plain split points are kept as points and as an ExplicitSplits policy."""
    table = Table("t", [Family("d")], splits=[b"g", b"p"])
    assert table.splits == (b"g", b"p")
    assert table.split_policy == ExplicitSplits([b"g", b"p"])
    assert table == Table("t", [Family("d")], splits=ExplicitSplits([b"g", b"p"]))


def test_empty_split_list_means_no_splits() -> None:
    """splits=[] is the same declaration as no splits."""
    assert Table("t", [Family("d")], splits=[]) == Table("t", [Family("d")])


def test_split_policy_is_kept_and_computed() -> None:
    """A policy is kept (for DDL) and its points computed once (K11)."""
    table = Table("t", [Family("d")], splits=SaltSplits(4))
    assert table.split_policy == SaltSplits(4)
    assert table.splits == (b"\x01", b"\x02", b"\x03")
    assert Table("t", [Family("d")], splits=NumRegions(10)).splits == tuple(NumRegions(10).points())


def test_third_party_policy_is_accepted() -> None:
    """Any object with points() works as a split policy."""
    assert Table("t", [Family("d")], splits=ListPolicy([b"a", b"b"])).splits == (b"a", b"b")


def test_with_families_and_evolve_keep_everything_else() -> None:
    """with_families swaps the families only; the split policy survives (F5)."""
    table = Table("t", [Family("d")], namespace="ns", splits=HexSplits(4), read_only=True)
    changed = table.with_families([Family("d", versions=3), Family("e")])
    assert [f.name for f in changed.families] == ["d", "e"]
    assert (changed.split_policy, changed.splits) == (table.split_policy, table.splits)
    assert (changed.namespace, changed.read_only) == ("ns", True)
    assert attrs.evolve(table, durability="SKIP_WAL").durability is Durability.SKIP_WAL


def test_many_families_allowed_when_asked() -> None:
    """More than 3 families is allowed with allow_many_families=True (F1)."""
    families = [Family(name) for name in "abcd"]
    assert len(Table("wide", families, allow_many_families=True).families) == 4


@pytest.mark.parametrize("name", ["t", "order_2024", "a.b", "a-b", "_x", "0", "x" * 200])
def test_legal_table_names(name: str) -> None:
    """Table names are letters, digits, _ - . not starting with . or -."""
    assert Table(name, [Family("d")]).name == name


@pytest.mark.parametrize("name", ["", ".t", "-t", "a:b", "a b", "a/b", "日本", "zookeeper"])
def test_illegal_table_names(name: str) -> None:
    """Any other table name is refused, naming it."""
    with pytest.raises(SchemaError, match="invalid table name") as caught:
        Table(name, [Family("d")])
    assert caught.value.value == name


@pytest.mark.parametrize("namespace", ["", "a.b", "a-b", "a:b", ".x", "zookeeper", "名"])
def test_illegal_namespaces(namespace: str) -> None:
    """Namespaces are letters, digits and _ only."""
    with pytest.raises(SchemaError, match="invalid namespace") as caught:
        Table("t", [Family("d")], namespace=namespace)
    assert caught.value.value == namespace


BAD: list[tuple[dict[str, Any], str]] = [
    ({"families": []}, "at least one column family"),
    ({"families": ["d"]}, "must be Family declarations"),
    ({"families": [Family("d"), Family("d")]}, "duplicate column family 'd'"),
    ({"families": [Family(n) for n in "abcd"]}, "more than 3 column families"),
    ({"families": [Family("d")], "allow_many_families": 1}, "allow_many_families must be a bool"),
    ({"families": [Family("d")], "splits": [b"b", b"a"]}, "strictly increasing"),
    ({"families": [Family("d")], "splits": [b"a", b"a"]}, "strictly increasing"),
    ({"families": [Family("d")], "splits": [b""]}, "non-empty bytes"),
    ({"families": [Family("d")], "splits": ["a"]}, "non-empty bytes"),
    ({"families": [Family("d")], "splits": b"ab"}, "not a single value"),
    ({"families": [Family("d")], "splits": "ab"}, "not a single value"),
    ({"families": [Family("d")], "splits": ListPolicy([b"b", b"a"])}, "strictly increasing"),
    ({"families": [Family("d")], "splits": ListPolicy((b"a",))}, "must return a list"),
    ({"families": [Family("d")], "splits": FailingPolicy()}, "bucket count out of range"),
    ({"families": [Family("d")], "read_only": "yes"}, "READONLY must be a bool"),
    ({"families": [Family("d")], "durability": "SOMETIMES"}, "DURABILITY must be one of"),
    ({"families": [Family("d")], "durability": 1}, "DURABILITY must be one of"),
    ({"families": [Family("d")], "max_filesize": MIB}, "MAX_FILESIZE must be between 2097152"),
    ({"families": [Family("d")], "max_filesize": 2**63}, "MAX_FILESIZE must be between"),
    ({"families": [Family("d")], "max_filesize": "10G"}, "MAX_FILESIZE must be an integer"),
    ({"families": [Family("d")], "max_filesize": True}, "MAX_FILESIZE must be an integer"),
    ({"families": [Family("d")], "memstore_flushsize": 1000}, "MEMSTORE_FLUSHSIZE must be"),
    ({"families": [Family("d")], "memstore_flushsize": 1.0}, "MEMSTORE_FLUSHSIZE must be an"),
]


@pytest.mark.parametrize(("arguments", "message"), BAD)
def test_bad_declarations_are_refused_naming_the_table(
    arguments: dict[str, Any], message: str
) -> None:
    """Every bad family list, split list or option raises SchemaError with the table."""
    with pytest.raises(SchemaError, match=message) as caught:
        Table("order", namespace="shop", **arguments)
    assert caught.value.table == "shop:order"
    assert "table='shop:order'" in str(caught.value)


def test_smallest_accepted_sizes() -> None:
    """HBase's sanity-check floors are accepted exactly: 2 MiB and 1 MiB."""
    table = Table("t", [Family("d")], max_filesize=2 * MIB, memstore_flushsize=MIB)
    assert (table.max_filesize, table.memstore_flushsize) == (2 * MIB, MIB)


def test_tables_are_frozen_values() -> None:
    """Tables compare by value and cannot be changed."""
    assert Table("t", [Family("d")], splits=[b"a"]) == Table("t", [Family("d")], splits=[b"a"])
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        Table("t", [Family("d")]).name = "u"  # type: ignore[misc]


def test_without_splits_keeps_everything_but_the_split_points() -> None:
    table = Table("t", [Family("a", versions=3)], namespace="ns", splits=[b"m"], read_only=True)
    plain = table.without_splits()
    assert plain.splits == ()
    assert (plain.full_name, plain.families, plain.read_only) == ("ns:t", table.families, True)
