"""Pages of scanned rows with resume positions: the row half of a repository's pages (R8)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Generic, TypeVar

import attrs

from hmodel.backend.base import RowResult
from hmodel.repository.page import Position

__all__ = ["RawPage", "paginate"]

T = TypeVar("T")


@attrs.frozen
class RawPage(Generic[T]):
    """One page of decoded items and where each span of the scan stands after it.

    Attributes:
        items: At most a page's worth of items, in scan order.
        positions: Per span, the last row consumed by this page (items and the rows
            skipped before the next item); ``None`` when nothing follows the page.
    """

    items: list[T]
    positions: list[Position] | None


def paginate(
    rows: Iterable[tuple[int, RowResult]],
    start: Sequence[Position],
    size: int,
    decode: Callable[[RowResult], T | None],
) -> Iterator[RawPage[T]]:
    """Cut a merged row stream into pages of ``size`` decoded items.

    ``decode`` turns a row into an item, or ``None`` to skip it (a row of another record
    type, R1, or one that does not decode and is reported elsewhere); skipped rows still
    advance their span's position, so a resumed scan never returns them again. A page is
    complete when the item after it has been seen, so the last page (possibly empty, when
    the stream is empty) is the only one whose ``positions`` is ``None``.

    Args:
        rows: ``(span index, row)`` pairs, as :func:`~hmodel.repository.plan.execute`
            yields them.
        start: The positions the stream started from, one per span.
        size: Items per page, >= 1.
        decode: Row to item, or ``None`` to skip.
    """
    # The last row consumed per span (None: none yet); Positions are made per page only.
    last: list[bytes | None] = [None] * len(start)
    items: list[T] = []
    for index, result in rows:
        item = decode(result)
        if item is not None:
            if len(items) == size:
                yield RawPage(items, _positions(start, last))
                items = []
            items.append(item)
        last[index] = result.row
    yield RawPage(items, None)


def _positions(start: Sequence[Position], last: Sequence[bytes | None]) -> list[Position]:
    """Each span's position: after its last consumed row, else where it started."""
    return [
        began if row is None else Position(row, began.done)
        for began, row in zip(start, last, strict=True)
    ]
