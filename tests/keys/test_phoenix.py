"""Phoenix row keys: salt byte, separators, sign-flipped numbers, DESC, dates (K1, K3)."""

from __future__ import annotations

import ctypes
import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.errors import DeclarationError, KeyDecodeError
from hmodel.keys import (
    Bytes,
    Descending,
    Int,
    Key,
    PhoenixDate,
    PhoenixSalt,
    PhoenixTimestamp,
    Str,
    phoenix_key,
)
from hmodel.keys.compiled import CompiledKey
from hmodel.keys.phoenix import phoenix_hash

UTC = dt.timezone.utc
VARCHAR = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00"), max_size=5)
INSTANTS = st.datetimes(timezones=st.just(UTC))


def java_salt(row_tail: bytes, buckets: int) -> int:
    """SaltingUtil.getSaltingByte, with Java int arithmetic done by ctypes."""
    h = ctypes.c_int32(1)
    for byte in row_tail:
        h = ctypes.c_int32(31 * h.value + ctypes.c_int8(byte).value)
    remainder = abs(h.value) % buckets  # Java's abs(h % n) for n > 0
    return remainder


def test_phoenix_hash_is_arrays_hash_code() -> None:
    """Arrays.hashCode(byte[]) of fixed inputs, signed bytes and overflow included."""
    assert phoenix_hash(b"") == 1
    assert phoenix_hash(b"abc") == 126145  # 31**3 + 97*31**2 + 98*31 + 99
    assert phoenix_hash(b"\xff") == 30  # 31 + (-1)
    assert (
        phoenix_hash(b"hello world, phoenix")
        == ctypes.c_int32(
            sum(b * 31 ** (19 - i) for i, b in enumerate(b"hello world, phoenix")) + 31**20
        ).value
    )


@given(st.binary(max_size=40), st.integers(1, 256))
def test_the_salt_byte_is_saltingutils(tail: bytes, buckets: int) -> None:
    """The salt byte over any key bytes matches Phoenix's computation."""
    key = phoenix_key(Bytes("k"), salt_buckets=buckets)
    if b"\x00" in tail:
        return
    row = key.encode({"k": tail})
    assert row == bytes([java_salt(tail, buckets)]) + tail
    assert key.decode(row) == {"k": tail} == CompiledKey(key).decode(row)


def test_fixed_phoenix_row_key_vectors() -> None:
    """Byte vectors from Phoenix's layouts: 00/ff separators, sign flips, CHAR padding."""
    key = phoenix_key(
        Str("tenant"),
        Descending(Str("name")),
        Int("n", size=4),
        Descending(Int("m", size=8)),
        Str("code", width=3, pad=b" "),
        Str("last"),
    )
    values = {"tenant": "t1", "name": "ab", "n": -1, "m": 5, "code": "ab", "last": "z"}
    row = key.encode(values)
    assert row == (
        b"t1\x00"  # VARCHAR, 00 separator
        + b"\x9e\x9d\xff"  # DESC VARCHAR: inverted, ff separator
        + b"\x7f\xff\xff\xff"  # INTEGER -1, sign bit flipped
        + b"\x7f\xff\xff\xff\xff\xff\xff\xfa"  # DESC BIGINT 5: 80..05 inverted
        + b"ab "  # CHAR(3), space padded
        + b"z"  # last VARCHAR: no separator
    )
    assert key.decode(row) == values == CompiledKey(key).decode(row)
    desc_last = phoenix_key(Int("n", size=1), Descending(Str("s")))
    assert desc_last.encode({"n": 0, "s": "a"}) == b"\x80\x9e\xff"  # DESC keeps its ff


def test_phoenix_dates_and_timestamps() -> None:
    """DATE is sign-flipped millis; TIMESTAMP adds the nanos within the millisecond."""
    date, stamp = PhoenixDate("d"), PhoenixTimestamp("t")
    epoch = dt.datetime(1970, 1, 1, tzinfo=UTC)
    assert date.encode(epoch + dt.timedelta(milliseconds=1)) == b"\x80" + b"\x00" * 6 + b"\x01"
    assert date.encode(epoch - dt.timedelta(milliseconds=1)) == b"\x7f" + b"\xff" * 7
    assert stamp.encode(epoch - dt.timedelta(microseconds=1)) == (
        b"\x7f" + b"\xff" * 7 + (999_000).to_bytes(4, "big")  # getTime() rounds down
    )
    with pytest.raises(KeyDecodeError, match="ns within"):
        stamp.decode(b"\x80" + b"\x00" * 7 + (1).to_bytes(4, "big"), 0)


@given(INSTANTS, INSTANTS)
def test_phoenix_timestamps_round_trip_and_keep_order(a: dt.datetime, b: dt.datetime) -> None:
    """Any instant, before 1970 too, decodes back, and bytes sort as time."""
    stamp = PhoenixTimestamp("t")
    assert stamp.decode(stamp.encode(a), 0) == (a, 12)
    assert (stamp.encode(a) < stamp.encode(b)) == (a < b)
    x, y = (t.replace(microsecond=t.microsecond // 1000 * 1000) for t in (a, b))
    date = PhoenixDate("d")
    assert date.decode(date.encode(x), 0) == (x, 8)
    assert (date.encode(x) < date.encode(y)) == (x < y)


COLUMNS = st.tuples(VARCHAR, VARCHAR, st.integers(-5, 5))


@given(COLUMNS, COLUMNS)
def test_phoenix_keys_sort_as_their_columns(
    first: tuple[str, str, int], second: tuple[str, str, int]
) -> None:
    """Byte order is (a ASC, b DESC, n ASC), as Phoenix's ORDER BY of the primary key."""
    (a1, b1, n1), (a2, b2, n2) = first, second
    key = phoenix_key(Str("a"), Descending(Str("b")), Int("n", size=4), salt_buckets=None)
    x = key.encode({"a": a1, "b": b1, "n": n1})
    y = key.encode({"a": a2, "b": b2, "n": n2})
    left, right = (a1, _Rev(b1), n1), (a2, _Rev(b2), n2)
    assert (x < y) == (left < right)
    assert (x == y) == (left == right)


class _Rev:
    """A string compared in reverse (a DESC column)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __lt__(self, other: _Rev) -> bool:
        return self.text > other.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Rev) and self.text == other.text

    __hash__ = None  # type: ignore[assignment]


@given(st.lists(st.tuples(VARCHAR, VARCHAR), max_size=8), VARCHAR, VARCHAR, VARCHAR)
def test_salted_phoenix_ranges_fan_out_and_select_exactly(
    rows: list[tuple[str, str]], tenant: str, low: str, high: str
) -> None:
    """A prefix on the first column gives one range per bucket; bounds on the next hold."""
    key = phoenix_key(Str("tenant"), Str("name"), salt_buckets=3)
    encoded = {key.encode({"tenant": t, "name": n}): (t, n) for t, n in [*rows, (tenant, low)]}
    ranges = key.ranges({"tenant": tenant}, low=low, high=high)
    found = {r for r in encoded if any(span.contains(r) for span in ranges)}
    assert found == {r for r, (t, n) in encoded.items() if t == tenant and low <= n < high}
    assert len(key.ranges({"tenant": tenant})) == 3


def test_a_phoenix_salt_must_lead_its_key() -> None:
    """The salt hashes the bytes after it, so it is first, with no hash after it."""
    with pytest.raises(DeclarationError, match="first byte"):
        Key(Str("a"), PhoenixSalt(buckets=4))
    with pytest.raises(DeclarationError, match=r"1\.\.256"):
        PhoenixSalt(buckets=257)
    with pytest.raises(DeclarationError, match="end of the key"):
        Key(Int("n"), Descending(Str("s", terminated=False)))
