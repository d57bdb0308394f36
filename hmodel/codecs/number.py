"""Numeric cell codecs with the byte layouts of HBase's ``Bytes.toBytes`` (F10)."""

from __future__ import annotations

import struct
from decimal import Decimal

from hmodel.codecs.codec import Codec

__all__ = ["DecimalCodec", "Float64", "Int32", "Long", "OrderedLong"]

_DOUBLE = struct.Struct(">d")
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


class _FixedWidthInteger(Codec[int]):
    """A signed integer as ``width`` bytes of big-endian two's complement."""

    python_type = int
    width: int

    def encode(self, value: int) -> bytes:
        """Return ``value`` as ``width`` big-endian two's-complement bytes.

        Raises:
            EncodeError: ``value`` is not an ``int`` (``bool`` is refused too) or lies outside
                the signed range of ``width`` bytes.
        """
        if type(value) is int and -(1 << 63) <= value < (1 << 63) and self.width == 8:
            return value.to_bytes(8, "big", signed=True)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong_type(value)
        low, high = -(1 << (8 * self.width - 1)), (1 << (8 * self.width - 1)) - 1
        if not low <= value <= high:
            raise self._encode_error(f"out of range [{low}, {high}]", value)
        return value.to_bytes(self.width, "big", signed=True)

    def decode(self, data: bytes) -> int:
        """Return the signed integer stored in exactly ``width`` big-endian bytes.

        Raises:
            DecodeError: ``data`` is not exactly ``width`` bytes long.
        """
        if type(data) is bytes and len(data) == self.width:
            return int.from_bytes(data, "big", signed=True)
        return int.from_bytes(self._exact_length(data, self.width), "big", signed=True)


class Long(_FixedWidthInteger):
    r"""A 64-bit signed integer as 8 bytes of big-endian two's complement.

    These are exactly the bytes of HBase's ``Bytes.toBytes(long)``, and the layout HBase
    keeps counters in (F10): a cell written by an ``Increment`` decodes with ``Long``, and
    a cell written by ``Long`` can be incremented. The range is ``-2**63`` to ``2**63 - 1``,
    both inclusive.

    As bytes, non-negative values sort in numeric order, but negative values sort *after*
    positive ones (the sign bit is set); use :mod:`hmodel.keys` for rowkey components.

    Example:
        >>> Long().encode(1)
        b'\x00\x00\x00\x00\x00\x00\x00\x01'
        >>> Long().decode(b"\xff" * 8)
        -1
    """

    name = "long"
    width = 8


class Int32(_FixedWidthInteger):
    """A 32-bit signed integer as 4 bytes of big-endian two's complement.

    The bytes of HBase's ``Bytes.toBytes(int)``. The range is ``-2**31`` to ``2**31 - 1``,
    both inclusive. HBase counters are 8 bytes wide: use :class:`Long` for them (F10).
    """

    name = "int32"
    width = 4


class OrderedLong(Codec[int]):
    r"""A 64-bit signed integer whose bytes sort like its values: sign bit flipped.

    8 bytes: the big-endian two's complement of ``value`` with the top bit inverted
    (``value + 2**63`` as an unsigned big-endian number), so HBase's binary comparator
    orders the cells numerically, negatives first. This is the codec a field needs for
    server-side range conditions (``where("age") > 18``, a ``SingleColumnValueFilter``
    with ``<``, ``<=``, ``>``, ``>=``): :class:`Long`'s bytes put negatives after
    positives, so those conditions are refused on it. The layout is Phoenix's ``BIGINT``.
    It is *not* HBase's counter layout: a counter (F10) stays a :class:`Long`. The range
    is ``-2**63`` to ``2**63 - 1``, both inclusive.

    Example:
        >>> OrderedLong().encode(-1), OrderedLong().encode(1)
        (b'\x7f\xff\xff\xff\xff\xff\xff\xff', b'\x80\x00\x00\x00\x00\x00\x00\x01')
        >>> OrderedLong().decode(b"\x80" + b"\x00" * 7)
        0
    """

    name = "ordered-long"
    ordered = True  # the sign flip makes unsigned byte order numeric order
    python_type = int

    def encode(self, value: int) -> bytes:
        """Return ``value + 2**63`` as 8 unsigned big-endian bytes.

        Raises:
            EncodeError: ``value`` is not an ``int`` (``bool`` is refused too) or lies
                outside ``[-2**63, 2**63 - 1]``.
        """
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong_type(value)
        if not -(1 << 63) <= value < (1 << 63):
            raise self._encode_error(f"out of range [{-(1 << 63)}, {(1 << 63) - 1}]", value)
        return (value + (1 << 63)).to_bytes(8, "big")

    def decode(self, data: bytes) -> int:
        """Return the integer stored in exactly 8 sign-flipped big-endian bytes.

        Raises:
            DecodeError: ``data`` is not exactly 8 bytes long.
        """
        return int.from_bytes(self._exact_length(data, 8), "big") - (1 << 63)


class Float64(Codec[float]):
    """An IEEE 754 double as 8 big-endian bytes.

    The bytes of HBase's ``Bytes.toBytes(double)`` (``doubleToRawLongBits``, big-endian).
    Every ``float`` round-trips bit for bit, including ``-0.0``, infinities and NaN payloads.
    An ``int`` is accepted too (as ``float`` annotations accept it) when it converts to a
    double *exactly*; ``2**53 + 1`` is refused rather than rounded. ``decode`` always
    returns a ``float``.
    """

    name = "float64"
    python_type = (float, int)

    def encode(self, value: float) -> bytes:
        """Return ``value`` as the 8 big-endian bytes of an IEEE 754 double.

        Raises:
            EncodeError: ``value`` is not a ``float`` or ``int`` (``bool`` is refused), or is
                an ``int`` that a double cannot hold exactly.
        """
        if isinstance(value, bool) or not isinstance(value, (float, int)):
            raise self._wrong_type(value)
        if isinstance(value, int):
            try:
                exact = float(value)
            except OverflowError:
                raise self._encode_error("int too large for a double", value) from None
            if exact != value:
                raise self._encode_error("int not exactly representable as a double", value)
            value = exact
        return _DOUBLE.pack(value)

    def decode(self, data: bytes) -> float:
        """Return the double stored in exactly 8 big-endian bytes.

        Raises:
            DecodeError: ``data`` is not exactly 8 bytes long.
        """
        value: float = _DOUBLE.unpack(self._exact_length(data, 8))[0]
        return value


class DecimalCodec(Codec[Decimal]):
    """A finite :class:`~decimal.Decimal` in the layout of HBase's ``Bytes.toBytes(BigDecimal)``.

    The bytes are a 4-byte big-endian signed *scale* followed by the *unscaled value* as
    the minimal big-endian two's-complement bytes of Java's ``BigInteger.toByteArray()``
    (at least one byte), so that the value is ``unscaled * 10**-scale``. ``Decimal("1.50")``
    has scale 2 and unscaled value 150: ``00 00 00 02 00 96``.

    The exponent is kept, so ``Decimal("1.50")`` decodes as ``Decimal("1.50")``, not
    ``Decimal("1.5")``. Java's ``BigDecimal`` has no negative zero, so ``Decimal("-0")``
    decodes as ``Decimal("0")`` (which compares equal). NaN and infinities are refused, as
    are exponents whose negation does not fit the 32-bit scale. Decoding accepts any
    unscaled length of at least one byte, as ``Bytes.toBigDecimal`` does.

    Example:
        >>> DecimalCodec().encode(Decimal("1.50")).hex(" ")
        '00 00 00 02 00 96'
        >>> DecimalCodec().decode(bytes.fromhex("00000002 0096"))
        Decimal('1.50')
    """

    name = "decimal"
    python_type = Decimal

    def encode(self, value: Decimal) -> bytes:
        """Return ``value`` as a 4-byte scale followed by the unscaled two's-complement bytes.

        Raises:
            EncodeError: ``value`` is not a ``Decimal``, is NaN or infinite, or its scale does
                not fit 32 bits.
        """
        if not isinstance(value, Decimal):
            raise self._wrong_type(value)
        if not value.is_finite():
            raise self._encode_error("NaN and infinities have no BigDecimal form", value)
        sign, digits, exponent = value.as_tuple()
        assert isinstance(exponent, int)  # finite, so never "n", "N" or "F"
        scale = -exponent
        if not _INT32_MIN <= scale <= _INT32_MAX:
            raise self._encode_error("scale does not fit in 32 bits", value)
        # Decimal -> int is exact and does not go through str (no 4300-digit limit).
        unscaled = int(Decimal((sign, digits, 0)))
        magnitude = unscaled if unscaled >= 0 else ~unscaled
        length = magnitude.bit_length() // 8 + 1  # BigInteger.toByteArray(): minimal, >= 1
        return scale.to_bytes(4, "big", signed=True) + unscaled.to_bytes(length, "big", signed=True)

    def decode(self, data: bytes) -> Decimal:
        """Return the decimal stored as a 4-byte scale and unscaled two's-complement bytes.

        Raises:
            DecodeError: ``data`` is shorter than 5 bytes.
        """
        raw = self._bytes(data)
        if len(raw) < 5:
            raise self._decode_error(f"expected at least 5 bytes, got {len(raw)}", raw)
        scale = int.from_bytes(raw[:4], "big", signed=True)
        unscaled = int.from_bytes(raw[4:], "big", signed=True)
        sign = 1 if unscaled < 0 else 0
        digits = Decimal(abs(unscaled)).as_tuple().digits
        return Decimal((sign, digits, -scale))
