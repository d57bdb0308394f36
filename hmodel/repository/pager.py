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
    positions = list(start)
    items: list[T] = []
    for index, result in rows:
        item = decode(result)
        if item is not None and len(items) == size:
            yield RawPage(items, list(positions))
            items = []
        if item is not None:
            items.append(item)
        positions[index] = Position(result.row, positions[index].done)
    yield RawPage(items, None)
