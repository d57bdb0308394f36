"""HBase shell DDL: canonical create statements and F5 alterations (F3, F4, F5, K11)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.errors import SchemaError
from hmodel.schema import (
    Family,
    HexSplits,
    NumRegions,
    SaltSplits,
    Table,
    UniformSplits,
    alter_statements,
    binary_literal,
    create_statement,
    splits_file,
)

GIB = 1024**3
MIB = 1024**2

# --- the seed 000 e-commerce tables -----------------------------------------------------------

CUSTOMER = Table("customer", [Family("c", compression="GZ", data_block_encoding="PREFIX")])
GOODS = Table(
    "goods",
    [Family("g", versions=10, compression="GZ", data_block_encoding="PREFIX", in_memory=True)],
    splits=NumRegions(10),
)
ORDER = Table("order", [Family("o"), Family("c")], splits=NumRegions(10))
CUSTOMER_ORDER = Table("customer_order", [Family("g")])


@pytest.mark.parametrize(
    ("table", "statement"),
    [
        (
            CUSTOMER,
            "create 'customer', "
            "{NAME => 'c', COMPRESSION => 'GZ', DATA_BLOCK_ENCODING => 'PREFIX'}",
        ),
        (
            GOODS,
            "create 'goods', {NAME => 'g', VERSIONS => 10, COMPRESSION => 'GZ', "
            "DATA_BLOCK_ENCODING => 'PREFIX', IN_MEMORY => 'true'}, "
            "{NUMREGIONS => 10, SPLITALGO => 'HexStringSplit'}",
        ),
        (
            ORDER,
            "create 'order', {NAME => 'o'}, {NAME => 'c'}, "
            "{NUMREGIONS => 10, SPLITALGO => 'HexStringSplit'}",
        ),
        (CUSTOMER_ORDER, "create 'customer_order', {NAME => 'g'}"),
    ],
)
def test_ecommerce_tables_golden(table: Table, statement: str) -> None:
    """The seed 000 e-commerce tables render to these exact statements."""
    assert create_statement(table) == statement


# --- families ---------------------------------------------------------------------------------


def test_default_family_is_just_its_name() -> None:
    """Only non-default options are rendered: Family("d") is {NAME => 'd'}."""
    assert create_statement(Table("t", [Family("d")])) == "create 't', {NAME => 'd'}"


def test_every_family_option_in_f3_order() -> None:
    """All options, in the documented order; ints bare, booleans and enums quoted."""
    family = Family(
        "f",
        versions=3,
        min_versions=1,
        ttl=86_400,
        keep_deleted_cells=True,
        compression="SNAPPY",
        data_block_encoding="FAST_DIFF",
        bloom_filter="ROWCOL",
        block_size=131_072,
        block_cache=False,
        in_memory=True,
        replication_scope=1,
    )
    assert create_statement(Table("t", [family])) == (
        "create 't', {NAME => 'f', VERSIONS => 3, MIN_VERSIONS => 1, TTL => 86400, "
        "COMPRESSION => 'SNAPPY', DATA_BLOCK_ENCODING => 'FAST_DIFF', BLOOMFILTER => 'ROWCOL', "
        "BLOCKSIZE => 131072, BLOCKCACHE => 'false', IN_MEMORY => 'true', "
        "KEEP_DELETED_CELLS => 'true', REPLICATION_SCOPE => 1}"
    )


def test_keep_deleted_cells_ttl_is_rendered_quoted() -> None:
    """KEEP_DELETED_CELLS => 'TTL', as the shell takes it (F9)."""
    family = Family("d", ttl=60, keep_deleted_cells="TTL")
    assert create_statement(Table("t", [family])) == (
        "create 't', {NAME => 'd', TTL => 60, KEEP_DELETED_CELLS => 'TTL'}"
    )


def test_bloom_filter_none_is_rendered_because_row_is_the_default() -> None:
    """HBase's default bloom filter is ROW, so NONE must be said."""
    assert create_statement(Table("t", [Family("d", bloom_filter="NONE")])) == (
        "create 't', {NAME => 'd', BLOOMFILTER => 'NONE'}"
    )


def test_row_prefix_bloom_filter_renders_its_configuration() -> None:
    """ROWPREFIX_FIXED_LENGTH carries RowPrefixBloomFilter.prefix_length."""
    family = Family("d", bloom_filter="ROWPREFIX_FIXED_LENGTH", bloom_prefix_length=8)
    assert create_statement(Table("t", [family])) == (
        "create 't', {NAME => 'd', BLOOMFILTER => 'ROWPREFIX_FIXED_LENGTH', "
        "CONFIGURATION => {'RowPrefixBloomFilter.prefix_length' => '8'}}"
    )


def test_names_are_ruby_single_quoted() -> None:
    """A quote in a family name is escaped for Ruby; namespaces prefix the table name."""
    table = Table("t", [Family("it's")], namespace="ns")
    assert create_statement(table) == "create 'ns:t', {NAME => 'it\\'s'}"


# --- table options and splits ----------------------------------------------------------------


def test_table_options_in_f4_order() -> None:
    """READONLY, DURABILITY, MAX_FILESIZE, MEMSTORE_FLUSHSIZE go in the final hash."""
    table = Table(
        "t",
        [Family("d")],
        read_only=True,
        durability="ASYNC_WAL",
        max_filesize=10 * GIB,
        memstore_flushsize=128 * MIB,
    )
    assert create_statement(table) == (
        "create 't', {NAME => 'd'}, {READONLY => 'true', DURABILITY => 'ASYNC_WAL', "
        "MAX_FILESIZE => 10737418240, MEMSTORE_FLUSHSIZE => 134217728}"
    )


def test_default_durability_is_not_rendered_but_sync_wal_is() -> None:
    """USE_DEFAULT is the default; every other durability is said."""
    assert create_statement(Table("t", [Family("d")], durability="USE_DEFAULT")).count("{") == 1
    assert create_statement(Table("t", [Family("d")], durability="SYNC_WAL")).endswith(
        "{DURABILITY => 'SYNC_WAL'}"
    )


def test_splits_come_first_in_the_table_hash() -> None:
    """SPLITS precede the table options in one hash."""
    table = Table("t", [Family("d")], splits=[b"1", b"2"], read_only=True)
    assert create_statement(table) == (
        "create 't', {NAME => 'd'}, {SPLITS => ['1', '2'], READONLY => 'true'}"
    )


def test_hex_split_table() -> None:
    """HexSplits render as their printable points (K11)."""
    table = Table("user", [Family("i")], splits=HexSplits(4))
    assert create_statement(table) == (
        "create 'user', {NAME => 'i'}, {SPLITS => ['3fffffff', '7ffffffe', 'bffffffd']}"
    )


def test_salted_table_splits_are_escaped_bytes() -> None:
    """Salt buckets render as \\xNN inside single quotes (K3)."""
    table = Table("event", [Family("e")], splits=SaltSplits(4))
    assert create_statement(table) == (
        "create 'event', {NAME => 'e'}, {SPLITS => ['\\x01', '\\x02', '\\x03']}"
    )


def test_uniform_split_algorithm_and_points() -> None:
    """NumRegions renders NUMREGIONS/SPLITALGO; UniformSplits renders its points."""
    assert create_statement(Table("t", [Family("d")], splits=NumRegions(4, "UniformSplit"))) == (
        "create 't', {NAME => 'd'}, {NUMREGIONS => 4, SPLITALGO => 'UniformSplit'}"
    )
    assert create_statement(Table("t", [Family("d")], splits=UniformSplits(2))) == (
        "create 't', {NAME => 'd'}, {SPLITS => ['\\x80\\x00\\x00\\x00\\x00\\x00\\x00\\x00']}"
    )


@pytest.mark.parametrize(
    ("key", "literal"),
    [
        (b"abc", "'abc'"),
        (b"\x00\x7f\x80\xff", "'\\x00\\x7F\\x80\\xFF'"),
        (b"it's", "'it\\'s'"),
        (b"a\\b", "'a\\x5Cb'"),
        (b'say "x" #{1}', "'say \"x\" #{1}'"),
        (b" ~", "' ~'"),
    ],
)
def test_binary_literal(key: bytes, literal: str) -> None:
    """Bytes.toStringBinary form in Ruby single quotes; \\ always escaped as \\x5C."""
    assert binary_literal(key) == literal


def ruby_single_quoted(literal: str) -> str:
    """What Ruby makes of a single-quoted literal: only \\\\ and \\' are escapes."""
    assert literal[0] == literal[-1] == "'"
    body, out, i = literal[1:-1], [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body) and body[i + 1] in "\\'":
            out.append(body[i + 1])
            i += 2
        else:
            assert body[i] != "'", "unescaped quote ends the Ruby string early"
            out.append(body[i])
            i += 1
    return "".join(out)


def to_bytes_binary(text: str) -> bytes:
    """HBase's Bytes.toBytesBinary: \\xNN is a byte, any other char its low byte."""
    out, i = bytearray(), 0
    while i < len(text):
        if text[i] == "\\" and text[i + 1 : i + 2] == "x":
            out.append(int(text[i + 2 : i + 4], 16))
            i += 4
        else:
            out.append(ord(text[i]) & 0xFF)
            i += 1
    return bytes(out)


@given(st.binary(min_size=1, max_size=40))
def test_binary_literal_round_trips_through_ruby_and_to_bytes_binary(key: bytes) -> None:
    """The shell reads every split point back to the same bytes."""
    literal = binary_literal(key)
    assert literal.isascii()
    assert to_bytes_binary(ruby_single_quoted(literal)) == key


def test_splits_file_has_one_point_per_line() -> None:
    """SPLITS_FILE text: toStringBinary lines, no Ruby quoting."""
    table = Table("t", [Family("d")], splits=[b"\x01", b"\\", b"a'b"])
    assert splits_file(table) == "\\x01\n\\x5C\na'b\n"
    assert splits_file(Table("t", [Family("d")])) == ""


# --- alter (F5) --------------------------------------------------------------------------------


def test_no_change_no_statements() -> None:
    """Identical declarations need nothing, not even disable/enable."""
    assert alter_statements(GOODS, GOODS) == []
    many = Table("t", [Family("d")])
    assert alter_statements(many, Table("t", [Family("d")], allow_many_families=True)) == []


def test_add_family() -> None:
    """A new family is added with its non-default options between disable and enable."""
    new = ORDER.with_families([*ORDER.families, Family("x", versions=3)])
    assert alter_statements(ORDER, new) == [
        "disable 'order'",
        "alter 'order', {NAME => 'x', VERSIONS => 3}",
        "enable 'order'",
    ]


def test_modify_family_names_exactly_the_changed_options() -> None:
    """Changed options are written out, defaults included; unchanged ones are not."""
    new = CUSTOMER.with_families([Family("c", data_block_encoding="PREFIX", versions=2)])
    assert alter_statements(CUSTOMER, new) == [
        "disable 'customer'",
        "alter 'customer', {NAME => 'c', VERSIONS => 2, COMPRESSION => 'NONE'}",
        "enable 'customer'",
    ]


def test_delete_family_comes_first() -> None:
    """Deletions precede additions; families are then handled in declaration order."""
    new = ORDER.with_families([Family("o", ttl=3600), Family("n")])
    assert alter_statements(ORDER, new) == [
        "disable 'order'",
        "alter 'order', {NAME => 'c', METHOD => 'delete'}",
        "alter 'order', {NAME => 'o', TTL => 3600}",
        "alter 'order', {NAME => 'n'}",
        "enable 'order'",
    ]


def test_table_options_set_and_unset() -> None:
    """Set options go in one hash; options back to None are unset one by one."""
    old = Table("t", [Family("d")], namespace="ns", max_filesize=10 * GIB, memstore_flushsize=MIB)
    new = Table("t", [Family("d")], namespace="ns", read_only=True, durability="SKIP_WAL")
    assert alter_statements(old, new) == [
        "disable 'ns:t'",
        "alter 'ns:t', {READONLY => 'true', DURABILITY => 'SKIP_WAL'}",
        "alter 'ns:t', {METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'}",
        "alter 'ns:t', {METHOD => 'table_att_unset', NAME => 'MEMSTORE_FLUSHSIZE'}",
        "enable 'ns:t'",
    ]


def test_table_options_back_to_defaults_are_written() -> None:
    """READONLY false and DURABILITY USE_DEFAULT are said explicitly when they change."""
    old = Table("t", [Family("d")], read_only=True, durability="ASYNC_WAL")
    assert alter_statements(old, Table("t", [Family("d")]))[1] == (
        "alter 't', {READONLY => 'false', DURABILITY => 'USE_DEFAULT'}"
    )


def test_bloom_prefix_removed_sets_configuration_to_nil() -> None:
    """Dropping the prefix bloom filter also removes its configuration key."""
    old = Table("t", [Family("d", bloom_filter="ROWPREFIX_FIXED_LENGTH", bloom_prefix_length=4)])
    assert alter_statements(old, Table("t", [Family("d")]))[1] == (
        "alter 't', {NAME => 'd', BLOOMFILTER => 'ROW', "
        "CONFIGURATION => {'RowPrefixBloomFilter.prefix_length' => nil}}"
    )


def test_same_points_from_another_policy_is_no_change() -> None:
    """Only the split points matter to alter: NumRegions vs its explicit points is equal."""
    explicit = Table("order", ORDER.families, splits=list(ORDER.splits))
    assert alter_statements(ORDER, explicit) == []


def test_alter_refuses_another_table() -> None:
    """old and new must be the same table (namespace included)."""
    with pytest.raises(SchemaError, match="into another table") as caught:
        alter_statements(ORDER, Table("order", ORDER.families, namespace="ns"))
    assert caught.value.table == "order"


def test_alter_refuses_changed_split_points() -> None:
    """Split points are fixed at creation; alter cannot change them (K11)."""
    with pytest.raises(SchemaError, match="split points are fixed"):
        alter_statements(ORDER, Table("order", ORDER.families, splits=NumRegions(5)))
