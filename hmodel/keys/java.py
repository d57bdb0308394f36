"""Key layouts Java programs write: two's-complement ints, zero-padded digits, hex digests."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import attrs

from hmodel.errors import DeclarationError, KeyDecodeError, KeyEncodeError
from hmodel.keys.component import DerivedComponent, ValueComponent, check_name, take
from hmodel.keys.derived import digest_size, joined, source_names
from hmodel.keys.integer import Int, check_int

__all__ = ["HexHashed", "JavaInt", "PaddedInt"]

_HEX = frozenset(b"0123456789abcdef")
_HEX_UPPER = frozenset(b"0123456789ABCDEF")


@attrs.frozen
class JavaInt(Int):
    r"""A signed integer as Java's ``Bytes.toBytes(long/int/short)`` writes it (no sign flip).

    Layout: ``size`` bytes, big-endian two's complement: ``1`` is ``00 .. 01``, ``-1``
    is ``ff .. ff``. As unsigned bytes (HBase's order) the non-negative values sort in
    value order, and **every negative value sorts after every non-negative one**
    (``-1`` is the largest key), exactly as in a table a Java client filled. Within
    each sign the order is the value order, so :meth:`Key.ranges` splits bounds that
    cross zero into two ranges, the negatives' range last. For keys that must sort
    across the sign, hmodel's own :class:`~hmodel.keys.Int` flips the sign bit.

    >>> JavaInt("n", size=4).encode(-2)
    b'\xff\xff\xff\xfe'

    Args:
        name: The field name.
        size: 8 (``long``, the default), 4 (``int``), 2 (``short``) or 1 (``byte``).

    Raises:
        DeclarationError: ``size`` is not 1, 2, 4 or 8, or ``signed=False``.
    """

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        if not self.signed:
            raise DeclarationError(
                "JavaInt is two's complement, always signed; unsigned is Int(signed=False)",
                field=self.name,
            )

    def encode(self, value: Any) -> bytes:
        """Return the ``size`` big-endian two's-complement bytes of ``value``.

        Raises:
            KeyEncodeError: Not an ``int`` (a ``bool`` is refused), or out of range.
        """
        number = check_int(value, self.minimum, self.maximum, self.name)
        return number.to_bytes(self.size, "big", signed=True)

    def decode(self, buf: bytes, pos: int) -> tuple[int, int]:
        """Read ``size`` bytes at ``pos`` as a two's-complement integer.

        Raises:
            KeyDecodeError: Fewer than ``size`` bytes are left.
        """
        raw = take(buf, pos, self.size, self)
        return int.from_bytes(raw, "big", signed=True), pos + self.size

    def segments(
        self, low: Any, high: Any, low_inclusive: bool, high_inclusive: bool
    ) -> list[tuple[Any, Any, bool, bool]]:
        """Split the bounds at zero: the non-negatives' piece, then the negatives'.

        Bounds that are not ints are passed on whole (:meth:`encode` refuses them).
        """
        if any(
            bound is not None and (isinstance(bound, bool) or not isinstance(bound, int))
            for bound in (low, high)
        ):
            return [(low, high, low_inclusive, high_inclusive)]
        first = self.minimum if low is None else low if low_inclusive else low + 1
        last = self.maximum if high is None else high if high_inclusive else high - 1
        pieces: list[tuple[Any, Any, bool, bool]] = []
        if max(first, 0) <= last:
            pieces.append((max(first, 0), last, True, True))
        if first <= min(last, -1):
            pieces.append((first, min(last, -1), True, True))
        return pieces


@attrs.frozen
class PaddedInt(ValueComponent[int]):
    """A non-negative integer as zero-padded decimal text of a fixed width.

    Layout: exactly ``width`` ASCII digits, ``String.format("%010d", n)`` for
    ``width=10``: ``42`` is ``0000000042``. Byte order is value order. A negative value
    is refused (Java writes ``-000000042``, whose ``-`` sorts before the digits and
    whose digits then sort the wrong way), and so is one with more than ``width``
    digits. Decoding takes exactly ``width`` digits and refuses anything else.

    Args:
        name: The field name.
        width: The number of digits, 1 .. 20.

    Raises:
        DeclarationError: ``width`` is not an int in 1 .. 20.
    """

    name: str
    width: int = attrs.field(kw_only=True)

    def __attrs_post_init__(self) -> None:
        check_name(self.name, "PaddedInt")
        if isinstance(self.width, bool) or not isinstance(self.width, int):
            raise DeclarationError("PaddedInt width must be an int", field=self.name)
        if not 1 <= self.width <= 20:
            raise DeclarationError(
                "PaddedInt width must be in 1..20", field=self.name, value=self.width
            )

    @property
    def fixed_width(self) -> int:
        """Always ``width`` bytes."""
        return self.width

    @property
    def python_type(self) -> type[int]:
        """``int``."""
        return int

    def encode(self, value: Any) -> bytes:
        """Return ``value`` as ``width`` zero-padded ASCII digits.

        Raises:
            KeyEncodeError: Not an ``int``, negative, or more than ``width`` digits.
        """
        number = check_int(value, 0, 10**self.width - 1, self.name)
        return b"%0*d" % (self.width, number)

    def decode(self, buf: bytes, pos: int) -> tuple[int, int]:
        """Read ``width`` ASCII digits at ``pos``.

        Raises:
            KeyDecodeError: Truncated, or a byte that is not a digit ``0``-``9``.
        """
        raw = take(buf, pos, self.width, self)
        if not raw.isdigit():  # bytes.isdigit is ASCII only
            raise KeyDecodeError(
                f"{self.name!r} holds a byte that is not a digit 0-9", field=self.name, value=raw
            )
        return int(raw), pos + self.width


@attrs.frozen(init=False)
class HexHashed(DerivedComponent):
    """The first ``nchars`` lowercase hex digits of a digest of some fields, as text (K4, K9).

    Layout: ``hexdigest(enc(f1) + enc(f2) + ...)[:nchars]`` as ASCII, where ``enc`` is
    each source field's key encoding as for :class:`~hmodel.keys.Hashed`. Give the
    source its open layout (``Str("id", terminated=False)``, or any text field of a
    delimited key) and ``enc`` is the text's bytes exactly, so the prefix is Java's
    ``DigestUtils.md5Hex(id).substring(0, n)``; ``md5("u1")`` starts ``e477``:

    >>> from hmodel.keys import Key, Str
    >>> Key(HexHashed("id", nchars=4), Str("id", terminated=False)).encode({"id": "u1"})
    b'e477u1'

    Args:
        *source_fields: The value fields hashed, in order.
        nchars: How many leading hex digits to keep (1 .. twice the digest size).
        algorithm: A :mod:`hashlib` algorithm with a fixed digest size.
        upper: Upper-case hex digits (``md5Hex(..).toUpperCase()``).
        name: A label for error messages (default ``md5hex(f1,f2)``).

    Raises:
        DeclarationError: No source field, an unknown algorithm, ``nchars`` out of range.
    """

    sources: tuple[str, ...]
    nchars: int
    algorithm: str
    upper: bool
    name: str

    def __init__(
        self,
        *source_fields: str,
        nchars: int = 8,
        algorithm: str = "md5",
        upper: bool = False,
        name: str | None = None,
    ) -> None:
        sources = source_names(source_fields, "HexHashed")
        size = 2 * digest_size(algorithm)
        if isinstance(nchars, bool) or not isinstance(nchars, int) or not 1 <= nchars <= size:
            raise DeclarationError(f"HexHashed nchars must be in 1..{size}", value=nchars)
        if not isinstance(upper, bool):
            raise DeclarationError("HexHashed upper must be a bool", value=upper)
        label = name or f"{algorithm}hex({','.join(sources)})"
        self.__attrs_init__(sources, nchars, algorithm, upper, label)

    @property
    def fixed_width(self) -> int:
        """``nchars``."""
        return self.nchars

    def derive(self, encoded: Mapping[str, bytes]) -> bytes:
        """Return the first ``nchars`` hex digits of the digest of the encoded sources.

        Raises:
            KeyEncodeError: A source field is missing from ``encoded``.
        """
        data = joined(encoded, self.sources, self.name)
        text = hashlib.new(self.algorithm, data, usedforsecurity=False).hexdigest()
        digits = text[: self.nchars].encode("ascii")
        return digits.upper() if self.upper else digits

    def encode(self, value: Any) -> bytes:
        """Return ``value``, ``nchars`` hex digits.

        Raises:
            KeyEncodeError: ``value`` is not ``nchars`` bytes of hex digits of the case.
        """
        if not isinstance(value, bytes) or len(value) != self.nchars or not self._hex(value):
            raise KeyEncodeError(
                f"{self.name!r} is {self.nchars} hex digits", field=self.name, value=value
            )
        return value

    def decode(self, buf: bytes, pos: int) -> tuple[bytes, int]:
        """Read ``nchars`` hex digits at ``pos`` (the key checks them against the fields).

        Raises:
            KeyDecodeError: Truncated, or not hex digits of the declared case.
        """
        raw = take(buf, pos, self.nchars, self)
        if not self._hex(raw):
            raise KeyDecodeError(f"{self.name!r} is not hex digits", field=self.name, value=raw)
        return raw, pos + self.nchars

    def _hex(self, raw: bytes) -> bool:
        return set(raw) <= (_HEX_UPPER if self.upper else _HEX)
