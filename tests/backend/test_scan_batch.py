"""take_batch: one fetched batch of a Thrift scan taken at once, as row by row."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hmodel.backend.base import Cell, RowResult
from hmodel.backend.scan_batch import take_batch


def _row_by_row(
    rows: list[RowResult],
    *,
    reverse: bool,
    lower: bytes,
    upper: bytes,
    remaining: int | None,
    stop_at_upper: bool,
) -> tuple[list[RowResult], tuple[bytes, bytes, int | None]]:
    """The specification: each row in turn, as the scanners took them one at a time."""
    taken: list[RowResult] = []
    if reverse:
        for result in rows:
            if upper and result.row >= upper:
                continue
            if result.row < lower:
                remaining = 0
                break
            upper = result.row
            taken.append(result)
            if remaining is not None:
                remaining -= 1
                if remaining == 0:
                    break
        return taken, (lower, upper, remaining)
    last = None
    for result in rows:
        if stop_at_upper and upper and result.row >= upper:
            remaining = 0
            break
        last = result.row
        taken.append(result)
        if remaining is not None:
            remaining -= 1
            if remaining == 0:
                break
    if last is not None:
        lower = last + b"\x00"
    return taken, (lower, upper, remaining)


_key = st.binary(min_size=1, max_size=2)


@given(
    st.lists(_key, max_size=8, unique=True),
    st.booleans(),
    st.booleans(),
    st.binary(max_size=2),
    st.binary(max_size=2),
    st.none() | st.integers(1, 9),
    st.booleans(),
)
def test_a_batch_is_taken_as_its_rows_one_by_one(  # noqa: PLR0917 -- the scan's state
    keys: list[bytes],
    ordered: bool,
    reverse: bool,
    lower: bytes,
    upper: bytes,
    remaining: int | None,
    stop_at_upper: bool,
) -> None:
    """The same rows, in order, and the same state after, in scan order or in none."""
    if ordered:
        keys = sorted(keys, reverse=reverse)
    rows = [RowResult(key, {b"f:q": Cell(b"v", 1)}) for key in keys]
    state = {
        "reverse": reverse,
        "lower": lower,
        "upper": upper,
        "remaining": remaining,
        "stop_at_upper": stop_at_upper,
    }
    want, want_state = _row_by_row(rows, **state)  # type: ignore[arg-type]
    got: list[RowResult] = []
    calls: list[int] = []

    def extend(taken: list[RowResult]) -> None:
        calls.append(len(taken))
        got.extend(taken)

    got_state = take_batch(rows, extend, **state)  # type: ignore[arg-type]
    assert got == want
    assert [r is w for r, w in zip(got, want, strict=True)] == [True] * len(want)
    assert got_state == want_state
    assert len(calls) <= 1  # the buffer is extended once per batch
