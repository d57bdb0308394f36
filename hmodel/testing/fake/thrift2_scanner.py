"""The Thrift2 handler's scanners: ``openScanner``, ``getScannerRows``, ``closeScanner``."""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

import attrs

from hmodel.backend.base import Cell, Region, RowResult, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.memory.filter import compile_filter
from hmodel.backend.memory.scanner import RowVersions
from hmodel.clock import Clock, system_clock
from hmodel.errors import (
    ColumnFamilyNotFoundError,
    HModelError,
    TableNotFoundError,
    UnsupportedOperationError,
)
from hmodel.testing.fake.lease import Leases
from hmodel.testing.fake.thrift2_convert import read_columns, result_of, time_range
from hmodel.testing.fake.thrift2_error import internal_error, invalid_scanner

__all__ = ["DEFAULT_SCANNER_LEASE_MS", "ScannerHandler", "Thrift2Scanners"]


#: How long an unused Thrift2 scanner lives: ``hbase.client.scanner.timeout.period``
#: (60 s by default), the ``expireAfterAccess`` of HBase 2's Thrift2 scanner cache.
DEFAULT_SCANNER_LEASE_MS = 60_000


@attrs.frozen
class _Batching:
    """What a batched scan needs to mark its results ``partial`` as HBase 2.6 does.

    Attributes:
        size: ``TScan.batchSize``: at most this many cells per result.
        table: The engine's table name (for the raw cells of a row).
        regions: The table's regions (a region's last row ends an RPC of the scan).
        caching: ``TScan.caching``: results per RPC; ``None``: a region's all.
        columns: The scan's columns as the engine takes them (empty: all families).
        limit: ``TScan.limit`` when positive: the scan ends at that row, not its region.
        versions: ``TScan.maxVersions``: at most this many versions per column.
    """

    size: int
    table: str
    regions: list[Region]
    caching: int | None
    columns: list[bytes]
    limit: int | None
    versions: int

    def region_of(self, row: bytes) -> Region:
        """The region holding ``row``."""
        return next(r for r in reversed(self.regions) if r.start <= row)

    def hidden_follow(
        self, backend: MemoryBackend, row: bytes, last: bytes, stamp: int, returned: int
    ) -> bool:
        """Whether a stored cell or marker the scan reads lies after ``last`` in ``row``.

        ``last`` is the chunk's last column, ``stamp`` its version's timestamp, and
        ``returned`` how many versions of it the row returns. Such a cell is hidden: an
        older version of ``last`` read with its whole family, or asked for by name with
        fewer than ``versions`` of it returned, or a later column out of the time range,
        deleted, expired or filtered out (HBase's region scanner peeks at the next cell).
        """
        families = {c for c in self.columns if b":" not in c}
        named = {c for c in self.columns if b":" in c}
        family, _, qualifier = last.partition(b":")
        for cell in backend.raw(self.table, row):
            cell_family, colon, cell_qualifier = cell.column.partition(b":")
            wanted = not self.columns or cell_family in families or cell.column in named
            if not wanted:
                continue
            if cell.column == last:
                # The wildcard column tracker includes a column's versions and steps to
                # the next cell, an older version of it (then hidden); the explicit one
                # seeks past them once it has returned ``versions`` of them (both
                # measured on 2.6.1).
                wildcard = not self.columns or cell_family in families
                if cell.timestamp < stamp and (wildcard or returned < self.versions):
                    return True
                continue
            key = (cell_family, 1 if colon else 0, cell_qualifier)
            if key > (family, 1, qualifier):
                return True
        return False


#: A row of a scan and its cells as ``(b"f:q", cell)`` pairs, a column's versions newest
#: first (none older than the scan's time range).
_Row = tuple[bytes, list[tuple[bytes, Cell]]]

_T = TypeVar("_T")


class _Rows(Generic[_T]):
    """The engine's rows as :data:`_Row` s; closing it closes the engine's iterator."""

    def __init__(self, rows: Iterator[_T], convert: Callable[[_T], _Row]) -> None:
        self._rows = rows
        self._convert = convert

    def __iter__(self) -> _Rows[_T]:
        return self

    def __next__(self) -> _Row:
        return self._convert(next(self._rows))

    def close(self) -> None:
        """Close the engine's iterator."""
        close = getattr(self._rows, "close", None)
        if close is not None:
            close()


def _newest(minimum: int) -> Callable[[RowResult], _Row]:
    """A row of newest versions as a :data:`_Row`, its cells older than ``minimum`` left out."""

    def convert(found: RowResult) -> _Row:
        return found.row, [
            (c, cell) for c, cell in found.cells.items() if cell.timestamp >= minimum
        ]

    return convert


def _flat(found: RowVersions) -> _Row:
    """A row of several versions per column as a :data:`_Row`."""
    row, columns = found
    return row, [(column, cell) for column, cells in columns for cell in cells]


class _OpenScanner:
    """One open scanner: the engine's row iterator, or the error its first fetch raises."""

    def __init__(
        self,
        rows: Iterator[_Row] | None,
        error: HModelError | None,
        batching: _Batching | None = None,
    ):
        self.rows = rows
        self.error = error
        #: How a batched scan cuts rows in results, or ``None``.
        self.batching = batching
        #: The results of a row cut in batches that a fetch has not returned yet.
        self.pending: list[Any] = []
        #: The next row of the engine's iterator, read ahead (a region's last row).
        self.ahead: _Row | None = None
        #: The results of the current region so far, and that region.
        self.in_region = 0
        self.region: Region | None = None
        #: The rows returned so far (a positive ``limit`` ends the scan at one).
        self.rows_seen = 0
        self.lock = threading.Lock()

    def next_row(self) -> _Row | None:
        """The engine's next row (the one read ahead first)."""
        if self.ahead is not None:
            found, self.ahead = self.ahead, None
            return found
        assert self.rows is not None
        return next(self.rows, None)

    def peek_row(self) -> _Row | None:
        """The engine's next row, left to be read."""
        if self.ahead is None:
            assert self.rows is not None
            self.ahead = next(self.rows, None)
        return self.ahead

    def close(self) -> None:
        """Release the engine's iterator (errors while closing are ignored)."""
        close = getattr(self.rows, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                close()


class Thrift2Scanners:
    """The open scanners of one server, by id (shared by all its connections).

    Ids count up from 1. A scanner no call has used for ``lease_ms`` expires: it is closed
    and its id answers as an unknown one (``TIllegalArgument("Invalid scanner Id")``), as
    HBase 2's Thrift2 handler keeps its scanners in a cache that expires them after
    ``hbase.client.scanner.timeout.period`` without access (60 s by default). Every call
    first expires what is due, and so does the server's sweeper, every second.

    Args:
        lease_ms: Milliseconds a scanner lives after its last use (>= 1).
        clock: The time in epoch milliseconds (a ``ManualClock`` in tests).

    Raises:
        IllegalArgumentError: ``lease_ms`` is not a positive int.
    """

    def __init__(
        self, *, lease_ms: int = DEFAULT_SCANNER_LEASE_MS, clock: Clock = system_clock
    ) -> None:
        self._leases: Leases[_OpenScanner] = Leases(
            lease_ms=lease_ms, clock=clock, close=_OpenScanner.close
        )
        self.lease_ms = lease_ms
        self._ids = itertools.count(1)

    def add(self, scanner: _OpenScanner) -> int:
        """Register ``scanner``; return its id."""
        self.expire()
        with self._leases.lock:
            scanner_id = next(self._ids)
            self._leases.put(scanner_id, scanner)
        return scanner_id

    def get(self, scanner_id: int) -> _OpenScanner | None:
        """The scanner of that id, its lease renewed, or ``None`` (unknown or expired)."""
        return self._leases.get(scanner_id)

    def remove(self, scanner_id: int) -> _OpenScanner | None:
        """Forget the scanner of that id; return it, or ``None`` (unknown or expired)."""
        return self._leases.pop(scanner_id)

    def expire(self) -> list[int]:
        """Close every scanner unused for ``lease_ms``; return their ids, in id order."""
        return self._leases.expire()

    def close_all(self) -> None:
        """Close every open scanner (the server is stopping)."""
        self._leases.close_all()

    def __len__(self) -> int:
        return len(self._leases)


def _first_region(regions: list[Region], start: bytes, stop: bytes, reverse: bool) -> Region:
    """The region a scan visits first (forward: holding ``start``; reverse: below ``stop``)."""
    if not reverse:
        return next(r for r in reversed(regions) if r.start <= start)
    if not stop:
        return regions[-1]
    return next(r for r in reversed(regions) if r.start < stop)


class ScannerHandler:
    """Scanners over the engine with HBase 2.2's Thrift2 reading of a ``TScan``.

    Reversed scans take ``startRow`` as the inclusive upper bound and ``stopRow`` as the
    exclusive lower one. A non-empty ``startRow`` equal to ``stopRow`` reads that row
    (HBase builds the scan with the deprecated ``setStopRow``, which makes it a get).
    ``limit`` counts rows: ``0`` the rows of the first region visited, a negative one
    none on HBase 2.2 and every row on 2.6 (served as 2.6). With ``batchSize`` a row
    comes in results of at most that many cells, every one but the row's last
    ``partial`` (and the last too when hidden cells follow it, see :meth:`_chunks`). A
    missing table, an unknown family or a reverse scan loading families on demand is
    reported at the first ``getScannerRows``, a bad filter at ``openScanner``. With
    ``maxVersions`` above 1 each column comes with up to that many versions, newest
    first, a filter judging each version in the time range (the engine's
    :meth:`~hmodel.backend.memory.MemoryBackend.scan_versions`); ``maxVersions <= 0``
    returns no row (HBase 2.6.1).
    """

    backend: MemoryBackend
    scanners: Thrift2Scanners

    def open_scanner(self, table: bytes, tscan: Any) -> int:
        """Open a scanner; returns its id."""
        name = table.decode("utf-8", "replace")
        minimum, before = time_range(None, tscan.timeRange, "openScanner")
        versions = tscan.maxVersions if tscan.maxVersions is not None else 1
        if tscan.filterString is not None:
            compile_filter(tscan.filterString)  # a bad filter fails here, table or not
        reverse = bool(tscan.reversed)
        first, second = tscan.startRow or b"", tscan.stopRow or b""
        if first and first == second:  # HBase's setStopRow makes it a get of that row
            start, stop = first, first + b"\x00"
        elif reverse:
            start = second + b"\x00" if second else b""
            stop = first + b"\x00" if first else b""
        else:
            start, stop = first, second
        limit = tscan.limit
        if limit is not None and limit < 0:
            limit = None  # HBase 2.6: every row (2.2: none)
        batch = tscan.batchSize if tscan.batchSize is not None and tscan.batchSize > 0 else None
        rows: Iterator[_Row] | None = None
        batching: _Batching | None = None
        try:
            if limit == 0:
                region = _first_region(self.backend.regions(name), start, stop, reverse)
                if reverse:
                    start = max(start, region.start)
                elif region.end and (not stop or region.end < stop):
                    stop = region.end
            scan = Scan(
                start=start,
                stop=stop,
                columns=read_columns(tscan.columns),
                filter=tscan.filterString,
                before=before,
                reverse=reverse,
                # A batched scan applies its limit itself: it peeks past the last row.
                limit=None if batch is not None else limit or None,
                batch_size=max(1, tscan.caching or 100),
            )
            if versions < 1:  # HBase's scan of no versions returns nothing
                self.backend.scan(name, scan)  # checks the table and families, reads nothing
                rows = iter(())
            elif versions > 1 or minimum:  # a filter sees only versions in the time range
                found = self.backend.scan_versions(
                    name, scan, max_versions=versions, minimum=minimum
                )
                rows = _Rows(found, _flat)
            else:
                rows = _Rows(self.backend.scan(name, scan), _newest(minimum))
            if batch is not None:
                caching = tscan.caching if tscan.caching and tscan.caching > 0 else None
                regions = self.backend.regions(name)
                batching = _Batching(
                    batch, name, regions, caching, list(scan.columns), limit or None, versions
                )
        except (TableNotFoundError, ColumnFamilyNotFoundError, UnsupportedOperationError) as exc:
            # HBase hands out the id; the region scanner refuses at the first fetch.
            return self.scanners.add(_OpenScanner(None, exc))
        return self.scanners.add(_OpenScanner(rows, None, batching))

    def get_scanner_rows(self, scanner_id: int, num_rows: int | None) -> list[Any]:
        """Exactly ``min(num_rows, remaining)`` rows."""
        return self._fetch(scanner_id, num_rows, "getScannerRows")

    def _fetch(self, scanner_id: int, num_rows: int | None, api: str) -> list[Any]:
        scanner = self.scanners.get(scanner_id)
        if scanner is None:
            raise invalid_scanner()
        wanted = 1 if num_rows is None else num_rows
        if wanted < 0:
            raise internal_error(api)
        if scanner.error is not None:
            raise scanner.error
        results: list[Any] = []
        with scanner.lock:
            while len(results) < wanted:
                if scanner.pending:
                    results.append(scanner.pending.pop(0))
                    continue
                if scanner.batching is not None and scanner.batching.limit == scanner.rows_seen:
                    break  # a batched scan's limit (see open_scanner)
                found = scanner.next_row()
                if found is None:
                    break
                row, cells = found
                if cells:
                    scanner.pending.extend(self._chunks(scanner, row, cells))
        return results

    def _chunks(
        self, scanner: _OpenScanner, row: bytes, cells: list[tuple[bytes, Any]]
    ) -> list[Any]:
        """One row's results: with ``batchSize``, chunks of at most that many cells.

        Every chunk but the row's last is ``partial``. The last one is too when it is
        full and cells the scan reads but hides follow it in the row (HBase's region
        scanner stops at the batch limit, seeing more cells), except when it also ends
        the RPC's region: then HBase's client takes it as the row's end. An RPC carries
        ``caching`` results (a region's all when unset), counted from the region's first;
        a row at the scan's ``limit`` ends the region when no row follows it there.
        """
        batching = scanner.batching
        if batching is None:
            return [result_of(row, cells)]
        size = batching.size
        chunks = [cells[i : i + size] for i in range(0, len(cells), size)]
        region = batching.region_of(row)
        if region != scanner.region:
            scanner.region, scanner.in_region = region, 0
        scanner.in_region += len(chunks)
        scanner.rows_seen += 1
        last = chunks[-1]
        column, cell = last[-1]
        returned = sum(1 for name, _ in cells if name == column)
        tail = len(last) == size and batching.hidden_follow(
            self.backend, row, column, cell.timestamp, returned
        )
        if tail:
            following = scanner.peek_row()
            region_ends = following is None or batching.region_of(following[0]) != region
            rpc_full = batching.caching is not None and scanner.in_region % batching.caching == 0
            tail = not region_ends or rpc_full
        results = []
        for index, chunk in enumerate(chunks):
            result = result_of(row, chunk)
            result.partial = index < len(chunks) - 1 or tail
            results.append(result)
        return results

    def get_scanner_results(self, table: bytes, tscan: Any, num_rows: int | None) -> list[Any]:
        """At most ``num_rows`` results of a scan opened and closed in the call.

        HBase's ``ResultScanner.next(numRows)``: with ``batchSize``, results, not rows.
        """
        scanner_id = self.open_scanner(table, tscan)
        try:
            return self._fetch(scanner_id, num_rows, "getScannerResults")
        finally:
            self.close_scanner(scanner_id)

    def close_scanner(self, scanner_id: int) -> None:
        """Close a scanner; an unknown or closed id is no error (HBase 2.6.1)."""
        scanner = self.scanners.remove(scanner_id)
        if scanner is None:
            return
        scanner.close()
