"""Bool: HBase ``Bytes.toBytes(boolean)`` on write, ``Bytes.toBoolean`` on read."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.codecs import Bool
from hmodel.errors import DecodeError, EncodeError


def test_bool_writes_hbase_bytes_ff_for_true_and_00_for_false() -> None:
    """Bytes.toBytes(true) is (byte) -1, Bytes.toBytes(false) is 0."""
    assert Bool().encode(True) == b"\xff"
    assert Bool().encode(False) == b"\x00"


@given(st.booleans())
def test_bool_round_trips(value: bool) -> None:
    assert Bool().decode(Bool().encode(value)) is value


@given(st.integers(1, 255))
def test_any_non_zero_byte_reads_as_true_like_bytes_to_boolean(byte: int) -> None:
    """Phoenix writes 0x01 for true; HBase reads any non-zero byte as true."""
    assert Bool().decode(bytes([byte])) is True


@given(st.binary().filter(lambda data: len(data) != 1))
def test_bool_refuses_cells_that_are_not_one_byte(data: bytes) -> None:
    with pytest.raises(DecodeError, match="exactly 1 bytes"):
        Bool().decode(data)


@pytest.mark.parametrize("value", [0, 1, "true", None, b"\xff", 1.0])
def test_bool_refuses_values_that_are_not_bool(value: object) -> None:
    with pytest.raises(EncodeError, match="expected bool"):
        Bool().encode(value)  # type: ignore[arg-type]
