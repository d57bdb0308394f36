"""UUIDCodec: a UUID as its 16 big-endian bytes."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.codecs import UUIDCodec
from hmodel.errors import DecodeError, EncodeError


def test_uuid_is_most_then_least_significant_long_big_endian() -> None:
    """The bytes of Bytes.toBytes(msb) followed by Bytes.toBytes(lsb)."""
    value = uuid.UUID("12345678-9abc-def0-0fed-cba987654321")
    assert UUIDCodec().encode(value) == bytes.fromhex("123456789abcdef00fedcba987654321")


@given(st.uuids())
def test_uuid_round_trips(value: uuid.UUID) -> None:
    assert UUIDCodec().decode(UUIDCodec().encode(value)) == value


@given(st.binary().filter(lambda data: len(data) != 16))
def test_uuid_refuses_cells_that_are_not_16_bytes(data: bytes) -> None:
    with pytest.raises(DecodeError, match="exactly 16 bytes"):
        UUIDCodec().decode(data)


@pytest.mark.parametrize("value", ["12345678-9abc-def0-0fed-cba987654321", b"\x00" * 16, 1])
def test_uuid_refuses_text_bytes_and_ints(value: object) -> None:
    with pytest.raises(EncodeError, match="expected UUID"):
        UUIDCodec().encode(value)  # type: ignore[arg-type]
