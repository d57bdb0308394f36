"""The Thrift1 handler's reads: ``get*`` and ``getRow*``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmodel.backend.base import split_column
from hmodel.errors import BackendError, ColumnFamilyNotFoundError
from hmodel.testing.fake.thrift1_base import (
    Attributes,
    HandlerBase,
    _before,
    _columns,
    _row_results,
    _table,
    _tcells,
)
from hmodel.testing.fake.thrift1_error import failed_actions
from hmodel.testing.fake.thrift1_idl import LATEST_TIMESTAMP

__all__ = ["ReadCalls"]


class ReadCalls(HandlerBase):
    """The Thrift1 handler's reads: ``get*`` and ``getRow*``."""

    def _latest(
        self, table: str, row: bytes, column: bytes, before: int | None = None
    ) -> list[Any]:
        results = self.backend.get(table, [row], columns=[column], before=before)
        return _tcells(results[0].cells.values()) if results else []

    def get(
        self, table_name: bytes, row: bytes, column: bytes, attributes: Attributes
    ) -> list[Any]:
        """The latest cell of ``b"f:q"``, or of every column of a bare family ``b"f"``."""
        return self._latest(_table(table_name), row, column)

    def _versions(
        self, table: str, row: bytes, column: bytes, versions: int, before: int | None
    ) -> list[Any]:
        if versions < 1:
            raise BackendError("maxVersions must be positive", table=table, value=versions)
        if split_column(column)[1] is None:  # the wildcard tracker, in one read
            history = self.backend.get_history(
                table, row, [column], max_versions=versions, before=before
            )
            return _tcells([cell for _, cells in history for cell in cells])
        return _tcells(
            self.backend.get_versions(table, row, column, max_versions=versions, before=before)
        )

    def get_ver(
        self,
        table_name: bytes,
        row: bytes,
        column: bytes,
        num_versions: int,
        attributes: Attributes,
    ) -> list[Any]:
        """Up to ``num_versions`` versions, newest first, of a column or of a family's columns.

        A bare family is read in one snapshot, its columns as HBase's wildcard column
        tracker reads them (fewer expired versions under ``MIN_VERSIONS``).
        """
        return self._versions(_table(table_name), row, column, num_versions, None)

    def get_ver_ts(  # noqa: PLR0917 -- the IDL fixes the arguments
        self,
        table_name: bytes,
        row: bytes,
        column: bytes,
        timestamp: int,
        num_versions: int,
        attributes: Attributes,
    ) -> list[Any]:
        """:meth:`get_ver` of the versions strictly older than ``timestamp``."""
        return self._versions(_table(table_name), row, column, num_versions, _before(timestamp))

    def get_row(self, table_name: bytes, row: bytes, attributes: Attributes) -> list[Any]:
        """The row's latest cells as ``[TRowResult]``, or ``[]`` if it has none."""
        return self._read_rows(table_name, [row], None, LATEST_TIMESTAMP, batch=False)

    def get_row_with_columns(
        self,
        table_name: bytes,
        row: bytes,
        columns: Sequence[bytes] | None,
        attributes: Attributes,
    ) -> list[Any]:
        """:meth:`get_row` of some columns (``b"f:q"``) and families (``b"f"``)."""
        return self._read_rows(table_name, [row], columns, LATEST_TIMESTAMP, batch=False)

    def get_row_ts(
        self, table_name: bytes, row: bytes, timestamp: int, attributes: Attributes
    ) -> list[Any]:
        """:meth:`get_row` of the cells strictly older than ``timestamp``."""
        return self._read_rows(table_name, [row], None, timestamp, batch=False)

    def get_row_with_columns_ts(
        self,
        table_name: bytes,
        row: bytes,
        columns: Sequence[bytes] | None,
        timestamp: int,
        attributes: Attributes,
    ) -> list[Any]:
        """:meth:`get_row_with_columns` of the cells strictly older than ``timestamp``."""
        return self._read_rows(table_name, [row], columns, timestamp, batch=False)

    def get_rows(
        self, table_name: bytes, rows: Sequence[bytes] | None, attributes: Attributes
    ) -> list[Any]:
        """Several rows in one call; rows without cells are left out."""
        return self.get_rows_with_columns_ts(table_name, rows, None, LATEST_TIMESTAMP, attributes)

    def get_rows_with_columns(
        self,
        table_name: bytes,
        rows: Sequence[bytes] | None,
        columns: Sequence[bytes] | None,
        attributes: Attributes,
    ) -> list[Any]:
        """:meth:`get_rows` of some columns and families."""
        return self.get_rows_with_columns_ts(
            table_name, rows, columns, LATEST_TIMESTAMP, attributes
        )

    def get_rows_ts(
        self,
        table_name: bytes,
        rows: Sequence[bytes] | None,
        timestamp: int,
        attributes: Attributes,
    ) -> list[Any]:
        """:meth:`get_rows` of the cells strictly older than ``timestamp``."""
        return self.get_rows_with_columns_ts(table_name, rows, None, timestamp, attributes)

    def get_rows_with_columns_ts(
        self,
        table_name: bytes,
        rows: Sequence[bytes] | None,
        columns: Sequence[bytes] | None,
        timestamp: int,
        attributes: Attributes,
    ) -> list[Any]:
        """The general read: rows in the order asked, columns, cells older than ``timestamp``.

        HBase reads several rows as a client batch: an unknown family fails every row's
        get, ``RetriesExhaustedWithDetailsException: Failed N actions: ...``.
        """
        return self._read_rows(table_name, rows, columns, timestamp, batch=True)

    def _read_rows(
        self,
        table_name: bytes,
        rows: Sequence[bytes] | None,
        columns: Sequence[bytes] | None,
        timestamp: int,
        *,
        batch: bool,
    ) -> list[Any]:
        wanted = list(rows or ())
        try:
            results = self.backend.get(
                _table(table_name), wanted, columns=_columns(columns), before=_before(timestamp)
            )
        except ColumnFamilyNotFoundError as exc:
            if not batch:
                raise
            raise failed_actions([exc] * len(wanted)) from exc
        return _row_results(results)
