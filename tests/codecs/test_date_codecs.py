"""DateTime and Date: epoch counts as big-endian signed integers."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.codecs import Date, DateTime, Long
from hmodel.errors import DeclarationError, DecodeError, EncodeError

UTC = dt.timezone.utc
offsets = st.integers(-(24 * 60 - 1), 24 * 60 - 1).map(
    lambda minutes: dt.timezone(dt.timedelta(minutes=minutes))
)
# Aware datetimes whose instant is inside the UTC datetime range.
aware = st.datetimes(
    min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30), timezones=offsets
)


def test_datetime_stores_epoch_microseconds_as_a_long() -> None:
    when = dt.datetime(1970, 1, 1, 0, 0, 1, 5, tzinfo=UTC)
    assert DateTime().encode(when) == Long().encode(1_000_005)


def test_datetime_in_milliseconds_stores_what_java_current_time_millis_would() -> None:
    when = dt.datetime(2024, 1, 1, tzinfo=UTC)
    assert DateTime(unit="ms").encode(when) == Long().encode(1_704_067_200_000)


def test_datetime_before_the_epoch_is_negative() -> None:
    when = dt.datetime(1969, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC)
    assert DateTime().encode(when) == b"\xff" * 8


@given(aware)
def test_datetime_round_trips_the_instant_and_returns_utc(value: dt.datetime) -> None:
    decoded = DateTime().decode(DateTime().encode(value))
    assert decoded == value
    assert decoded.tzinfo is UTC


@given(aware.map(lambda value: value.replace(microsecond=value.microsecond // 1000 * 1000)))
def test_datetime_in_milliseconds_round_trips_whole_milliseconds(value: dt.datetime) -> None:
    codec = DateTime(unit="ms")
    assert codec.decode(codec.encode(value)) == value


@given(aware.filter(lambda value: value.microsecond % 1000 != 0))
def test_datetime_in_milliseconds_refuses_to_truncate_microseconds(value: dt.datetime) -> None:
    with pytest.raises(EncodeError, match="finer than the unit 'ms'"):
        DateTime(unit="ms").encode(value)


@given(st.datetimes())
def test_datetime_refuses_naive_datetimes(value: dt.datetime) -> None:
    with pytest.raises(EncodeError, match="naive"):
        DateTime().encode(value)


def test_datetime_refuses_instants_it_could_not_decode() -> None:
    """datetime.min at +05:00 is in year 0 in UTC."""
    early = dt.datetime.min.replace(tzinfo=dt.timezone(dt.timedelta(hours=5)))
    with pytest.raises(EncodeError, match="outside the UTC datetime range"):
        DateTime().encode(early)


@pytest.mark.parametrize("value", [dt.date(2024, 1, 1), 1_700_000_000, "2024-01-01T00:00:00Z"])
def test_datetime_refuses_dates_numbers_and_text(value: object) -> None:
    with pytest.raises(EncodeError, match="expected datetime"):
        DateTime().encode(value)  # type: ignore[arg-type]


@given(st.binary(min_size=8, max_size=8))
def test_datetime_decodes_8_bytes_or_says_the_instant_is_out_of_range(data: bytes) -> None:
    try:
        decoded = DateTime().decode(data)
    except DecodeError as error:
        assert "outside the datetime range" in error.message
    else:
        assert DateTime().encode(decoded) == data


@given(st.binary().filter(lambda data: len(data) != 8))
def test_datetime_refuses_cells_that_are_not_8_bytes(data: bytes) -> None:
    with pytest.raises(DecodeError, match="exactly 8 bytes"):
        DateTime().decode(data)


def test_datetime_unit_must_be_us_or_ms() -> None:
    with pytest.raises(DeclarationError, match="unit"):
        DateTime(unit="s")  # type: ignore[arg-type]


def test_datetime_codecs_compare_by_unit() -> None:
    assert DateTime() == DateTime(unit="us")
    assert DateTime() != DateTime(unit="ms")
    assert repr(DateTime(unit="ms")) == "DateTime(unit='ms')"


@pytest.mark.parametrize(
    ("value", "data"),
    [
        (dt.date(1970, 1, 1), b"\x00\x00\x00\x00"),
        (dt.date(1970, 1, 2), b"\x00\x00\x00\x01"),
        (dt.date(1969, 12, 31), b"\xff\xff\xff\xff"),
        (dt.date(2024, 2, 29), (19_782).to_bytes(4, "big")),
    ],
)
def test_date_stores_days_since_the_epoch_in_4_bytes(value: dt.date, data: bytes) -> None:
    assert Date().encode(value) == data
    assert Date().decode(data) == value


@given(st.dates())
def test_date_round_trips(value: dt.date) -> None:
    assert Date().decode(Date().encode(value)) == value


@given(st.dates(), st.dates())
def test_date_byte_order_is_date_order_from_the_epoch_on(a: dt.date, b: dt.date) -> None:
    if a.year >= 1970 and b.year >= 1970:
        assert (Date().encode(a) < Date().encode(b)) == (a < b)


def test_date_refuses_datetimes_rather_than_dropping_the_time() -> None:
    with pytest.raises(EncodeError, match="expected date, got datetime"):
        Date().encode(dt.datetime(2024, 1, 1, 12, tzinfo=UTC))


@given(st.binary(min_size=4, max_size=4))
def test_date_decodes_4_bytes_or_says_the_day_is_out_of_range(data: bytes) -> None:
    try:
        decoded = Date().decode(data)
    except DecodeError as error:
        assert "outside the date range" in error.message
    else:
        assert Date().encode(decoded) == data


@given(st.binary().filter(lambda data: len(data) != 4))
def test_date_refuses_cells_that_are_not_4_bytes(data: bytes) -> None:
    with pytest.raises(DecodeError, match="exactly 4 bytes"):
        Date().decode(data)
