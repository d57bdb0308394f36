"""Cells other programs wrote: numbers as text, protobuf messages, Phoenix's encodings (F10)."""

from __future__ import annotations

import datetime as dt
import math
import struct
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.codecs import (
    BoolText,
    DecimalText,
    FloatText,
    IntText,
    PhoenixBool,
    PhoenixDate,
    PhoenixDouble,
    PhoenixInt,
    PhoenixTimestamp,
    Protobuf,
)
from hmodel.errors import DeclarationError, DecodeError, EncodeError

UTC = dt.timezone.utc
FINITE = st.floats(allow_nan=False, allow_infinity=False)
DECIMALS = st.decimals(allow_nan=False, allow_infinity=False)


@given(st.integers())
def test_int_text_round_trips_byte_for_byte(n: int) -> None:
    """IntText writes str(n); the bytes decode back and re-encode identically."""
    codec = IntText()
    assert codec.encode(n) == str(n).encode()
    assert codec.decode(codec.encode(n)) == n


@pytest.mark.parametrize(
    "bad", [b"", b"+1", b" 1", b"1 ", b"01", b"-0", b"1_000", b"1.0", b"\xd9\xa1"]
)
def test_int_text_refuses_non_canonical_text(bad: bytes) -> None:
    """Anything but canonical decimal digits is a DecodeError carrying the bytes."""
    with pytest.raises(DecodeError) as caught:
        IntText().decode(bad)
    assert caught.value.value == bad


@given(FINITE | st.sampled_from([math.inf, -math.inf]), st.sampled_from(["python", "java"]))
def test_float_text_round_trips(x: float, style: str) -> None:
    """Every float's text in either style reads back as the same float, bytes unchanged."""
    codec = FloatText(style=style)  # type: ignore[arg-type]
    text = codec.encode(x)
    assert codec.decode(text) == x
    assert codec.encode(codec.decode(text)) == text


@pytest.mark.parametrize(
    ("x", "java"),
    [(3.5, b"3.5"), (100.0, b"100.0"), (1e16, b"1.0E16"), (1e7, b"1.0E7"),
     (9999999.0, b"9999999.0"), (0.001, b"0.001"), (1e-4, b"1.0E-4"), (-0.0, b"-0.0"),
     (1.2345678e7, b"1.2345678E7"), (math.nan, b"NaN"), (-math.inf, b"-Infinity")],
)  # fmt: skip
def test_float_text_java_style_is_double_to_string(x: float, java: bytes) -> None:
    """Fixed vectors of Java's Double.toString."""
    assert FloatText(style="java").encode(x) == java


def test_float_text_reads_any_decimal_text_and_refuses_the_rest() -> None:
    """3, 3.50 and -1.5e3 read; words, spaces and the other style's inf do not."""
    codec = FloatText()
    assert [codec.decode(b) for b in (b"3", b"3.50", b"-1.5e3", b".5")] == [3.0, 3.5, -1500.0, 0.5]
    for bad in (b"three", b" 3", b"Infinity", b"1e", b""):
        with pytest.raises(DecodeError):
            codec.decode(bad)
    with pytest.raises(EncodeError):
        codec.encode(2**53 + 1)


@given(DECIMALS)
def test_decimal_text_keeps_the_exponent_byte_for_byte(d: Decimal) -> None:
    """str(Decimal) is BigDecimal.toString's form; 3.50 stays 3.50."""
    codec = DecimalText()
    assert codec.decode(codec.encode(d)) == d
    assert codec.encode(codec.decode(codec.encode(d))) == codec.encode(d)
    assert str(codec.decode(b"3.50")) == "3.50"


def test_decimal_text_refuses_nan_and_words() -> None:
    """NaN cannot be written; b'NaN' and b'1,5' cannot be read."""
    with pytest.raises(EncodeError):
        DecimalText().encode(Decimal("NaN"))
    for bad in (b"NaN", b"1,5", b"", b"Infinity"):
        with pytest.raises(DecodeError):
            DecimalText().decode(bad)


def test_bool_text_reads_exactly_its_two_spellings() -> None:
    """b'true'/b'false' by default, Python's True/False when asked; nothing is guessed."""
    assert BoolText().encode(True) == b"true"
    python = BoolText(true=b"True", false=b"False")
    assert python.decode(b"False") is False
    for bad in (b"TRUE", b"1", b"", b"true "):
        with pytest.raises(DecodeError):
            BoolText().decode(bad)
    with pytest.raises(DeclarationError):
        BoolText(true=b"x", false=b"x")


@given(st.integers(-(2**63), 2**63 - 1))
def test_phoenix_bigint_flips_the_sign_bit_and_keeps_order(n: int) -> None:
    """BIGINT cells are n + 2**63 big-endian: Long's bytes with the top bit inverted."""
    codec = PhoenixInt(size=8)
    raw = codec.encode(n)
    java = n.to_bytes(8, "big", signed=True)
    assert raw == bytes([java[0] ^ 0x80]) + java[1:]
    assert codec.decode(raw) == n
    if n < 2**63 - 1:
        assert codec.encode(n) < codec.encode(n + 1)


def test_phoenix_int_fixed_vectors_and_range() -> None:
    """INTEGER 5 is 80 00 00 05, -1 is 7f ff ff ff; UNSIGNED_INT is plain; out of range refused."""
    assert PhoenixInt().encode(5) == b"\x80\x00\x00\x05"
    assert PhoenixInt().encode(-1) == b"\x7f\xff\xff\xff"
    assert PhoenixInt(size=4, unsigned=True).encode(5) == b"\x00\x00\x00\x05"
    for codec, bad in ((PhoenixInt(size=1), 128), (PhoenixInt(unsigned=True), -1)):
        with pytest.raises(EncodeError):
            codec.encode(bad)
    with pytest.raises(DecodeError):
        PhoenixInt().decode(b"\x80\x00\x00")


def java_phoenix_double(x: float) -> bytes:
    """PDouble.encodeDouble in Java long arithmetic (doubleToLongBits, xor, + 1)."""
    (bits,) = struct.unpack(">q", struct.pack(">d", math.nan if math.isnan(x) else x))
    bits = (bits ^ ((bits >> 63) | -(2**63))) + 1
    return struct.pack(">q", (bits + 2**63) % 2**64 - 2**63)


@given(st.floats(allow_nan=False), st.floats(allow_nan=False))
def test_phoenix_double_is_pdouble_and_sorts_by_value(x: float, y: float) -> None:
    """DOUBLE cells match Phoenix's arithmetic, decode back, and sort as the values."""
    codec = PhoenixDouble()
    assert codec.encode(x) == java_phoenix_double(x)
    assert codec.decode(codec.encode(x)) == x
    assert math.copysign(1, codec.decode(codec.encode(x))) == math.copysign(1, x)
    if x < y:
        assert codec.encode(x) < codec.encode(y)
    assert math.isnan(codec.decode(codec.encode(math.nan)))


def test_phoenix_boolean_is_01_and_00() -> None:
    """BOOLEAN is 01/00; HBase's ff is refused here."""
    assert PhoenixBool().encode(False) == b"\x00"
    assert PhoenixBool().decode(b"\x01") is True
    with pytest.raises(DecodeError):
        PhoenixBool().decode(b"\xff")


@given(st.datetimes(timezones=st.just(UTC)))
def test_phoenix_date_and_timestamp_cells_round_trip(when: dt.datetime) -> None:
    """DATE is sign-flipped millis, TIMESTAMP adds the nanos within; both decode back."""
    whole = when.replace(microsecond=when.microsecond // 1000 * 1000)
    millis = (whole - dt.datetime(1970, 1, 1, tzinfo=UTC)) // dt.timedelta(milliseconds=1)
    assert PhoenixDate().encode(whole) == (millis + 2**63).to_bytes(8, "big")
    assert PhoenixDate().decode(PhoenixDate().encode(whole)) == whole
    stamp = PhoenixTimestamp().encode(when)
    assert stamp[:8] == PhoenixDate().encode(whole)
    assert int.from_bytes(stamp[8:], "big") == when.microsecond % 1000 * 1000
    assert PhoenixTimestamp().decode(stamp) == when


def test_protobuf_messages_round_trip_and_refuse_garbage() -> None:
    """A well-known message round-trips; bytes that do not parse, and other classes, do not."""
    pytest.importorskip("google.protobuf")
    from google.protobuf.duration_pb2 import Duration
    from google.protobuf.timestamp_pb2 import Timestamp

    codec = Protobuf(Timestamp)
    message = Timestamp(seconds=1_700_000_000, nanos=5)
    raw = codec.encode(message)
    assert raw == message.SerializeToString()
    assert codec.decode(raw) == message
    with pytest.raises(DecodeError):
        codec.decode(b"\xff\xff\xff")
    with pytest.raises(EncodeError):
        codec.encode(Duration(seconds=1))
    with pytest.raises(DeclarationError):
        Protobuf(dict)
    assert Protobuf(Timestamp) == codec != Protobuf(Duration)
