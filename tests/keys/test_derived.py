"""Computed components: record-type tags, hash prefixes and salt buckets (K3, K4, K9, R1)."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.errors import DeclarationError, KeyDecodeError, KeyEncodeError
from hmodel.keys import Const, Hashed, Salt


def test_const_writes_and_checks_its_tag() -> None:
    """A Const encodes its tag and decodes only that tag (R1 record types)."""
    const = Const(b"\x02", name="type")
    assert const.encode(None) == const.encode(b"\x02") == const.derive({}) == b"\x02"
    assert const.decode(b"c\x02o", 1) == (b"\x02", 2)
    assert (const.fixed_width, const.sources) == (1, ())


def test_const_mismatch_is_refused() -> None:
    """Other bytes where the tag belongs (another record type) raise KeyDecodeError."""
    with pytest.raises(KeyDecodeError, match="expects") as info:
        Const(b"\x01", name="type").decode(b"\x02", 0)
    assert (info.value.field, info.value.value) == ("type", b"\x02")
    with pytest.raises(KeyDecodeError, match="truncated"):
        Const(b"ab").decode(b"a", 0)
    with pytest.raises(KeyEncodeError, match="constant"):
        Const(b"\x01").encode(b"\x02")


@pytest.mark.parametrize(("tag", "name"), [(b"", None), ("1", None), (b"\x01", "")])
def test_const_declarations_need_bytes_and_a_name(tag: object, name: object) -> None:
    """An empty or non-bytes tag, or an empty name, is refused."""
    with pytest.raises(DeclarationError):
        Const(tag, name)  # type: ignore[arg-type]


def test_hashed_is_the_digest_prefix_of_the_encoded_sources() -> None:
    """Hashed keeps the first nbytes of md5 over the source fields' key encodings (K4)."""
    hashed = Hashed("user")
    assert hashed.derive({"user": b"bob\x00\x00"}) == bytes.fromhex("d0a3f759")
    assert hashed.derive({"user": b"bob\x00\x00"}) == hashlib.md5(b"bob\x00\x00").digest()[:4]
    assert (hashed.name, hashed.fixed_width, hashed.sources) == ("md5(user)", 4, ("user",))
    wide = Hashed("a", "b", nbytes=16, algorithm="sha256")
    assert wide.derive({"a": b"x", "b": b"y"}) == hashlib.sha256(b"xy").digest()[:16]


def test_hashed_reads_raw_digest_bytes() -> None:
    """Decoding a hash returns its bytes; the composite key checks them against the fields."""
    assert Hashed("u", nbytes=2).decode(b"\x01\x02\x03", 1) == (b"\x02\x03", 3)
    with pytest.raises(KeyDecodeError, match="truncated"):
        Hashed("u").decode(b"\x01\x02", 0)
    with pytest.raises(KeyEncodeError, match="digest bytes"):
        Hashed("u").encode(b"\x01")
    with pytest.raises(KeyEncodeError, match="source field 'u'"):
        Hashed("u").derive({})


@pytest.mark.parametrize(
    ("sources", "kwargs"),
    [
        ((), {}),
        (("u", "u"), {}),
        (("",), {}),
        (("u",), {"nbytes": 0}),
        (("u",), {"nbytes": 17}),
        (("u",), {"nbytes": True}),
        (("u",), {"algorithm": "no-such-hash"}),
        (("u",), {"algorithm": "shake_128"}),
    ],
)
def test_hashed_declarations_are_checked(
    sources: tuple[str, ...], kwargs: dict[str, object]
) -> None:
    """No source, repeated sources, bad widths and variable-size digests are refused."""
    with pytest.raises(DeclarationError):
        Hashed(*sources, **kwargs)  # type: ignore[arg-type]


def test_salt_buckets_are_fixed_known_values() -> None:
    """Buckets are md5-based, so every process and machine computes these (not hash())."""
    salt = Salt("host", buckets=16)
    expected = {b"web-01\x00\x00": 0, b"web-02\x00\x00": 3, b"db-1\x00\x00": 4, b"\x00\x00": 12}
    assert {raw: salt.derive({"host": raw}) for raw in expected} == expected
    wide = Salt("metric", "host", buckets=1000, nbytes=2)
    assert wide.derive({"metric": b"cpu\x00\x00", "host": b"\x80\x00\x00\x01"}) == 573


def test_salt_bucket_is_md5_prefix_mod_buckets() -> None:
    """The bucket is the first 8 digest bytes, big-endian, modulo the bucket count."""
    digest = hashlib.md5(b"abc").digest()
    assert Salt("f", buckets=7).derive({"f": b"abc"}) == int.from_bytes(digest[:8], "big") % 7


def test_salt_spreads_sequential_ids_evenly() -> None:
    """10k sequential ids fill 16 buckets evenly: chi-square well under the 0.1% critical value."""
    salt = Salt("id", buckets=16)
    counts = Counter(salt.derive({"id": i.to_bytes(8, "big")}) for i in range(10_000))
    expected = 10_000 / 16
    chi_square = sum((counts[b] - expected) ** 2 / expected for b in range(16))
    assert len(counts) == 16
    assert chi_square < 37.7  # chi-square, 15 degrees of freedom, p = 0.001
    assert max(counts.values()) / min(counts.values()) < 1.25


@given(st.integers(1, 65_536), st.data())
def test_salt_bucket_bytes_round_trip(buckets: int, data: st.DataObject) -> None:
    """Every bucket below the count encodes big-endian in nbytes and decodes back."""
    nbytes = 1 if buckets <= 256 else 2
    salt = Salt("f", buckets=buckets, nbytes=nbytes)
    bucket = data.draw(st.integers(0, buckets - 1))
    assert salt.encode(bucket) == bucket.to_bytes(nbytes, "big")
    assert salt.decode(b"\x00" + salt.encode(bucket), 1) == (bucket, 1 + nbytes)


def test_unknown_salt_bucket_is_refused() -> None:
    """A stored bucket >= buckets raises KeyDecodeError; so does encoding one."""
    salt = Salt("f", buckets=4)
    with pytest.raises(KeyDecodeError, match="unknown salt bucket 4") as info:
        salt.decode(b"\x04", 0)
    assert info.value.field == "salt(f)"
    with pytest.raises(KeyEncodeError, match="out of range"):
        salt.encode(4)
    with pytest.raises(KeyEncodeError, match="takes an int"):
        salt.encode(True)


@pytest.mark.parametrize(
    ("sources", "kwargs"),
    [
        ((), {"buckets": 4}),
        (("f",), {"buckets": 0}),
        (("f",), {"buckets": 257}),
        (("f",), {"buckets": 65_537, "nbytes": 2}),
        (("f",), {"buckets": 4, "nbytes": 3}),
        (("f",), {"buckets": True}),
    ],
)
def test_salt_declarations_are_checked(sources: tuple[str, ...], kwargs: dict[str, object]) -> None:
    """No source, a bucket count that does not fit nbytes, or 3-byte salts are refused."""
    with pytest.raises(DeclarationError):
        Salt(*sources, **kwargs)  # type: ignore[arg-type]
