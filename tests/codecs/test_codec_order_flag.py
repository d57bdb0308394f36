"""The ``ordered`` flag: True exactly where byte order equals value order (I4 conditions)."""

from __future__ import annotations

import uuid
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from hmodel.codecs import Bool, Codec, Float64, Json, Long, Raw, Utf8, UUIDCodec


def _agrees(codec: Codec[Any], a: Any, b: Any) -> bool:
    return (a < b) == (codec.encode(a) < codec.encode(b))


@given(st.text(), st.text())
def test_utf8_bytes_sort_like_the_strings(a: str, b: str) -> None:
    assert Utf8.ordered and _agrees(Utf8(), a, b)


@given(st.binary(), st.binary())
def test_raw_bytes_sort_like_themselves(a: bytes, b: bytes) -> None:
    assert Raw.ordered and _agrees(Raw(), a, b)


@given(st.booleans(), st.booleans())
def test_bool_bytes_sort_like_the_booleans(a: bool, b: bool) -> None:
    assert Bool.ordered and _agrees(Bool(), a, b)


@given(st.uuids(), st.uuids())
def test_uuid_bytes_sort_like_the_uuids(a: uuid.UUID, b: uuid.UUID) -> None:
    assert UUIDCodec.ordered and _agrees(UUIDCodec(), a, b)


def test_codecs_whose_bytes_do_not_sort_like_values_say_so() -> None:
    # Two's complement: -1 encodes as ff..ff and sorts after 1.
    assert not _agrees(Long(), -1, 1) and not Long.ordered
    assert not _agrees(Float64(), -1.0, 1.0) and not Float64.ordered
    assert not Json.ordered
