"""Date and time cell codecs: epoch counts as big-endian signed integers."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from hmodel.codecs.codec import Codec
from hmodel.errors import DeclarationError

__all__ = ["Date", "DateTime"]

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()
_UNITS = {"us": dt.timedelta(microseconds=1), "ms": dt.timedelta(milliseconds=1)}


class DateTime(Codec[dt.datetime]):
    """A timezone-aware ``datetime`` as an 8-byte big-endian signed count since the epoch.

    The count is of microseconds (``unit="us"``, the default, keeping Python's full
    precision) or milliseconds (``unit="ms"``, the unit of Java's
    ``System.currentTimeMillis()`` and of HBase cell timestamps) since
    1970-01-01T00:00:00Z, in the layout of :class:`~hmodel.codecs.Long`. Only the instant is
    stored: the offset is not, and ``decode`` returns the same instant in UTC.

    Naive datetimes are refused, since the instant they mean is unknown, and so are
    instants whose UTC form falls outside the years 1 to 9999 (``datetime.min`` at
    +05:00), which could not be decoded. With ``unit="ms"`` a datetime with a
    sub-millisecond part is refused rather than truncated.

    Args:
        unit: ``"us"`` (microseconds) or ``"ms"`` (milliseconds).

    Raises:
        DeclarationError: ``unit`` is neither ``"us"`` nor ``"ms"``.

    Example:
        >>> when = dt.datetime(2024, 1, 1, 8, tzinfo=dt.timezone(dt.timedelta(hours=8)))
        >>> DateTime(unit="ms").encode(when).hex()
        '0000018cc251f400'
        >>> DateTime().decode(DateTime().encode(when))
        datetime.datetime(2024, 1, 1, 0, 0, tzinfo=datetime.timezone.utc)
    """

    name = "datetime"
    python_type = dt.datetime

    def __init__(self, *, unit: Literal["us", "ms"] = "us") -> None:
        if unit not in _UNITS:
            raise DeclarationError('DateTime unit must be "us" or "ms"', value=unit)
        self.unit = unit
        self._step = _UNITS[unit]

    def _options(self) -> dict[str, Any]:
        return {"unit": self.unit}

    def encode(self, value: dt.datetime) -> bytes:
        """Return the instant of ``value`` as 8 big-endian bytes counting ``unit`` since the epoch.

        Raises:
            EncodeError: ``value`` is not a ``datetime``, is naive, lies outside the years 1
                to 9999 in UTC, or (``unit="ms"``) has a sub-millisecond part.
        """
        if not isinstance(value, dt.datetime):
            raise self._wrong_type(value)
        if value.utcoffset() is None:
            raise self._encode_error("naive datetime; attach a tzinfo", value)
        try:
            value.astimezone(dt.timezone.utc)
        except OverflowError:
            raise self._encode_error("instant outside the UTC datetime range", value) from None
        count, remainder = divmod(value - _EPOCH, self._step)
        if remainder:
            raise self._encode_error(f"finer than the unit {self.unit!r}", value)
        return int(count).to_bytes(8, "big", signed=True)

    def decode(self, data: bytes) -> dt.datetime:
        """Return the UTC datetime ``unit`` counts after the epoch stored in 8 big-endian bytes.

        Raises:
            DecodeError: ``data`` is not exactly 8 bytes long, or the instant lies outside
                the years 1 to 9999 that ``datetime`` can hold.
        """
        raw = self._exact_length(data, 8)
        count = int.from_bytes(raw, "big", signed=True)
        try:
            return _EPOCH + count * self._step
        except OverflowError:
            raise self._decode_error("instant outside the datetime range", raw) from None


class Date(Codec[dt.date]):
    r"""A ``date`` as the number of days since 1970-01-01, 4 bytes big-endian signed.

    A ``datetime`` is a ``date`` subclass but is refused, since storing only its day
    would silently drop the time; use :class:`DateTime` for it.

    Example:
        >>> Date().encode(dt.date(1970, 1, 2))
        b'\x00\x00\x00\x01'
        >>> Date().decode(b"\xff\xff\xff\xff")
        datetime.date(1969, 12, 31)
    """

    name = "date"
    python_type = dt.date

    def encode(self, value: dt.date) -> bytes:
        """Return the days from 1970-01-01 to ``value`` as 4 big-endian signed bytes.

        Raises:
            EncodeError: ``value`` is not a ``date``, or is a ``datetime``.
        """
        if isinstance(value, dt.datetime) or not isinstance(value, dt.date):
            raise self._wrong_type(value)
        return (value.toordinal() - _EPOCH_ORDINAL).to_bytes(4, "big", signed=True)

    def decode(self, data: bytes) -> dt.date:
        """Return the date the 4 big-endian signed bytes count days after 1970-01-01.

        Raises:
            DecodeError: ``data`` is not exactly 4 bytes long, or the day lies outside the
                years 1 to 9999 that ``date`` can hold.
        """
        raw = self._exact_length(data, 4)
        ordinal = int.from_bytes(raw, "big", signed=True) + _EPOCH_ORDINAL
        if not 1 <= ordinal <= dt.date.max.toordinal():
            raise self._decode_error("day outside the date range", raw)
        return dt.date.fromordinal(ordinal)
