"""Fixed-width big-endian integers whose bytes sort like their values (K2, K7)."""

from __future__ import annotations

from typing import Any

import attrs

from hmodel.errors import DeclarationError, KeyEncodeError
from hmodel.keys.component import ValueComponent, check_name, take

__all__ = ["Int", "check_int"]

_SIZES = (1, 2, 4, 8)


def check_int(value: Any, low: int, high: int, name: str) -> int:
    """Return ``value`` if it is an ``int`` (not a ``bool``) in ``[low, high]``.

    Raises:
        KeyEncodeError: Wrong type or out of range, naming the component and the value.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise KeyEncodeError(
            f"{name!r} takes an int, not {type(value).__name__}", field=name, value=value
        )
    if not low <= value <= high:
        raise KeyEncodeError(f"{name!r} is out of range [{low}, {high}]", field=name, value=value)
    return int(value)


@attrs.frozen
class Int(ValueComponent[int]):
    """An integer stored in ``size`` big-endian bytes (K2).

    A decimal string would need 10+ bytes and sort ``"10" < "9"``; a fixed-width
    big-endian integer is shorter and sorts by value. Layout:

    - ``signed=False``: the value itself, ``0 .. 2**(8*size) - 1``.
    - ``signed=True``: the two's complement with the sign bit flipped, i.e. the unsigned
      number ``value + 2**(8*size - 1)``, so ``-2**(8*size-1)`` is ``00 00 ..`` and
      negatives sort before ``0`` (``80 00 ..``). ``size=8`` covers a Java ``long``.

    Non-negative values of an unsigned ``Int`` have the bytes Java's ``Bytes.toBytes``
    writes; a signed ``Int`` does not (its sign bit is flipped). Wrapped in
    :class:`~hmodel.keys.Descending`, a signed ``Int(size=4)`` stores exactly
    ``Integer.MAX_VALUE - v`` for ``v >= 0`` (K7), and ``size=8`` ``Long.MAX_VALUE - v``.

    Args:
        name: The field name.
        size: 1, 2, 4 or 8 bytes.
        signed: Whether negative values are allowed.

    Raises:
        DeclarationError: ``size`` is not 1, 2, 4 or 8.
    """

    name: str
    size: int = attrs.field(default=8, kw_only=True)
    signed: bool = attrs.field(default=True, kw_only=True)

    def __attrs_post_init__(self) -> None:
        check_name(self.name, "Int")
        if isinstance(self.size, bool) or self.size not in _SIZES:
            raise DeclarationError(
                "Int size must be 1, 2, 4 or 8 bytes", field=self.name, value=self.size
            )
        if not isinstance(self.signed, bool):
            raise DeclarationError("Int signed must be a bool", field=self.name, value=self.signed)

    @property
    def fixed_width(self) -> int:
        """Always ``size`` bytes."""
        return self.size

    @property
    def python_type(self) -> type[int]:
        """``int``."""
        return int

    @property
    def minimum(self) -> int:
        """The smallest value that fits."""
        return -(1 << (8 * self.size - 1)) if self.signed else 0

    @property
    def maximum(self) -> int:
        """The largest value that fits."""
        return self.minimum + (1 << (8 * self.size)) - 1

    def encode(self, value: Any) -> bytes:
        """Return the ``size`` big-endian bytes of ``value`` (sign bit flipped if signed).

        Raises:
            KeyEncodeError: Not an ``int`` (a ``bool`` is refused), or out of range.
        """
        number = check_int(value, self.minimum, self.maximum, self.name)
        return (number - self.minimum).to_bytes(self.size, "big")

    def decode(self, buf: bytes, pos: int) -> tuple[int, int]:
        """Read ``size`` bytes at ``pos``.

        Raises:
            KeyDecodeError: Fewer than ``size`` bytes are left.
        """
        raw = take(buf, pos, self.size, self)
        return int.from_bytes(raw, "big") + self.minimum, pos + self.size
