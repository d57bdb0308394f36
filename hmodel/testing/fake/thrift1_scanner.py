"""Server-side scanners of the Thrift1 server: integer ids, column batching, closing."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator

from hmodel.backend.base import Cell, RowResult
from hmodel.clock import Clock, system_clock
from hmodel.errors import IllegalArgumentError
from hmodel.testing.fake.lease import Leases

__all__ = ["DEFAULT_SCANNER_LEASE_MS", "RowChunk", "Scanner", "ScannerRegistry"]

#: How long an unused scanner id lives: HBase 2's Thrift1 handler (2.2 to 2.6's
#: ``ThriftHBaseServiceHandler``) drops a scanner not accessed for twice
#: ``hbase.client.scanner.timeout.period`` (60 s by default).
DEFAULT_SCANNER_LEASE_MS = 2 * 60_000

#: One result a scanner hands out: the row key and some of its cells in column order.
RowChunk = tuple[bytes, list[tuple[bytes, Cell]]]

_MAX_ID = 2**31 - 1  # ScannerID is a Thrift i32


class Scanner:
    """An open scan: rows from the engine, cut into chunks of at most ``batch`` cells.

    ``batch`` is HBase's ``Scan.setBatch`` (the Thrift ``TScan.batchSize``, happybase's
    ``scan_batching``): a row with more cells than that is returned as several results
    with the same row key, each holding the next ``batch`` cells in column order.
    ``None`` (or a value < 1) returns whole rows. Thread-safe: concurrent calls with the
    same scanner id are serialised.

    Args:
        rows: The engine's row iterator; closed (if it has ``close``) with the scanner.
        batch: Cells per result, or ``None`` for whole rows.
        sort_columns: Whether results are sent as ``sortedColumns`` instead of ``columns``.
    """

    def __init__(
        self, rows: Iterator[RowResult], *, batch: int | None = None, sort_columns: bool = False
    ) -> None:
        self._rows = rows
        self._batch = batch if batch is not None and batch >= 1 else None
        self.sort_columns = sort_columns
        self._pending: deque[RowChunk] = deque()
        self._lock = threading.Lock()
        self._closed = False

    def _chunks(self, result: RowResult) -> list[RowChunk]:
        cells = list(result.cells.items())
        if self._batch is None or len(cells) <= self._batch:
            return [(result.row, cells)]
        step = self._batch
        return [(result.row, cells[i : i + step]) for i in range(0, len(cells), step)]

    def next(self, count: int) -> list[RowChunk]:
        """Return up to ``count`` further results; ``[]`` once exhausted or if ``count < 1``."""
        out: list[RowChunk] = []
        with self._lock:
            while len(out) < count and not self._closed:
                if not self._pending:
                    result = next(self._rows, None)
                    if result is None:
                        break
                    self._pending.extend(self._chunks(result))
                out.append(self._pending.popleft())
        return out

    def close(self) -> None:
        """Release the engine's iterator; further :meth:`next` calls return ``[]``."""
        with self._lock:
            self._closed = True
            self._pending.clear()
            close = getattr(self._rows, "close", None)
            if close is not None:
                close()


class ScannerRegistry:
    """The server's open scanners by id, shared by every client connection (as in HBase).

    Ids count up from 0 and wrap within the Thrift ``i32`` range, skipping ids in use.
    An id that is not open is an ``IllegalArgument`` ("scanner ID is invalid"), as HBase
    answers.

    A scanner that no call has used for ``lease_ms`` expires, as in HBase's Thrift1
    handler (a Guava cache with ``expireAfterAccess``): it is closed and its id answers as
    an unknown one, so scanners abandoned by clients (a dropped connection, a process that
    died) do not hold engine iterators for ever. Every call of the registry first expires
    what is due, reading the injected ``clock``; :meth:`expire` does only that (the
    server's sweeper calls it every second, so expiry needs no client call).

    Args:
        lease_ms: Milliseconds a scanner lives after its last use (>= 1).
        clock: The time in epoch milliseconds (inject a ``ManualClock`` in tests).

    Raises:
        IllegalArgumentError: ``lease_ms`` is not a positive int.
    """

    def __init__(
        self, *, lease_ms: int = DEFAULT_SCANNER_LEASE_MS, clock: Clock = system_clock
    ) -> None:
        self._leases: Leases[Scanner] = Leases(lease_ms=lease_ms, clock=clock, close=Scanner.close)
        self.lease_ms = lease_ms
        self._next_id = 0

    def __len__(self) -> int:
        return len(self._leases)

    def expire(self) -> list[int]:
        """Close every scanner unused for ``lease_ms``; return their ids, in id order."""
        return self._leases.expire()

    def add(self, scanner: Scanner) -> int:
        """Register ``scanner`` and return its new id."""
        self.expire()
        with self._leases.lock:
            while self._next_id in self._leases:
                self._next_id = 0 if self._next_id >= _MAX_ID else self._next_id + 1
            scanner_id = self._next_id
            self._next_id = 0 if scanner_id >= _MAX_ID else scanner_id + 1
            self._leases.put(scanner_id, scanner)
        return scanner_id

    def get(self, scanner_id: int) -> Scanner:
        """Return the open scanner ``scanner_id`` and renew its lease.

        Raises:
            IllegalArgumentError: No scanner with that id is open (or it expired).
        """
        scanner = self._leases.get(scanner_id)
        if scanner is None:
            raise IllegalArgumentError("scanner ID is invalid", value=scanner_id)
        return scanner

    def close(self, scanner_id: int) -> None:
        """Close and forget scanner ``scanner_id``.

        Raises:
            IllegalArgumentError: No scanner with that id is open (or it expired).
        """
        scanner = self._leases.pop(scanner_id)
        if scanner is None:
            raise IllegalArgumentError("scanner ID is invalid", value=scanner_id)
        scanner.close()

    def close_all(self) -> None:
        """Close every open scanner (server shutdown)."""
        self._leases.close_all()
