"""The iterator over a Thrift2 scanner: batches, exact bounds, limit, close and resume."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from hmodel.backend.argument import MAX_ROW_LENGTH
from hmodel.backend.base import RowResult
from hmodel.backend.family_read import exact_filter
from hmodel.backend.op import Op, rpc
from hmodel.backend.thrift2.channel import Retry
from hmodel.backend.thrift2.idl import TColumn, TScan, TTimeRange
from hmodel.backend.thrift2.mutation import row_results, tcolumns
from hmodel.backend.thrift_scanner import Rpc, ScannerEdge, ScannerState
from hmodel.errors import BackendError, ConnectionLostError

__all__ = ["Rpc", "ScannerCore", "ScannerIterator", "reversed_bounds"]

_log = logging.getLogger(__name__)


def reversed_bounds(
    lower: bytes, upper: bytes, *, exact: bool = False
) -> tuple[bytes | None, bytes | None]:
    r"""HBase's reversed ``(startRow, stopRow)`` for rows ``lower <= row < upper``.

    A reversed Thrift2 scan takes ``startRow`` as its *inclusive upper* bound and
    ``stopRow`` as its *exclusive lower* one. The upper bound sent is ``upper`` itself
    (the caller drops a row equal to it), or ``upper`` without a trailing ``00`` (nothing
    lies between ``x`` and ``x + b"\x00"``); with ``exact`` (a filter that keeps state
    across rows, such as ``PageFilter``, must never see the ``upper`` row) the greatest row
    below ``upper``: its last byte decremented, padded with ``FF`` to HBase's longest
    rowkey (32767 bytes). The lower bound sent is the row just below
    ``lower`` when that is short (``lower`` ending in ``00``: ``lower`` without it), else
    ``lower`` with its last byte decremented: rows between it and ``lower`` may come back
    and the caller ends the scan at the first of them. ``None`` means unbounded.

    >>> reversed_bounds(b"b", b"d\x00")
    (b'd', b'a')
    >>> reversed_bounds(b"", b"")
    (None, None)
    """
    start: bytes | None = None
    if upper:
        if upper[-1] == 0:
            # Nothing lies between X and X + b"\x00"; below b"\x00" lies no row at all.
            start = upper[:-1] if len(upper) > 1 else upper
        elif exact:
            below = upper[:-1] + bytes([upper[-1] - 1])
            start = below + b"\xff" * (MAX_ROW_LENGTH - len(below))
        else:
            start = upper
    stop: bytes | None = None
    if lower:
        stop = lower[:-1] if lower[-1] == 0 else lower[:-1] + bytes([lower[-1] - 1])
    return start, stop or None


class ScannerCore(ScannerState):
    """The sans-I/O state of one Thrift2 scan: bounds, batches, limit, resume and close.

    What to send and how to read the answers, once for both edges
    (:class:`ScannerIterator`, and the asyncio backend's scanner): :meth:`open_op`,
    :meth:`fetch_op` and :meth:`release_op` yield the calls (:mod:`hmodel.backend.op`) that
    the edge performs with its ``_rpc``.
    """

    row_results = staticmethod(row_results)

    def kept_rows(self, keep: frozenset[bytes]) -> Callable[[list[Any]], list[RowResult]]:
        """:func:`row_results`: the server kept only ``keep`` (the scan's exact filter)."""
        return row_results

    def _tscan(self) -> Any:
        scan = self._scan
        wanted = self._wanted()
        read = self._read
        if read is not None:
            # A family read (the backend's family_reads): the filter keeps the columns.
            columns: list[Any] | None = [TColumn(family=family) for family in read.families]
            given: bytes | None = exact_filter(read.keep)
        else:
            columns = tcolumns(scan.columns)
            given = (
                scan.filter.encode("utf-8", "surrogateescape")
                if isinstance(scan.filter, str)
                else scan.filter
            )
        tscan = TScan(
            columns=columns,
            caching=wanted,
            filterString=given,
            timeRange=None if scan.before is None else TTimeRange(minStamp=0, maxStamp=scan.before),
        )
        if scan.reverse:
            tscan.reversed = True
            tscan.startRow, tscan.stopRow = reversed_bounds(
                self._lower, self._upper, exact=scan.filter is not None
            )
            if self._remaining is not None:
                tscan.limit = self._remaining + (1 if self._upper else 0)
        else:
            tscan.startRow = self._lower or None
            tscan.stopRow = self._upper or None
            if self._remaining is not None:
                tscan.limit = self._remaining
        return tscan

    def _wanted(self) -> int:
        wanted = self._size
        if self._remaining is not None:
            wanted = min(wanted, self._remaining + (1 if self._scan.reverse else 0))
        return wanted

    def open_op(self) -> Op[None]:
        """Open the scanner (``openScanner``)."""
        self._scanner = yield rpc(
            "openScanner",
            self._server_table,
            self._tscan(),
            retry=Retry.IDEMPOTENT,
            table=self._table,
            filter_given=self._scan.filter is not None,
        )

    def fetch_op(self) -> Op[None]:
        """Fetch the next batch into the buffer (``getScannerRows``), releasing as needed.

        A connection lost between batches reopens the scan just past the last row
        returned, at most ``retries`` times in a row. The scanner is closed when the rows
        run out, the limit is reached, or the fetch fails.
        """
        wanted = self._wanted()
        resumes = 0
        while True:
            if self._scanner is None:
                yield from self.open_op()
            try:
                results = yield rpc(
                    "getScannerRows",
                    self._scanner,
                    wanted,
                    retry=Retry.READ_UNSENT,
                    table=self._table,
                    filter_given=self._scan.filter is not None,
                )
                break
            except ConnectionLostError:
                if resumes >= self._retries:
                    self._finished = True
                    self._scanner = None
                    raise
                resumes += 1
                self._scanner = None
            except BaseException:
                yield from self.release_op()
                raise
        self._size = self._scan.next_batch_size(self._size)  # adaptive caching, if asked
        self._take(results)
        if len(results) < wanted or self._remaining == 0:
            yield from self.release_op()

    def close_op(self, scanner: int) -> Op[None]:
        """Close ``scanner`` (``closeScanner``); a failure is logged, not raised."""
        try:
            yield rpc("closeScanner", scanner, retry=Retry.UNSENT, table=self._table)
        except BackendError as exc:
            _log.warning("could not close scanner %s of table %r: %s", scanner, self._table, exc)


class ScannerIterator(ScannerEdge, ScannerCore):
    r"""Rows of one :class:`Scan`, fetched ``batch_size`` at a time from a Thrift2 scanner.

    The scanner is opened when the iterator is made (``openScanner``; HBase accepts a
    missing table there and fails at the first ``getScannerRows``, so the first batch is
    fetched at once too: a missing table or a bad filter fails at
    :meth:`Thrift2Backend.scan`). One ``getScannerRows`` is sent per batch, and
    ``closeScanner`` as soon as the rows run out, the limit is reached, the iterator is
    closed (:meth:`close`, ``with``) or garbage-collected.

    Bounds are exactly the protocol's in both directions: ``start`` inclusive, ``stop``
    exclusive (see :func:`reversed_bounds` for reverse scans). The limit travels as the
    scan's ``limit`` (one more in a reverse scan that may see the ``stop`` row) and is
    also counted here. If the connection drops between batches, the scan is reopened just
    past the last row returned, at most ``retries`` times in a row.

    Args:
        rpc: Sends a call with error translation.
        table: The table as the caller named it.
        server_table: The table name sent to the server (prefix applied).
        scan: What to read.
        retries: How many times in a row a dropped scan may be reopened.
        busy_here: Whether the current thread is inside a call (a close requested then,
            by the garbage collector, is deferred through ``defer_close``).
        defer_close: Takes a scanner id to close after the running call.
    """

    fetch_at_open = True
