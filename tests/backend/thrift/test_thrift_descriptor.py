"""Families to and from Thrift1 ColumnDescriptors, and the options Thrift1 cannot carry (F3)."""

from __future__ import annotations

import pytest

from hmodel.backend.thrift.descriptor import (
    ddl_hint,
    family_names,
    from_descriptor,
    to_descriptor,
    uncarried_options,
)
from hmodel.backend.thrift.idl import ColumnDescriptor
from hmodel.errors import BackendError, UnsupportedOperationError
from hmodel.schema import FOREVER, Durability, Family, Table


def test_every_descriptor_field_is_set_from_the_family_not_left_to_idl_defaults() -> None:
    descriptor = to_descriptor(Family("d"))
    # The IDL defaults are maxVersions=3, blockCacheEnabled=false, bloomFilterType=NONE.
    assert descriptor.name == b"d:"
    assert descriptor.maxVersions == 1
    assert descriptor.blockCacheEnabled is True
    assert descriptor.bloomFilterType == "ROW"
    assert descriptor.compression == "NONE"
    assert descriptor.inMemory is False


def test_forever_is_sent_as_minus_one_and_a_ttl_in_seconds() -> None:
    assert to_descriptor(Family("d")).timeToLive == -1
    assert to_descriptor(Family("d", ttl=86_400)).timeToLive == 86_400


def test_a_family_survives_the_round_trip_through_a_descriptor() -> None:
    family = Family(
        "e", versions=5, ttl=3600, compression="GZ", bloom_filter="ROWCOL", in_memory=True,
        block_cache=False,
    )  # fmt: skip
    assert from_descriptor(to_descriptor(family), table="t") == family


def test_descriptors_as_the_server_sends_them_decode_bytes_and_forever() -> None:
    descriptor = ColumnDescriptor(
        name=b"x:", maxVersions=2, compression=b"SNAPPY", bloomFilterType=b"NONE",
        timeToLive=FOREVER, blockCacheEnabled=True,
    )  # fmt: skip
    family = from_descriptor(descriptor, table="t")
    assert (family.name, family.versions, family.ttl) == ("x", 2, FOREVER)
    assert family.compression.value == "SNAPPY" and family.bloom_filter.value == "NONE"


def test_an_unknown_compression_from_the_server_is_a_backend_error_naming_the_family() -> None:
    descriptor = ColumnDescriptor(name=b"x:", maxVersions=1, compression=b"BROTLI9")
    with pytest.raises(BackendError, match="BROTLI9") as info:
        from_descriptor(descriptor, table="t")
    assert info.value.column == "x"


def test_a_row_prefix_bloom_filter_cannot_be_described_over_thrift1() -> None:
    descriptor = ColumnDescriptor(name=b"x:", bloomFilterType=b"ROWPREFIX_FIXED_LENGTH")
    with pytest.raises(UnsupportedOperationError, match="prefix length"):
        from_descriptor(descriptor, table="t")


def test_family_names_are_the_bare_sorted_names() -> None:
    names = family_names([ColumnDescriptor(name=b"g:"), ColumnDescriptor(name=b"f:")])
    assert names == (b"f", b"g")


def test_a_table_of_carriable_options_has_nothing_left_out() -> None:
    table = Table("t", [Family("f", versions=3, ttl=60, compression="GZ", in_memory=True)])
    assert uncarried_options(table) == []


def test_every_option_thrift1_cannot_carry_is_named() -> None:
    table = Table(
        "t",
        [
            Family(
                "f", versions=3, min_versions=1, ttl=60, keep_deleted_cells=True,
                data_block_encoding="FAST_DIFF", block_size=8192, replication_scope=1,
            ),
            Family("g", bloom_filter="ROWPREFIX_FIXED_LENGTH", bloom_prefix_length=4),
        ],
        splits=[b"m"],
        read_only=True,
        durability=Durability.ASYNC_WAL,
        max_filesize=1 << 30,
        memstore_flushsize=1 << 27,
    )  # fmt: skip
    left_out = " | ".join(uncarried_options(table))
    for option in (
        "split points (1", "READONLY", "DURABILITY=ASYNC_WAL", "MAX_FILESIZE", "MEMSTORE_FLUSHSIZE",
        "MIN_VERSIONS=1 of family 'f'", "KEEP_DELETED_CELLS", "DATA_BLOCK_ENCODING=FAST_DIFF",
        "BLOCKSIZE=8192", "REPLICATION_SCOPE=1", "ROWPREFIX_FIXED_LENGTH of family 'g'",
    ):  # fmt: skip
        assert option in left_out


def test_a_row_prefix_bloom_filter_is_sent_as_row() -> None:
    family = Family("g", bloom_filter="ROWPREFIX_FIXED_LENGTH", bloom_prefix_length=4)
    assert to_descriptor(family).bloomFilterType == "ROW"


def test_the_ddl_hint_gives_the_hbase_shell_statement() -> None:
    hint = ddl_hint(Table("t", [Family("f")], splits=[b"m"]))
    assert "HBase shell" in hint
    assert "create 't'" in hint or "create_statement" in hint
