"""Descending and Reversed wrappers: inverted order and least-significant-first layout (K5, K7)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from hmodel.errors import DeclarationError, KeyDecodeError, KeyEncodeError
from hmodel.keys import (
    Bytes,
    Const,
    Descending,
    Int,
    Nullable,
    Order,
    Reversed,
    ReverseTimestamp,
    Str,
    Timestamp,
    ValueComponent,
)

TEXT = st.text(alphabet=st.characters(codec="utf-8"))
BINARY = st.binary(max_size=10) | st.lists(st.sampled_from(b"\x00\x01\xff")).map(bytes)
CASES: list[tuple[ValueComponent[Any], st.SearchStrategy[Any]]] = [
    (Int("n", size=1), st.integers(-128, 127)),
    (Int("n", size=4, signed=False), st.integers(0, 2**32 - 1)),
    (Int("n"), st.integers(-(2**63), 2**63 - 1)),
    (Str("s"), TEXT),
    (Bytes("b"), BINARY),
    (Str("s", width=4), st.text(alphabet="ab\u00e9\x01", max_size=2)),
    (Timestamp("t"), st.integers(0, 2**40)),
]


def cmp(a: Any, b: Any) -> int:
    return int(a > b) - int(a < b)


@given(st.data())
def test_descending_round_trips_and_reverses_order(data: st.DataObject) -> None:
    """Descending(c) decodes back and sorts exactly against c's order, whatever follows (K7)."""
    inner, values = data.draw(st.sampled_from(CASES))
    a, b = data.draw(values), data.draw(values)
    x, y = data.draw(st.binary(max_size=3)), data.draw(st.binary(max_size=3))
    component = Descending(inner)
    ra, rb = component.encode(a), component.encode(b)
    assert component.decode(b"\x00" + ra + x, 1) == (
        inner.decode(inner.encode(a), 0)[0],
        1 + len(ra),
    )
    if inner.decode(inner.encode(a), 0)[0] != inner.decode(inner.encode(b), 0)[0]:
        assert cmp(ra + x, rb + y) == -cmp(inner.encode(a), inner.encode(b))
        assert cmp(ra + x, rb + y) == -cmp(a, b)


@given(TEXT, TEXT)
def test_descending_text_puts_longer_extensions_first(s: str, t: str) -> None:
    """For descending text, "ab" sorts before "a": the terminator is inverted too."""
    component = Descending(Str("s"))
    assert component.encode(s + t + "x") < component.encode(s)


@given(st.integers(0, 2**31 - 1))
def test_descending_int32_is_integer_max_minus_v(value: int) -> None:
    """Descending(Int(size=4)) stores Java's Integer.MAX_VALUE - v for v >= 0 (K7)."""
    assert Descending(Int("n", size=4)).encode(value) == (2**31 - 1 - value).to_bytes(4, "big")


@given(st.integers(0, Timestamp("t").max_ticks))
def test_descending_long_is_the_reverse_timestamp(ticks: int) -> None:
    """Descending(Int(size=8)) of epoch ms is the same bytes as ReverseTimestamp (K6)."""
    assert Descending(Int("n")).encode(ticks) == ReverseTimestamp("t").encode(ticks)


def test_wrappers_report_the_wrapped_component() -> None:
    """Name, width and type come from the wrapped component; order is flipped or dropped."""
    inner = Int("score", size=4)
    assert (Descending(inner).name, Descending(inner).fixed_width) == ("score", 4)
    assert Descending(inner).python_type is int
    assert Descending(inner).order is Order.DESCENDING
    assert Descending(Descending(inner)).order is Order.ASCENDING
    assert Descending(ReverseTimestamp("t")).order is Order.ASCENDING
    assert Reversed(inner).order is Descending(Reversed(inner)).order is Order.UNORDERED
    assert (Reversed(Str("s")).fixed_width, Reversed(Str("s")).python_type) == (None, str)


def test_reversed_fixed_width_id_stores_digits_backwards() -> None:
    """K5's example: "1234567890" is stored as "0987654321" and decodes back."""
    component = Reversed(Str("user_id", width=10))
    assert component.encode("1234567890") == b"0987654321"
    assert component.decode(b"0987654321", 0) == ("1234567890", 10)
    assert component.encode("123") == b"321\x00\x00\x00\x00\x00\x00\x00"


def test_reversed_int_stores_the_least_significant_byte_first() -> None:
    """Numbers are reversed byte-wise, so sequential ids differ in their first byte."""
    component = Reversed(Int("id", size=4, signed=False))
    assert component.encode(0x01020304) == b"\x04\x03\x02\x01"
    assert len({component.encode(i)[:1] for i in range(256)}) == 256


@given(st.data())
def test_reversed_round_trips(data: st.DataObject) -> None:
    """Reversed(c) decodes back to the value for text, bytes, ints and timestamps."""
    inner, values = data.draw(st.sampled_from(CASES))
    value = data.draw(values)
    component = Reversed(inner)
    raw = component.encode(value)
    expected = inner.decode(inner.encode(value), 0)[0]
    assert component.decode(raw + b"\x07", 0) == (expected, len(raw))


@given(TEXT, st.binary(max_size=3))
def test_reversed_text_is_the_text_backwards(text: str, tail: bytes) -> None:
    """Variable-width text is reversed by character, then escaped as usual."""
    assert Reversed(Str("s")).encode(text) == Str("s").encode(text[::-1])


def test_wrapped_errors_name_the_field() -> None:
    """Bad values still raise the wrapped component's typed errors with its name."""
    with pytest.raises(KeyEncodeError, match="out of range") as info:
        Descending(Int("score", size=1)).encode(300)
    assert info.value.field == "score"
    with pytest.raises(KeyEncodeError, match="takes str"):
        Reversed(Str("s")).encode(12)
    with pytest.raises(KeyDecodeError, match="truncated"):
        Reversed(Int("n", size=4)).decode(b"\x00\x01", 0)
    with pytest.raises(KeyDecodeError, match="no terminator"):
        Descending(Str("s")).decode(b"\x9e", 0)


def test_only_value_components_can_be_wrapped() -> None:
    """Wrapping a Const (or anything but a value component) is a declaration error."""
    with pytest.raises(DeclarationError):
        Descending(Const(b"\x01"))  # type: ignore[arg-type]
    with pytest.raises(DeclarationError):
        Reversed("user")  # type: ignore[arg-type]


def test_reversed_refuses_variable_width_non_text() -> None:
    """A variable-width component that is not text cannot be byte-reversed."""

    class Varint(Int):
        @property
        def fixed_width(self) -> None:  # type: ignore[override]  # a deliberately bad component
            return None

    with pytest.raises(DeclarationError, match="fixed-width"):
        Reversed(Varint("n"))


@given(st.datetimes(timezones=st.just(dt.timezone.utc), min_value=dt.datetime(1970, 1, 1)))
def test_descending_timestamp_round_trips(instant: dt.datetime) -> None:
    """A descending microsecond timestamp decodes back to the same instant."""
    component = Descending(Timestamp("t", unit="us"))
    assume(instant.year < 9999)
    assert component.decode(component.encode(instant), 0) == (instant, 8)


@given(st.data())
def test_nullable_round_trips_sorts_none_first_and_keeps_the_order(data: st.DataObject) -> None:
    """Nullable(c): None is ``00`` and first; a value is ``01`` + c's bytes, in c's order."""
    inner, values = data.draw(st.sampled_from(CASES))
    a, b = data.draw(st.none() | values), data.draw(st.none() | values)
    x, y = data.draw(st.binary(max_size=3)), data.draw(st.binary(max_size=3))
    component = Nullable(inner)
    ra, rb = component.encode(a), component.encode(b)
    decoded_a = None if a is None else inner.decode(inner.encode(a), 0)[0]
    decoded_b = None if b is None else inner.decode(inner.encode(b), 0)[0]
    assert component.decode(b"\x07" + ra + x, 1) == (decoded_a, 1 + len(ra))
    if decoded_a != decoded_b:  # prefix-free: what follows never changes the order
        expected = (
            -1
            if decoded_a is None
            else 1
            if decoded_b is None
            else cmp(inner.encode(a), inner.encode(b))
        )
        assert cmp(ra + x, rb + y) == expected


def test_nullable_refuses_foreign_bytes_and_non_value_components() -> None:
    with pytest.raises(KeyDecodeError, match="nullable"):
        Nullable(Str("s")).decode(b"\x02abc", 0)
    with pytest.raises(KeyDecodeError):
        Nullable(Str("s")).decode(b"", 0)
    with pytest.raises(DeclarationError):
        Nullable(Const(b"x"))  # type: ignore[arg-type]
    assert Nullable(Int("n", size=2)).fixed_width is None
