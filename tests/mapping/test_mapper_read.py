"""Rows back into instances: codecs per column, defaults, maps, counters, errors (F6, F10)."""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

import pytest

from hmodel import Family, Key, Str, Table, field, model
from hmodel.backend.base import Cell, RowResult
from hmodel.codecs import DateTime, DecimalCodec, Long
from hmodel.errors import DecodeError, KeyDecodeError, NotFoundError
from hmodel.mapping import mapper_for

from .rows import row_after
from .sample import Order, User

ROW = b"u1\x00\x00"
ORDER_ROW = b"o1\x00\x00"
PLACED = datetime(2024, 1, 1, tzinfo=timezone.utc)


def order_cells(**extra: bytes) -> dict[bytes, Cell]:
    cells = {
        b"o:s": Cell(b"paid", 3),
        b"o:t": Cell(DecimalCodec().encode(Decimal("12.50")), 3),
        b"o:p": Cell(DateTime(unit="ms").encode(PLACED), 3),
    }
    cells.update({column.encode(): Cell(value, 3) for column, value in extra.items()})
    return cells


def test_a_saved_microblog_user_reads_back_equal() -> None:
    user = User(user_id="u1", nickname="bob", address="Beijing", fans={"u2": "mutual", "u3": "x"})
    mapper = mapper_for(User)

    assert mapper.from_row(row_after(mapper.to_mutations(user, timestamp=10))) == user


def test_absent_optional_columns_read_as_none_and_an_absent_map_as_empty() -> None:
    user = mapper_for(User).from_row(RowResult(ROW, {b"i:n": Cell(b"bob", 1)}))

    assert user == User(user_id="u1", nickname="bob")
    assert user.gender is None
    assert user.fans == {}


def test_counters_and_the_version_read_as_8_byte_longs() -> None:
    row = RowResult(ORDER_ROW, order_cells(**{"o:v": Long().encode(41), "o:_v": Long().encode(2)}))

    stored = mapper_for(Order).from_row(row)

    assert (stored.views, stored.version) == (41, 2)


def test_absent_counters_and_version_read_as_zero() -> None:
    stored = mapper_for(Order).from_row(RowResult(ORDER_ROW, order_cells()))

    assert (stored.views, stored.version) == (0, 0)


def test_a_prefixed_map_gathers_only_its_prefix_of_the_family() -> None:
    row = RowResult(
        ORDER_ROW, order_cells(**{"o:l_a": Long().encode(1), "o:l_b": Long().encode(5)})
    )

    assert mapper_for(Order).from_row(row).lines == {"a": 1, "b": 5}


def test_columns_no_field_uses_are_ignored() -> None:
    row = RowResult(ROW, {b"i:n": Cell(b"bob", 1), b"i:zz": Cell(b"\xff", 1)})

    assert mapper_for(User).from_row(row) == User(user_id="u1", nickname="bob")


def test_a_corrupt_cell_raises_a_decode_error_naming_column_and_field() -> None:
    row = RowResult(ROW, {b"i:n": Cell(b"\xff\xfe", 1)})

    with pytest.raises(DecodeError, match="'nickname'") as caught:
        mapper_for(User).from_row(row)
    assert (caught.value.column, caught.value.field, caught.value.row) == (b"i:n", "nickname", ROW)
    assert caught.value.value == b"\xff\xfe"


def test_a_corrupt_map_value_raises_naming_the_entry_column() -> None:
    row = RowResult(ROW, {b"i:n": Cell(b"bob", 1), b"f:u2": Cell(b"\xff", 1)})

    with pytest.raises(DecodeError, match="map value") as caught:
        mapper_for(User).from_row(row)
    assert (caught.value.column, caught.value.field) == (b"f:u2", "fans")


def test_a_counter_that_is_not_8_bytes_raises_naming_the_column() -> None:
    row = RowResult(ORDER_ROW, order_cells(**{"o:v": b"\x01\x02"}))

    with pytest.raises(DecodeError) as caught:
        mapper_for(Order).from_row(row)
    assert (caught.value.column, caught.value.field) == (b"o:v", "views")


def test_a_missing_required_column_raises_naming_the_column() -> None:
    with pytest.raises(DecodeError, match="required field 'nickname'") as caught:
        mapper_for(User).from_row(RowResult(ROW, {b"i:g": Cell(b"f", 1)}))
    assert caught.value.column == b"i:n"


def test_a_rowkey_of_another_shape_raises_a_key_decode_error() -> None:
    with pytest.raises(KeyDecodeError):
        mapper_for(User).from_row(RowResult(b"u1", {b"i:n": Cell(b"bob", 1)}))


def test_decode_cell_reads_one_version_of_a_history_field() -> None:
    """F7: the repository reads older versions of ``status`` and decodes each."""
    assert mapper_for(Order).decode_cell("status", b"shipped") == "shipped"


@model(Table("docs", [Family("d")]), key=Key(Str("name")))
class Doc:
    """A document field of each kind, with the default codecs."""

    name: str
    attrs: dict[str, Any] = field("d:a", factory=dict)
    tags: list[str] = field("d:t", factory=list)


def test_a_stored_json_list_in_a_dict_field_is_a_decode_error_naming_the_field() -> None:
    """A ``dict[str, Any]`` field never reads back a list: a typed error, not a wrong value."""
    mapper = mapper_for(Doc)
    row = mapper.to_mutations(Doc(name="x"), timestamp=1)[0].row
    with pytest.raises(DecodeError, match="JSON object") as caught:
        mapper.from_row(RowResult(row, {b"d:a": Cell(b"[1, 2]", 1)}))
    assert (caught.value.field, caught.value.column) == ("attrs", b"d:a")
    with pytest.raises(DecodeError, match="JSON array") as listed:
        mapper.from_row(RowResult(row, {b"d:t": Cell(b'{"a": 1}', 1)}))
    assert listed.value.field == "tags"
    good = {b"d:a": Cell(b'{"k":[1]}', 1), b"d:t": Cell(b'["a"]', 1)}
    assert mapper.from_row(RowResult(row, good)) == Doc(name="x", attrs={"k": [1]}, tags=["a"])


def test_from_row_treats_a_thrift1_locked_deletes_tombstone_as_no_row(backend: Any) -> None:
    """A versioned row deleted (over Thrift1: its version cell left as b"", other cells
    may stay): from_row raises NotFoundError naming the row, ``deleted`` says so first,
    and the repository's load gives None; elsewhere the row is gone whole."""
    from hmodel import Repository

    repository = Repository(Order, backend)
    repository.create_table()
    order = Order(
        order_id="o-del",
        status="new",
        total=Decimal("1.50"),
        placed_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
        lines={},
    )
    saved = repository.save(order)
    repository.delete(saved)
    [result] = backend.get(repository.table, [repository.mapper.rowkey(saved)]) or [None]
    mapper = mapper_for(Order)
    if result is None:  # a check-and-delete removed the row
        assert (
            "check_and_delete" in backend.capabilities or "check_and_mutate" in backend.capabilities
        )
        return
    assert mapper.deleted(result)
    with pytest.raises(NotFoundError, match="deleted over Thrift1") as found:
        mapper.from_row(result)
    assert found.value.row == result.row and found.value.table == repository.table
    assert repository.load(result) is None


def test_deleted_is_false_for_live_rows_and_unversioned_models() -> None:
    """Only a version cell holding exactly b"" is a tombstone."""
    tombstone = RowResult(b"o1", {b"o:_v": Cell(b"", 1), b"o:s": Cell(b"new", 1)})
    assert mapper_for(Order).deleted(tombstone)
    live = RowResult(b"o1", {b"o:_v": Cell(Long().encode(3), 1)})
    assert not mapper_for(Order).deleted(live)
    assert not mapper_for(User).deleted(tombstone)
