"""One fetched batch of a Thrift scanner's rows, taken into its buffer within the scan's range."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hmodel.backend.base import RowResult

__all__ = ["take_batch"]


def take_batch(  # the scanner's state, passed in and handed back
    rows: Sequence[RowResult],
    extend: Callable[[Sequence[RowResult]], None],
    *,
    reverse: bool,
    lower: bytes,
    upper: bytes,
    remaining: int | None,
    stop_at_upper: bool,
) -> tuple[bytes, bytes, int | None]:
    """Add the rows of one batch that lie in ``[lower, upper)``; return the new state.

    Used by the Thrift1 and Thrift2 scanners for every batch fetched, with the batch's
    rows made already (:func:`hmodel.backend.thrift.result.row_results` and its Thrift2
    twin). The rows taken go to ``extend`` in one call (forward, one slice of ``rows``),
    not one append per row.

    Args:
        rows: The batch's rows, in scan order (the rows without a cell left out).
        extend: Where taken rows go (the scanner's buffer), in order, in one call.
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
        taken: list[RowResult] = []
        for result in rows:
            row = result.row
            if upper and row >= upper:
                continue  # the inclusive startRow sent; the protocol's stop is exclusive
            if row < lower:
                remaining = 0  # below the protocol's inclusive start: done
                break
            upper = row
            taken.append(result)
            if remaining is not None:
                remaining -= 1
                if remaining == 0:
                    break
        extend(taken)
        return lower, upper, remaining
    end = len(rows)
    ended = False  # a row >= upper ended the scan
    if stop_at_upper and upper:
        for index, result in enumerate(rows):
            if result.row >= upper:
                end, ended = index, True
                break
    if remaining is not None:
        end = min(remaining, end)
        remaining -= end
    if ended:
        remaining = 0
    if end:
        taken_rows = rows if end == len(rows) else rows[:end]
        extend(taken_rows)
        lower = taken_rows[-1].row + b"\x00"
    return lower, upper, remaining
