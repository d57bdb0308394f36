"""Apache Phoenix's cell value encodings: sign-flipped numbers, booleans, dates (F10)."""

from __future__ import annotations

import datetime as dt
import math
import struct
from typing import Any

from hmodel.codecs.codec import Codec
from hmodel.codecs.number import as_double
from hmodel.errors import DeclarationError

__all__ = ["PhoenixBool", "PhoenixDate", "PhoenixDouble", "PhoenixInt", "PhoenixTimestamp"]

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_SIGN = 1 << 63
_MASK = (1 << 64) - 1
_BITS = struct.Struct(">Q")
_DOUBLE = struct.Struct(">d")


class PhoenixInt(Codec[int]):
    r"""Phoenix's ``TINYINT``/``SMALLINT``/``INTEGER``/``BIGINT`` cell: sign bit flipped.

    ``size`` big-endian bytes of ``value + 2**(8*size - 1)`` (two's complement with the
    top bit inverted), the same bytes Phoenix writes in keys and values, so they sort
    by value. ``unsigned=True`` is ``UNSIGNED_*``: the plain big-endian value, ``>= 0``.

    Args:
        size: 1, 2, 4 (``INTEGER``, the default) or 8 (``BIGINT``).
        unsigned: The ``UNSIGNED_*`` types.

    Raises:
        DeclarationError: Another size.

    Example:
        >>> PhoenixInt().encode(-1)
        b'\x7f\xff\xff\xff'
    """

    name = "phoenix int"
    ordered = True
    python_type = int

    def __init__(self, *, size: int = 4, unsigned: bool = False) -> None:
        if isinstance(size, bool) or size not in (1, 2, 4, 8):
            raise DeclarationError("PhoenixInt size must be 1, 2, 4 or 8", value=size)
        self.size, self.unsigned = size, bool(unsigned)
        self._offset = 0 if unsigned else 1 << (8 * size - 1)

    def _options(self) -> dict[str, Any]:
        return {"size": self.size, "unsigned": self.unsigned}

    def encode(self, value: int) -> bytes:
        """Return the ``size`` bytes of ``value``.

        Raises:
            EncodeError: Not an ``int``, or out of the type's range.
        """
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong_type(value)
        stored = value + self._offset
        if not 0 <= stored < 1 << (8 * self.size):
            raise self._encode_error(f"out of range for {self.size} bytes", value)
        return stored.to_bytes(self.size, "big")

    def decode(self, data: bytes) -> int:
        """Return the integer in exactly ``size`` bytes.

        Raises:
            DecodeError: Another length.
        """
        return int.from_bytes(self._exact_length(data, self.size), "big") - self._offset


class PhoenixBool(Codec[bool]):
    r"""Phoenix's ``BOOLEAN`` cell: one byte, ``01`` for true and ``00`` for false.

    Decoding accepts exactly those two bytes. (HBase's own ``Bytes.toBytes(true)`` is
    ``ff``: that is :class:`~hmodel.codecs.Bool`.)

    Example:
        >>> PhoenixBool().encode(True)
        b'\x01'
    """

    name = "phoenix bool"
    ordered = True
    python_type = bool

    def encode(self, value: bool) -> bytes:
        """Return ``01`` or ``00``.

        Raises:
            EncodeError: Not a ``bool``.
        """
        if not isinstance(value, bool):
            raise self._wrong_type(value)
        return b"\x01" if value else b"\x00"

    def decode(self, data: bytes) -> bool:
        """Return the boolean of ``01``/``00``.

        Raises:
            DecodeError: Not exactly one of those bytes.
        """
        raw = self._exact_length(data, 1)
        if raw not in (b"\x00", b"\x01"):
            raise self._decode_error("a Phoenix BOOLEAN is 00 or 01", raw)
        return raw == b"\x01"


class PhoenixDouble(Codec[float]):
    r"""Phoenix's ``DOUBLE`` cell: IEEE bits made order-preserving, plus one.

    Layout: the 8 bytes of ``Double.doubleToLongBits(v)`` with the sign bit flipped for
    a positive ``v`` and every bit flipped for a negative one, then 1 added (modulo
    ``2**64``), as Phoenix's ``PDouble`` writes. Every NaN is written as Java's one
    canonical NaN. An exactly representable ``int`` is accepted.

    Example:
        >>> PhoenixDouble().encode(1.0).hex()
        'bff0000000000001'
    """

    name = "phoenix double"
    python_type = (float, int)

    def encode(self, value: float) -> bytes:
        """Return the 8 bytes of ``value``.

        Raises:
            EncodeError: Not a ``float``, or an ``int`` a double does not hold exactly.
        """
        number = as_double(self, value)
        if math.isnan(number):
            number = math.nan  # doubleToLongBits: the canonical NaN
        (bits,) = _BITS.unpack(_DOUBLE.pack(number))
        flipped = bits ^ (_MASK if bits & _SIGN else _SIGN)
        return _BITS.pack((flipped + 1) & _MASK)

    def decode(self, data: bytes) -> float:
        """Return the double in exactly 8 bytes.

        Raises:
            DecodeError: Another length.
        """
        (stored,) = _BITS.unpack(self._exact_length(data, 8))
        bits = (stored - 1) & _MASK
        bits ^= _SIGN if bits & _SIGN else _MASK
        value: float = _DOUBLE.unpack(_BITS.pack(bits))[0]
        return value


def _split(value: object, codec: Codec[Any]) -> tuple[int, int]:
    """An aware ``datetime`` as whole milliseconds since the epoch and microseconds over."""
    if not isinstance(value, dt.datetime):
        raise codec._wrong_type(value)
    if value.utcoffset() is None:
        raise codec._encode_error("a naive datetime names no instant", value)
    delta = value - _EPOCH
    micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    return divmod(micros, 1000)


class PhoenixDate(Codec[dt.datetime]):
    r"""Phoenix's ``DATE``/``TIME`` cell: milliseconds since the epoch, sign bit flipped.

    8 bytes, as in its row keys (:class:`hmodel.keys.PhoenixDate`). Takes an aware
    ``datetime`` on a whole millisecond; decodes to an aware UTC ``datetime``.

    Example:
        >>> PhoenixDate().encode(dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)).hex()
        '8000000000000000'
    """

    name = "phoenix date"
    ordered = True
    python_type = dt.datetime

    def encode(self, value: dt.datetime) -> bytes:
        """Return the 8 bytes of ``value``.

        Raises:
            EncodeError: Not an aware ``datetime``, or finer than a millisecond.
        """
        millis, within = _split(value, self)
        if within:
            raise self._encode_error("finer than a millisecond; round it first", value)
        return ((millis + _SIGN) & _MASK).to_bytes(8, "big")

    def decode(self, data: bytes) -> dt.datetime:
        """Return the instant in exactly 8 bytes.

        Raises:
            DecodeError: Another length, or outside the years 1..9999.
        """
        raw = self._exact_length(data, 8)
        return _instant(self, raw, int.from_bytes(raw, "big") - _SIGN, 0)


class PhoenixTimestamp(Codec[dt.datetime]):
    r"""Phoenix's ``TIMESTAMP`` cell: a :class:`PhoenixDate`, then the nanos within its ms.

    12 bytes: the whole milliseconds (rounded down, as ``Timestamp.getTime()``) sign
    flipped, then ``0 .. 999999`` nanoseconds as a plain big-endian int. Nanoseconds that
    are not whole microseconds are refused on decode (a ``datetime`` cannot hold them).

    Example:
        >>> stamp = dt.datetime(1970, 1, 1, 0, 0, 0, 1500, tzinfo=dt.timezone.utc)
        >>> PhoenixTimestamp().encode(stamp).hex()
        '80000000000000010007a120'
    """

    name = "phoenix timestamp"
    ordered = True
    python_type = dt.datetime

    def encode(self, value: dt.datetime) -> bytes:
        """Return the 12 bytes of ``value``.

        Raises:
            EncodeError: Not an aware ``datetime``.
        """
        millis, within = _split(value, self)
        return ((millis + _SIGN) & _MASK).to_bytes(8, "big") + (within * 1000).to_bytes(4, "big")

    def decode(self, data: bytes) -> dt.datetime:
        """Return the instant in exactly 12 bytes.

        Raises:
            DecodeError: Another length, nanoseconds that are not whole microseconds
                below 1 ms, or outside the years 1..9999.
        """
        raw = self._exact_length(data, 12)
        nanos = int.from_bytes(raw[8:], "big")
        if nanos > 999_999 or nanos % 1000:
            raise self._decode_error(f"{nanos} ns within the millisecond", raw)
        return _instant(self, raw, int.from_bytes(raw[:8], "big") - _SIGN, nanos // 1000)


def _instant(codec: Codec[Any], raw: bytes, millis: int, micros: int) -> dt.datetime:
    """The UTC instant ``millis`` ms and ``micros`` us after the epoch, or a decode error."""
    try:
        return _EPOCH + dt.timedelta(milliseconds=millis, microseconds=micros)
    except OverflowError:
        raise codec._decode_error("outside the years 1..9999", raw) from None
