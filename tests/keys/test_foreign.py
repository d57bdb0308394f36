"""Key layouts other programs write: open text, delimiters, Java ints, digits, hex (K1, K4)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.errors import DeclarationError, KeyDecodeError, KeyEncodeError
from hmodel.keys import (
    Bytes,
    Const,
    Descending,
    HexHashed,
    Int,
    JavaInt,
    Key,
    PaddedInt,
    Str,
)
from hmodel.keys.compiled import CompiledKey

TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=6)
NO_PIPE = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="|"), max_size=6)
LONGS = st.integers(-(2**63), 2**63 - 1)


def selected(key: Key, rows: list[bytes], **kwargs: Any) -> set[bytes]:
    """The rows any of ``key.ranges(**kwargs)`` holds."""
    ranges = key.ranges(**kwargs)
    return {row for row in rows if any(r.contains(row) for r in ranges)}


def test_a_plain_string_key_writes_the_text_exactly() -> None:
    """Key(Str(terminated=False)) is Bytes.toBytes(String): o1 is 6f 31, and j1 decodes."""
    key = Key(Str("order_id", terminated=False))
    assert key.encode({"order_id": "o1"}) == b"o1"
    assert key.decode(b"j1") == {"order_id": "j1"}
    assert CompiledKey(key).decode(b"j1") == {"order_id": "j1"}


@given(TEXT, TEXT)
def test_an_open_last_string_round_trips_and_keeps_order(s: str, t: str) -> None:
    """The terminator-free last component decodes back and sorts as its text (K1)."""
    key = Key(Int("n", size=2), Str("s", terminated=False))
    a, b = key.encode({"n": 1, "s": s}), key.encode({"n": 1, "s": t})
    assert key.decode(a) == {"n": 1, "s": s}
    assert CompiledKey(key).decode(a) == {"n": 1, "s": s}
    assert (a < b) == (s < t)


def test_an_open_layout_is_refused_anywhere_but_last() -> None:
    """A value running to the end of the key cannot be followed by anything."""
    with pytest.raises(DeclarationError, match="last component"):
        Key(Str("a", terminated=False), Int("n"))
    with pytest.raises(DeclarationError, match="Const"):
        Key(Str("a", until=b"|"), Int("n"))
    with pytest.raises(DeclarationError, match="fixed-width"):
        Str("a", width=4, terminated=False)
    with pytest.raises(DeclarationError, match="end of the key"):
        Descending(Bytes("b", terminated=False))


@given(st.lists(TEXT, min_size=1, max_size=8), TEXT)
def test_a_whole_key_prefix_on_an_open_field_selects_that_one_row(
    values: list[str], wanted: str
) -> None:
    """A prefix giving the open last field is one row: o1 does not select o1x."""
    key = Key(Str("id", terminated=False))
    rows = [key.encode({"id": v}) for v in [*values, wanted, wanted + "x"]]
    assert selected(key, rows, prefix={"id": wanted}) == {key.encode({"id": wanted})}


@given(
    st.lists(TEXT, max_size=10),
    st.none() | TEXT,
    st.none() | TEXT,
    st.booleans(),
    st.booleans(),
)
def test_bounds_on_an_open_last_field_select_exactly_the_values_between(
    values: list[str], low: str | None, high: str | None, low_in: bool, high_in: bool
) -> None:
    """low/high on the open last field hold the rows whose text lies between, no more."""
    key = Key(Const(b"t"), Str("s", terminated=False))
    rows = {key.encode({"s": v}): v for v in values}

    def inside(v: str) -> bool:
        above = low is None or (v >= low if low_in else v > low)
        below = high is None or (v <= high if high_in else v < high)
        return above and below

    if low is None and high is None:
        return
    found = selected(key, list(rows), low=low, high=high, low_inclusive=low_in,
                     high_inclusive=high_in)  # fmt: skip
    assert found == {row for row, v in rows.items() if inside(v)}


@given(NO_PIPE, NO_PIPE, st.integers(-(2**31), 2**31 - 1))
def test_a_delimited_key_joins_text_with_the_separator(user: str, day: str, n: int) -> None:
    """sep=b"|" writes user|day|n as text around the separator and decodes it back."""
    key = Key(Str("user"), Str("day"), JavaInt("n", size=4), sep=b"|")
    row = key.encode({"user": user, "day": day, "n": n})
    assert row == user.encode() + b"|" + day.encode() + b"|" + n.to_bytes(4, "big", signed=True)
    assert key.decode(row) == {"user": user, "day": day, "n": n}
    assert CompiledKey(key).decode(row) == key.decode(row)


def test_a_delimited_key_refuses_a_value_holding_the_separator() -> None:
    """A value with the separator in it is refused, naming the field; so is :: across it."""
    key = Key(Str("shop"), Str("item"), sep=b"#")
    assert key.encode({"shop": "s1", "item": "i#2"}) == b"s1#i#2"  # the last may hold it
    with pytest.raises(KeyEncodeError, match="separator") as caught:
        key.encode({"shop": "s#1", "item": "i"})
    assert caught.value.field == "shop"
    double = Key(Str("a"), Str("b"), sep=b"::")
    with pytest.raises(KeyEncodeError, match="separator"):
        double.encode({"a": "x:", "b": "y"})  # x::: would read back as x


@given(st.lists(st.tuples(NO_PIPE, NO_PIPE), max_size=8), NO_PIPE)
def test_a_delimited_prefix_selects_exactly_its_rows(rows: list[tuple[str, str]], a: str) -> None:
    """A prefix on a delimited field holds the rows with that value, not its extensions."""
    key = Key(Str("a"), Str("b"), sep=b"|")
    encoded = {key.encode({"a": x, "b": y}): x for x, y in [*rows, (a + "z", "q")]}
    assert selected(key, list(encoded), prefix={"a": a}) == {
        r for r, x in encoded.items() if x == a
    }


def test_bounds_on_a_delimited_middle_field_are_refused() -> None:
    """ab| sorts below a| (b < |), so a middle delimited field cannot be bounded."""
    key = Key(Str("a"), Str("b"), sep=b"|")
    assert key.encode({"a": "ab", "b": ""}) < key.encode({"a": "a", "b": ""})
    with pytest.raises(KeyEncodeError, match="do not keep value order"):
        key.ranges(low="a", high="b")


@given(LONGS)
def test_java_ints_are_big_endian_twos_complement(n: int) -> None:
    """JavaInt is Bytes.toBytes(long): no sign flip, and it decodes back."""
    component = JavaInt("n")
    assert component.encode(n) == n.to_bytes(8, "big", signed=True)
    assert component.decode(component.encode(n), 0) == (n, 8)


def test_java_negatives_sort_after_positives() -> None:
    """As in a table Java filled, -1 is the largest key and 0 the smallest."""
    component = JavaInt("n", size=4)
    assert component.encode(-1) == b"\xff\xff\xff\xff"
    assert component.encode(0) < component.encode(2**31 - 1) < component.encode(-(2**31))
    with pytest.raises(KeyEncodeError, match="out of range"):
        component.encode(2**31)


@given(
    st.lists(st.integers(-300, 300), max_size=12),
    st.none() | st.integers(-300, 300),
    st.none() | st.integers(-300, 300),
    st.booleans(),
    st.booleans(),
)
def test_java_int_bounds_split_at_the_sign(
    values: list[int], low: int | None, high: int | None, low_in: bool, high_in: bool
) -> None:
    """Bounds crossing zero become two ranges that hold exactly the values between."""
    key = Key(Str("u"), JavaInt("n", size=2))
    rows = {key.encode({"u": "x", "n": v}): v for v in values}
    rows[key.encode({"u": "y", "n": 0})] = 10**6  # another prefix: never selected

    def inside(v: int) -> bool:
        above = low is None or (v >= low if low_in else v > low)
        below = high is None or (v <= high if high_in else v < high)
        return v != 10**6 and above and below

    if low is None and high is None:
        return
    found = selected(key, list(rows), prefix={"u": "x"}, low=low, high=high,
                     low_inclusive=low_in, high_inclusive=high_in)  # fmt: skip
    assert found == {row for row, v in rows.items() if inside(v)}


@given(st.integers(0, 10**10 - 1), st.integers(0, 10**10 - 1))
def test_padded_decimal_text_is_string_format_and_keeps_order(a: int, b: int) -> None:
    """PaddedInt(width=10) is String.format("%010d"), and sorts by value."""
    component = PaddedInt("n", width=10)
    assert component.encode(a) == f"{a:010d}".encode()
    assert component.decode(component.encode(a), 0) == (a, 10)
    assert (component.encode(a) < component.encode(b)) == (a < b)


def test_padded_decimal_text_refuses_negatives_overflow_and_non_digits() -> None:
    """-1 and 11 digits are refused on encode; a non-digit on decode, naming the field."""
    component = PaddedInt("n", width=3)
    for bad in (-1, 1000, 1.0, True):
        with pytest.raises(KeyEncodeError):
            component.encode(bad)
    with pytest.raises(KeyDecodeError, match="digit") as caught:
        component.decode(b"0a1", 0)
    assert caught.value.field == "n"


@given(NO_PIPE, st.integers(1, 32), st.booleans())
def test_hex_digest_prefixes_are_java_md5hex(user: str, nchars: int, upper: bool) -> None:
    """HexHashed over an open text field is DigestUtils.md5Hex(id).substring(0, n)."""
    key = Key(HexHashed("id", nchars=nchars, upper=upper), Str("id"), sep=b"|")
    digits = hashlib.md5(user.encode()).hexdigest()[:nchars]
    row = key.encode({"id": user})
    assert row == (digits.upper() if upper else digits).encode() + b"|" + user.encode()
    assert key.decode(row) == {"id": user} == CompiledKey(key).decode(row)
    assert key.ranges({"id": user}) == [key.ranges({"id": user})[0]]


def test_a_wrong_hex_prefix_does_not_decode() -> None:
    """A row whose hex prefix is not its id's digest is refused (another record type)."""
    key = Key(HexHashed("id", nchars=4), Str("id", terminated=False))
    with pytest.raises(KeyDecodeError, match="does not match"):
        key.decode(b"0000u1")
    with pytest.raises(KeyDecodeError, match="hex"):
        key.decode(b"E477u1")


FOREIGN_KEYS = [
    Key(Str("a", terminated=False)),
    Key(Str("a"), JavaInt("n", size=2), Bytes("b"), sep=b"::"),
    Key(HexHashed("a", nchars=6), Str("a"), PaddedInt("p", width=3), sep=b"_"),
    Key(
        Str("a", until=b"\x00"), Const(b"\x00"), Descending(Str("b", until=b"\x00")), Const(b"\xff")
    ),
]


@given(st.sampled_from(FOREIGN_KEYS), st.data())
def test_the_compiled_key_agrees_with_the_key_on_foreign_layouts(key: Key, data: Any) -> None:
    """CompiledKey encodes and decodes the open and delimited layouts exactly as Key does."""
    values: dict[str, Any] = {}
    for name in key.fields:
        component = key.component(name)
        if component.python_type is int:
            values[name] = data.draw(st.integers(0, 999) if name == "p" else st.integers(-9, 9))
        else:
            text = st.text(alphabet="ab:_|\xe9", max_size=4)
            drawn = data.draw(text)
            values[name] = drawn.encode() if component.python_type is bytes else drawn
    try:
        row = key.encode(values)
    except KeyEncodeError:
        return  # a value holding its separator: refused by both
    compiled = CompiledKey(key)
    assert compiled.encode(values) == row
    assert compiled.decode(row) == key.decode(row) == values
