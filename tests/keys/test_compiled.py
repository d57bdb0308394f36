"""CompiledKey: the generated encode and decode agree with Key exactly, errors included (issue 11).

The generated code is only a faster route to the same bytes and values; any case it does
not decide is handed to the key. So for every key and every input, the compiled key
returns what ``Key`` returns, or raises the same error with the same words.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel.errors import HModelError
from hmodel.keys import (
    Bytes,
    Const,
    Descending,
    Hashed,
    Int,
    Key,
    Reversed,
    ReverseTimestamp,
    Salt,
    Str,
    Timestamp,
    compiled,
)
from hmodel.keys.compiled import CompiledKey

UTC = dt.timezone.utc

KEYS = [
    # The benchmark's purchase key (K3, K6): salt, escaped strings, reverse timestamp.
    Key(Salt("user", buckets=16), Str("user"), ReverseTimestamp("ts"), Str("product")),
    # Record types (R1), hashes (K4), two-byte salts, fixed widths, other units and text.
    Key(Str("c"), Const(b"\x02", name="order"), Str("o", width=4)),
    Key(Hashed("a", "b", nbytes=3), Str("a", encoding="latin-1"), Int("b", size=2)),
    Key(Salt("a", buckets=300, nbytes=2), Str("a"), Timestamp("t", unit="s")),
    Key(Timestamp("t", unit="us"), Bytes("b"), Descending(Str("d")), Reversed(Str("r"))),
]

TEXT = st.sampled_from(["", "\x00", "a\x00b", "ab", "\xff", "é", "\U0001f600", "\ud800"]) | st.text(
    max_size=5
)
INSTANT = st.integers(0, 10**6).map(
    lambda s: dt.datetime(2024, 1, 1, tzinfo=UTC) + dt.timedelta(seconds=s)
)
#: Instants the inline timestamp code must refuse or convert as the component does: naive,
#: finer than a millisecond, before the epoch, in another zone, and ints of ticks.
ODD_INSTANTS = st.sampled_from(
    [
        dt.datetime(2024, 1, 1),  # naive: refused
        dt.datetime(2024, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
        dt.datetime(2024, 1, 1, 0, 0, 0, 1000, tzinfo=UTC),
        dt.datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC),
        dt.datetime(2024, 1, 1, 3, tzinfo=dt.timezone(dt.timedelta(hours=3))),
        dt.datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=UTC),
    ]
) | st.integers(-2, 2**64)
ANYTHING = st.one_of(
    st.none(),
    st.integers(-(2**70), 2**70),
    TEXT,
    st.binary(max_size=5),
    INSTANT,
    ODD_INSTANTS,
    st.booleans(),
)


def values_for(key: Key) -> st.SearchStrategy[dict[str, Any]]:
    """Values of the right kind for each field, sometimes of a wrong kind or missing."""
    kinds = {
        "user": TEXT,
        "product": TEXT,
        "c": TEXT,
        "o": st.sampled_from(["", "ab", "abcd", "abcde", "a\x00"]),
        "a": TEXT,
        "b": st.integers(-40000, 40000) if "a" in key.fields else st.binary(max_size=4),
        "t": INSTANT | ODD_INSTANTS,
        "ts": INSTANT | ODD_INSTANTS,
        "d": TEXT,
        "r": TEXT,
    }
    right = st.fixed_dictionaries({name: kinds[name] for name in key.fields})
    wrong = st.dictionaries(st.sampled_from([*key.fields, "zz"]), ANYTHING, max_size=5)
    return right | wrong


def outcome(call: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    try:
        return "ok", call(*args, **kwargs)
    except HModelError as error:
        return type(error).__name__, (str(error), error.field, error.value)


@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_encode_and_decode_agree_with_the_key(key: Key, data: st.DataObject) -> None:
    fast = CompiledKey(key)
    values = data.draw(values_for(key))

    expected = outcome(key.encode, values)
    assert outcome(fast.encode, values) == expected
    if expected[0] != "ok":
        return
    row = expected[1]
    assert outcome(fast.decode, row) == outcome(key.decode, row)
    assert fast.decode(row, verify=False) == key.decode(row)

    # Damaged rows: every byte changed, cut short, extended; same answer or same error.
    spot = data.draw(st.integers(0, max(0, len(row) - 1)))
    flipped = (
        bytes([*row[:spot], (row[spot] + data.draw(st.integers(1, 255))) % 256, *row[spot + 1 :]])
        if row
        else b"\x00"
    )
    for damaged in (flipped, row[:spot], row + b"\x00", row + b"\x00\x00"):
        assert outcome(fast.decode, damaged) == outcome(key.decode, damaged)
        assert fast.matches(damaged) == key.matches(damaged)


@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
@given(st.binary(max_size=24))
def test_decoding_arbitrary_bytes_agrees_with_the_key(key: Key, row: bytes) -> None:
    assert outcome(CompiledKey(key).decode, row) == outcome(key.decode, row)


def test_a_row_that_is_not_bytes_is_refused_as_the_key_refuses_it() -> None:
    key = KEYS[0]
    assert outcome(CompiledKey(key).decode, bytearray(b"\x01a\x00\x00")) == outcome(
        key.decode, bytearray(b"\x01a\x00\x00")
    )


def test_a_wrong_salt_is_caught_unless_the_row_was_encoded_here() -> None:
    key = KEYS[0]
    fast = CompiledKey(key)
    row = key.encode({"user": "ann", "ts": dt.datetime(2024, 1, 1, tzinfo=UTC), "product": "p"})
    moved = bytes([(row[0] + 1) % 16]) + row[1:]

    assert outcome(fast.decode, moved) == outcome(key.decode, moved)
    assert outcome(fast.decode, moved)[0] == "KeyDecodeError"
    # verify=False trusts the salt: only for rows this process encoded from the same key.
    assert fast.decode(moved, verify=False) == key.decode(row)


def test_the_salt_memo_is_emptied_when_full_and_stays_right(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(compiled, "MEMO_SIZE", 3)
    key = KEYS[0]
    fast = CompiledKey(key)
    when = dt.datetime(2024, 1, 1, tzinfo=UTC)
    for round_ in range(3):
        for n in range(10):
            values = {"user": f"u{n}", "ts": when, "product": str(round_)}
            row = fast.encode(values)
            assert row == key.encode(values)
            assert fast.decode(row) == values
    memo = fast.layout[0]
    assert isinstance(memo, compiled._Derived)
    assert len(memo.memo) <= 3


@pytest.mark.parametrize(
    "component",
    [Timestamp("t", unit=u) for u in ("s", "ms", "us")]
    + [ReverseTimestamp("t", unit=u) for u in ("s", "ms", "us")],
)
@pytest.mark.parametrize("offset", [-1, 0, 1, 2])
def test_instants_at_the_edges_of_the_range_decode_as_the_key_decodes_them(
    component: Timestamp | ReverseTimestamp, offset: int
) -> None:
    key = Key(Str("s"), component)
    for ticks in (
        offset,
        component.max_ticks + offset - 1,
        -(2**63) + offset + 2,
        2**63 - 3 + offset,
    ):
        stored = ticks if isinstance(component, Timestamp) else (2**63 - 1) - ticks
        if not -(2**63) <= stored < 2**63:
            continue
        row = b"a\x00\x00" + stored.to_bytes(8, "big", signed=True)
        assert outcome(CompiledKey(key).decode, row) == outcome(key.decode, row)


@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_the_attribute_encoder_encodes_as_the_key_or_refuses(key: Key, data: st.DataObject) -> None:
    kinds = {c.name: c.python_type for c in key.components if hasattr(c, "python_type")}
    values = data.draw(values_for(key))
    if set(values) != set(key.fields):
        return
    encoder = CompiledKey(key).attribute_encoder(kinds)

    class Holder:
        pass

    holder = Holder()
    for name, value in values.items():
        setattr(holder, name, value)
    expected = outcome(key.encode, values)
    try:
        got = encoder(holder)
    except Exception:  # refusing is allowed: the caller's full path decides
        assert expected[0] != "ok" or any(type(values[n]) is not kinds[n] for n in values)
        return
    assert expected == ("ok", got)


def test_field_names_that_are_not_identifiers_are_read_with_getattr() -> None:
    """A key field called ``a.b`` or ``class`` is read as that attribute, never as code."""
    key = Key(Str("a.b"), Str("class"), Int("x y", size=2))
    kinds = {"a.b": str, "class": str, "x y": int}
    holder = type("Holder", (), {})()
    for name, value in (("a.b", "p"), ("class", "q"), ("x y", 7)):
        setattr(holder, name, value)
    assert CompiledKey(key).attribute_encoder(kinds)(holder) == key.encode(
        {"a.b": "p", "class": "q", "x y": 7}
    )
