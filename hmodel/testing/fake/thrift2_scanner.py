"""The Thrift2 handler's scanners: ``openScanner``, ``getScannerRows``, ``closeScanner``."""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Iterator
from typing import Any

from hmodel.backend.base import Region, RowResult, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.memory.filter import compile_filter
from hmodel.clock import Clock, system_clock
from hmodel.errors import HModelError, TableNotFoundError
from hmodel.testing.fake.lease import Leases
from hmodel.testing.fake.thrift2_convert import read_columns, result_of, time_range
from hmodel.testing.fake.thrift2_error import internal_error, invalid_scanner

__all__ = ["DEFAULT_SCANNER_LEASE_MS", "ScannerHandler", "Thrift2Scanners"]


#: How long an unused Thrift2 scanner lives: ``hbase.client.scanner.timeout.period``
#: (60 s by default), the ``expireAfterAccess`` of HBase 2's Thrift2 scanner cache.
DEFAULT_SCANNER_LEASE_MS = 60_000


class _OpenScanner:
    """One open scanner: the engine's row iterator, or the error its first fetch raises."""

    def __init__(
        self,
        rows: Iterator[RowResult] | None,
        error: HModelError | None,
        minimum: int,
        batch: int | None = None,
    ):
        self.rows = rows
        self.error = error
        self.minimum = minimum
        #: ``TScan.batchSize``: at most this many cells per result, or ``None``.
        self.batch = batch
        #: The results of a row cut in batches that a fetch has not returned yet.
        self.pending: list[Any] = []
        self.lock = threading.Lock()

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
    exclusive lower one. ``limit`` counts rows: ``0`` the rows of the first region
    visited, a negative one none on HBase 2.2 and every row on 2.6 (served as 2.6). With
    ``batchSize`` a row comes in results of at most that many cells, every one but the
    row's last ``partial``. A missing table is reported at the first ``getScannerRows``, a
    bad filter at ``openScanner``. Scans return the newest version of each column
    (``maxVersions`` is not served).
    """

    backend: MemoryBackend
    scanners: Thrift2Scanners

    def open_scanner(self, table: bytes, tscan: Any) -> int:
        """Open a scanner; returns its id."""
        name = table.decode("utf-8", "replace")
        _minimum, before = time_range(None, tscan.timeRange, "openScanner")
        minimum = _minimum
        if tscan.filterString is not None:
            compile_filter(tscan.filterString)  # a bad filter fails here, table or not
        reverse = bool(tscan.reversed)
        first, second = tscan.startRow or b"", tscan.stopRow or b""
        if reverse:
            start = second + b"\x00" if second else b""
            stop = first + b"\x00" if first else b""
        else:
            start, stop = first, second
        limit = tscan.limit
        if limit is not None and limit < 0:
            limit = None  # HBase 2.6: every row (2.2: none)
        batch = tscan.batchSize if tscan.batchSize is not None and tscan.batchSize > 0 else None
        rows: Iterator[RowResult] | None = None
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
                limit=limit or None,
                batch_size=max(1, tscan.caching or 100),
            )
            rows = self.backend.scan(name, scan)
        except TableNotFoundError as exc:
            return self.scanners.add(_OpenScanner(None, exc, minimum))
        return self.scanners.add(_OpenScanner(rows, None, minimum, batch))

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
        assert scanner.rows is not None
        results: list[Any] = []
        with scanner.lock:
            while len(results) < wanted:
                if scanner.pending:
                    results.append(scanner.pending.pop(0))
                    continue
                found = next(scanner.rows, None)
                if found is None:
                    break
                cells = [(c, cell) for c, cell in found.cells.items()]
                cells = [(c, cell) for c, cell in cells if cell.timestamp >= scanner.minimum]
                if not cells:
                    continue
                size = scanner.batch or len(cells)
                chunks = [cells[i : i + size] for i in range(0, len(cells), size)]
                for index, chunk in enumerate(chunks):
                    result = result_of(found.row, chunk)
                    result.partial = index < len(chunks) - 1
                    scanner.pending.append(result)
        return results

    def get_scanner_results(self, table: bytes, tscan: Any, num_rows: int | None) -> list[Any]:
        """At most ``num_rows`` results of a scan opened and closed in the call (HBase's
        ``ResultScanner.next(numRows)``: with ``batchSize``, results, not rows)."""
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
