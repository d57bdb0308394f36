"""Fixed-width integers in keys: round trip, order and refusals (K2, K7)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.errors import DeclarationError, KeyDecodeError, KeyEncodeError
from hmodel.keys import Int

SHAPES = [(size, signed) for size in (1, 2, 4, 8) for signed in (True, False)]


@st.composite
def int_and_values(draw: st.DrawFn) -> tuple[Int, int, int]:
    size, signed = draw(st.sampled_from(SHAPES))
    component = Int("n", size=size, signed=signed)
    values = st.integers(component.minimum, component.maximum)
    return component, draw(values), draw(values)


@given(int_and_values(), st.binary(max_size=4))
def test_round_trip_reads_exactly_size_bytes(case: tuple[Int, int, int], tail: bytes) -> None:
    """Every in-range int decodes back from its bytes, leaving what follows untouched."""
    component, value, _ = case
    raw = component.encode(value)
    assert len(raw) == component.fixed_width == component.size
    assert component.decode(b"xx" + raw + tail, 2) == (value, 2 + component.size)


@given(int_and_values())
def test_byte_order_is_value_order_with_mixed_signs(case: tuple[Int, int, int]) -> None:
    """Unsigned byte order of the encodings equals numeric order, negatives first (K2)."""
    component, a, b = case
    assert (component.encode(a) < component.encode(b)) == (a < b)
    assert (component.encode(a) == component.encode(b)) == (a == b)


def test_signed_layout_flips_the_sign_bit() -> None:
    """Signed ints are two's complement with the sign bit flipped: -1 < 0 as bytes."""
    n = Int("n", size=4)
    assert n.encode(-(2**31)) == b"\x00\x00\x00\x00"
    assert n.encode(-1) == b"\x7f\xff\xff\xff"
    assert n.encode(0) == b"\x80\x00\x00\x00"
    assert n.encode(2**31 - 1) == b"\xff\xff\xff\xff"


def test_unsigned_layout_is_javas_bytes_to_bytes() -> None:
    """An unsigned Int stores the plain big-endian value, as Java's Bytes.toBytes(long)."""
    assert Int("n", signed=False).encode(1_700_000_000_000) == (1_700_000_000_000).to_bytes(
        8, "big"
    )
    assert Int("n", size=8).python_type is int


@pytest.mark.parametrize(
    ("component", "value"),
    [
        (Int("n", size=1), 128),
        (Int("n", size=1), -129),
        (Int("n", size=2, signed=False), -1),
        (Int("n", size=2, signed=False), 65_536),
        (Int("n"), 2**63),
        (Int("n"), -(2**63) - 1),
    ],
)
def test_out_of_range_is_refused_not_wrapped(component: Int, value: int) -> None:
    """A value that does not fit raises KeyEncodeError naming the field and value."""
    with pytest.raises(KeyEncodeError, match="out of range") as info:
        component.encode(value)
    assert (info.value.field, info.value.value) == ("n", value)


@pytest.mark.parametrize("value", [True, False, 1.0, "1", b"\x01", None])
def test_non_int_is_refused(value: object) -> None:
    """bool is not an int here; nor are floats, strings, bytes or None."""
    with pytest.raises(KeyEncodeError, match="takes an int") as info:
        Int("n").encode(value)
    assert info.value.field == "n"


def test_truncated_bytes_are_refused() -> None:
    """Decoding with fewer than size bytes left raises KeyDecodeError naming the field."""
    with pytest.raises(KeyDecodeError, match="truncated") as info:
        Int("n", size=4).decode(b"\x00\x00\x00\x00\x01\x02", 3)
    assert info.value.field == "n"


@pytest.mark.parametrize("kwargs", [{"size": 3}, {"size": True}, {"signed": 1}, {"size": 16}])
def test_bad_declarations_are_refused(kwargs: dict[str, object]) -> None:
    """Only 1, 2, 4 or 8 bytes, and a bool signedness, are accepted."""
    with pytest.raises(DeclarationError):
        Int("n", **kwargs)  # type: ignore[arg-type]


def test_a_name_is_required() -> None:
    """An empty name cannot label errors, so it is refused."""
    with pytest.raises(DeclarationError):
        Int("")
