"""Scan plans: the byte ranges, columns and filter of a repository scan, and their execution."""

from __future__ import annotations

import hashlib
from collections.abc import Generator, Sequence
from heapq import heapify, heapreplace
from typing import Any

import attrs

from hmodel.backend.base import Backend, RowResult, Scan
from hmodel.backend.op import CloseScan, OpenScan, ScanNext, iterate
from hmodel.repository.page import Position

__all__ = [
    "EVERY_FAMILY",
    "KeySpan",
    "RowCursor",
    "ScanPlan",
    "execute",
    "execute_op",
    "open_rows",
    "stream",
]

#: A filter that keeps every cell and needs every family: ``FamilyFilter`` keeps the
#: cells whose family is ``>=`` the empty string, i.e. all of them, and like every filter
#: but the single-column ones it tells HBase each family is essential.
EVERY_FAMILY = b"FamilyFilter(>=, 'binary:')"


@attrs.frozen
class KeySpan:
    """One byte range of a plan: ``start`` inclusive, ``stop`` exclusive (``b""``: table end)."""

    start: bytes
    stop: bytes


@attrs.frozen
class ScanPlan:
    """Everything a repository scan sends, derived from the key declaration (K1, K3, I4, I5).

    A reverse plan with a filter sends ``(filter) AND FamilyFilter(>=, 'binary:')``
    (:data:`EVERY_FAMILY`). A condition renders ``SingleColumnValueFilter(...,
    filterIfMissing=true)``, which lets HBase load the other families of a row only once
    the row is kept ("on demand", the region server's default); HBase's reversed scanner
    cannot do that and refuses the scan ("Reverse scan with loading CFs on demand is not
    supported") as soon as the model has more than one family. The added filter keeps
    every cell and needs every family, so all families are read together, as a forward
    scan of a one-family table always is: same rows, same round trips, one atomic read
    per row. Forward plans are sent as rendered.

    Attributes:
        table: The table scanned.
        spans: One byte range per salt bucket (or a single range), sorted by start.
        columns: Columns or families read; empty: all.
        filter: The HBase filter string sent with each range, or ``None``; for a reverse
            plan, with :data:`EVERY_FAMILY` added (set on creation).
        reverse: Newest/highest first.
        merge_offset: Bytes at the front of each rowkey to ignore when merging the ranges
            into one stream (the salt prefix width; 0 when there is one range).
    """

    table: str
    spans: tuple[KeySpan, ...]
    columns: tuple[bytes, ...] = ()
    filter: bytes | None = None
    reverse: bool = False
    merge_offset: int = 0

    def __attrs_post_init__(self) -> None:
        if (
            self.reverse
            and self.filter is not None
            and not self.filter.endswith(b") AND " + EVERY_FAMILY)
        ):
            object.__setattr__(self, "filter", b"(" + self.filter + b") AND " + EVERY_FAMILY)

    def fingerprint(self) -> str:
        """A short digest identifying the query, so a token cannot resume another query."""
        digest = hashlib.sha256()
        for part in (
            self.table.encode(),
            *(s.start + b"\x00" + s.stop for s in self.spans),
            b",".join(self.columns),
            self.filter or b"",
            b"r" if self.reverse else b"f",
        ):
            digest.update(len(part).to_bytes(4, "big") + part)
        return digest.hexdigest()[:24]

    def describe(self) -> str:
        """A human-readable account of what the scan sends, for ``explain``."""
        order = "reverse" if self.reverse else "forward"
        lines = [f"scan {self.table!r} ({order}, {len(self.spans)} range(s))"]
        lines += [f"  [{s.start!r}, {s.stop or 'end'!r})" for s in self.spans]
        if self.columns:
            lines.append(f"  columns: {[c.decode('latin-1') for c in self.columns]}")
        if self.filter:
            lines.append(f"  filter: {self.filter.decode('utf-8', 'replace')}")
        return "\n".join(lines)


def _resumed(span: KeySpan, position: Position, reverse: bool) -> KeySpan | None:
    """The part of ``span`` after ``position``; ``None`` when nothing is left."""
    if position.done:
        return None
    if position.last_row is None:
        return span
    if reverse:  # rows below the last one returned: it becomes the exclusive stop
        return KeySpan(span.start, position.last_row)
    return KeySpan(position.last_row + b"\x00", span.stop)  # the next possible row


class RowCursor:
    """The rows of a plan's open scans, merged in key order, taken a batch at a time.

    Made by :func:`open_rows`. :meth:`batch` is a sans-I/O step (see
    :mod:`hmodel.backend.op`): it yields the scan requests it needs and returns the next
    ``(span index, row)`` pairs. Salted scans (K3, I5) are merged on the rowkey without
    its first ``plan.merge_offset`` bytes (the salt), so the stream is ordered by the
    natural key (descending when ``plan.reverse``); two spans never hold rows with the
    same key (a salt is a function of the fields after it), and the span index breaks any
    tie anyway.
    """

    def __init__(
        self, plan: ScanPlan, scans: list[tuple[int, Any, int]], limit: int | None
    ) -> None:
        self._offset = plan.merge_offset
        self._reverse = plan.reverse
        #: Per open span: (span index, scan handle, rows per fetch).
        self._scans = scans
        self._buffers: dict[int, list[RowResult]] = {index: [] for index, _, _ in scans}
        self._remaining = limit

    def batch(self) -> Generator[Any, Any, list[tuple[int, RowResult]]]:
        """The next ``(span index, row)`` pairs in key order (``[]``: none left).

        ``[]`` when the scans are exhausted or the limit is reached. A single span's
        rows come a fetch at a time; several spans' are merged until one span's fetched
        rows run out (the next batch fetches that span's next rows).
        """
        single, taken = yield from self._take()
        if single is not None:
            taken = [(single, row) for row in taken]
        return self._limited(taken)

    def results(self) -> Generator[Any, Any, list[RowResult]]:
        """As :meth:`batch`, the rows alone (a read that does not track its position)."""
        single, taken = yield from self._take()
        if single is None:
            taken = [pair[1] for pair in taken]
        return self._limited(taken)

    def _take(self) -> Generator[Any, Any, tuple[int | None, list[Any]]]:
        """``(span index, rows)`` of a single span, or ``(None, pairs)`` merged."""
        if self._remaining == 0 or not self._scans:
            return None, []
        if len(self._scans) == 1:
            index, handle, count = self._scans[0]
            rows = yield ScanNext(handle, count)
            if not rows:
                self._scans = []
                return None, []
            return index, list(rows)
        return None, (yield from self._merged())

    def _limited(self, taken: list[Any]) -> list[Any]:
        if self._remaining is not None:
            del taken[self._remaining :]
            self._remaining -= len(taken)
        return taken

    def _merged(self) -> Generator[Any, Any, list[tuple[int, RowResult]]]:
        buffers = self._buffers
        live = []
        for scan in self._scans:
            index, handle, count = scan
            if not buffers[index]:
                rows = yield ScanNext(handle, count)
                if not rows:
                    continue
                rows.reverse()  # popped from the end
                buffers[index] = rows
            live.append(scan)
        self._scans = live
        taken: list[tuple[int, RowResult]] = []
        if not live:
            return taken
        offset = self._offset
        if not self._reverse:
            # A heap of (head, index): the least head first, ties to the lower index, as
            # the ``min`` below picks (a ``min`` over every bucket per row cost a tenth of
            # a salted read's client time).
            heap = [(buffers[index][-1].row[offset:], index) for index, _, _ in live]
            heapify(heap)
            while True:
                index = heap[0][1]
                buffer = buffers[index]
                taken.append((index, buffer.pop()))
                if not buffer:
                    return taken
                heapreplace(heap, (buffer[-1].row[offset:], index))
        pick = max
        heads = {index: buffers[index][-1].row[offset:] for index, _, _ in live}
        while True:
            index = pick(heads, key=lambda i: (heads[i], i))
            buffer = buffers[index]
            taken.append((index, buffer.pop()))
            if not buffer:
                return taken
            heads[index] = buffer[-1].row[offset:]

    def close(self) -> Generator[Any, Any, None]:
        """Release the scans still open (their server-side scanners)."""
        scans, self._scans = self._scans, []
        for _, handle, _ in scans:
            yield CloseScan(handle)


def open_rows(
    plan: ScanPlan,
    positions: Sequence[Position] | None = None,
    *,
    limit: int | None = None,
    batch_size: int = 1000,
    expected: int | None = None,
    max_batch_size: int | None = None,
) -> Generator[Any, Any, RowCursor]:
    """Open the scan of every span not finished yet; a :class:`RowCursor` over them.

    A sans-I/O step (:mod:`hmodel.backend.op`): the driver closes the scans already open
    if a later one fails to open. Arguments as for :func:`execute`.
    """
    positions = positions or [Position()] * len(plan.spans)
    live = sum(1 for p in positions if not p.done)
    wanted = limit if limit is not None else expected
    if wanted is not None:
        batch_size = min(batch_size, max(1, wanted))
        if live > 1:
            # A merged page takes about wanted / spans rows from each span: fetch twice
            # that per round trip rather than `wanted` rows from every span.
            batch_size = min(batch_size, max(1, 2 * -(-wanted // live)))
    scans: list[tuple[int, Any, int]] = []
    for index, (span, position) in enumerate(zip(plan.spans, positions, strict=True)):
        remaining = _resumed(span, position, plan.reverse)
        if remaining is None or (remaining.stop and remaining.start >= remaining.stop):
            continue
        scan = Scan(
            start=remaining.start,
            stop=remaining.stop,
            columns=plan.columns,
            filter=plan.filter,
            reverse=plan.reverse,
            limit=limit,
            batch_size=batch_size,
            max_batch_size=None if max_batch_size is None else max(max_batch_size, batch_size),
        )
        handle = yield OpenScan(plan.table, scan)
        scans.append((index, handle, batch_size))
    return RowCursor(plan, scans, limit)


def execute_op(
    plan: ScanPlan,
    positions: Sequence[Position] | None = None,
    *,
    limit: int | None = None,
    batch_size: int = 1000,
    expected: int | None = None,
    max_batch_size: int | None = None,
) -> Generator[Any, Any, None]:
    """The stream operation of :func:`execute`: yields requests and ``(span index, row)``."""
    cursor = yield from open_rows(
        plan,
        positions,
        limit=limit,
        batch_size=batch_size,
        expected=expected,
        max_batch_size=max_batch_size,
    )
    while True:
        rows = yield from cursor.batch()
        if not rows:
            yield from cursor.close()
            return
        yield from rows


def execute(
    backend: Backend,
    plan: ScanPlan,
    positions: Sequence[Position] | None = None,
    *,
    limit: int | None = None,
    batch_size: int = 1000,
    expected: int | None = None,
    max_batch_size: int | None = None,
) -> Generator[tuple[int, RowResult], None, None]:
    """Run ``plan`` and yield ``(span index, row)`` merged into one stream in key order.

    Salted scans (K3, I5) open one scan per span and merge them on the rowkey without its
    first ``merge_offset`` bytes, so the stream is ordered by the natural key (descending
    when ``plan.reverse``). ``positions`` resume each span after the row it last returned.
    Closing the generator releases the scans.

    Args:
        backend: Where to scan.
        plan: What to scan.
        positions: One per span, from a previous page; ``None`` starts from the beginning.
        limit: Stop after this many rows overall (each span is asked for at most as many).
        batch_size: Rows per round trip of each span's scan.
        expected: How many rows the caller expects to take (when it filters rows itself
            and cannot set ``limit``): only sizes the round trips.
        max_batch_size: Let each span's fetches grow, doubling, up to this many rows
            (:attr:`Scan.max_batch_size`); ``None``: every fetch is ``batch_size``.
    """
    yield from iterate(
        execute_op(
            plan,
            positions,
            limit=limit,
            batch_size=batch_size,
            expected=expected,
            max_batch_size=max_batch_size,
        ),
        backend,
    )


def stream(
    backend: Backend, plan: ScanPlan, *, batch_size: int = 1000, expected: int | None = None
) -> Generator[RowResult, None, None]:
    """Run ``plan`` from its start and return its rows merged in key order, without indexes.

    As :func:`execute` without positions and limit. Close the result to release the
    scans early.
    """
    rows = execute(backend, plan, batch_size=batch_size, expected=expected)
    try:
        for _, row in rows:
            yield row
    finally:
        rows.close()
