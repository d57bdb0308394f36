"""The iterator over a Thrift1 scanner: batches, exact bounds, limit, close and resume."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from functools import partial
from typing import Any

from hmodel.backend.argument import MAX_ROW_LENGTH
from hmodel.backend.base import RowResult
from hmodel.backend.op import Op, rpc, run
from hmodel.backend.thrift.argument import read_columns
from hmodel.backend.thrift.channel import Retry
from hmodel.backend.thrift.idl import TScan
from hmodel.backend.thrift.result import row_results
from hmodel.backend.thrift_scanner import Rpc, ScannerEdge, ScannerState
from hmodel.errors import (
    BackendError,
    ConnectionLostError,
    IllegalArgumentError,
    ReadInterruptedError,
)

__all__ = [
    "Rpc",
    "ScannerCore",
    "ScannerIterator",
    "close_scanner",
    "close_scanner_op",
]

_log = logging.getLogger(__name__)

# What HBase's Thrift1 server answers for a scanner id it does not know: closed, or
# expired after ``hbase.client.scanner.timeout.period`` (x2 on 2.2) without a call.
_INVALID_SCANNER = re.compile(r"scanner ID is invalid|invalid scanner id", re.IGNORECASE)


def _reversed_start(upper: bytes, *, exact: bool) -> bytes | None:
    r"""HBase's inclusive reversed ``startRow`` for the protocol's exclusive ``upper``.

    ``None`` (from the end of the table) for an empty ``upper``. The greatest row below
    ``upper`` when it is cheap (``upper`` ends in ``00``) or when ``exact`` is asked;
    else ``upper`` itself, whose row the caller then drops (also for ``b"\x00"``, below
    which no row exists: the empty row is not a rowkey).
    """
    if not upper:
        return None
    if upper[-1] == 0:
        # Nothing lies between X and X + b"\x00"; below b"\x00" lies no row at all.
        return upper[:-1] if len(upper) > 1 else upper
    if exact:
        below = upper[:-1] + bytes([upper[-1] - 1])
        return below + b"\xff" * (MAX_ROW_LENGTH - len(below))
    return upper


def close_scanner_op(scanner: int, *, table: str | None) -> Op[None]:
    """Send ``scannerClose``, retried as an idempotent call; never raises.

    Closing twice closes once: a close whose reply was lost is sent again, and the
    server then answers ``IllegalArgument("scanner ID is invalid")``, as it does for a
    scanner its lease expired. Both mean the scanner is gone, so they are not errors.
    Any other failure is logged: the rows already returned stay valid, and the server
    frees the scanner when its lease runs out.
    """
    try:
        yield rpc("scannerClose", scanner, retry=Retry.IDEMPOTENT, table=table)
    except IllegalArgumentError as exc:
        _log.debug("scanner %s of table %r was already closed: %s", scanner, table, exc)
    except BackendError as exc:
        _log.warning("could not close scanner %s of table %r: %s", scanner, table, exc)


def close_scanner(rpc: Rpc, scanner: int, *, table: str | None) -> None:
    """Send ``scannerClose`` through ``rpc`` (see :func:`close_scanner_op`); never raises."""
    run(close_scanner_op(scanner, table=table), rpc)


class ScannerCore(ScannerState):
    """The sans-I/O state of one Thrift1 scan: bounds, batches, limit, resume and close.

    What to send and how to read the answers, once for both edges
    (:class:`ScannerIterator`, and the asyncio backend's scanner): :meth:`open_op`,
    :meth:`fetch_op` and :meth:`release_op` yield the calls (:mod:`hmodel.backend.op`)
    that the edge performs with its ``_rpc``.
    """

    row_results = staticmethod(row_results)

    def kept_rows(self, keep: frozenset[bytes]) -> Callable[[list[Any]], list[RowResult]]:
        """:func:`~hmodel.backend.thrift.result.row_results` keeping ``keep``'s columns."""
        return partial(row_results, keep=keep)

    def _tscan(self) -> Any:
        scan = self._scan
        caching = (
            scan.batch_size if self._remaining is None else min(scan.batch_size, self._remaining)
        )
        tscan = TScan(
            columns=(
                read_columns(list(scan.columns)) if self._read is None else self._read.families
            )
            or None,
            caching=caching,
            # surrogateescape: lone surrogates stand for raw bytes, as the engine reads them
            filterString=(
                scan.filter.encode("utf-8", "surrogateescape")
                if isinstance(scan.filter, str)
                else scan.filter
            ),
            timestamp=scan.before,
        )
        if scan.reverse:
            tscan.reversed = True
            tscan.startRow = _reversed_start(self._upper, exact=scan.filter is not None)
            tscan.stopRow = self._lower[:-1] or None
        else:
            tscan.startRow = self._lower or None
            tscan.stopRow = self._upper or None
        return tscan

    def open_op(self) -> Op[None]:
        """Open the scanner (``scannerOpenWithScan``)."""
        self._scanner = yield rpc(
            "scannerOpenWithScan",
            self._server_table,
            self._tscan(),
            {},
            retry=Retry.IDEMPOTENT,
            table=self._table,
            filter_given=self._scan.filter is not None,
        )

    def fetch_op(self) -> Op[None]:
        """Fetch the next batch into the buffer (``scannerGetList``), releasing as needed.

        A scanner the server expired is reopened past the last row once; a connection
        lost during a fetch reopens it at most ``retries`` times in a row.
        """
        wanted = self._size
        self._size = self._scan.next_batch_size(wanted)  # adaptive caching, when asked for
        if self._remaining is not None:
            wanted = min(wanted, self._remaining)
        resumes = 0
        expired = False
        while True:
            if self._scanner is None:
                yield from self.open_op()
            try:
                results = yield rpc(
                    "scannerGetList",
                    self._scanner,
                    wanted,
                    retry=Retry.READ_UNSENT,
                    table=self._table,
                )
                break
            except IllegalArgumentError as exc:
                gone = _INVALID_SCANNER.search(exc.message) is not None
                if expired or not gone:
                    if gone:
                        self._scanner = None  # nothing left to close on the server
                    yield from self.release_op()
                    raise
                # The server expired the scanner (the caller was slower than its lease):
                # it is gone, and the position is known: reopen past the last row, once.
                expired = True
                self._scanner = None
            except ConnectionLostError as exc:
                # The scanner's position is unknown: free it, reopen past the last row
                # returned.
                yield from self.release_op()
                if resumes >= self._retries:
                    raise ReadInterruptedError(
                        f"scan of {self._table!r} interrupted: the connection dropped during "
                        f"a fetch and the scan was reopened {resumes} time(s); nothing was "
                        f"written, the rows already returned are valid: {exc.message}",
                        table=self._table,
                    ) from exc
                resumes += 1
                self._finished = False
            except BaseException:
                yield from self.release_op()
                raise
        self._take(results)
        if len(results) < wanted or self._remaining == 0:
            yield from self.release_op()

    def close_op(self, scanner: int) -> Op[None]:
        """Close ``scanner`` (see :func:`close_scanner_op`); never raises."""
        yield from close_scanner_op(scanner, table=self._table)


class ScannerIterator(ScannerEdge, ScannerCore):
    r"""Rows of one :class:`Scan`, fetched ``batch_size`` at a time from a server scanner.

    The scanner is opened when the iterator is made (so a missing table or a bad filter
    fails at :meth:`ThriftBackend.scan`), one ``scannerGetList`` is sent per batch, and
    ``scannerClose`` is sent as soon as the rows run out, the limit is reached, the
    iterator is closed (:meth:`close`, ``with``) or it is garbage-collected.

    Bounds are exactly the protocol's: ``start`` inclusive, ``stop`` exclusive, in both
    directions. A forward ``startRow`` equal to ``stopRow`` is a get on HBase's Thrift1
    server (its deprecated ``setStopRow``), so rows at or past ``stop`` are dropped and end
    the scan: an empty range still opens a scanner (the table, columns and filter are
    checked as on the engine) and yields nothing. HBase's reversed scans take
    ``startRow`` as the *inclusive upper* bound and ``stopRow`` as the *exclusive lower*
    one. A reverse scan sends as ``startRow`` the
    greatest row below ``stop`` when that is short (``stop`` ending in ``00``: ``stop``
    without it) or when a filter is given (a filter keeping state across rows, such as
    ``PageFilter`` or ``WHILE``, must never see the ``stop`` row): ``stop`` with its last
    byte decremented and padded with ``FF`` to HBase's longest rowkey, 32767 bytes.
    Otherwise it sends ``startRow=stop`` and drops a row equal to ``stop``. It sends
    ``stopRow=start[:-1]`` (a row below ``start``; empty when ``start`` has one byte) and
    ends at the first row below ``start``, closing the scanner.

    If the connection drops during a fetch, the fetch is not sent again (it moves the
    server's scanner): the old scanner is closed (``scannerClose`` is idempotent and
    retried) and the scan is reopened just past the last row returned (forward: ``last +
    b"\x00"``; reverse: ``last`` as exclusive upper bound), at most ``retries`` times in a
    row; then :class:`~hmodel.errors.ReadInterruptedError` says a read was interrupted.
    A scanner the server expired (the caller took longer than its lease between two
    fetches) answers ``scanner ID is invalid``; it is reopened past the last row the same
    way, once per fetch.

    Args:
        rpc: Sends an RPC with error translation.
        table: The table as the caller named it (for error context).
        server_table: The table name sent to the server (table prefix applied).
        scan: What to read.
        retries: How many times in a row a dropped scan may be reopened.
        busy_here: Tells whether the current thread is inside an RPC; a close requested
            then (by the garbage collector) is deferred to ``defer_close``.
        defer_close: Takes a scanner id to close after the running RPC.
        read: The columns to send and to keep (the backend's ``family_reads``);
            ``None``: ``scan.columns`` as they are.
    """
