"""Instants in keys: 8-byte longs, oldest first or newest first (K6, K8)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.errors import DeclarationError, KeyDecodeError, KeyEncodeError
from hmodel.keys import ReverseTimestamp, Timestamp

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
LONG_MAX = 2**63 - 1
MILLIS = st.datetimes(min_value=dt.datetime(1970, 1, 1), timezones=st.just(UTC)).map(
    lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000)
)
TICKS = st.integers(0, Timestamp("t").max_ticks)


@given(MILLIS)
def test_datetimes_round_trip_as_utc(instant: dt.datetime) -> None:
    """A whole-millisecond aware datetime decodes to the same instant, in UTC."""
    for component in (Timestamp("t"), ReverseTimestamp("t")):
        raw = component.encode(instant)
        decoded, end = component.decode(raw + b"\x00", 0)
        assert (decoded, end, decoded.tzinfo) == (instant, 8, UTC)


@given(TICKS, TICKS)
def test_timestamps_sort_oldest_first_and_reverse_ones_newest_first(a: int, b: int) -> None:
    """Timestamp bytes sort like the instants; ReverseTimestamp bytes the other way (K6)."""
    assert (Timestamp("t").encode(a) < Timestamp("t").encode(b)) == (a < b)
    assert (ReverseTimestamp("t").encode(a) < ReverseTimestamp("t").encode(b)) == (a > b)


@given(TICKS)
def test_int_ticks_are_milliseconds_since_the_epoch(ticks: int) -> None:
    """An int is taken as epoch milliseconds and decodes to that instant."""
    value, _ = Timestamp("t").decode(Timestamp("t").encode(ticks), 0)
    assert value == EPOCH + dt.timedelta(milliseconds=ticks)


def test_bytes_are_the_java_idioms() -> None:
    """Timestamp is Bytes.toBytes(ts); ReverseTimestamp is Bytes.toBytes(Long.MAX_VALUE - ts)."""
    ts = 1_700_000_000_123
    assert Timestamp("t").encode(ts) == ts.to_bytes(8, "big")
    assert ReverseTimestamp("t").encode(ts) == (LONG_MAX - ts).to_bytes(8, "big")
    assert ReverseTimestamp("t").encode(0) == b"\x7f" + b"\xff" * 7


def test_a_later_purchase_sorts_first() -> None:
    """Newest first: the seed's [user][MAX-ts][product] lists recent purchases first (K6)."""
    older = dt.datetime(2024, 1, 1, tzinfo=UTC)
    newer = older + dt.timedelta(milliseconds=1)
    reverse = ReverseTimestamp("t")
    assert reverse.encode(newer) < reverse.encode(older)


def test_other_time_zones_store_the_same_instant() -> None:
    """An aware datetime in another zone encodes as the same instant as in UTC."""
    tokyo = dt.timezone(dt.timedelta(hours=9))
    local = dt.datetime(2024, 5, 1, 9, 0, tzinfo=tokyo)
    assert Timestamp("t").encode(local) == Timestamp("t").encode(local.astimezone(UTC))


@pytest.mark.parametrize(
    ("unit", "value", "ticks"),
    [
        ("s", dt.datetime(1970, 1, 1, 0, 1, tzinfo=UTC), 60),
        ("us", dt.datetime(1970, 1, 1, 0, 0, 0, 7, tzinfo=UTC), 7),
        ("ms", dt.datetime(1970, 1, 1, 0, 0, 1, 2000, tzinfo=UTC), 1002),
    ],
)
def test_units_count_ticks_of_that_size(unit: str, value: dt.datetime, ticks: int) -> None:
    """unit= chooses seconds, milliseconds or microseconds, and decoding undoes it."""
    component = Timestamp("t", unit=unit)  # type: ignore[arg-type]
    assert component.encode(value) == ticks.to_bytes(8, "big")
    assert component.decode(component.encode(value), 0)[0] == value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (dt.datetime(2024, 1, 1), "naive"),
        (dt.datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC), "out of range"),
        (-1, "out of range"),
        (Timestamp("t").max_ticks + 1, "out of range"),
        (dt.datetime(2024, 1, 1, 0, 0, 0, 1500, tzinfo=UTC), "finer than its unit"),
        (True, "takes a datetime or int"),
        (1.5, "takes a datetime or int"),
        (dt.date(2024, 1, 1), "takes a datetime or int"),
        ("2024-01-01", "takes a datetime or int"),
    ],
)
def test_bad_instants_are_refused(value: object, message: str) -> None:
    """Naive, pre-1970, post-9999, sub-unit and non-time values raise, naming the field."""
    for component in (Timestamp("t"), ReverseTimestamp("t")):
        with pytest.raises(KeyEncodeError, match=message) as info:
            component.encode(value)
        assert (info.value.field, info.value.value) == ("t", value)


@pytest.mark.parametrize(
    ("component", "raw", "message"),
    [
        (Timestamp("t"), b"\xff" * 8, "outside 1970..9999"),  # -1 as a Java long
        (Timestamp("t"), b"\x7f" + b"\xff" * 7, "outside 1970..9999"),
        (ReverseTimestamp("t"), b"\x80" + b"\x00" * 7, "outside 1970..9999"),
        (ReverseTimestamp("t"), b"\x00" * 8, "outside 1970..9999"),  # MAX - 0 is not a date
        (Timestamp("t"), b"\x00" * 7, "truncated"),
    ],
)
def test_bytes_that_are_no_instant_are_refused(
    component: Timestamp | ReverseTimestamp, raw: bytes, message: str
) -> None:
    """Longs outside 1970..9999 and short reads raise KeyDecodeError."""
    with pytest.raises(KeyDecodeError, match=message):
        component.decode(raw, 0)


def test_unknown_units_are_refused() -> None:
    """Only 's', 'ms' and 'us' are units."""
    with pytest.raises(DeclarationError):
        Timestamp("t", unit="min")  # type: ignore[arg-type]
    assert Timestamp("t").python_type is dt.datetime
