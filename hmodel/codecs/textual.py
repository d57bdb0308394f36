"""Numbers, booleans and decimals stored as their text, as scripts and shells write them."""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from hmodel.codecs.codec import Codec
from hmodel.codecs.number import as_double
from hmodel.errors import DeclarationError

__all__ = ["BoolText", "DecimalText", "FloatText", "IntText"]

_INT = re.compile(rb"-?(?:0|[1-9][0-9]*)")
_NUMBER = re.compile(rb"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


class IntText(Codec[int]):
    """An ``int`` as its decimal ASCII text, ``b"123"``, as ``str(n)`` and ``Long.toString``.

    Decoding is strict: an optional ``-`` and digits with no leading zero (``b"0"``
    itself is fine); no ``+``, spaces, ``-0``, underscores or non-ASCII digits. So every
    cell that decodes re-encodes to the same bytes, and a cell that does not is refused
    with :class:`~hmodel.errors.DecodeError` carrying the bytes, never misread.

    Example:
        >>> IntText().decode(b"-42")
        -42
    """

    name = "int text"
    python_type = int

    def encode(self, value: int) -> bytes:
        """Return ``str(value)`` in ASCII.

        Raises:
            EncodeError: Not an ``int`` (a ``bool`` is refused).
        """
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong_type(value)
        return b"%d" % value

    def decode(self, data: bytes) -> int:
        """Return the integer the text spells.

        Raises:
            DecodeError: Not canonical decimal integer text (see the class).
        """
        raw = self._bytes(data)
        if not _INT.fullmatch(raw) or raw == b"-0":
            raise self._decode_error("not decimal integer text like b'-12'", raw)
        return int(raw)


class FloatText(Codec[float]):
    """A ``float`` as text: ``b"3.5"``, as Python's ``repr`` or Java's ``Double.toString``.

    ``style="python"`` writes ``repr(x)`` (``3.5``, ``1e+16``, ``inf``, ``nan``);
    ``style="java"`` writes what ``Double.toString`` does (``3.5``, ``100.0``,
    ``1.0E16``, ``Infinity``, ``NaN``): plain digits with at least one after the point
    for ``1e-3 <= |x| < 1e7``, else ``d.dddE±n``, the digits the shortest that read
    back as ``x`` in both. Decoding takes any decimal number text (``3``, ``3.50``,
    ``-1.5e3``) and the style's spelling of infinities and NaN; ``3.50`` re-encodes as
    ``3.5``, so the text is only kept byte for byte when it is the style's own.
    An ``int`` that a double holds exactly is accepted, as for :class:`Float64`.

    Args:
        style: ``"python"`` or ``"java"``.

    Raises:
        DeclarationError: Another style.

    Example:
        >>> FloatText(style="java").encode(1e16)
        b'1.0E16'
    """

    name = "float text"
    python_type = (float, int)

    def __init__(self, *, style: Literal["python", "java"] = "python") -> None:
        if style not in ("python", "java"):
            raise DeclarationError('FloatText style must be "python" or "java"', value=style)
        self.style = style
        self._special = (
            {b"inf": math.inf, b"-inf": -math.inf, b"nan": math.nan}
            if style == "python"
            else {b"Infinity": math.inf, b"-Infinity": -math.inf, b"NaN": math.nan}
        )

    def _options(self) -> dict[str, Any]:
        return {"style": self.style}

    def encode(self, value: float) -> bytes:
        """Return the text of ``value`` in the codec's style.

        Raises:
            EncodeError: Not a ``float``, or an ``int`` a double does not hold exactly.
        """
        number = as_double(self, value)
        if self.style == "python":
            return repr(number).encode("ascii")
        return _java_double(number).encode("ascii")

    def decode(self, data: bytes) -> float:
        """Return the double the text spells.

        Raises:
            DecodeError: Not decimal number text or the style's infinity/NaN.
        """
        raw = self._bytes(data)
        if raw in self._special:
            return self._special[raw]
        if not _NUMBER.fullmatch(raw):
            raise self._decode_error("not decimal number text like b'3.5'", raw)
        return float(raw)


def _java_double(x: float) -> str:
    """``Double.toString(x)`` (JDK 19+, shortest digits), from Python's shortest repr."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    digits, exponent = _shortest(abs(x))  # abs(x) = 0.d1d2... * 10**exponent
    if 1e-3 <= abs(x) < 1e7:
        if exponent <= 0:
            return f"{sign}0.{'0' * -exponent}{digits}"
        whole, frac = digits[:exponent].ljust(exponent, "0"), digits[exponent:]
        return f"{sign}{whole}.{frac or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent - 1}"


def _shortest(x: float) -> tuple[str, int]:
    """The shortest digits of positive ``x`` and ``e`` such that ``x = 0.digits * 10**e``."""
    mantissa, _, power = f"{x!r}".partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    exponent = len(whole) + int(power or 0) - (len(whole + frac) - len((whole + frac).lstrip("0")))
    return digits.rstrip("0") or "0", exponent


class DecimalText(Codec[Decimal]):
    """A finite :class:`~decimal.Decimal` as its text, ``b"3.50"``, exponent kept.

    Encodes ``str(value)``, the standard to-scientific-string that Java's
    ``BigDecimal.toString`` writes too (``3.50``, ``1E+3``, ``1.5E-7``), so the text of a
    cell that decodes re-encodes byte for byte. Decoding is strict: decimal number text
    only, no spaces, NaN or infinities (refused with the bytes named).

    Example:
        >>> DecimalText().decode(b"3.50")
        Decimal('3.50')
    """

    name = "decimal text"
    python_type = Decimal

    def encode(self, value: Decimal) -> bytes:
        """Return ``str(value)`` in ASCII.

        Raises:
            EncodeError: Not a ``Decimal``, or NaN/infinite.
        """
        if not isinstance(value, Decimal):
            raise self._wrong_type(value)
        if not value.is_finite():
            raise self._encode_error("NaN and infinities are not decimal text", value)
        return str(value).encode("ascii")

    def decode(self, data: bytes) -> Decimal:
        """Return the decimal the text spells, with its exponent.

        Raises:
            DecodeError: Not decimal number text.
        """
        raw = self._bytes(data)
        if not _NUMBER.fullmatch(raw):
            raise self._decode_error("not decimal number text like b'3.50'", raw)
        try:
            return Decimal(raw.decode("ascii"))
        except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
            raise self._decode_error("not a decimal", raw) from None


class BoolText(Codec[bool]):
    """A ``bool`` as text: ``b"true"``/``b"false"`` by default, as ``Boolean.toString``.

    Python's ``str(True)`` writes ``True``: pass ``true=b"True", false=b"False"`` (or
    ``b"1"``/``b"0"``, ``b"Y"``/``b"N"``). Decoding accepts exactly those two byte
    strings; any other cell is refused with the bytes named, never guessed.

    Args:
        true: The bytes of ``True``.
        false: The bytes of ``False``.

    Raises:
        DeclarationError: Either is not bytes, or they are equal.

    Example:
        >>> BoolText().decode(b"false")
        False
    """

    name = "bool text"
    python_type = bool

    def __init__(self, *, true: bytes = b"true", false: bytes = b"false") -> None:
        if not isinstance(true, bytes) or not isinstance(false, bytes) or true == false:
            raise DeclarationError(
                "BoolText true and false must be two different byte strings",
                value=(true, false),
            )
        self.true, self.false = true, false

    def _options(self) -> dict[str, Any]:
        return {"true": self.true, "false": self.false}

    def encode(self, value: bool) -> bytes:
        """Return ``true`` or ``false``.

        Raises:
            EncodeError: Not a ``bool``.
        """
        if not isinstance(value, bool):
            raise self._wrong_type(value)
        return self.true if value else self.false

    def decode(self, data: bytes) -> bool:
        """Return ``True`` for ``true``'s bytes, ``False`` for ``false``'s.

        Raises:
            DecodeError: Any other bytes.
        """
        raw = self._bytes(data)
        if raw == self.true:
            return True
        if raw == self.false:
            return False
        raise self._decode_error(f"neither {self.true!r} nor {self.false!r}", raw)
