"""Wrappers that change a value component's layout: descending order, reversed digits (K5, K7)."""

from __future__ import annotations

from typing import Any, TypeVar, cast

import attrs

from hmodel.errors import DeclarationError, KeyDecodeError
from hmodel.keys.component import Order, ValueComponent

__all__ = ["Descending", "Nullable", "Reversed"]

T = TypeVar("T")

_INVERT = bytes(255 - b for b in range(256))


def _value_component(instance: object, attribute: object, component: object) -> None:
    if not isinstance(component, ValueComponent):
        raise DeclarationError(
            "only a value component (Str, Bytes, Int, Timestamp, ...) can be wrapped",
            value=component,
        )


class _Wrapper(ValueComponent[T]):
    """A component around another one: its name, width and value type are the wrapped one's."""

    __slots__ = ()

    component: ValueComponent[T]

    @property
    def name(self) -> str:
        """The wrapped component's name."""
        return self.component.name

    @property
    def fixed_width(self) -> int | None:
        """The wrapped component's width."""
        return self.component.fixed_width

    @property
    def python_type(self) -> type[T]:
        """The wrapped component's value type."""
        return self.component.python_type

    @property
    def prefix_free(self) -> bool:
        """The wrapped component's."""
        return self.component.prefix_free

    @property
    def followed_by(self) -> bytes | None:
        """The wrapped component's separator."""
        return self.component.followed_by

    def segments(
        self, low: Any, high: Any, low_inclusive: bool, high_inclusive: bool
    ) -> list[tuple[Any, Any, bool, bool]]:
        """The wrapped component's pieces."""
        return self.component.segments(low, high, low_inclusive, high_inclusive)


@attrs.frozen
class Descending(_Wrapper[T]):
    r"""Any value component with every byte inverted (``b -> 0xFF - b``): largest first (K7).

    Because every component's encodings are prefix-free, two encodings differ at a byte
    inside both, and inverting the bytes reverses that comparison: the order is exactly
    reversed for whole keys, and the inverted encodings stay prefix-free. That holds for
    variable-width strings too: their escape ``00 FF`` becomes ``FF 00`` and their
    terminator ``00 00`` becomes ``FF FF``, so ``"ab"`` sorts before ``"a"``.

    For a signed :class:`~hmodel.keys.Int` of 4 (8) bytes the stored bytes are exactly
    Java's ``Integer.MAX_VALUE - v`` (``Long.MAX_VALUE - v``) for ``v >= 0``, the hot-list
    idiom, but without its overflow for negative ``v``.

    An open text layout ending before ``00`` (``Str(name, until=b"\x00")``) inverts to
    Phoenix's ``DESC VARCHAR``: inverted bytes, then the separator ``ff``. One running to
    the end of the key is refused: its order would not reverse.

    Args:
        component: The value component to invert, e.g. ``Int("score", size=4)``.

    Raises:
        DeclarationError: ``component`` is not a value component, or runs to the end of
            the key.
    """

    component: ValueComponent[T] = attrs.field(validator=_value_component)

    def __attrs_post_init__(self) -> None:
        if not self.component.prefix_free and self.component.followed_by is None:
            raise DeclarationError(
                "Descending cannot invert a value that runs to the end of the key: its "
                "order would not reverse (a < ab either way); end it with a separator "
                "(until=b'\\x00', as Phoenix's DESC VARCHAR does)",
                field=self.component.name,
                value=self.component,
            )

    @property
    def order(self) -> Order:
        """The reverse of the wrapped component's order."""
        return self.component.order.flipped()

    @property
    def followed_by(self) -> bytes | None:
        """The wrapped component's separator, inverted (Phoenix's DESC ``FF``)."""
        after = self.component.followed_by
        return None if after is None else after.translate(_INVERT)

    def encode(self, value: Any) -> bytes:
        """Return the wrapped encoding with every byte inverted.

        Raises:
            KeyEncodeError: As the wrapped component.
        """
        return self.component.encode(value).translate(_INVERT)

    def decode(self, buf: bytes, pos: int) -> tuple[T, int]:
        """Invert the bytes from ``pos`` on and let the wrapped component read them.

        Raises:
            KeyDecodeError: As the wrapped component.
        """
        width = self.component.fixed_width
        tail = buf[pos:] if width is None else buf[pos : pos + width]
        value, used = self.component.decode(tail.translate(_INVERT), 0)
        return value, pos + used


@attrs.frozen
class Reversed(_Wrapper[T]):
    """A value stored least-significant part first, to spread sequential ids (K5).

    Text and bytes are reversed character by character before the wrapped component
    encodes them: ``Reversed(Str("user_id", width=10))`` stores ``"1234567890"`` as
    ``"0987654321"``. Other components (integers, timestamps) must be fixed-width and
    have their encoded bytes reversed, least significant byte first. Decoding undoes it.

    Order is not kept: sequential ids land far apart, which is the point (writes spread
    over regions), so ranges cannot bound a reversed component; only an exact value in a
    key prefix can be scanned for. Gets by the natural id still work.

    Args:
        component: The value component to reverse.

    Raises:
        DeclarationError: ``component`` is not a value component, or is a variable-width
            one that is not text or bytes.
    """

    component: ValueComponent[T] = attrs.field(validator=_value_component)

    def __attrs_post_init__(self) -> None:
        if not self._textual and self.component.fixed_width is None:
            raise DeclarationError(
                "Reversed needs text, bytes or a fixed-width component",
                field=self.component.name,
                value=self.component,
            )

    @property
    def _textual(self) -> bool:
        return self.component.python_type in (str, bytes)

    @property
    def order(self) -> Order:
        """Unordered: byte order says nothing about value order."""
        return Order.UNORDERED

    def encode(self, value: Any) -> bytes:
        """Return the encoding of the reversed value (text) or the reversed encoding.

        Raises:
            KeyEncodeError: As the wrapped component.
        """
        if not self._textual:
            return self.component.encode(value)[::-1]
        # Anything but text or bytes is passed on as is, for the wrapped component to refuse.
        return self.component.encode(value[::-1] if isinstance(value, (str, bytes)) else value)

    def decode(self, buf: bytes, pos: int) -> tuple[T, int]:
        """Read the wrapped component and undo the reversal.

        Raises:
            KeyDecodeError: As the wrapped component.
        """
        if self._textual:
            value, end = self.component.decode(buf, pos)
            return cast(T, cast("str | bytes", value)[::-1]), end
        width = self.component.fixed_width or 0
        return self.component.decode(buf[pos : pos + width][::-1], 0)[0], pos + width


#: First byte of a :class:`Nullable` encoding of ``None``.
NULL = b"\x00"
#: First byte of a :class:`Nullable` encoding of a value.
PRESENT = b"\x01"


@attrs.frozen
class Nullable(_Wrapper[T]):
    """Any value component that also stores ``None``, which sorts before every value.

    Byte layout: ``00`` for ``None``; ``01`` followed by the wrapped component's encoding
    for a value. Both are prefix-free (the first byte tells which, and the wrapped
    encodings are prefix-free), and values keep the wrapped component's order. Used by
    secondary indexes over optional fields (``Index(..., nulls=True)``, I1), so that the
    rows whose field is ``None`` can be found too.

    Args:
        component: The value component of the values.

    Raises:
        DeclarationError: ``component`` is not a value component.
    """

    component: ValueComponent[T] = attrs.field(validator=_value_component)

    @property
    def fixed_width(self) -> int | None:
        """``None``: a ``None`` takes one byte, a value one more than the wrapped width."""
        return None

    @property
    def order(self) -> Order:
        """The wrapped component's order (``None`` first either way)."""
        return self.component.order

    def encode(self, value: Any) -> bytes:
        """``00`` for ``None``, else ``01`` + the wrapped encoding.

        Raises:
            KeyEncodeError: As the wrapped component.
        """
        if value is None:
            return NULL
        return PRESENT + self.component.encode(value)

    def decode(self, buf: bytes, pos: int) -> tuple[T, int]:
        """Read a ``None`` or a value at ``buf[pos]``.

        Raises:
            KeyDecodeError: The first byte is neither ``00`` nor ``01``, or as the wrapped
                component.
        """
        head = buf[pos : pos + 1]
        if head == NULL:
            return cast(T, None), pos + 1
        if head != PRESENT:
            raise KeyDecodeError(
                "not a nullable key value (first byte 00 or 01)",
                field=self.name,
                value=buf[pos : pos + 8],
            )
        return self.component.decode(buf, pos + 1)
