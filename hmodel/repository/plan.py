"""Scan plans: the byte ranges, columns and filter of a repository scan, and their execution."""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Generator, Iterator, Sequence

import attrs

from hmodel.backend.base import Backend, RowResult, Scan
from hmodel.repository.page import Position

__all__ = ["EVERY_FAMILY", "KeySpan", "ScanPlan", "execute"]

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


def _open(
    backend: Backend,
    plan: ScanPlan,
    positions: Sequence[Position] | None,
    *,
    limit: int | None,
    batch_size: int,
    expected: int | None,
    max_batch_size: int | None = None,
) -> list[tuple[int, Iterator[RowResult]]]:
    """Open the scan of every span not finished yet: ``(span index, rows)`` pairs."""
    positions = positions or [Position()] * len(plan.spans)
    live = sum(1 for p in positions if not p.done)
    wanted = limit if limit is not None else expected
    if wanted is not None:
        batch_size = min(batch_size, max(1, wanted))
        if live > 1:
            # A merged page takes about wanted / spans rows from each span: fetch twice
            # that per round trip rather than `wanted` rows from every span.
            batch_size = min(batch_size, max(1, 2 * -(-wanted // live)))
    scans: list[tuple[int, Iterator[RowResult]]] = []
    try:
        for index, (span, position) in enumerate(zip(plan.spans, positions, strict=True)):
            remaining = _resumed(span, position, plan.reverse)
            if remaining is None or (remaining.stop and remaining.start >= remaining.stop):
                continue
            scans.append(
                (index, _scan(backend, plan, remaining, limit, batch_size, max_batch_size))
            )
    except BaseException:  # a scan that fails to open: release the ones already open
        for _, rows in scans:
            _close(rows)
        raise
    return scans


def _scan(  # noqa: PLR0917  # the parts of one span's Scan, from _open
    backend: Backend,
    plan: ScanPlan,
    remaining: KeySpan,
    limit: int | None,
    batch_size: int,
    max_batch_size: int | None,
) -> Iterator[RowResult]:
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
    return backend.scan(plan.table, scan)


def stream(
    backend: Backend, plan: ScanPlan, *, batch_size: int = 1000, expected: int | None = None
) -> Iterator[RowResult]:
    """Run ``plan`` from its start and return its rows merged in key order, without indexes.

    As :func:`execute` without positions and limit, for a caller that needs neither: a
    one-span plan's rows come straight from the backend's scan (no generator between),
    a salted plan's through one merge. Close the result (``close()``, when it has one)
    to release the scans early.
    """
    scans = _open(backend, plan, None, limit=None, batch_size=batch_size, expected=expected)
    if len(scans) == 1:
        return scans[0][1]
    return _merged_rows(scans, plan)


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
    scans = _open(
        backend,
        plan,
        positions,
        limit=limit,
        batch_size=batch_size,
        expected=expected,
        max_batch_size=max_batch_size,
    )
    if len(scans) == 1:  # one span: its rows as they come, no merge key to compute
        (index, rows), count = scans[0], 0
        try:
            for row in rows:
                if limit is not None and count >= limit:
                    return
                count += 1
                yield index, row
        finally:
            _close(rows)
        return
    streams = [_tagged(rows, index, plan.merge_offset) for index, rows in scans]
    merged = heapq.merge(*streams, reverse=plan.reverse)  # tuples compare in C: _tagged
    count = 0
    try:
        for _, index, row in merged:
            if limit is not None and count >= limit:
                return
            count += 1
            yield index, row
    finally:
        for tagged in streams:
            tagged.close()


def _merged_rows(
    scans: list[tuple[int, Iterator[RowResult]]], plan: ScanPlan
) -> Generator[RowResult, None, None]:
    """The rows of several spans' scans merged in key order (:func:`execute`'s merge)."""
    streams = [_tagged(rows, index, plan.merge_offset) for index, rows in scans]
    try:
        for _, _, row in heapq.merge(*streams, reverse=plan.reverse):
            yield row
    finally:
        for tagged in streams:
            tagged.close()


def _close(rows: Iterator[RowResult]) -> None:
    close = getattr(rows, "close", None)
    if close is not None:
        close()


def _tagged(
    rows: Iterator[RowResult], index: int, offset: int
) -> Generator[tuple[bytes, int, RowResult], None, None]:
    """``(merge key, span index, row)`` per row: the tuples ``heapq.merge`` compares.

    The key is the rowkey without its first ``offset`` bytes (the salt). Two spans never
    hold rows with the same key (a salt is a function of the fields after it), and the
    span index breaks any tie anyway, so the rows themselves are never compared.
    """
    try:
        for row in rows:
            yield row.row[offset:], index, row
    finally:
        _close(rows)
