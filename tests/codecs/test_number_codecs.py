"""Long, Int32, Float64 and DecimalCodec: HBase ``Bytes.toBytes`` layouts (F10), round trips."""

from __future__ import annotations

import math
import struct
from decimal import Decimal

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hmodel.codecs import DecimalCodec, Float64, Int32, Long
from hmodel.errors import DecodeError, EncodeError

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
INT_MIN, INT_MAX = -(2**31), 2**31 - 1

# Expected bytes written down from HBase's Bytes.toBytes(long / int / double / BigDecimal).
LONG_VECTORS = [
    (0, b"\x00" * 8),
    (1, b"\x00" * 7 + b"\x01"),
    (256, b"\x00" * 6 + b"\x01\x00"),
    (-1, b"\xff" * 8),
    (-2, b"\xff" * 7 + b"\xfe"),
    (LONG_MAX, b"\x7f" + b"\xff" * 7),
    (LONG_MIN, b"\x80" + b"\x00" * 7),
]
INT_VECTORS = [
    (1, b"\x00\x00\x00\x01"),
    (-2, b"\xff\xff\xff\xfe"),
    (INT_MAX, b"\x7f\xff\xff\xff"),
    (INT_MIN, b"\x80\x00\x00\x00"),
]
DOUBLE_VECTORS = [
    (1.0, "3ff0000000000000"),
    (-0.0, "8000000000000000"),
    (0.1, "3fb999999999999a"),
    (math.inf, "7ff0000000000000"),
    (-2.5, "c004000000000000"),
    (math.nan, "7ff8000000000000"),  # Double.NaN, canonical quiet NaN
]
# (value, scale, BigInteger.toByteArray() of the unscaled value)
BIG_DECIMAL_VECTORS = [
    ("0", "00000000", "00"),
    ("1.50", "00000002", "0096"),
    ("-1.5", "00000001", "f1"),
    ("127", "00000000", "7f"),
    ("128", "00000000", "0080"),
    ("-128", "00000000", "80"),
    ("-129", "00000000", "ff7f"),
    ("1E+3", "fffffffd", "01"),
    ("0.001", "00000003", "01"),
]


@pytest.mark.parametrize(("value", "data"), LONG_VECTORS)
def test_long_matches_hbase_bytes_to_bytes_long(value: int, data: bytes) -> None:
    """Long writes exactly HBase's Bytes.toBytes(long), the counter cell layout (F10)."""
    assert Long().encode(value) == data
    assert Long().decode(data) == value


@pytest.mark.parametrize(("value", "data"), INT_VECTORS)
def test_int32_matches_hbase_bytes_to_bytes_int(value: int, data: bytes) -> None:
    assert Int32().encode(value) == data
    assert Int32().decode(data) == value


@given(st.integers(LONG_MIN, LONG_MAX))
def test_long_round_trips_every_64_bit_value(value: int) -> None:
    assert Long().decode(Long().encode(value)) == value


@given(st.integers(INT_MIN, INT_MAX))
def test_int32_round_trips_every_32_bit_value(value: int) -> None:
    assert Int32().decode(Int32().encode(value)) == value


@given(st.binary(min_size=8, max_size=8))
def test_every_8_bytes_are_a_long_that_encodes_back_to_them(data: bytes) -> None:
    """A counter cell incremented by the server (F10) always decodes."""
    assert Long().encode(Long().decode(data)) == data


@given(st.integers(0, LONG_MAX), st.integers(0, LONG_MAX))
def test_long_byte_order_is_numeric_order_for_non_negative_values(a: int, b: int) -> None:
    assert (Long().encode(a) < Long().encode(b)) == (a < b)


@given(st.integers(LONG_MIN, -1), st.integers(0, LONG_MAX))
def test_long_negative_values_sort_after_non_negative_ones_as_bytes(neg: int, pos: int) -> None:
    """The documented reason cell codecs are not rowkey codecs."""
    assert Long().encode(neg) > Long().encode(pos)


@given(st.integers(0, INT_MAX), st.integers(0, INT_MAX))
def test_int32_byte_order_is_numeric_order_for_non_negative_values(a: int, b: int) -> None:
    assert (Int32().encode(a) < Int32().encode(b)) == (a < b)


@pytest.mark.parametrize(
    ("codec", "value"),
    [
        (Long(), LONG_MAX + 1),
        (Long(), LONG_MIN - 1),
        (Int32(), INT_MAX + 1),
        (Int32(), INT_MIN - 1),
        (Int32(), LONG_MAX),
    ],
)
def test_integers_out_of_range_are_refused(codec: Long | Int32, value: int) -> None:
    with pytest.raises(EncodeError, match="out of range"):
        codec.encode(value)


@given(st.integers(min_value=LONG_MAX + 1) | st.integers(max_value=LONG_MIN - 1))
def test_long_refuses_every_value_outside_64_bits(value: int) -> None:
    with pytest.raises(EncodeError):
        Long().encode(value)


@pytest.mark.parametrize("codec", [Long(), Int32()])
@pytest.mark.parametrize("value", [True, False, 1.0, "1", b"\x01", None, Decimal(1)])
def test_integer_codecs_refuse_non_int_values_including_bool(
    codec: Long | Int32, value: object
) -> None:
    with pytest.raises(EncodeError, match=codec.name):
        codec.encode(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(("codec", "width"), [(Long(), 8), (Int32(), 4), (Float64(), 8)])
@given(data=st.binary(max_size=20))
def test_fixed_width_codecs_refuse_other_lengths(
    codec: Long | Int32 | Float64, width: int, data: bytes
) -> None:
    if len(data) == width:
        return
    with pytest.raises(DecodeError, match=f"exactly {width} bytes"):
        codec.decode(data)


def test_decode_error_names_codec_and_carries_the_bytes() -> None:
    with pytest.raises(DecodeError) as caught:
        Long().decode(b"\x00\x01\x02")
    assert "long codec" in str(caught.value)
    assert caught.value.value == b"\x00\x01\x02"
    assert "value=b'\\x00\\x01\\x02'" in str(caught.value)


def test_decode_accepts_bytearray_and_refuses_str() -> None:
    assert Long().decode(bytearray(b"\x00" * 7 + b"\x05")) == 5  # type: ignore[arg-type]
    with pytest.raises(DecodeError, match="expected bytes, got str"):
        Long().decode("12345678")  # type: ignore[arg-type]


@pytest.mark.parametrize(("value", "hexdata"), DOUBLE_VECTORS)
def test_float64_matches_hbase_bytes_to_bytes_double(value: float, hexdata: str) -> None:
    assert Float64().encode(value).hex() == hexdata
    decoded = Float64().decode(bytes.fromhex(hexdata))
    assert struct.pack(">d", decoded) == bytes.fromhex(hexdata)


@given(st.floats(allow_nan=True, allow_infinity=True))
@example(-0.0)
@example(math.nan)
def test_float64_round_trips_bit_for_bit(value: float) -> None:
    """-0.0 stays negative zero and NaN stays NaN with its payload."""
    decoded = Float64().decode(Float64().encode(value))
    assert struct.pack(">d", decoded) == struct.pack(">d", value)


@given(st.binary(min_size=8, max_size=8))
@example(bytes.fromhex("7ff0000000000001"))  # signalling NaN
@example(bytes.fromhex("fff8000000000000"))  # negative quiet NaN
def test_every_8_bytes_are_a_double_that_encodes_back_to_them(data: bytes) -> None:
    assert Float64().encode(Float64().decode(data)) == data


@given(st.integers(-(2**53), 2**53))
def test_float64_accepts_ints_a_double_holds_exactly(value: int) -> None:
    decoded = Float64().decode(Float64().encode(value))
    assert type(decoded) is float
    assert decoded == value


@pytest.mark.parametrize("value", [2**53 + 1, -(2**53) - 1, 10**400])
def test_float64_refuses_ints_it_would_round(value: int) -> None:
    with pytest.raises(EncodeError, match="float64"):
        Float64().encode(value)


@pytest.mark.parametrize("value", [True, "1.0", Decimal("1.5"), None, b"\x00" * 8])
def test_float64_refuses_non_numbers_and_bool(value: object) -> None:
    with pytest.raises(EncodeError, match="expected float or int"):
        Float64().encode(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(("value", "scale", "unscaled"), BIG_DECIMAL_VECTORS)
def test_decimal_matches_hbase_bytes_to_bytes_big_decimal(
    value: str, scale: str, unscaled: str
) -> None:
    """4-byte scale, then BigInteger.toByteArray() of the unscaled value."""
    data = bytes.fromhex(scale + unscaled)
    assert DecimalCodec().encode(Decimal(value)) == data
    assert DecimalCodec().decode(data).compare_total(Decimal(value)) == 0


def _expected_after_round_trip(value: Decimal) -> Decimal:
    """BigDecimal has no negative zero: -0 (at any exponent) comes back as +0."""
    return value.copy_abs() if value.is_zero() else value


big_decimals = st.builds(
    lambda sign, digits, exponent: Decimal((sign, tuple(digits), exponent)),
    st.integers(0, 1),
    st.lists(st.integers(0, 9), min_size=1, max_size=120),
    st.integers(-(2**31) + 1, 2**31),
)


@given(st.decimals(allow_nan=False, allow_infinity=False) | big_decimals)
@example(Decimal("-0.00"))
@example(Decimal("9" * 5000))  # more digits than int <-> str conversion allows
@example(Decimal((1, (1,), 2**31)))  # smallest scale, -2**31
@example(Decimal((0, (1,), -(2**31) + 1)))  # largest scale, 2**31 - 1
def test_decimal_round_trips_value_and_exponent(value: Decimal) -> None:
    """Decimal("1.50") comes back as 1.50, not 1.5; huge and tiny values survive."""
    decoded = DecimalCodec().decode(DecimalCodec().encode(value))
    assert decoded.compare_total(_expected_after_round_trip(value)) == 0


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_decimal_unscaled_bytes_are_minimal_like_big_integer_to_byte_array(value: Decimal) -> None:
    body = DecimalCodec().encode(value)[4:]
    assert len(body) >= 1
    if len(body) > 1:  # a shorter form would exist if the first byte were pure sign extension
        assert not (body[0] == 0x00 and body[1] < 0x80)
        assert not (body[0] == 0xFF and body[1] >= 0x80)


@pytest.mark.parametrize(
    "value",
    [Decimal("NaN"), Decimal("sNaN"), Decimal("Infinity"), Decimal("-Infinity")],
)
def test_decimal_refuses_nan_and_infinities(value: Decimal) -> None:
    with pytest.raises(EncodeError, match="NaN and infinities"):
        DecimalCodec().encode(value)


@pytest.mark.parametrize("value", [Decimal((0, (1,), 2**31 + 1)), Decimal((0, (1,), -(2**31)))])
def test_decimal_refuses_scales_beyond_32_bits(value: Decimal) -> None:
    with pytest.raises(EncodeError, match="scale"):
        DecimalCodec().encode(value)


@pytest.mark.parametrize("value", [1, 1.5, "1.5", True, None])
def test_decimal_refuses_non_decimal_values(value: object) -> None:
    with pytest.raises(EncodeError, match="expected Decimal"):
        DecimalCodec().encode(value)  # type: ignore[arg-type]


@given(st.binary(max_size=4))
def test_decimal_refuses_fewer_than_5_bytes(data: bytes) -> None:
    with pytest.raises(DecodeError, match="at least 5 bytes"):
        DecimalCodec().decode(data)


@given(st.binary(min_size=5, max_size=40))
def test_decimal_decodes_any_5_or_more_bytes_as_java_would(data: bytes) -> None:
    """Non-minimal unscaled bytes are accepted, as new BigInteger(byte[]) accepts them."""
    scale = int.from_bytes(data[:4], "big", signed=True)
    unscaled = int.from_bytes(data[4:], "big", signed=True)
    sign, digits, exponent = DecimalCodec().decode(data).as_tuple()
    assert exponent == -scale
    assert int(Decimal((sign, digits, 0))) == unscaled
