"""Apache Phoenix row keys: its salt byte, separators, dates and timestamps (K1, K3)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

import attrs

from hmodel.errors import DeclarationError, KeyDecodeError, KeyEncodeError
from hmodel.keys.component import (
    Component,
    DerivedComponent,
    Order,
    ValueComponent,
    check_name,
    take,
)
from hmodel.keys.composite import Key
from hmodel.keys.delimited import opened
from hmodel.keys.derived import Const, Salt
from hmodel.keys.integer import check_int
from hmodel.keys.timestamp import EPOCH

__all__ = ["PhoenixDate", "PhoenixSalt", "PhoenixTimestamp", "phoenix_hash", "phoenix_key"]

#: Added to a signed long to flip its sign bit (Phoenix's and hmodel's ``Int`` layout).
_FLIP = 1 << 63
_LONG_MIN, _LONG_MAX = -_FLIP, _FLIP - 1
#: Phoenix's separator after a variable-width value: ascending, then descending (inverted).
SEPARATOR, DESC_SEPARATOR = b"\x00", b"\xff"


def phoenix_hash(data: bytes) -> int:
    """Phoenix's hash of row key bytes: Java's ``Arrays.hashCode(byte[])``.

    ``h = 1``, then ``h = 31 * h + b`` for each byte ``b`` read as a *signed* Java
    byte, in 32-bit two's-complement arithmetic; the result is a signed ``int``.
    """
    h = 1
    for byte in data:
        h = (31 * h + (byte - 256 if byte > 127 else byte)) & 0xFFFFFFFF
    return h - (1 << 32) if h > 0x7FFFFFFF else h


# attrs gives the subclass's generated ``__attrs_init__`` one more field than Salt's; both
# are private to the classes, and only ``PhoenixSalt.__init__`` calls its own.
@attrs.frozen(init=False)
class PhoenixSalt(Salt):  # type: ignore[override]
    r"""The salt byte Phoenix puts first in the row key of a ``SALT_BUCKETS = N`` table.

    Layout: one byte, ``abs(h % N)`` in Java arithmetic, where ``h`` is
    :func:`phoenix_hash` of **every byte of the row key after the salt byte**
    (separators included), as Phoenix's ``SaltingUtil.getSaltingByte`` computes it; so
    ``abs(h) mod N`` for a Python ``h``. It must lead its key; the key binds it to the
    components after it when declared. Reads that do not give every field fan out to
    one scan per bucket, like :class:`~hmodel.keys.Salt` (I5).

    >>> from hmodel.keys import Str
    >>> key = phoenix_key(Str("id"), salt_buckets=4)
    >>> key.encode({"id": "a"})
    b'\x00a'

    Args:
        buckets: ``SALT_BUCKETS``, 1 .. 256.
        name: A label for error messages (default ``phoenix salt``).
        layout: Set by the key: per byte run after the salt, a field name or constant.

    Raises:
        DeclarationError: ``buckets`` out of range; at bind time, not first in the key,
            or followed by another computed component (a hash).
    """

    layout: tuple[str | bytes, ...]

    def __init__(
        self, *, buckets: int, name: str | None = None, layout: tuple[str | bytes, ...] = ()
    ) -> None:
        if isinstance(buckets, bool) or not isinstance(buckets, int) or not 1 <= buckets <= 256:
            raise DeclarationError("PhoenixSalt buckets must be in 1..256", value=buckets)
        sources = tuple(part for part in layout if isinstance(part, str))
        self.__attrs_init__(sources, buckets, 1, name or "phoenix salt", tuple(layout))

    def bind(self, components: tuple[Component, ...], index: int) -> DerivedComponent:
        """Return the salt over the key bytes after it (see :class:`PhoenixSalt`).

        Raises:
            DeclarationError: Not first, no value field after it, or a hash after it.
        """
        if index != 0:
            raise DeclarationError("a PhoenixSalt is the key's first byte", field=self.name)
        layout: list[str | bytes] = []
        for component in components[1:]:
            if isinstance(component, ValueComponent):
                layout.append(component.name)
            elif isinstance(component, Const):
                layout.append(component.tag)
            else:
                raise DeclarationError(
                    f"a PhoenixSalt hashes the key bytes after it; {component.name!r} is "
                    "computed from them",
                    field=component.name,
                )
        if not any(isinstance(part, str) for part in layout):
            raise DeclarationError("a PhoenixSalt needs a value field after it", field=self.name)
        return PhoenixSalt(buckets=self.buckets, name=self.name, layout=tuple(layout))

    def derive(self, encoded: Mapping[str, bytes]) -> int:
        """Return the bucket of the key bytes after the salt.

        Raises:
            KeyEncodeError: A field is missing from ``encoded``, or the salt is unbound.
        """
        if not self.sources:
            raise KeyEncodeError("a PhoenixSalt outside a Key has nothing to hash", field=self.name)
        missing = next((s for s in self.sources if s not in encoded), None)
        if missing is not None:
            raise KeyEncodeError(f"{self.name!r} needs the field {missing!r}", field=missing)
        data = b"".join(encoded[part] if isinstance(part, str) else part for part in self.layout)
        return abs(phoenix_hash(data)) % self.buckets


def _millis(value: Any, name: str) -> tuple[int, int]:
    """Return an aware ``datetime`` (or int milliseconds) as ``(millis, micros within)``.

    Raises:
        KeyEncodeError: Not an aware ``datetime`` or ``int``, or beyond a Java long.
    """
    if isinstance(value, dt.datetime):
        if value.utcoffset() is None:
            raise KeyEncodeError(
                f"{name!r} takes a timezone-aware datetime, not a naive one",
                field=name,
                value=value,
            )
        delta = value - EPOCH
        micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        millis, within = divmod(micros, 1000)
        return millis, within
    if isinstance(value, bool) or not isinstance(value, int):
        raise KeyEncodeError(
            f"{name!r} takes a datetime or int milliseconds, not {type(value).__name__}",
            field=name,
            value=value,
        )
    return check_int(value, _LONG_MIN, _LONG_MAX, name), 0


def _instant(millis: int, micros: int, name: str, raw: bytes) -> dt.datetime:
    """The UTC ``datetime`` ``millis`` ms and ``micros`` us after the epoch.

    Raises:
        KeyDecodeError: Outside the years a ``datetime`` holds (1 .. 9999).
    """
    try:
        return EPOCH + dt.timedelta(milliseconds=millis, microseconds=micros)
    except OverflowError:
        raise KeyDecodeError(
            f"{name!r} holds {millis} ms, outside the years 1..9999", field=name, value=raw
        ) from None


@attrs.frozen
class _PhoenixInstant(ValueComponent[dt.datetime]):
    """An instant whose first 8 bytes are its milliseconds, sign bit flipped."""

    name: str

    def __attrs_post_init__(self) -> None:
        check_name(self.name, type(self).__name__)

    @property
    def python_type(self) -> type[dt.datetime]:
        """``datetime`` (decoded values are timezone-aware, in UTC)."""
        return dt.datetime


@attrs.frozen
class PhoenixDate(_PhoenixInstant):
    r"""Phoenix's ``DATE``/``TIME`` in a row key: milliseconds since the epoch, sign flipped.

    Layout: 8 bytes, the signed long of milliseconds plus ``2**63`` big-endian (its sign
    bit flipped), so instants before 1970 sort first and byte order is time order.
    Takes an aware ``datetime`` on a whole millisecond (a finer one is refused, not
    truncated) or ``int`` milliseconds; decodes to an aware UTC ``datetime``.

    >>> PhoenixDate("d").encode(0)
    b'\x80\x00\x00\x00\x00\x00\x00\x00'

    Args:
        name: The field name.
    """

    @property
    def fixed_width(self) -> int:
        """Always 8 bytes."""
        return 8

    def encode(self, value: Any) -> bytes:
        """Return the 8 sign-flipped bytes of ``value``'s milliseconds.

        Raises:
            KeyEncodeError: See :class:`PhoenixDate`.
        """
        millis, within = _millis(value, self.name)
        if within:
            raise KeyEncodeError(
                f"{self.name!r} is finer than a millisecond; round it first",
                field=self.name,
                value=value,
            )
        return (millis + _FLIP).to_bytes(8, "big")

    def decode(self, buf: bytes, pos: int) -> tuple[dt.datetime, int]:
        """Read 8 bytes at ``pos``.

        Raises:
            KeyDecodeError: Truncated, or outside the years 1..9999.
        """
        raw = take(buf, pos, 8, self)
        return _instant(int.from_bytes(raw, "big") - _FLIP, 0, self.name, raw), pos + 8


@attrs.frozen
class PhoenixTimestamp(_PhoenixInstant):
    r"""Phoenix's ``TIMESTAMP`` in a row key: sign-flipped milliseconds, then nanoseconds.

    Layout: 12 bytes, :class:`PhoenixDate`'s 8 bytes of the whole milliseconds (rounded
    down, as Java's ``Timestamp.getTime()``), then the nanoseconds within that
    millisecond (0 .. 999 999) as a plain big-endian 4-byte int. Byte order is time
    order. A ``datetime`` holds microseconds, so a stored nanosecond count that is not a
    multiple of 1000 is refused on decode rather than rounded.

    >>> PhoenixTimestamp("t").encode(EPOCH + dt.timedelta(microseconds=1500))
    b'\x80\x00\x00\x00\x00\x00\x00\x01\x00\x07\xa1 '

    Args:
        name: The field name.
    """

    @property
    def fixed_width(self) -> int:
        """Always 12 bytes."""
        return 12

    def encode(self, value: Any) -> bytes:
        """Return the 12 bytes of ``value``.

        Raises:
            KeyEncodeError: Not an aware ``datetime`` or ``int`` milliseconds.
        """
        millis, within = _millis(value, self.name)
        return (millis + _FLIP).to_bytes(8, "big") + (within * 1000).to_bytes(4, "big")

    def decode(self, buf: bytes, pos: int) -> tuple[dt.datetime, int]:
        """Read 12 bytes at ``pos``.

        Raises:
            KeyDecodeError: Truncated; nanoseconds above 999 999 or not whole
                microseconds; outside the years 1..9999.
        """
        raw = take(buf, pos, 12, self)
        nanos = int.from_bytes(raw[8:], "big")
        if nanos > 999_999 or nanos % 1000:
            raise KeyDecodeError(
                f"{self.name!r} holds {nanos} ns within its millisecond: not whole "
                "microseconds below 1 ms, which a datetime cannot hold",
                field=self.name,
                value=raw,
            )
        millis = int.from_bytes(raw[:8], "big") - _FLIP
        return _instant(millis, nanos // 1000, self.name, raw), pos + 12


def phoenix_key(*columns: ValueComponent[Any], salt_buckets: int | None = None) -> Key:
    r"""The :class:`~hmodel.keys.Key` of a Phoenix table's primary key columns, in order.

    Each column is the hmodel component of its Phoenix type, ``Descending(...)`` for
    ``DESC``:

    - ``VARCHAR``/``VARBINARY``: ``Str(name)``/``Bytes(name)``; written raw, then the
      separator ``00`` (``DESC``: inverted bytes, then ``ff``), except an ascending one
      in the last position, which runs to the end of the key. Values holding ``00`` are
      refused.
    - ``CHAR(n)``: ``Str(name, width=n, pad=b" ")`` (space-padded; a value holding a
      byte not above the space is refused).
    - ``TINYINT``/``SMALLINT``/``INTEGER``/``BIGINT``: ``Int(name, size=1/2/4/8)``, the
      sign bit flipped, which is Phoenix's layout exactly; ``UNSIGNED_*``:
      ``Int(..., signed=False)``.
    - ``DATE``/``TIME``: :class:`PhoenixDate`; ``TIMESTAMP``: :class:`PhoenixTimestamp`.

    ``salt_buckets`` puts a :class:`PhoenixSalt` first. ``NULL`` key values are not
    supported.

    >>> from hmodel.keys import Int, Str
    >>> key = phoenix_key(Str("tenant"), Int("n", size=4))
    >>> key.encode({"tenant": "t1", "n": 5})
    b't1\x00\x80\x00\x00\x05'

    Raises:
        DeclarationError: A column is not a value component, or the key is invalid.
    """
    parts: list[Component] = [] if salt_buckets is None else [PhoenixSalt(buckets=salt_buckets)]
    for index, column in enumerate(columns):
        if not isinstance(column, ValueComponent):
            raise DeclarationError("phoenix_key columns are value components", value=column)
        last = index == len(columns) - 1
        if column.fixed_width is None:
            open_end = last and column.order is not Order.DESCENDING
            rewritten = opened(column, None if open_end else SEPARATOR)
            if rewritten is None:
                raise DeclarationError(
                    f"{column.name!r}: a variable-width Phoenix column is VARCHAR or "
                    "VARBINARY (Str, Bytes)",
                    field=column.name,
                    value=column,
                )
            parts.append(rewritten)
            if rewritten.followed_by is not None:
                parts.append(Const(rewritten.followed_by, name=f"separator after {column.name}"))
        else:
            parts.append(column)
    return Key(*parts)
