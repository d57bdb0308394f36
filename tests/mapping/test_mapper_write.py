"""Full saves, partial updates and map entries as mutations (F2, F6, F8, F10, K10)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from decimal import Decimal

import pytest

from hmodel.backend.base import Cell, Delete, Put, RowResult
from hmodel.errors import ValidationError
from hmodel.mapping import mapper_for

from .sample import Order, User

TS = 1_700_000_000_000
ROW = b"u1\x00\x00"  # Str("user_id") of "u1": the text, then the 00 00 terminator
YEAR_MS = 365 * 24 * 3600 * 1000


def order(**changes: object) -> Order:
    values: dict[str, object] = {
        "order_id": "o1",
        "status": "paid",
        "total": Decimal("12.50"),
        "placed_at": datetime(2024, 1, 1, tzinfo=timezone.utc),
        "lines": {"sku1": 2},
    }
    values.update(changes)
    return Order(**values)  # type: ignore[arg-type]


def test_save_of_a_microblog_user_writes_short_qualifiers_and_clears_the_fans_family() -> None:
    user = User(user_id="u1", nickname="bob", dob=date(1990, 5, 17), fans={"u2": "mutual"})

    mutations = mapper_for(User).to_mutations(user, timestamp=TS)

    assert mutations == [
        Put(ROW, b"i:n", b"bob", TS),
        Delete(ROW, b"i:g", TS),
        Put(ROW, b"i:d", mapper_for(User).encode_value("dob", date(1990, 5, 17)), TS),
        Delete(ROW, b"i:a", TS),
        Put(ROW, b"f:u2", b"mutual", TS),
        Delete(ROW, b"f", TS - 1),
    ]


def test_none_in_an_optional_field_deletes_older_values_but_not_this_save() -> None:
    mutations = mapper_for(User).to_mutations(User(user_id="u1", nickname="bob"), timestamp=TS)

    assert Delete(ROW, b"i:g", TS) in mutations


def test_model_ttl_is_the_default_cell_ttl_and_ttl_ms_overrides_it() -> None:
    mapper = mapper_for(Order)

    default = mapper.to_mutations(order(), timestamp=TS)
    override = mapper.to_mutations(order(), timestamp=TS, ttl_ms=60_000)

    assert {m.ttl for m in default if isinstance(m, Put)} == {YEAR_MS}
    assert {m.ttl for m in override if isinstance(m, Put)} == {60_000}


def test_a_save_never_writes_counters_or_the_version_field() -> None:
    mutations = mapper_for(Order).to_mutations(order(views=7, version=3), timestamp=TS)

    columns = {m.column for m in mutations}
    assert b"o:v" not in columns
    assert b"o:_v" not in columns


def test_a_prefixed_map_never_deletes_its_shared_family() -> None:
    mutations = mapper_for(Order).to_mutations(order(), timestamp=TS)

    assert Put(b"o1\x00\x00", b"o:l_sku1", (2).to_bytes(8, "big"), TS, YEAR_MS) in mutations
    assert not [m for m in mutations if isinstance(m, Delete) and m.column == b"o"]
    assert mapper_for(Order).save_needs_previous


def test_a_prefixed_map_deletes_entries_of_the_previous_row_that_are_gone() -> None:
    previous = RowResult(
        b"o1\x00\x00",
        {b"o:l_sku1": Cell(b"x", 5), b"o:l_old": Cell(b"x", 5), b"o:s": Cell(b"new", 5)},
    )

    mutations = mapper_for(Order).to_mutations(order(), timestamp=TS, previous=previous)

    deletes = [
        m for m in mutations if isinstance(m, Delete) and (m.column or b"").startswith(b"o:l_")
    ]
    assert deletes == [Delete(b"o1\x00\x00", b"o:l_old", TS)]


def test_a_required_field_set_to_none_is_rejected() -> None:
    user = User(user_id="u1", nickname=None)  # type: ignore[arg-type]

    with pytest.raises(ValidationError, match="required") as caught:
        mapper_for(User).to_mutations(user, timestamp=TS)
    assert caught.value.field == "nickname"


def test_a_value_of_the_wrong_type_is_rejected_naming_field_and_value() -> None:
    user = User(user_id="u1", nickname=42)  # type: ignore[arg-type]

    with pytest.raises(ValidationError, match=r"'nickname' takes str, not int") as caught:
        mapper_for(User).to_mutations(user, timestamp=TS)
    assert caught.value.value == 42


def test_a_value_the_codec_refuses_is_rejected_as_a_validation_error() -> None:
    bad = order(placed_at=datetime(2024, 1, 1))  # naive: the instant is unknown

    with pytest.raises(ValidationError, match="placed_at") as caught:
        mapper_for(Order).to_mutations(bad, timestamp=TS)
    assert caught.value.field == "placed_at"


def test_a_map_entry_of_the_wrong_type_is_rejected() -> None:
    user = User(user_id="u1", nickname="bob", fans={"u2": 3})  # type: ignore[dict-item]

    with pytest.raises(ValidationError, match="map value") as caught:
        mapper_for(User).to_mutations(user, timestamp=TS)
    assert caught.value.field == "fans"


def test_a_map_field_holding_something_else_than_a_dict_is_rejected() -> None:
    user = User(user_id="u1", nickname="bob", fans=["u2"])  # type: ignore[arg-type]

    with pytest.raises(ValidationError, match="takes a dict"):
        mapper_for(User).to_mutations(user, timestamp=TS)


def test_an_instance_of_another_model_is_rejected() -> None:
    with pytest.raises(ValidationError, match="expected a User"):
        mapper_for(User).to_mutations(order(), timestamp=TS)  # type: ignore[arg-type]


@pytest.mark.parametrize("timestamp", [0, -5, True, 1.5, None])
def test_a_timestamp_that_is_not_a_positive_int_is_rejected(timestamp: object) -> None:
    with pytest.raises(ValidationError, match="timestamp"):
        mapper_for(User).to_mutations(
            User(user_id="u1", nickname="bob"),
            timestamp=timestamp,  # type: ignore[arg-type]
        )


@pytest.mark.parametrize("ttl_ms", [0, -1, False, 2.5])
def test_a_ttl_that_is_not_a_positive_int_is_rejected(ttl_ms: object) -> None:
    with pytest.raises(ValidationError, match="ttl_ms"):
        mapper_for(User).to_mutations(
            User(user_id="u1", nickname="bob"),
            timestamp=TS,
            ttl_ms=ttl_ms,  # type: ignore[arg-type]
        )


# --- partial updates ---------------------------------------------------------------------------


def test_a_partial_update_writes_only_the_named_fields() -> None:
    mutations = mapper_for(User).to_partial_mutations(
        {"user_id": "u1"}, {"nickname": "robert", "address": None}, timestamp=TS
    )

    assert mutations == [Put(ROW, b"i:n", b"robert", TS), Delete(ROW, b"i:a", TS)]


def test_a_partial_update_of_a_map_replaces_the_whole_map() -> None:
    mutations = mapper_for(User).to_partial_mutations(
        {"user_id": "u1"}, {"fans": {"u3": "one-way"}}, timestamp=TS
    )

    assert mutations == [Put(ROW, b"f:u3", b"one-way", TS), Delete(ROW, b"f", TS - 1)]


def test_a_partial_update_of_an_unknown_field_is_rejected() -> None:
    with pytest.raises(ValidationError, match="no field 'nick'") as caught:
        mapper_for(User).to_partial_mutations({"user_id": "u1"}, {"nick": "x"}, timestamp=TS)
    assert caught.value.field == "nick"


def test_a_partial_update_cannot_change_a_key_field() -> None:
    with pytest.raises(ValidationError, match="K10"):
        mapper_for(User).to_partial_mutations({"user_id": "u1"}, {"user_id": "u2"}, timestamp=TS)


def test_a_partial_update_cannot_set_a_counter() -> None:
    with pytest.raises(ValidationError, match="increments"):
        mapper_for(Order).to_partial_mutations({"order_id": "o1"}, {"views": 3}, timestamp=TS)


def test_a_partial_update_cannot_set_the_version() -> None:
    with pytest.raises(ValidationError, match="optimistic locking"):
        mapper_for(Order).to_partial_mutations({"order_id": "o1"}, {"version": 3}, timestamp=TS)


def test_a_partial_update_with_one_bad_value_returns_nothing() -> None:
    with pytest.raises(ValidationError, match="gender"):
        mapper_for(User).to_partial_mutations(
            {"user_id": "u1"}, {"nickname": "ok", "gender": 1}, timestamp=TS
        )


# --- single map entries (F6) -------------------------------------------------------------------


def test_map_put_writes_single_entries_and_leaves_the_others() -> None:
    puts = mapper_for(User).map_put({"user_id": "u1"}, "fans", {"u2": "mutual"}, timestamp=TS)

    assert puts == [Put(ROW, b"f:u2", b"mutual", TS)]


def test_map_put_without_timestamp_lets_the_server_stamp_the_cell() -> None:
    puts = mapper_for(Order).map_put({"order_id": "o1"}, "lines", {"sku9": 1})

    assert puts == [Put(b"o1\x00\x00", b"o:l_sku9", (1).to_bytes(8, "big"), None, YEAR_MS)]


def test_map_delete_removes_single_entries() -> None:
    deletes = mapper_for(User).map_delete({"user_id": "u1"}, "fans", ["u2", "u3"])

    assert deletes == [Delete(ROW, b"f:u2"), Delete(ROW, b"f:u3")]


def test_map_helpers_refuse_a_field_that_is_not_a_map() -> None:
    with pytest.raises(ValidationError, match="not a map field"):
        mapper_for(User).map_put({"user_id": "u1"}, "nickname", {"a": "b"})


def test_map_delete_refuses_a_single_string_for_the_keys() -> None:
    with pytest.raises(ValidationError, match="collection"):
        mapper_for(User).map_delete({"user_id": "u1"}, "fans", "u2")


def test_map_put_refuses_a_key_of_the_wrong_type() -> None:
    with pytest.raises(ValidationError, match="map key"):
        mapper_for(User).map_put({"user_id": "u1"}, "fans", {7: "mutual"})


def test_a_partial_update_needs_mappings_for_the_key_and_the_changes() -> None:
    mapper = mapper_for(User)

    with pytest.raises(ValidationError, match="key values must map"):
        mapper.to_partial_mutations(["u1"], {"nickname": "x"}, timestamp=TS)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="changes must map"):
        mapper.to_partial_mutations({"user_id": "u1"}, [("nickname", "x")], timestamp=TS)  # type: ignore[arg-type]
