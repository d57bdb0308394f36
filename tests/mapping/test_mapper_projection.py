"""What to read for some fields, and field <-> column lookups (F2, F6)."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Cell, RowResult
from hmodel.codecs import Long, Utf8
from hmodel.errors import ValidationError
from hmodel.mapping import mapper_for

from .sample import Order, User


def test_all_columns_of_a_user_are_its_info_columns_and_the_fans_family() -> None:
    assert mapper_for(User).columns() == [b"f", b"i:a", b"i:d", b"i:g", b"i:n"]


def test_a_family_read_whole_for_a_prefixed_map_swallows_its_single_columns() -> None:
    """Asking HBase for ``o`` and ``o:s`` would narrow the family read to ``o:s``."""
    assert mapper_for(Order).columns() == [b"c:c", b"c:g", b"o"]


def test_a_projection_reads_only_the_columns_of_the_named_fields() -> None:
    assert mapper_for(User).columns(["nickname", "address"]) == [b"i:a", b"i:n"]
    assert mapper_for(User).columns(["fans"]) == [b"f"]


def test_key_fields_need_no_column() -> None:
    assert mapper_for(User).columns(["user_id"]) == []


def test_a_projection_of_an_unknown_field_is_rejected() -> None:
    with pytest.raises(ValidationError, match="no field 'nick'"):
        mapper_for(User).columns(["nick"])


def test_a_projection_given_one_string_is_rejected() -> None:
    with pytest.raises(ValidationError, match="collection of names"):
        mapper_for(User).columns("nickname")


def test_decode_fields_returns_the_key_and_the_projected_fields() -> None:
    row = RowResult(b"u1\x00\x00", {b"i:n": Cell(b"bob", 1)})

    values = mapper_for(User).decode_fields(row, ["nickname", "fans"])

    assert values == {"user_id": "u1", "nickname": "bob", "fans": {}}


def test_column_of_gives_the_stored_column_of_a_field() -> None:
    assert mapper_for(User).column_of("nickname") == b"i:n"
    assert mapper_for(Order).column_of("views") == b"o:v"
    assert mapper_for(Order).column_of("version") == b"o:_v"


def test_column_of_refuses_map_and_key_fields() -> None:
    with pytest.raises(ValidationError, match="map_column"):
        mapper_for(User).column_of("fans")
    with pytest.raises(ValidationError, match="lives in the rowkey"):
        mapper_for(User).column_of("user_id")


def test_map_column_gives_the_column_of_one_entry() -> None:
    assert mapper_for(User).map_column("fans", "u2") == b"f:u2"
    assert mapper_for(Order).map_column("lines", "sku1") == b"o:l_sku1"


def test_field_of_maps_columns_back_to_fields() -> None:
    mapper = mapper_for(Order)

    assert mapper.field_of(b"o:s") == "status"
    assert mapper.field_of(b"o:l_sku1") == "lines"
    assert mapper.field_of(b"o:zz") is None
    assert mapper.field_of(b"o") is None  # the family is shared, no field owns it
    assert mapper_for(User).field_of(b"f") == "fans"
    assert mapper_for(User).field_of(b"f:anyone") == "fans"


def test_encode_value_gives_the_expected_bytes_of_a_cell() -> None:
    assert mapper_for(Order).encode_value("version", 3) == (3).to_bytes(8, "big")
    with pytest.raises(ValidationError, match="'version' takes int, not str"):
        mapper_for(Order).encode_value("version", "3")


def test_map_columns_name_single_entries_or_the_whole_family() -> None:
    assert mapper_for(User).map_columns("fans", ["u2", "u3"]) == [b"f:u2", b"f:u3"]
    assert mapper_for(User).map_columns("fans") == [b"f"]
    assert mapper_for(Order).map_columns("lines") == [b"o"]
    with pytest.raises(ValidationError, match="collection"):
        mapper_for(User).map_columns("fans", "u2")


def test_map_entries_keep_only_the_map_s_own_cells_of_a_family() -> None:
    row = RowResult(
        b"o1\x00\x00",
        {b"o:l_a": Cell((4).to_bytes(8, "big"), 1), b"o:s": Cell(b"paid", 1)},
    )

    assert mapper_for(Order).map_entries("lines", row) == {"a": 4}


def test_codec_of_gives_the_codec_of_a_field_and_long_for_counters() -> None:
    assert mapper_for(User).codec_of("nickname") == Utf8()
    assert mapper_for(Order).codec_of("views") == Long()
    with pytest.raises(ValidationError, match="map_column"):
        mapper_for(User).codec_of("fans")
