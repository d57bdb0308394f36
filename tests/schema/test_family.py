"""Family declarations: HBase's defaults, every option checked at declaration (F2, F3, F7-F9)."""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import pytest

from hmodel.errors import SchemaError
from hmodel.schema import (
    FOREVER,
    BloomFilter,
    Compression,
    DataBlockEncoding,
    Family,
    SchemaWarning,
)


def test_defaults_are_hbase_defaults() -> None:
    """A bare family has HBase 2's defaults (F3)."""
    family = Family("d")
    assert (family.versions, family.min_versions, family.ttl) == (1, 0, FOREVER)
    assert family.compression is Compression.NONE
    assert family.data_block_encoding is DataBlockEncoding.NONE
    assert family.bloom_filter is BloomFilter.ROW
    assert (family.block_size, family.block_cache, family.in_memory) == (65_536, True, False)
    assert (family.keep_deleted_cells, family.replication_scope) == (False, 0)
    assert family.bloom_prefix_length is None


def test_every_option_is_kept() -> None:
    """Each F3 option given is stored as given."""
    family = Family(
        "g",
        versions=10,
        min_versions=2,
        ttl=86_400,
        keep_deleted_cells=True,
        compression=Compression.GZ,
        data_block_encoding=DataBlockEncoding.PREFIX,
        bloom_filter=BloomFilter.ROWCOL,
        block_size=131_072,
        block_cache=False,
        in_memory=True,
        replication_scope=1,
    )
    assert attrs.asdict(family) == {
        "name": "g",
        "versions": 10,
        "min_versions": 2,
        "ttl": 86_400,
        "keep_deleted_cells": True,
        "compression": Compression.GZ,
        "data_block_encoding": DataBlockEncoding.PREFIX,
        "bloom_filter": BloomFilter.ROWCOL,
        "block_size": 131_072,
        "block_cache": False,
        "in_memory": True,
        "replication_scope": 1,
        "bloom_prefix_length": None,
    }


def test_enum_options_accept_names_in_any_case() -> None:
    """Enum options take the enum's name as a string, case-insensitively (as the shell)."""
    family = Family("d", compression="gz", data_block_encoding="fast_diff", bloom_filter="NONE")
    assert family.compression is Compression.GZ
    assert family.data_block_encoding is DataBlockEncoding.FAST_DIFF
    assert family.bloom_filter is BloomFilter.NONE


def test_row_prefix_bloom_filter_keeps_its_prefix_length() -> None:
    """ROWPREFIX_FIXED_LENGTH carries the prefix length HBase needs in its configuration."""
    family = Family("d", bloom_filter="ROWPREFIX_FIXED_LENGTH", bloom_prefix_length=8)
    assert family.bloom_prefix_length == 8


def test_families_are_values() -> None:
    """Equal declarations are equal and hashable; evolve re-validates."""
    assert Family("d", versions=3) == Family("d", versions=3)
    assert len({Family("d"), Family("d")}) == 1
    assert attrs.evolve(Family("d"), versions=4).versions == 4
    with pytest.raises(SchemaError, match="VERSIONS"):
        attrs.evolve(Family("d"), versions=0)


def test_family_is_frozen() -> None:
    """A declaration cannot be changed after the fact."""
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        Family("d").versions = 2  # type: ignore[misc]


def test_has_ttl_and_name_bytes() -> None:
    """has_ttl is False only for FOREVER; name_bytes is the UTF-8 name (F8)."""
    assert not Family("d").has_ttl
    assert Family("d", ttl=60).has_ttl
    assert not Family("d", ttl=FOREVER).has_ttl
    assert Family("d").name_bytes == b"d"


@pytest.mark.parametrize(
    "name", ["d", "info", "a-b", "-x", "_x", "x.y", "1", "日本", "a b", "x" * 127]
)
def test_legal_family_names(name: str) -> None:
    """HBase's family name rule is permissive: anything but the few forbidden characters."""
    assert Family(name).name == name


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "non-empty"),
        (".d", "start with '.'"),
        ("a:b", "':'"),
        ("a/b", "':'"),
        ("a\\b", "':'"),
        ("a\tb", "control"),
        ("a\x7fb", "control"),
        ("recovered.edits", "reserved"),
        ("x" * 128, "127 bytes"),
        ("é" * 64, "127 bytes"),
    ],
)
def test_illegal_family_names(name: str, why: str) -> None:
    """A name HBase refuses is refused at declaration, naming the family."""
    with pytest.raises(SchemaError, match=why) as caught:
        Family(name)
    assert caught.value.value == name


def test_non_string_name_is_refused() -> None:
    """A family name must be a str."""
    with pytest.raises(SchemaError, match="non-empty string"):
        Family(b"d")  # type: ignore[arg-type]


BAD_OPTIONS: list[tuple[dict[str, Any], str]] = [
    ({"versions": 0}, "VERSIONS must be between 1"),
    ({"versions": -1}, "VERSIONS must be between 1"),
    ({"versions": 2**31}, "VERSIONS must be between 1"),
    ({"versions": "3"}, "VERSIONS must be an integer"),
    ({"versions": 3.0}, "VERSIONS must be an integer"),
    ({"versions": True}, "VERSIONS must be an integer"),
    ({"min_versions": -1}, "MIN_VERSIONS must be between 0"),
    ({"min_versions": "1"}, "MIN_VERSIONS must be an integer"),
    ({"versions": 2, "min_versions": 3, "ttl": 60}, "MIN_VERSIONS must not exceed VERSIONS"),
    ({"ttl": 0}, "TTL must be between 1"),
    ({"ttl": -5}, "TTL must be between 1"),
    ({"ttl": FOREVER + 1}, "TTL must be between 1"),
    ({"ttl": 1.5}, "TTL must be an integer"),
    ({"keep_deleted_cells": "true"}, "KEEP_DELETED_CELLS must be a bool or 'TTL'"),
    ({"keep_deleted_cells": 1}, "KEEP_DELETED_CELLS must be a bool or 'TTL'"),
    ({"compression": "XX"}, "COMPRESSION must be one of NONE, GZ"),
    ({"compression": 1}, "COMPRESSION must be one of"),
    ({"data_block_encoding": "ZIP"}, "DATA_BLOCK_ENCODING must be one of NONE, PREFIX"),
    ({"bloom_filter": "COL"}, "BLOOMFILTER must be one of NONE, ROW"),
    ({"bloom_filter": Compression.GZ}, "BLOOMFILTER must be one of"),
    ({"block_size": 1023}, "BLOCKSIZE must be between 1024"),
    ({"block_size": 16 * 1024 * 1024 + 1}, "BLOCKSIZE must be between 1024 and 16777216"),
    ({"block_size": "64K"}, "BLOCKSIZE must be an integer"),
    ({"block_cache": None}, "BLOCKCACHE must be a bool"),
    ({"in_memory": "false"}, "IN_MEMORY must be a bool"),
    ({"replication_scope": 2}, "REPLICATION_SCOPE must be between 0 and 1"),
    ({"replication_scope": -1}, "REPLICATION_SCOPE must be between 0 and 1"),
    ({"bloom_filter": "ROWPREFIX_FIXED_LENGTH"}, "needs bloom_prefix_length"),
    (
        {"bloom_filter": "ROWPREFIX_FIXED_LENGTH", "bloom_prefix_length": 0},
        "bloom_prefix_length must be between 1",
    ),
    ({"bloom_prefix_length": 4}, "only for BLOOMFILTER ROWPREFIX_FIXED_LENGTH"),
]


@pytest.mark.parametrize(("options", "message"), BAD_OPTIONS)
def test_bad_options_are_refused_naming_option_and_family(
    options: dict[str, Any], message: str
) -> None:
    """Every out-of-range or mistyped option raises SchemaError with the option and family."""
    with pytest.raises(SchemaError, match=message) as caught:
        Family("fam", **options)
    assert caught.value.column == "fam"
    assert "column='fam'" in str(caught.value)


def test_bad_option_error_carries_the_value() -> None:
    """The offending value is the error's value (the old enum converter raised ValueError)."""
    with pytest.raises(SchemaError) as caught:
        Family("d", compression="XX")
    assert caught.value.value == "XX"
    assert not isinstance(caught.value, ValueError)


def test_min_versions_without_ttl_warns() -> None:
    """MIN_VERSIONS without a TTL is legal in HBase but does nothing: a SchemaWarning (F7)."""
    with pytest.warns(SchemaWarning, match="MIN_VERSIONS without a TTL") as record:
        Family("d", versions=3, min_versions=1)
    assert record[0].filename == __file__


def test_min_versions_with_ttl_is_silent() -> None:
    """MIN_VERSIONS together with a TTL is the intended use (F7): no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        family = Family("d", versions=3, min_versions=1, ttl=3600)
    assert family.min_versions == 1


@pytest.mark.parametrize("given", ["TTL", "ttl", "Ttl"])
def test_keep_deleted_cells_takes_ttl_in_any_case(given: str) -> None:
    """KEEP_DELETED_CELLS => TTL (F9): the string in any case, kept as ``"TTL"``."""
    assert Family("f", ttl=60, keep_deleted_cells=given).keep_deleted_cells == "TTL"  # type: ignore[arg-type]
