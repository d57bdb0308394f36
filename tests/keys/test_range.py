"""KeyRange: an inclusive start row and an exclusive stop row."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.errors import KeyEncodeError
from hmodel.keys import KeyRange


@given(st.binary(max_size=4), st.binary(max_size=6))
def test_a_prefix_range_holds_exactly_the_rows_with_that_prefix(prefix: bytes, row: bytes) -> None:
    """KeyRange.prefix(p) contains a row iff the row starts with p (0xff tails included)."""
    assert KeyRange.prefix(prefix).contains(row) == row.startswith(prefix)


def test_bounds_are_start_inclusive_stop_exclusive() -> None:
    """start is in the range, stop is not; an empty stop runs to the end of the table."""
    assert KeyRange(b"b", b"d").contains(b"b")
    assert not KeyRange(b"b", b"d").contains(b"d")
    assert KeyRange(b"b", b"").contains(b"\xff\xff")
    assert KeyRange.prefix(b"\xff") == KeyRange(b"\xff", b"")
    assert KeyRange(b"a", b"a").is_empty and not KeyRange(b"", b"").is_empty


def test_bad_ranges_are_refused() -> None:
    """Bounds are bytes, and a non-empty stop is not below the start."""
    with pytest.raises(KeyEncodeError):
        KeyRange("a", b"b")  # type: ignore[arg-type]
    with pytest.raises(KeyEncodeError, match="below its start"):
        KeyRange(b"b", b"a")


def test_ranges_are_frozen() -> None:
    """A KeyRange cannot be changed after it is made."""
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        KeyRange(b"a", b"b").start = b"c"  # type: ignore[misc]
