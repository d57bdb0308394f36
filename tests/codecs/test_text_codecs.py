"""Utf8 and Raw: strings as UTF-8 (HBase ``Bytes.toBytes(String)``), bytes as they are."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.codecs import Raw, Utf8
from hmodel.errors import DecodeError, EncodeError


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize(
    ("value", "data"),
    [
        ("", b""),
        ("abc", b"abc"),
        ("é", b"\xc3\xa9"),
        ("订单", "订单".encode()),
        ("😀", b"\xf0\x9f\x98\x80"),
    ],
)
def test_utf8_writes_the_utf8_bytes_and_nothing_else(value: str, data: bytes) -> None:
    assert Utf8().encode(value) == data
    assert Utf8().decode(data) == value


@given(st.text())
def test_utf8_round_trips_any_text(value: str) -> None:
    assert Utf8().decode(Utf8().encode(value)) == value


@given(st.text(), st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), st.text())
def test_utf8_refuses_lone_surrogates_instead_of_replacing_them(
    before: str, surrogate: str, after: str
) -> None:
    with pytest.raises(EncodeError, match="no UTF-8 form") as caught:
        Utf8().encode(before + surrogate + after)
    assert caught.value.value == before + surrogate + after


@given(st.binary().filter(lambda data: not _is_utf8(data)))
def test_utf8_refuses_bytes_that_are_not_utf8(data: bytes) -> None:
    with pytest.raises(DecodeError, match=r"utf8 codec.*invalid UTF-8"):
        Utf8().decode(data)


def test_utf8_refuses_encoded_surrogates() -> None:
    """CESU-8 / Java modified UTF-8 surrogate halves are not UTF-8."""
    with pytest.raises(DecodeError):
        Utf8().decode(b"\xed\xa0\x80")


@pytest.mark.parametrize("value", [b"abc", 1, None, ["a"]])
def test_utf8_refuses_non_str_values(value: object) -> None:
    with pytest.raises(EncodeError, match="expected str"):
        Utf8().encode(value)  # type: ignore[arg-type]


@given(st.binary())
def test_raw_is_the_identity(data: bytes) -> None:
    assert Raw().encode(data) == data
    assert Raw().decode(data) == data


def test_raw_accepts_bytes_like_values_and_returns_bytes() -> None:
    assert Raw().encode(bytearray(b"\x01\x02")) == b"\x01\x02"
    assert Raw().encode(memoryview(b"\x03")) == b"\x03"
    assert type(Raw().decode(bytearray(b"x"))) is bytes  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["abc", 1, None])
def test_raw_refuses_values_that_are_not_bytes(value: object) -> None:
    with pytest.raises(EncodeError, match=r"raw codec.*expected bytes, got"):
        Raw().encode(value)  # type: ignore[arg-type]
