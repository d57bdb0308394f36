"""Pages of scanned rows with resume positions: the row half of a repository's pages (R8)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import attrs

from hmodel.backend.base import RowResult
from hmodel.repository.page import Position

__all__ = ["Pager", "RawPage", "paginate"]

T = TypeVar("T")

#: :meth:`Pager.add`'s default item: the row is not decoded yet.
_UNDECODED: Any = object()


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


class Pager(Generic[T]):
    """Cuts a merged row stream into pages of ``size`` decoded items, a row at a time.

    ``decode`` turns a row into an item, or ``None`` to skip it (a row of another record
    type, R1, or one that does not decode and is reported elsewhere); skipped rows still
    advance their span's position, so a resumed scan never returns them again. A page is
    complete when the item after it has been seen, so the last page (possibly empty, when
    the stream is empty) is the only one whose ``positions`` is ``None``.

    Args:
        start: The positions the stream started from, one per span.
        size: Items per page, >= 1.
        decode: Row to item, or ``None`` to skip.
    """

    __slots__ = ("_decode", "_items", "_last", "_size", "_start")

    def __init__(
        self, start: Sequence[Position], size: int, decode: Callable[[RowResult], T | None]
    ) -> None:
        self._start = start
        self._size = size
        self._decode = decode
        # The last row consumed per span (None: none yet); Positions are made per page only.
        self._last: list[bytes | None] = [None] * len(start)
        self._items: list[T] = []

    def add(self, index: int, result: RowResult, item: Any = _UNDECODED) -> RawPage[T] | None:
        """Take the next row (of span ``index``); the page it completes, if it does.

        ``item``: the row's item when the caller decoded it already (else ``decode`` is
        called).
        """
        page = None
        if item is _UNDECODED:
            item = self._decode(result)
        if item is not None:
            if len(self._items) == self._size:
                page = RawPage(self._items, _positions(self._start, self._last))
                self._items = []
            self._items.append(item)
        self._last[index] = result.row
        return page

    def add_decoded(
        self, rows: Sequence[tuple[int, RowResult]], items: Sequence[Any]
    ) -> list[RawPage[T]]:
        """:meth:`add` of each ``(span index, row)`` of ``rows`` with its decoded item.

        The pages completed, in order (usually none): the same pages, and the same state
        after, as ``rows`` added one by one with their ``items`` (``None``: skipped).
        """
        pages: list[RawPage[T]] = []
        size, last, mine = self._size, self._last, self._items
        for (index, result), item in zip(rows, items, strict=True):
            if item is not None:
                if len(mine) == size:
                    pages.append(RawPage(mine, _positions(self._start, last)))
                    mine = self._items = []
                mine.append(item)
            last[index] = result.row
        return pages

    def end(self) -> RawPage[T]:
        """The last page, once the stream is exhausted (``positions`` ``None``)."""
        return RawPage(self._items, None)


def paginate(
    rows: Iterable[tuple[int, RowResult]],
    start: Sequence[Position],
    size: int,
    decode: Callable[[RowResult], T | None],
) -> Iterator[RawPage[T]]:
    """Cut a merged row stream into pages of ``size`` decoded items (see :class:`Pager`).

    Args:
        rows: ``(span index, row)`` pairs, as :func:`~hmodel.repository.plan.execute`
            yields them.
        start: The positions the stream started from, one per span.
        size: Items per page, >= 1.
        decode: Row to item, or ``None`` to skip.
    """
    pager = Pager(start, size, decode)
    for index, result in rows:
        page = pager.add(index, result)
        if page is not None:
            yield page
    yield pager.end()


def _positions(start: Sequence[Position], last: Sequence[bytes | None]) -> list[Position]:
    """Each span's position: after its last consumed row, else where it started."""
    return [
        began if row is None else Position(row, began.done)
        for began, row in zip(start, last, strict=True)
    ]
