"""Json and MsgPack: trees of dicts and lists, strict in both directions."""

from __future__ import annotations

import contextlib
import json
import math
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.codecs import Json, MsgPack
from hmodel.errors import DeclarationError, DecodeError, EncodeError

json_leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_leaves,
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=25,
)
msgpack_ints = st.integers(-(2**63), 2**64 - 1)
msgpack_leaves = (
    st.none() | st.booleans() | msgpack_ints | st.floats(allow_nan=False) | st.text() | st.binary()
)
msgpack_values = st.recursive(
    msgpack_leaves,
    lambda children: (
        st.lists(children) | st.dictionaries(st.text() | st.binary() | msgpack_ints, children)
    ),
    max_leaves=25,
)


def test_json_is_compact_sorted_utf8() -> None:
    value = {"b": [1, 2.5, None, True], "a": {"z": "é", "y": -0.0}}
    assert Json().encode(value) == '{"a":{"y":-0.0,"z":"é"},"b":[1,2.5,null,true]}'.encode()


@given(json_values)
def test_json_round_trips_json_values(value: Any) -> None:
    assert Json().decode(Json().encode(value)) == value


@given(st.dictionaries(st.text(), st.integers()))
def test_json_bytes_do_not_depend_on_key_insertion_order(value: dict[str, int]) -> None:
    reordered = dict(reversed(list(value.items())))
    assert Json().encode(reordered) == Json().encode(value)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"a": (1, 2)}, r"\$\['a'\] has type tuple"),
        ({1: "a"}, r"\$ has a key 1 of type int"),
        ([{1, 2}], r"\$\[0\] has type set"),
        ({"a": [1, {"b": (2,)}]}, r"\$\['a'\]\[1\]\['b'\] has type tuple"),
        ({"a": b"x"}, "has type bytes"),
        ({"a": math.nan}, "Out of range float"),
        ([math.inf], "Out of range float"),
        ({"a": "\ud800"}, "surrogates not allowed"),
        (object(), r"\$ has type object"),
    ],
)
def test_json_refuses_values_that_would_not_come_back_unchanged(
    value: object, problem: str
) -> None:
    with pytest.raises(EncodeError, match=problem):
        Json().encode(value)


def test_json_refuses_a_structure_that_contains_itself() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(EncodeError, match="contains itself"):
        Json().encode(loop)


def test_json_accepts_the_same_object_twice_when_it_is_not_a_cycle() -> None:
    shared = {"x": 1}
    assert Json().decode(Json().encode([shared, shared])) == [{"x": 1}, {"x": 1}]


@pytest.mark.parametrize(
    "data",
    [b"", b"{", b'{"a":1} x', b"NaN", b'{"a":Infinity}', b'{"a":1,"a":2}', b"\xff", b"'a'"],
)
def test_json_refuses_invalid_or_non_strict_json(data: bytes) -> None:
    with pytest.raises(DecodeError, match="json codec"):
        Json().decode(data)


@given(st.binary())
def test_json_decode_of_any_bytes_returns_a_value_or_raises_decode_error(data: bytes) -> None:
    with contextlib.suppress(DecodeError):
        Json().decode(data)


@given(json_values)
def test_json_reads_what_the_standard_library_writes(value: Any) -> None:
    assert Json().decode(json.dumps(value).encode()) == value


def test_msgpack_uses_bin_type_for_bytes_and_str_for_text() -> None:
    assert MsgPack().encode({"k": b"\x01"}) == b"\x81\xa1k\xc4\x01\x01"


@given(msgpack_values)
def test_msgpack_round_trips_msgpack_values(value: Any) -> None:
    assert MsgPack().decode(MsgPack().encode(value)) == value


def test_msgpack_decodes_non_str_map_keys() -> None:
    """strict_map_key=False: maps keyed by ints or bytes read back."""
    assert MsgPack().decode(MsgPack().encode({1: "a", b"k": "b"})) == {1: "a", b"k": "b"}


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ((1, 2), r"\$ has type tuple"),
        ({"a": {1, 2}}, "has type set"),
        ({(1, 2): "a"}, "has a key .* of type tuple"),
        ([2**64], "out of range"),
        ([-(2**63) - 1], "out of range"),
        ("\ud800", "surrogates not allowed"),
    ],
)
def test_msgpack_refuses_values_that_would_not_come_back_unchanged(
    value: object, problem: str
) -> None:
    with pytest.raises(EncodeError, match=problem):
        MsgPack().encode(value)


@pytest.mark.parametrize(
    "data",
    [b"", b"\xc1", b"\x92\x01", b"\x01\x02", b"\xa2\xff\xfe", b"\x81\x91\x01\x02"],
)
def test_msgpack_refuses_truncated_malformed_or_trailing_bytes(data: bytes) -> None:
    with pytest.raises(DecodeError, match="msgpack codec"):
        MsgPack().decode(data)


@given(st.binary())
def test_msgpack_decode_of_any_bytes_returns_a_value_or_raises_decode_error(data: bytes) -> None:
    with contextlib.suppress(DecodeError):
        MsgPack().decode(data)


def test_msgpack_reads_what_the_msgpack_library_writes() -> None:
    data = msgpack.packb({"id": 7, "blob": b"\x00"}, use_bin_type=True)
    assert MsgPack().decode(data) == {"id": 7, "blob": b"\x00"}


@pytest.mark.parametrize(
    ("top", "wrong", "stored"),
    [("object", [1, 2], b"[1,2]"), ("array", {"a": 1}, b'{"a":1}'), ("object", 3, b"3")],
)
def test_json_with_a_top_refuses_the_other_document_kind_both_ways(
    top: str, wrong: object, stored: bytes
) -> None:
    """A dict field never reads back a list (nor a list field a dict): DecodeError, typed."""
    codec = Json(top=top)
    with pytest.raises(EncodeError, match=f"expected a JSON {top}"):
        codec.encode(wrong)
    with pytest.raises(DecodeError, match=f"expected a JSON {top}") as caught:
        codec.decode(stored)
    assert caught.value.value == stored


def test_json_with_a_top_keeps_its_own_kind_and_shows_it() -> None:
    assert Json(top="object").decode(b'{"a":[1]}') == {"a": [1]}
    assert Json(top="array").decode(b'[{"a":1}]') == [{"a": 1}]
    assert repr(Json(top="array")) == "Json(top='array')"
    assert Json(top="object") != Json()


def test_json_top_must_be_object_array_or_none() -> None:
    with pytest.raises(DeclarationError, match="top"):
        Json(top="dict")
