"""The contract every rowkey component codec follows (K1, K2)."""

from __future__ import annotations

import abc
import enum
from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from hmodel.errors import DeclarationError, KeyDecodeError

__all__ = ["Component", "DerivedComponent", "Order", "ValueComponent", "check_name", "take"]

T = TypeVar("T")


class Order(enum.Enum):
    """How the bytes of a value component sort relative to its values."""

    #: Byte order equals value order.
    ASCENDING = "ascending"
    #: Byte order is the reverse of value order (K6, K7).
    DESCENDING = "descending"
    #: Byte order says nothing about value order (K5); only equality can be scanned for.
    UNORDERED = "unordered"

    def flipped(self) -> Order:
        """Return the order of the same component with its bytes inverted."""
        if self is Order.ASCENDING:
            return Order.DESCENDING
        if self is Order.DESCENDING:
            return Order.ASCENDING
        return self


class Component(abc.ABC):
    """One piece of a composite rowkey: a symmetric ``encode``/``decode`` pair over bytes.

    Every component's encodings are *prefix-free*: no encoding is a proper prefix of
    another. That is what lets components be concatenated into one rowkey and parsed
    back without separators, and what makes a prefix of a rowkey select exactly the rows
    whose leading components hold given values.

    ``decode(buf, pos)`` reads one value starting at ``buf[pos]`` and returns it together
    with the position just after it, so a composite key decodes its components in turn.
    Errors are :class:`~hmodel.errors.KeyEncodeError` and
    :class:`~hmodel.errors.KeyDecodeError` carrying ``field=`` the component name.
    """

    __slots__ = ()

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """The component's name: the model field it holds, or a label for computed ones."""

    @property
    @abc.abstractmethod
    def fixed_width(self) -> int | None:
        """The encoded width in bytes, or ``None`` when it varies with the value."""

    @abc.abstractmethod
    def encode(self, value: Any) -> bytes:
        """Return the bytes of ``value``.

        Raises:
            KeyEncodeError: ``value`` has the wrong type, is out of range or too long.
        """

    @abc.abstractmethod
    def decode(self, buf: bytes, pos: int) -> tuple[Any, int]:
        """Read one value at ``buf[pos]``; return it and the position just after it.

        Raises:
            KeyDecodeError: The bytes are truncated or are not an encoding of this component.
        """


class ValueComponent(Component, Generic[T]):
    """A component that holds a field of the record (a user id, a timestamp, a score)."""

    __slots__ = ()

    @property
    @abc.abstractmethod
    def python_type(self) -> type[T]:
        """The Python type of the decoded value (``str``, ``bytes``, ``int``, ``datetime``)."""

    @property
    def order(self) -> Order:
        """How this component's bytes sort relative to its values."""
        return Order.ASCENDING

    @property
    def prefix_free(self) -> bool:
        """Whether no encoding is a proper prefix of another (true of all but open layouts).

        An open layout (a foreign key's raw text) ends where the key ends, or where the
        separator :attr:`followed_by` names begins.
        """
        return True

    @property
    def followed_by(self) -> bytes | None:
        """For an open layout, the separator the key must write after it; else ``None``.

        An open layout with none runs to the end of the key, so it must come last.
        """
        return None

    def segments(
        self, low: Any, high: Any, low_inclusive: bool, high_inclusive: bool
    ) -> list[tuple[Any, Any, bool, bool]]:
        """Split logical bounds into pieces each of which is contiguous in byte order.

        Returns ``[(low, high, low_inclusive, high_inclusive)]`` for a component whose
        bytes follow its :attr:`order`; one whose order wraps (a Java two's-complement
        integer, where negatives sort after positives) returns one piece per run,
        ``[]`` when the bounds hold no value.
        """
        return [(low, high, low_inclusive, high_inclusive)]

    @abc.abstractmethod
    def encode(self, value: Any) -> bytes:
        """Return the bytes of ``value``.

        Raises:
            KeyEncodeError: ``value`` has the wrong type, is out of range or too long.
        """

    @abc.abstractmethod
    def decode(self, buf: bytes, pos: int) -> tuple[T, int]:
        """Read one value at ``buf[pos]``; return it and the position just after it.

        Raises:
            KeyDecodeError: The bytes are truncated or are not an encoding of this component.
        """


class DerivedComponent(Component):
    """A component computed from other fields of the key (a hash, a salt) or constant.

    Its own value (a digest, a bucket number, a tag) is computed by :meth:`derive` from
    the *encoded* bytes of its source fields; ``encode``/``decode`` turn that value into
    bytes and back, and a composite key checks on decode that the stored value is the
    one the decoded source fields give.
    """

    __slots__ = ()

    @property
    @abc.abstractmethod
    def sources(self) -> tuple[str, ...]:
        """The names of the value fields this component is computed from (may be empty)."""

    @abc.abstractmethod
    def derive(self, encoded: Mapping[str, bytes]) -> Any:
        """Compute this component's value from the encoded bytes of its source fields."""

    def bind(self, components: tuple[Component, ...], index: int) -> DerivedComponent:
        """Return this component as it stands at ``components[index]`` of a key.

        A key calls it once, when it is declared. Most components are the same anywhere
        and return themselves; one computed from the whole rest of the key (Phoenix's
        salt byte) learns its sources and the constant bytes between them here.

        Raises:
            DeclarationError: The component cannot stand there.
        """
        return self


def take(buf: bytes, pos: int, size: int, component: Component) -> bytes:
    """Return ``buf[pos:pos + size]``, or raise if fewer than ``size`` bytes are left.

    Raises:
        KeyDecodeError: The key ends before ``size`` bytes (names the component).
    """
    end = pos + size
    if end > len(buf):
        raise KeyDecodeError(
            f"truncated rowkey: {component.name!r} needs {size} bytes, {len(buf) - pos} left",
            field=component.name,
            value=buf[pos:],
        )
    return buf[pos:end]


def check_name(name: object, what: str) -> str:
    """Return ``name`` if it is a non-empty string, else raise a declaration error."""
    if not isinstance(name, str) or not name:
        raise DeclarationError(f"a {what} needs a non-empty string name", value=name)
    return name
