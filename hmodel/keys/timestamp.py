"""Instants in a key as 8-byte longs: oldest first, or newest first (K6, K8)."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

import attrs

from hmodel.errors import DeclarationError, KeyDecodeError, KeyEncodeError
from hmodel.keys.component import Order, ValueComponent, check_name, take
from hmodel.keys.integer import check_int

__all__ = ["LONG_MAX", "ReverseTimestamp", "Timestamp"]

#: Java's ``Long.MAX_VALUE``.
LONG_MAX = (1 << 63) - 1

Unit = Literal["s", "ms", "us"]

_EPOCH = EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
#: Microseconds a tick of each unit.
MICROS_PER_TICK = {"s": 1_000_000, "ms": 1_000, "us": 1}

_LAST = dt.datetime.max.replace(tzinfo=dt.timezone.utc) - _EPOCH
_LAST_MICROS = (_LAST.days * 86_400 + _LAST.seconds) * 1_000_000 + _LAST.microseconds
_DELTA = dt.timedelta
_MAX_TICKS = {unit: _LAST_MICROS // micros for unit, micros in MICROS_PER_TICK.items()}


@attrs.frozen
class _Instant(ValueComponent[dt.datetime]):
    """Conversion between instants and non-negative ticks of ``unit`` since the epoch."""

    name: str
    unit: Unit = attrs.field(default="ms", kw_only=True)

    def __attrs_post_init__(self) -> None:
        check_name(self.name, type(self).__name__)
        if self.unit not in MICROS_PER_TICK:
            raise DeclarationError(
                "timestamp unit must be 's', 'ms' or 'us'", field=self.name, value=self.unit
            )

    @property
    def fixed_width(self) -> int:
        """Always 8 bytes."""
        return 8

    @property
    def python_type(self) -> type[dt.datetime]:
        """``datetime`` (decoded values are timezone-aware, in UTC)."""
        return dt.datetime

    @property
    def max_ticks(self) -> int:
        """The largest tick count a ``datetime`` can hold (9999-12-31, in ``unit``)."""
        return _MAX_TICKS[self.unit]

    def ticks(self, value: Any) -> int:
        """Return ``value`` as whole ``unit`` ticks since 1970-01-01 UTC.

        Raises:
            KeyEncodeError: Not an aware ``datetime`` or an ``int``; before the epoch;
                after year 9999; finer than ``unit`` (it would be truncated).
        """
        if isinstance(value, dt.datetime):
            if value.utcoffset() is None:
                raise KeyEncodeError(
                    f"{self.name!r} takes a timezone-aware datetime, not a naive one",
                    field=self.name,
                    value=value,
                )
            delta = value - _EPOCH
            micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
            ticks, rest = divmod(micros, MICROS_PER_TICK[self.unit])
            if rest:
                raise KeyEncodeError(
                    f"{self.name!r} is finer than its unit {self.unit!r}; round it first",
                    field=self.name,
                    value=value,
                )
            if not 0 <= ticks <= self.max_ticks:
                raise KeyEncodeError(
                    f"{self.name!r} is out of range: before 1970 or after 9999",
                    field=self.name,
                    value=value,
                )
            return ticks
        if isinstance(value, bool) or not isinstance(value, int):
            raise KeyEncodeError(
                f"{self.name!r} takes a datetime or int {self.unit} since the epoch, "
                f"not {type(value).__name__}",
                field=self.name,
                value=value,
            )
        return check_int(value, 0, self.max_ticks, self.name)

    def instant(self, ticks: int, raw: bytes) -> dt.datetime:
        """Return the UTC datetime ``ticks`` units after the epoch.

        Raises:
            KeyDecodeError: ``ticks`` is negative or beyond year 9999.
        """
        if not 0 <= ticks <= _MAX_TICKS[self.unit]:
            raise KeyDecodeError(
                f"{self.name!r} holds {ticks} {self.unit}, outside 1970..9999",
                field=self.name,
                value=raw,
            )
        seconds, micros = divmod(ticks * MICROS_PER_TICK[self.unit], 1_000_000)
        return _EPOCH + _DELTA(0, seconds, micros)  # positional: no keyword parsing

    def _long_at(self, buf: bytes, pos: int) -> tuple[bytes, int]:
        """The 8 bytes at ``pos`` and the signed long they hold.

        Raises:
            KeyDecodeError: Fewer than 8 bytes are left (names the component).
        """
        raw = buf[pos : pos + 8]
        if len(raw) != 8:
            take(buf, pos, 8, self)  # raises, naming the component
        return raw, int.from_bytes(raw, "big", signed=True)


@attrs.frozen
class Timestamp(_Instant):
    """An instant as an 8-byte big-endian long of ``unit`` ticks since the epoch (oldest first).

    The bytes are those of Java's ``Bytes.toBytes(long)`` for the same tick count, so
    keys written by Java clients with ``System.currentTimeMillis()`` decode. Instants
    before 1970 are refused: as Java longs they would sort after every later instant.

    Never lead a key with a timestamp (K8): every write would go to the last region.
    Put an entity id (``[metric][ts]``) or a :class:`~hmodel.keys.Salt` in front of it.

    Accepts a timezone-aware ``datetime`` (naive ones are refused: their instant is
    unknown) or an ``int`` tick count; decodes to an aware ``datetime`` in UTC. A
    ``datetime`` finer than ``unit`` is refused rather than truncated.

    Args:
        name: The field name.
        unit: ``"ms"`` (HBase's cell timestamps), ``"s"`` or ``"us"``.

    Raises:
        DeclarationError: An unknown ``unit``.
    """

    def encode(self, value: Any) -> bytes:
        """Return ``ticks(value)`` as 8 big-endian bytes.

        Raises:
            KeyEncodeError: See :meth:`ticks`.
        """
        return self.ticks(value).to_bytes(8, "big")

    def decode(self, buf: bytes, pos: int) -> tuple[dt.datetime, int]:
        """Read 8 bytes at ``pos`` as an instant.

        Raises:
            KeyDecodeError: Truncated, or the long is negative or past year 9999.
        """
        raw, ticks = self._long_at(buf, pos)
        return self.instant(ticks, raw), pos + 8


@attrs.frozen
class ReverseTimestamp(_Instant):
    """An instant stored as ``Long.MAX_VALUE - ticks`` in 8 big-endian bytes: newest first (K6).

    The purchase key ``[user][Long.MAX_VALUE - System.currentTimeMillis()][product]``
    lists a user's latest purchases first; a scan with a limit reads "the last N". The
    bytes equal Java's ``Bytes.toBytes(Long.MAX_VALUE - ts)``. Range bounds on this
    component are logical (``low`` is the older instant); :meth:`Key.ranges` swaps them.

    Args:
        name: The field name.
        unit: ``"ms"`` (the default, as in the Java idiom), ``"s"`` or ``"us"``.

    Raises:
        DeclarationError: An unknown ``unit``.
    """

    @property
    def order(self) -> Order:
        """Descending: later instants sort first."""
        return Order.DESCENDING

    def encode(self, value: Any) -> bytes:
        """Return ``LONG_MAX - ticks(value)`` as 8 big-endian bytes.

        Raises:
            KeyEncodeError: See :meth:`Timestamp.ticks`.
        """
        return (LONG_MAX - self.ticks(value)).to_bytes(8, "big")

    def decode(self, buf: bytes, pos: int) -> tuple[dt.datetime, int]:
        """Read 8 bytes at ``pos`` as a reversed instant.

        Raises:
            KeyDecodeError: Truncated, or the stored long is not ``LONG_MAX - ticks``
                for an instant in 1970..9999.
        """
        raw, stored = self._long_at(buf, pos)
        return self.instant(LONG_MAX - stored, raw), pos + 8
