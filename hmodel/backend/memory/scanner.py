"""Scans of the memory engine: rows fetched in batches, one round trip each, under the lock."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from hmodel.backend.base import RowResult, Scan
from hmodel.backend.memory.filter import FilterRun
from hmodel.backend.memory.rows import Names
from hmodel.backend.memory.selection import Selection
from hmodel.backend.memory.store import StoredRow, row_result
from hmodel.backend.memory.table import ColumnHistory, MemoryTable
from hmodel.clock import Clock

__all__ = ["Fetch", "RowVersions", "fetch_latest", "fetch_versions", "scan_rows"]

#: A row and its columns, each with its versions newest first.
RowVersions = tuple[bytes, ColumnHistory]


T = TypeVar("T")

#: One fetch of a scan: up to ``want`` rows after ``after``; returns them, the last row
#: looked at, and whether the scan is over (the caller holds the table lock).
Fetch = Callable[..., tuple[list[T], bytes | None, bool]]


def _result(row: bytes, columns: ColumnHistory) -> RowResult:
    return RowResult(row, {column: versions[0] for column, versions in columns if versions})


def _scanned(families: set[bytes], selection: Selection) -> set[bytes]:
    """Which of a row's ``families`` (versions or delete markers) the scan looks at.

    Visible cells or not (deleted, outside the time range, columns not asked for):
    HBase's store scanners look at every one of them, which matters to filters that end
    the scan (see :meth:`FilterRun.apply`), even in a row with no visible cell.
    """
    if selection.everything:
        return families
    scanned = selection.families | {name.partition(b":")[0] for name in selection.names}
    return families & scanned


def _judged(
    table: MemoryTable,
    row: bytes,
    names: Names,
    data: object,
    selection: Selection,
    *,
    run: FilterRun,
    before: int | None,
    now: int,
    minimum: int = 0,
) -> tuple[ColumnHistory | None, bool]:
    """One row's columns the filter keeps (``None``: none) and whether the scan ends.

    The filter sees each selected column's visible versions ``>= minimum``.
    """
    columns: ColumnHistory
    if type(data) is not StoredRow and table.timeless and before is None:
        columns, families = table.plain_history(names, data, selection)
    else:
        stored = table.expanded(names, data)
        columns = table.history_of(stored, selection, before=before, now=now)
        families = stored.families()
    if minimum:
        columns = _from(columns, minimum)
    scanned = _scanned(families, selection)
    if not columns:
        # No visible cell, but a row the scanned stores hold meets the row filters.
        return None, bool(scanned) and run.apply(row, (), scanned).done
    verdict = run.apply(row, columns, scanned)
    return verdict.columns or None, verdict.done


def _from(columns: ColumnHistory, minimum: int) -> ColumnHistory:
    """``columns`` without their versions older than ``minimum``."""
    kept: ColumnHistory = []
    for column, versions in columns:
        recent = [cell for cell in versions if cell.timestamp >= minimum]
        if recent:
            kept.append((column, recent))
    return kept


def _collect(
    table: MemoryTable,
    scan: Scan,
    selection: Selection,
    run: FilterRun | None,
    *,
    after: bytes | None,
    want: int,
    now: int,
    unfiltered: Callable[[bytes, Names, object], T | None],
    kept: Callable[[bytes, ColumnHistory], T],
    minimum: int = 0,
) -> tuple[list[T], bytes | None, bool]:
    """Collect up to ``want`` rows of ``scan`` after the row ``after``.

    A row is ``unfiltered(row, names, data)`` without a filter (``None``: nothing
    visible), else ``kept(row, columns)`` of the columns the filter keeps.

    Returns:
        The rows, the last row looked at, and whether the scan is over. The caller holds
        the table lock.
    """
    batch: list[T] = []
    last = after
    for row, names, data in table.entries(scan.start, scan.stop, after=after, reverse=scan.reverse):
        last = row
        if run is None:
            found = unfiltered(row, names, data)
            if found is not None:
                batch.append(found)
        else:
            columns, done = _judged(
                table, row, names, data, selection, run=run, before=scan.before, now=now,
                minimum=minimum,
            )  # fmt: skip
            if columns:
                batch.append(kept(row, columns))
            if done:
                return batch, last, True
        if len(batch) == want:
            return batch, last, False
    return batch, last, True


def fetch_latest(
    table: MemoryTable,
    scan: Scan,
    selection: Selection,
    run: FilterRun | None,
    *,
    after: bytes | None,
    want: int,
    now: int,
) -> tuple[list[RowResult], bytes | None, bool]:
    """:func:`_collect` of the newest visible cell of each selected column.

    Without a filter, the loop is its own: the engine's common scan, kept to one call a
    row.
    """
    if run is not None:
        return _collect(
            table, scan, selection, run, after=after, want=want, now=now, unfiltered=_unused,
            kept=_result,
        )  # fmt: skip
    batch: list[RowResult] = []
    last = after
    latest_of, before = table.latest_of, scan.before
    for row, names, data in table.entries(scan.start, scan.stop, after=after, reverse=scan.reverse):
        last = row
        cells = latest_of(names, data, selection, before=before, now=now)
        if cells:
            batch.append(row_result(row, cells))
            if len(batch) == want:
                return batch, last, False
    return batch, last, True


def _unused(row: bytes, names: Names, data: object) -> RowResult | None:
    raise AssertionError("a filtered scan reads no row unfiltered")


def fetch_versions(
    table: MemoryTable,
    scan: Scan,
    selection: Selection,
    run: FilterRun | None,
    *,
    after: bytes | None,
    want: int,
    now: int,
    versions: int,
    minimum: int,
) -> tuple[list[RowVersions], bytes | None, bool]:
    """:func:`_collect` of up to ``versions`` versions per column, each ``>= minimum``.

    Without a filter a column's newest ``versions`` are kept; a filter sees every
    version in the range and keeps at most ``versions`` of those it includes (see
    ``FilterProgram.start`` in :mod:`hmodel.backend.memory.filter.evaluator`).
    """

    def unfiltered(row: bytes, names: Names, data: object) -> RowVersions | None:
        found = table.history_of(
            table.expanded(names, data), selection, before=scan.before, now=now
        )
        columns = [(c, v[:versions]) for c, v in _from(found, minimum)]
        return (row, columns) if columns else None

    return _collect(
        table, scan, selection, run, after=after, want=want, now=now, unfiltered=unfiltered,
        kept=lambda row, columns: (row, columns), minimum=minimum,
    )  # fmt: skip


def scan_rows(
    lookup: Callable[[], MemoryTable],
    scan: Scan,
    selection: Selection,
    run: FilterRun | None,
    *,
    clock: Clock,
    charge: Callable[[], None],
    fetch: Fetch[T],
) -> Iterator[T]:
    """Yield the rows of ``scan``, fetching ``batch_size`` rows (or more: see below) a trip.

    Each fetch calls ``charge`` once, looks the table up again (so a table deleted or
    disabled meanwhile fails the scan as it fails an HBase scanner), and reads under the
    table lock with the clock read once. Between fetches the lock is released: a fetch sees
    the rows as they are then, and the scan resumes after the last row it looked at, so
    concurrent writes never break it. A fetch asks for ``batch_size`` rows (fewer when the
    ``limit`` is closer); one that returns fewer than it asked for ends the scan, as does
    reaching the limit or a filter saying it is done. So ``n`` rows cost ``n // batch_size
    + 1`` fetches without a limit. With ``max_batch_size`` each fetch after the first asks
    for twice the rows of the one before, up to it (:meth:`Scan.next_batch_size`).
    ``fetch`` collects one fetch's rows: :func:`fetch_latest` (the newest version of
    each column) or :func:`fetch_versions`.
    """
    returned = 0
    after: bytes | None = None
    size = scan.batch_size
    while True:
        want = size if scan.limit is None else min(size, scan.limit - returned)
        size = scan.next_batch_size(size)
        if want <= 0:
            return
        charge()
        table = lookup()
        with table.lock:
            batch, after, finished = fetch(
                table, scan, selection, run, after=after, want=want, now=clock()
            )
        yield from batch
        returned += len(batch)
        if finished:
            return
