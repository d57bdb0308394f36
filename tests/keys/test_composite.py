"""Composite keys: whole-key order, strict decoding, record types, scan ranges (K1-K11, R1, I5)."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel.backend.base import prefix_stop
from hmodel.errors import DeclarationError, KeyDecodeError, KeyEncodeError
from hmodel.keys import (
    Bytes,
    Const,
    Descending,
    Hashed,
    Int,
    Key,
    KeyRange,
    Reversed,
    ReverseTimestamp,
    Salt,
    Str,
    Timestamp,
)

UTC = dt.timezone.utc
TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=6)
FEW_TEXTS = st.sampled_from(["", "\x00", "a", "a\x00", "ab", "b", "\xff", "\U0001f600"])
FEW_INTS = st.integers(-3, 3)
INSTANTS = st.integers(0, 5).map(lambda s: dt.datetime(2024, 1, 1, 0, 0, s, tzinfo=UTC))


@functools.total_ordering
class Rev:
    """A value that sorts backwards, to state a descending component's logical order."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rev) and self.value == other.value

    __hash__ = None  # type: ignore[assignment]  # compared in tests, never hashed

    def __lt__(self, other: Rev) -> bool:
        return bool(self.value > other.value)


MIXED = Key(
    Int("a", size=1),
    Str("b"),
    Descending(Str("c")),
    Bytes("d"),
    ReverseTimestamp("e"),
    Descending(Int("f", size=2)),
    Str("g", width=3),
)
MIXED_VALUES = st.fixed_dictionaries(
    {
        "a": FEW_INTS,
        "b": FEW_TEXTS | TEXT,
        "c": FEW_TEXTS | TEXT,
        "d": st.sampled_from([b"", b"\x00", b"\xff", b"\x00\xff"]) | st.binary(max_size=4),
        "e": INSTANTS,
        "f": FEW_INTS,
        "g": st.sampled_from(["", "a", "ab", "abc", "b"]),
    }
)


def logical(values: Mapping[str, Any]) -> tuple[Any, ...]:
    v = values
    return (v["a"], v["b"], Rev(v["c"]), v["d"], Rev(v["e"]), Rev(v["f"]), v["g"])


@given(MIXED_VALUES)
def test_composite_keys_round_trip(values: dict[str, Any]) -> None:
    """Every field of a mixed key decodes back from the rowkey."""
    assert MIXED.decode(MIXED.encode(values)) == values


@given(MIXED_VALUES, MIXED_VALUES)
def test_whole_key_byte_order_is_field_by_field_order(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Rowkeys sort like the tuple of their fields, descending ones reversed (K2, K6, K7)."""
    ka, kb = MIXED.encode(a), MIXED.encode(b)
    assert (ka < kb) == (logical(a) < logical(b))
    assert (ka == kb) == (a == b)


def test_purchase_key_lists_a_users_latest_purchase_first() -> None:
    """The seed's [user][Long.MAX - ts][product]: newest first within each user (K6)."""
    key = Key(Str("user"), ReverseTimestamp("ts"), Str("product"))
    rows = sorted(
        key.encode({"user": user, "ts": dt.datetime(2024, 1, day, tzinfo=UTC), "product": "p"})
        for user in ("ann", "bob")
        for day in (1, 2, 3)
    )
    decoded = [(key.decode(r)["user"], key.decode(r)["ts"].day) for r in rows]
    assert decoded == [("ann", 3), ("ann", 2), ("ann", 1), ("bob", 3), ("bob", 2), ("bob", 1)]


def test_key_metadata() -> None:
    """fields lists value fields only; buckets and width describe the layout."""
    key = Key(Salt("host", buckets=8), Const(b"m"), Str("host", width=4), Timestamp("ts"))
    assert key.fields == ("host", "ts")
    assert (key.buckets, key.fixed_width) == (8, 14)
    assert key.component("ts") == Timestamp("ts")
    assert (MIXED.buckets, MIXED.fixed_width) == (None, None)
    with pytest.raises(KeyEncodeError, match="no such field"):
        key.component("nope")


def test_computed_components_are_filled_in_and_checked() -> None:
    """Salt, Hashed and Const bytes come from the fields, never from the caller (K3, K4)."""
    key = Key(Salt("user", buckets=4), Hashed("user", nbytes=2), Const(b"#"), Str("user"))
    row = key.encode({"user": "bob"})
    encoded_user = b"bob\x00\x00"
    assert row[1:3] == Hashed("user", nbytes=2).derive({"user": encoded_user})
    assert (
        row[0]
        == Salt("user", buckets=4).derive({"user": encoded_user})
        == key.bucket_of({"user": "bob"})
    )
    assert row[3:] == b"#" + encoded_user
    assert key.decode(row) == {"user": "bob"}


@pytest.mark.parametrize(
    ("values", "message", "field"),
    [
        ({"user": "u"}, "missing key field 'n'", "n"),
        ({"user": "u", "n": 1, "x": 2}, "no such field", "x"),
        ({"user": 1, "n": 1}, "takes str", "user"),
        ({"user": "u", "n": True}, "takes an int", "n"),
        ({"user": "u", "n": 2**40}, "out of range", "n"),
    ],
)
def test_bad_values_are_refused(values: dict[str, Any], message: str, field: str) -> None:
    """Missing, unknown, mistyped and out-of-range fields raise KeyEncodeError naming the field."""
    key = Key(Str("user"), Int("n", size=4))
    with pytest.raises(KeyEncodeError, match=message) as info:
        key.encode(values)
    assert info.value.field == field


def test_values_must_be_a_mapping() -> None:
    """A list or tuple of values is refused: fields are matched by name."""
    with pytest.raises(KeyEncodeError, match="mapping"):
        Key(Str("user")).encode(["u"])  # type: ignore[arg-type]


HASHED = Key(Salt("user", buckets=4), Hashed("user"), Str("user"), Int("n", size=1))
GOOD = HASHED.encode({"user": "ann", "n": 1})


def _with_byte(row: bytes, index: int, value: int) -> bytes:
    return row[:index] + bytes([value]) + row[index + 1 :]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (GOOD + b"\x00", "1 trailing bytes"),
        (GOOD[:-1], "truncated"),
        (GOOD[:5], "no terminator"),
        (_with_byte(GOOD, 0, 4), "unknown salt bucket 4"),
        (_with_byte(GOOD, 0, (GOOD[0] + 1) % 4), "salt bucket does not match"),
        (_with_byte(GOOD, 1, GOOD[1] ^ 1), "hash does not match"),
        (b"", "truncated"),
    ],
)
def test_corrupt_rowkeys_are_refused(row: bytes, message: str) -> None:
    """Trailing, truncated, unknown-bucket, wrong-salt and wrong-hash rows raise with the row."""
    with pytest.raises(KeyDecodeError, match=message) as info:
        HASHED.decode(row)
    assert info.value.row == row
    assert not HASHED.matches(row)


def test_rowkeys_must_be_bytes() -> None:
    """Decoding a str is refused rather than guessed at."""
    with pytest.raises(KeyDecodeError, match="bytes"):
        HASHED.decode("ann")  # type: ignore[arg-type]


CUSTOMER = Key(Str("customer"), Const(b"\x01", name="type"))
ORDER = Key(Str("customer"), Const(b"\x02", name="type"), Str("order"))


def test_record_types_tell_each_other_apart() -> None:
    """[customer][type=1] and [customer][type=2][order] share a table; matches() sorts them (R1)."""
    customer = CUSTOMER.encode({"customer": "c1"})
    order = ORDER.encode({"customer": "c1", "order": "o9"})
    assert (CUSTOMER.matches(customer), CUSTOMER.matches(order)) == (True, False)
    assert (ORDER.matches(customer), ORDER.matches(order)) == (False, True)
    with pytest.raises(KeyDecodeError, match="'type' expects b'\\\\x01'"):
        CUSTOMER.decode(order)
    everything = Key(Str("customer")).ranges({"customer": "c1"})[0]
    assert everything.contains(customer) and everything.contains(order)
    orders = ORDER.ranges({"customer": "c1"})[0]
    assert orders.contains(order) and not orders.contains(customer)


@pytest.mark.parametrize(
    "components",
    [
        (),
        ("user",),
        (Str("a"), Int("a")),
        (Str("a"), Hashed("b")),
        (Salt("a", buckets=2), Salt("a", buckets=3), Str("a")),
    ],
)
def test_bad_key_declarations_are_refused(components: tuple[Any, ...]) -> None:
    """No component, non-components, duplicate fields, unknown sources, two salts: refused."""
    with pytest.raises(DeclarationError):
        Key(*components)


def test_bucket_prefixes_are_the_salted_split_points() -> None:
    """One prefix per bucket, in order, with any leading Const included (K11)."""
    assert Key(Salt("h", buckets=3), Str("h")).bucket_prefixes() == [b"\x00", b"\x01", b"\x02"]
    wide = Key(Const(b"m"), Salt("h", buckets=2, nbytes=2), Str("h"))
    assert wide.bucket_prefixes() == [b"m\x00\x00", b"m\x00\x01"]
    assert Key(Str("h")).bucket_prefixes() == []
    assert Key(Str("h")).bucket_of({"h": "x"}) is None
    with pytest.raises(DeclarationError, match="leads the key"):
        Key(Str("h"), Salt("h", buckets=2)).bucket_prefixes()


# --- ranges ----------------------------------------------------------------------------------

RANGED = Key(Str("a"), Int("b", size=1), Descending(Str("c")), ReverseTimestamp("d"), Str("e"))
RANGED_VALUES = st.fixed_dictionaries(
    {"a": FEW_TEXTS, "b": FEW_INTS, "c": FEW_TEXTS, "d": INSTANTS, "e": FEW_TEXTS}
)
SALTED = Key(Salt("host", buckets=4), Int("ts", size=2), Str("host"), Const(b"!"))
SALTED_VALUES = st.fixed_dictionaries({"ts": FEW_INTS, "host": FEW_TEXTS})
HASHED_TS = Key(Hashed("user", nbytes=2), Str("user"), ReverseTimestamp("at"), Bytes("x"))
HASHED_VALUES = st.fixed_dictionaries(
    {"user": FEW_TEXTS, "at": INSTANTS, "x": st.sampled_from([b"", b"\x00", b"\xff"])}
)
DOMAINS: dict[str, st.SearchStrategy[Any]] = {
    "a": FEW_TEXTS,
    "b": FEW_INTS,
    "c": FEW_TEXTS,
    "d": INSTANTS,
    "e": FEW_TEXTS,
    "ts": FEW_INTS,
    "at": INSTANTS,
    "host": FEW_TEXTS,
    "user": FEW_TEXTS,
    "x": st.sampled_from([b"", b"\x00", b"\xff"]),
}
CASES = [(RANGED, RANGED_VALUES), (SALTED, SALTED_VALUES), (HASHED_TS, HASHED_VALUES)]


def selected(
    values: Mapping[str, Any],
    prefix: Mapping[str, Any],
    field: str | None,
    bounds: tuple[Any, Any, bool, bool],
) -> bool:
    """The logical predicate a scan must implement: prefix equal, next field within bounds."""
    if any(values[name] != value for name, value in prefix.items()):
        return False
    if field is None:
        return True
    low, high, low_inclusive, high_inclusive = bounds
    value = values[field]
    if low is not None and not (value >= low if low_inclusive else value > low):
        return False
    return high is None or (value <= high if high_inclusive else value < high)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_ranges_select_exactly_the_prefix_and_the_logical_interval(data: st.DataObject) -> None:
    """A row lies in some range iff its leading fields equal the prefix and the next field
    lies in [low, high) by value, descending fields included (K2, K6, I5)."""
    key, values = data.draw(st.sampled_from(CASES))
    rows = data.draw(st.lists(values, min_size=1, max_size=25))
    count = data.draw(st.integers(0, len(key.fields)))
    if key is HASHED_TS:
        count = max(count, 1)  # a hash can only be crossed when its source is known
    source = data.draw(st.sampled_from(rows))
    prefix = {name: source[name] for name in key.fields[:count]}
    field = key.fields[count] if count < len(key.fields) else None
    bounds: tuple[Any, Any, bool, bool] = (None, None, True, False)
    if field is not None and data.draw(st.booleans()):
        bound = DOMAINS[field] | st.none()
        bounds = (
            data.draw(bound),
            data.draw(bound),
            data.draw(st.booleans()),
            data.draw(st.booleans()),
        )
    low, high, low_inclusive, high_inclusive = bounds
    ranges = key.ranges(
        prefix, low=low, high=high, low_inclusive=low_inclusive, high_inclusive=high_inclusive
    )
    assert [r.start for r in ranges] == sorted(r.start for r in ranges)
    for row_values in rows:
        row = key.encode(row_values)
        hits = sum(r.contains(row) for r in ranges)
        assert hits == selected(row_values, prefix, field, bounds), row_values
    if key is SALTED and "host" not in prefix and ranges:
        assert len(ranges) == 4  # one scan per bucket (I5)


def test_a_known_salt_source_scans_one_bucket() -> None:
    """When the prefix gives the salt's sources, only that bucket is scanned (K3)."""
    ranges = SALTED.ranges({"ts": 1, "host": "h1"})
    row = SALTED.encode({"ts": 1, "host": "h1"})
    assert ranges == [KeyRange.prefix(row)]


def test_an_unsalted_full_scan_is_the_whole_table() -> None:
    """No prefix and no bounds on an unsalted key: one range over everything."""
    assert RANGED.ranges() == [KeyRange(b"", b"")]
    assert len(SALTED.ranges()) == 4


def test_reverse_timestamp_bounds_are_logical() -> None:
    """low/high are instants, oldest to newest; the byte bounds swap for newest-first keys."""
    key = Key(Str("user"), ReverseTimestamp("ts"))
    january = dt.datetime(2024, 1, 1, tzinfo=UTC)
    february = dt.datetime(2024, 2, 1, tzinfo=UTC)
    (window,) = key.ranges({"user": "u"}, low=january, high=february)
    head = b"u\x00\x00"
    assert window == KeyRange(
        prefix_stop(head + ReverseTimestamp("ts").encode(february)),
        prefix_stop(head + ReverseTimestamp("ts").encode(january)),
    )
    millisecond = dt.timedelta(milliseconds=1)
    for instant, inside in [
        (january - millisecond, False),
        (january, True),
        (february - millisecond, True),
        (february, False),
    ]:
        assert window.contains(key.encode({"user": "u", "ts": instant})) is inside


def test_empty_intervals_give_no_range() -> None:
    """low above high, or an exclusive low at the top of the byte space, selects nothing."""
    key = Key(Str("user"), Int("n", size=1, signed=False))
    assert key.ranges({"user": "u"}, low=5, high=3) == []
    assert key.ranges({"user": "u"}, low=3, high=3) == []
    assert key.ranges({"user": "u"}, low=3, high=3, high_inclusive=True) != []
    top = Key(Int("n", size=1, signed=False))
    assert top.ranges(low=255, low_inclusive=False) == []
    assert top.ranges(low=255) == [KeyRange(b"\xff", b"")]


def test_trailing_uncomputable_hash_ends_the_prefix() -> None:
    """[user][md5(order)][order] scanned by user stops before the hash it cannot compute."""
    key = Key(Str("user"), Hashed("order"), Str("order"))
    assert key.ranges({"user": "u"}) == [KeyRange.prefix(b"u\x00\x00")]
    assert Key(Hashed("u"), Str("u")).ranges() == [KeyRange(b"", b"")]


@pytest.mark.parametrize(
    ("key", "prefix", "bounds", "message"),
    [
        (Key(Hashed("u"), Str("u")), {}, {"low": "a"}, "cannot range-scan across 'md5"),
        (Key(Str("a"), Hashed("b"), Str("b"), Str("c")), {"a": "x"}, {"high": "y"}, "range-scan"),
        (Key(Reversed(Str("id", width=4))), {}, {"low": "1"}, "do not keep value order"),
        (Key(Str("a"), Str("b")), {"b": "x"}, {}, "leading run of the key fields: 'a' is missing"),
        (Key(Str("a"), Str("b")), {"z": "x"}, {}, "has no field"),
        (Key(Str("a")), {"a": "x"}, {"low": "y"}, "there is none"),
        (Key(Str("a")), {"a": 3}, {}, "takes str"),
        (Key(Str("a"), Int("n", size=1)), {"a": "x"}, {"low": 999}, "out of range"),
        (Key(Str("a")), ["a"], {}, "mapping"),
    ],
)
def test_impossible_ranges_are_refused(
    key: Key, prefix: Any, bounds: dict[str, Any], message: str
) -> None:
    """Hashes without sources, reversed bounds, non-leading prefixes and bad values raise."""
    with pytest.raises(KeyEncodeError, match=message):
        key.ranges(prefix, **bounds)
