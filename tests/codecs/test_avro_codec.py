"""Avro and VersionedAvro: the order graph as one BLOB cell (R4), with schema evolution."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.codecs import Avro, VersionedAvro
from hmodel.errors import DeclarationError, DecodeError, EncodeError

LINE_V1 = {
    "type": "record",
    "name": "LineItem",
    "fields": [{"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}],
}
ORDER_V1: dict[str, Any] = {
    "type": "record",
    "name": "Order",
    "namespace": "shop",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "customer", "type": "string"},
        {
            "name": "shipping",
            "type": {
                "type": "array",
                "items": {
                    "type": "record",
                    "name": "ShippingLocation",
                    "fields": [
                        {"name": "address", "type": "string"},
                        {"name": "lines", "type": {"type": "array", "items": LINE_V1}},
                    ],
                },
            },
        },
        {"name": "note", "type": ["null", "string"], "default": None},
    ],
}
# v2: drops "note", adds "currency" (top level) and "price_cents" (nested), both defaulted.
ORDER_V2 = copy.deepcopy(ORDER_V1)
ORDER_V2["fields"] = [f for f in ORDER_V2["fields"] if f["name"] != "note"]
ORDER_V2["fields"].append({"name": "currency", "type": "string", "default": "CNY"})
ORDER_V2["fields"][2]["type"]["items"]["fields"][1]["type"]["items"]["fields"].append(
    {"name": "price_cents", "type": "long", "default": 0}
)

ORDER = {
    "id": 1,
    "customer": "c-42",
    "shipping": [{"address": "Shanghai", "lines": [{"sku": "A1", "qty": 2}]}],
    "note": "ring the bell",
}

lines = st.fixed_dictionaries({"sku": st.text(), "qty": st.integers(-(2**31), 2**31 - 1)})
orders = st.fixed_dictionaries(
    {
        "id": st.integers(-(2**63), 2**63 - 1),
        "customer": st.text(),
        "shipping": st.lists(
            st.fixed_dictionaries({"address": st.text(), "lines": st.lists(lines, max_size=3)}),
            max_size=3,
        ),
        "note": st.none() | st.text(),
    }
)


def test_avro_writes_the_schemaless_binary_encoding() -> None:
    """zigzag varint id 1 -> 02, string "a" -> 02 61, empty array -> 00, union null -> 00."""
    order = {"id": 1, "customer": "a", "shipping": [], "note": None}
    assert Avro(ORDER_V1).encode(order) == b"\x02\x02a\x00\x00"


@given(orders)
def test_avro_round_trips_the_order_graph(order: dict[str, Any]) -> None:
    codec = Avro(ORDER_V1)
    assert codec.decode(codec.encode(order)) == order


def test_v1_rows_read_with_a_v2_reader_get_added_defaults_and_lose_removed_fields() -> None:
    """R4: old BLOBs stay readable after the schema evolves."""
    old_cell = Avro(ORDER_V1).encode(ORDER)
    assert Avro(ORDER_V1, reader_schema=ORDER_V2).decode(old_cell) == {
        "id": 1,
        "customer": "c-42",
        "shipping": [{"address": "Shanghai", "lines": [{"sku": "A1", "qty": 2, "price_cents": 0}]}],
        "currency": "CNY",
    }


def test_v2_rows_read_with_a_v1_reader_drop_new_fields_and_default_the_old_one() -> None:
    new_order = {
        "id": 2,
        "customer": "c-7",
        "shipping": [],
        "currency": "EUR",
    }
    cell = Avro(ORDER_V2).encode(new_order)
    decoded = Avro(ORDER_V2, reader_schema=ORDER_V1).decode(cell)
    assert decoded == {"id": 2, "customer": "c-7", "shipping": [], "note": None}


def test_a_reader_field_without_default_cannot_read_old_rows() -> None:
    incompatible = copy.deepcopy(ORDER_V1)
    incompatible["fields"].append({"name": "required_new", "type": "string"})
    old_cell = Avro(ORDER_V1).encode(ORDER)
    with pytest.raises(DecodeError, match="reader schema cannot read"):
        Avro(ORDER_V1, reader_schema=incompatible).decode(old_cell)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda o: o.pop("customer"), "customer"),
        (lambda o: o.update(extra=1), "more fields than the schema"),
        (lambda o: o.update(id=1.5), "Order.id"),
        (lambda o: o.update(id=True), "Order.id"),
        (lambda o: o.update(id=2**63), "too large"),
        (lambda o: o.update(customer=b"c-42"), "customer"),
        (lambda o: o["shipping"][0]["lines"][0].update(qty="2"), "qty"),
        (lambda o: o["shipping"][0]["lines"][0].update(colour="red"), "more fields"),
    ],
)
def test_avro_refuses_records_that_do_not_match_the_schema(change: Any, problem: str) -> None:
    """Missing fields, extra keys and wrong types are refused, never dropped or coerced."""
    order = copy.deepcopy(ORDER)
    change(order)
    with pytest.raises(EncodeError, match=problem):
        Avro(ORDER_V1).encode(order)


@pytest.mark.parametrize("value", [[ORDER], "order", None])
def test_avro_refuses_values_that_are_not_dicts(value: object) -> None:
    with pytest.raises(EncodeError, match="expected dict"):
        Avro(ORDER_V1).encode(value)  # type: ignore[arg-type]


def test_avro_refuses_truncated_and_trailing_bytes() -> None:
    cell = Avro(ORDER_V1).encode(ORDER)
    with pytest.raises(DecodeError, match="avro codec"):
        Avro(ORDER_V1).decode(cell[:-3])
    with pytest.raises(DecodeError, match="1 bytes left after the record"):
        Avro(ORDER_V1).decode(cell + b"\x00")


@given(st.binary(max_size=64))
def test_avro_decode_of_any_bytes_returns_a_record_or_raises_decode_error(data: bytes) -> None:
    with contextlib.suppress(DecodeError):
        Avro(ORDER_V1).decode(data)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string"},
        {"type": "array", "items": "long"},
        {"type": "record", "name": "O", "fields": [{"name": "a", "type": "nope"}]},
        {"type": "record", "name": "O", "fields": [{"name": "a"}]},
        {"type": "record", "name": "O", "fields": [{"name": "a", "type": "int", "default": "x"}]},
        "shop.Order",
    ],
)
def test_avro_refuses_invalid_or_non_record_schemas(schema: Any) -> None:
    with pytest.raises(DeclarationError, match="Avro schema"):
        Avro(schema)
    with pytest.raises(DeclarationError, match="Avro reader schema"):
        Avro(ORDER_V1, reader_schema=schema)


def test_avro_keeps_its_own_copy_of_the_schema() -> None:
    schema = copy.deepcopy(ORDER_V1)
    codec = Avro(schema)
    schema["fields"].clear()
    assert codec.decode(codec.encode(ORDER)) == ORDER


def test_avro_codecs_are_equal_when_their_schemas_are() -> None:
    reordered = dict(reversed(list(ORDER_V1.items())))
    assert Avro(ORDER_V1) == Avro(reordered)
    assert hash(Avro(ORDER_V1)) == hash(Avro(reordered))
    assert Avro(ORDER_V1) != Avro(ORDER_V1, reader_schema=ORDER_V2)


def test_versioned_avro_prefixes_the_writer_version() -> None:
    cell = VersionedAvro({1: ORDER_V1}).encode(ORDER)
    assert cell == b"\x01" + Avro(ORDER_V1).encode(ORDER)


def test_versioned_avro_reads_old_versions_in_the_newest_shape_and_writes_the_newest() -> None:
    """R4 with old and new rows side by side: each cell says which schema wrote it."""
    old_cell = VersionedAvro({1: ORDER_V1}).encode(ORDER)
    codec = VersionedAvro({1: ORDER_V1, 2: ORDER_V2})
    upgraded = codec.decode(old_cell)
    assert upgraded["currency"] == "CNY"
    assert "note" not in upgraded
    new_cell = codec.encode(upgraded)
    assert new_cell[0] == 2
    assert codec.decode(new_cell) == upgraded


@given(orders)
def test_versioned_avro_round_trips_with_a_single_version(order: dict[str, Any]) -> None:
    codec = VersionedAvro({0: ORDER_V1})
    assert codec.decode(codec.encode(order)) == order


@pytest.mark.parametrize(
    ("data", "problem"),
    [(b"", "expected a version byte"), (b"\x09\x02\x02a\x00\x00", "unknown schema version 9")],
)
def test_versioned_avro_refuses_cells_without_a_known_version(data: bytes, problem: str) -> None:
    with pytest.raises(DecodeError, match=problem):
        VersionedAvro({1: ORDER_V1}).decode(data)


@pytest.mark.parametrize("schemas", [{}, {256: ORDER_V1}, {-1: ORDER_V1}, {True: ORDER_V1}])
def test_versioned_avro_needs_versions_in_0_to_255(schemas: dict[int, Any]) -> None:
    with pytest.raises(DeclarationError):
        VersionedAvro(schemas)
