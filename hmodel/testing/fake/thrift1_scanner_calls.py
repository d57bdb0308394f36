"""The Thrift1 handler's scanner calls: ``scannerOpen*``, ``scannerGet*``, ``scannerClose``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmodel.backend.base import Scan
from hmodel.testing.fake.thrift1_base import (
    Attributes,
    HandlerBase,
    _before,
    _columns,
    _get_scan,
    _row_result,
    _stop_range,
    _table,
)
from hmodel.testing.fake.thrift1_scanner import Scanner

__all__ = ["ScannerCalls"]


class ScannerCalls(HandlerBase):
    """The Thrift1 handler's scanner calls: ``scannerOpen*``, ``scannerGet*``, ``scannerClose``."""

    def _open(
        self, table_name: bytes, scan: Scan, *, batch: int | None = None, sort: bool = False
    ) -> int:
        scanner = Scanner(
            self.backend.scan(_table(table_name), scan), batch=batch, sort_columns=sort
        )
        return self.scanners.add(scanner)

    def scanner_open_with_scan(self, table_name: bytes, scan: Any, attributes: Attributes) -> int:
        r"""Open a scanner from a ``TScan``; returns its id.

        Forward: ``startRow`` inclusive, ``stopRow`` exclusive. ``reversed``: ``startRow``
        is the **inclusive upper** bound and ``stopRow`` the **exclusive lower** bound, as
        HBase's reversed scans define them; both are translated to the engine's forward
        range ``[stopRow + b"\x00", startRow + b"\x00")`` (an empty bound stays open).
        A ``startRow`` equal to a non-empty ``stopRow`` reads that one row, in either
        direction: the handler sets the bounds with the deprecated ``Scan.setStopRow``,
        which turns such a scan into a get (measured on HBase 2.2.5).
        ``timestamp``: cells strictly older; ``caching``: engine fetch size; ``batchSize``:
        at most that many cells per result; ``sortColumns``: ``sortedColumns`` replies.
        """
        start, stop = scan.startRow or b"", scan.stopRow or b""
        reverse = bool(scan.reversed)
        if _get_scan(start, stop):
            stop = start + b"\x00"
        elif reverse:
            start, stop = (stop + b"\x00" if stop else b""), (start + b"\x00" if start else b"")
        options: dict[str, Any] = {}
        if scan.caching is not None and scan.caching > 0:
            options["batch_size"] = scan.caching
        engine_scan = Scan(
            start=start,
            stop=stop,
            columns=_columns(scan.columns),
            filter=scan.filterString,
            before=_before(scan.timestamp),
            reverse=reverse,
            **options,
        )
        return self._open(
            table_name, engine_scan, batch=scan.batchSize, sort=bool(scan.sortColumns)
        )

    def scanner_open(
        self,
        table_name: bytes,
        start_row: bytes,
        columns: Sequence[bytes] | None,
        attributes: Attributes,
    ) -> int:
        """Open a scanner from ``start_row`` (inclusive) to the end of the table."""
        return self._open(table_name, Scan(start=start_row or b"", columns=_columns(columns)))

    def scanner_open_with_stop(
        self,
        table_name: bytes,
        start_row: bytes,
        stop_row: bytes,
        columns: Sequence[bytes] | None,
        attributes: Attributes,
    ) -> int:
        """Open a scanner over ``[start_row, stop_row)``; equal bounds read that one row.

        HBase builds it with the deprecated ``new Scan(startRow, stopRow)``, which turns
        equal non-empty bounds into a get.
        """
        start, stop = _stop_range(start_row, stop_row)
        scan = Scan(start=start, stop=stop, columns=_columns(columns))
        return self._open(table_name, scan)

    def scanner_open_with_prefix(
        self,
        table_name: bytes,
        start_and_prefix: bytes,
        columns: Sequence[bytes] | None,
        attributes: Attributes,
    ) -> int:
        """Open a scanner over exactly the rows starting with ``start_and_prefix``."""
        scan = Scan.prefix(start_and_prefix or b"", columns=_columns(columns))
        return self._open(table_name, scan)

    def scanner_open_ts(
        self,
        table_name: bytes,
        start_row: bytes,
        columns: Sequence[bytes] | None,
        timestamp: int,
        attributes: Attributes,
    ) -> int:
        """:meth:`scanner_open` of the cells strictly older than ``timestamp``."""
        scan = Scan(start=start_row or b"", columns=_columns(columns), before=_before(timestamp))
        return self._open(table_name, scan)

    def scanner_open_with_stop_ts(  # noqa: PLR0917 -- the IDL fixes the arguments
        self,
        table_name: bytes,
        start_row: bytes,
        stop_row: bytes,
        columns: Sequence[bytes] | None,
        timestamp: int,
        attributes: Attributes,
    ) -> int:
        """:meth:`scanner_open_with_stop` of the cells strictly older than ``timestamp``."""
        start, stop = _stop_range(start_row, stop_row)
        scan = Scan(
            start=start,
            stop=stop,
            columns=_columns(columns),
            before=_before(timestamp),
        )
        return self._open(table_name, scan)

    def scanner_get(self, scanner_id: int) -> list[Any]:
        """The next result of a scanner (``[]`` when exhausted)."""
        return self.scanner_get_list(scanner_id, 1)

    def scanner_get_list(self, scanner_id: int, nb_rows: int) -> list[Any]:
        """Up to ``nb_rows`` further results (``[]`` when exhausted; the id stays open)."""
        scanner = self.scanners.get(scanner_id)
        return [
            _row_result(chunk, sort_columns=scanner.sort_columns) for chunk in scanner.next(nb_rows)
        ]

    def scanner_close(self, scanner_id: int) -> None:
        """Close a scanner; its id becomes invalid."""
        self.scanners.close(scanner_id)
