"""What the Thrift1 and Thrift2 scanners share: the scan's state and the synchronous edge."""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Protocol, TypeVar

from hmodel.backend.base import RowResult, Scan
from hmodel.backend.family_read import FamilyRead
from hmodel.backend.op import Op, run
from hmodel.backend.retry import Retry
from hmodel.backend.scan_batch import take_batch

__all__ = ["Rpc", "ScannerEdge", "ScannerState"]

_E = TypeVar("_E", bound="ScannerEdge")


class Rpc(Protocol):
    """Sends one call and translates the server's errors (the backend's ``_rpc``)."""

    def __call__(
        self,
        method: str,
        *args: Any,
        retry: Retry,
        table: str | None,
        row: bytes | None = None,
        filter_given: bool = False,
    ) -> Any:
        """Send ``method(*args)`` and return its result."""
        ...


class ScannerState:
    """The sans-I/O state of one Thrift scan: bounds, buffer, limit, batch size, scanner id.

    The protocol's ``ScannerCore`` subclasses it with what to send (``open_op``,
    ``fetch_op``, ``close_op``) and :meth:`row_results`; taking a fetched batch into the
    buffer, and releasing the scanner, are the same for both protocols.
    """

    def __init__(
        self,
        *,
        table: str,
        server_table: bytes,
        scan: Scan,
        retries: int,
        read: FamilyRead | None = None,
    ) -> None:
        self._table = table
        self._server_table = server_table
        self._scan = scan
        self._retries = retries
        self._buffer: deque[RowResult] = deque()
        self._remaining = scan.limit
        self._size = scan.batch_size  # rows the next fetch asks for (before the limit)
        self._lower = scan.start  # inclusive; b"": unbounded
        self._upper = scan.stop  # exclusive; b"": unbounded
        self._scanner: int | None = None
        self._finished = scan.limit == 0
        #: The families sent instead of the columns, and the columns returned (the
        #: backend's ``family_reads``: Thrift1 keeps them in the client, Thrift2 sends a
        #: filter passing exactly them); ``None``: ``scan.columns`` as named.
        self._read = read
        self._rows_of = self.row_results if read is None else self.kept_rows(read.keep)

    @staticmethod
    def row_results(tresults: list[Any]) -> list[RowResult]:
        """A batch's row structs as ``RowResult`` objects, leaving out those without a cell."""
        raise NotImplementedError

    def kept_rows(self, keep: frozenset[bytes]) -> Callable[[list[Any]], list[RowResult]]:
        """As :meth:`row_results`, keeping only ``keep``'s columns (rows left with none go).

        For a scan sent as a read of its columns' families
        (:mod:`hmodel.backend.family_read`); a protocol whose backend sends none need
        not implement it.
        """
        raise NotImplementedError

    def open_op(self) -> Op[None]:
        """Open the scanner."""
        raise NotImplementedError

    def fetch_op(self) -> Op[None]:
        """Fetch the next batch into the buffer, releasing the scanner as needed."""
        raise NotImplementedError

    def close_op(self, scanner: int) -> Op[None]:
        """Close ``scanner``; never raises."""
        raise NotImplementedError

    def _take(self, results: list[Any]) -> None:
        # Forward, a row >= the stop ends the scan: only a get-like scan gets there, as
        # HBase's Thrift1 handler (and HBase 2.6's Thrift2 handler) reads the row when
        # startRow equals stopRow; the protocol's range [start, stop) holds no row then.
        self._lower, self._upper, self._remaining = take_batch(
            self._rows_of(results),
            self._buffer.extend,
            reverse=self._scan.reverse,
            lower=self._lower,
            upper=self._upper,
            remaining=self._remaining,
            stop_at_upper=True,
        )

    def _detach(self) -> int | None:
        """Mark the scan finished; the scanner id to close, if one is open."""
        self._finished = True
        scanner, self._scanner = self._scanner, None
        return scanner

    def release_op(self) -> Op[None]:
        """Close the server-side scanner (rows already fetched stay to be served)."""
        scanner = self._detach()
        if scanner is not None:
            yield from self.close_op(scanner)


class ScannerEdge(ScannerState, Iterator[RowResult]):
    """The synchronous edge of a Thrift scanner: its rows as an iterator.

    Mixed in before the protocol's ``ScannerCore``, as
    :class:`~hmodel.backend.aio_thrift.AsyncScannerEdge` is on the asyncio edge. The
    scanner is opened when the iterator is made (and, with :attr:`fetch_at_open`, its
    first batch fetched), one fetch is sent per batch, and the scanner is closed as soon
    as the rows run out, the limit is reached, the iterator is closed (:meth:`close`,
    ``with``) or it is garbage-collected.

    Args:
        rpc: Sends a call with error translation.
        table: The table as the caller named it (for error context).
        server_table: The table name sent to the server (table prefix applied).
        scan: What to read.
        retries: How many times in a row a dropped scan may be reopened.
        busy_here: Tells whether the current thread is inside a call; a close requested
            then (by the garbage collector) is deferred to ``defer_close``.
        defer_close: Takes a scanner id to close after the running call.
    """

    #: Fetch the first batch when opening (Thrift2: a missing table fails only there).
    fetch_at_open: ClassVar[bool] = False

    def __init__(
        self,
        *,
        rpc: Rpc,
        table: str,
        server_table: bytes,
        scan: Scan,
        retries: int,
        busy_here: Callable[[], bool],
        defer_close: Callable[[int], None],
        read: FamilyRead | None = None,
    ) -> None:
        super().__init__(
            table=table, server_table=server_table, scan=scan, retries=retries, read=read
        )
        self._rpc = rpc
        self._busy_here = busy_here
        self._defer_close = defer_close
        self._lock = threading.Lock()
        if not self._finished:
            run(self.open_op(), self._rpc)
            if self.fetch_at_open:
                run(self.fetch_op(), self._rpc)

    def __iter__(self: _E) -> _E:
        return self

    def __next__(self) -> RowResult:
        while not self._buffer:
            if self._finished:
                raise StopIteration
            run(self.fetch_op(), self._rpc)
        return self._buffer.popleft()

    def take(self, count: int) -> list[RowResult]:
        """The next at most ``count`` rows: ``list(islice(self, count))``, a batch at a time.

        The same rows and the same fetches (one when the buffer runs out before ``count``
        rows are taken and the scan is not finished), without a ``__next__`` per row.
        """
        rows: list[RowResult] = []
        buffer = self._buffer
        while len(rows) < count:
            if not buffer:
                if self._finished:
                    break
                run(self.fetch_op(), self._rpc)
                continue
            wanted = count - len(rows)
            if wanted >= len(buffer):
                rows.extend(buffer)
                buffer.clear()
            else:
                rows.extend([buffer.popleft() for _ in range(wanted)])
        return rows

    def close(self) -> None:
        """Release the server-side scanner; the iterator then yields nothing more.

        Safe to call more than once. Errors while closing are logged, not raised: the
        rows already returned are valid, and the server expires abandoned scanners.
        """
        self._buffer.clear()
        self._release()

    def _release(self) -> None:
        """Close the server-side scanner (rows already fetched stay to be yielded)."""
        with self._lock:
            scanner = self._detach()
        if scanner is None:
            return
        if self._busy_here():
            self._defer_close(scanner)
            return
        run(self.close_op(scanner), self._rpc)

    def __enter__(self: _E) -> _E:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # never raise from a finalizer
            self._release()
