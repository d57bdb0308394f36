"""One fetched batch of a Thrift scanner's rows, taken into its buffer within the scan's range."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from hmodel.backend.base import RowResult

__all__ = ["take_batch"]


def take_batch(  # the scanner's state, passed in and handed back
    results: Iterable[Any],
    convert: Callable[[Any], RowResult | None],
    append: Callable[[RowResult], None],
    *,
    reverse: bool,
    lower: bytes,
    upper: bytes,
    remaining: int | None,
    stop_at_upper: bool,
) -> tuple[bytes, bytes, int | None]:
    """Append the rows of one batch that lie in ``[lower, upper)``; return the new state.

    Used by the Thrift1 and Thrift2 scanners for every row scanned, so the bounds and the
    count stay in locals for the whole batch. A result without a cell (``convert`` gives
    ``None``) is skipped.

    Args:
        results: The protocol's row structs, in scan order.
        convert: A struct to its :class:`RowResult`, or ``None``.
        append: Where taken rows go (the scanner's buffer).
        reverse: Rows come from the highest down. The server was sent the inclusive
            ``upper`` as its start, so a row ``>= upper`` is skipped; a row below
            ``lower`` ends the scan.
        lower: The scan's inclusive lower bound; ``b""``: none.
        upper: The exclusive upper bound; ``b""``: none.
        remaining: Rows still wanted (``None``: no limit); the batch stops at 0.
        stop_at_upper: Forward: a row ``>= upper`` ends the scan (HBase's Thrift1 handler,
            and HBase 2.6.1's Thrift2 handler, read the start row when start equals stop,
            a range that holds no row).

    Returns:
        ``(lower, upper, remaining)`` after the batch: forward, ``lower`` moves past the
        last row taken; in reverse, ``upper`` becomes the last row taken; ``remaining``
        is 0 when the scan is done.
    """
    if reverse:
        for tresult in results:
            result = convert(tresult)
            if result is None:
                continue
            row = result.row
            if upper and row >= upper:
                continue  # the inclusive startRow sent; the protocol's stop is exclusive
            if row < lower:
                remaining = 0  # below the protocol's inclusive start: done
                break
            upper = row
            append(result)
            if remaining is not None:
                remaining -= 1
                if remaining == 0:
                    break
        return lower, upper, remaining
    last: bytes | None = None
    for tresult in results:
        result = convert(tresult)
        if result is None:
            continue
        row = result.row
        if stop_at_upper and upper and row >= upper:
            remaining = 0
            break
        last = row
        append(result)
        if remaining is not None:
            remaining -= 1
            if remaining == 0:
                break
    if last is not None:
        lower = last + b"\x00"
    return lower, upper, remaining
