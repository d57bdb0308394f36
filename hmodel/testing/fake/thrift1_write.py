"""The Thrift1 handler's writes: mutations, deletes, increments, append, checkAndPut."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmodel.backend.base import Cell, Delete, Increment, Put, split_column
from hmodel.errors import (
    ColumnFamilyNotFoundError,
    HModelError,
    IllegalArgumentError,
    TableDisabledError,
    TableNotFoundError,
)
from hmodel.testing.fake.thrift1_base import (
    Attributes,
    HandlerBase,
    _missing_table_put,
    _mutations,
    _table,
    _tcells,
    _ttl,
    _write_timestamp,
)
from hmodel.testing.fake.thrift1_error import failed_actions, internal_error
from hmodel.testing.fake.thrift1_idl import LATEST_TIMESTAMP

__all__ = ["WriteCalls"]


def api_of(timestamp: int) -> str:
    """The call ``mutate_rows_ts`` serves: ``mutateRows`` when stamped by the server."""
    return "mutateRows" if timestamp == LATEST_TIMESTAMP else "mutateRowsTs"


class WriteCalls(HandlerBase):
    """The Thrift1 handler's writes: mutations, deletes, increments, append, checkAndPut."""

    def mutate_row(
        self, table_name: bytes, row: bytes, mutations: Sequence[Any], attributes: Attributes
    ) -> None:
        """Apply one row's mutations with the server's time (see :meth:`mutate_row_ts`)."""
        self.mutate_row_ts(table_name, row, mutations, LATEST_TIMESTAMP, attributes)

    def mutate_row_ts(
        self,
        table_name: bytes,
        row: bytes,
        mutations: Sequence[Any],
        timestamp: int,
        attributes: Attributes,
    ) -> None:
        """Apply one row's deletes, then its puts, all at ``timestamp``.

        A put of a bare family is skipped (HBase logs a warning and writes the rest). A
        missing table is a ``TableNotFoundException`` for the puts too (HBase 2.6; 2.2
        answered a ``RetriesExhaustedWithDetailsException`` there, as for ``mutateRows``).
        """
        table = _table(table_name)
        puts, deletes = _mutations(
            row, mutations, _write_timestamp(timestamp), _ttl(attributes), strict=False
        )
        if deletes:
            self.backend.mutate(table, deletes)
        if puts:
            self.backend.mutate(table, puts)

    def mutate_rows(
        self, table_name: bytes, row_batches: Sequence[Any], attributes: Attributes
    ) -> None:
        """Apply ``BatchMutation`` structs with the server's time (see :meth:`mutate_rows_ts`)."""
        self.mutate_rows_ts(table_name, row_batches, LATEST_TIMESTAMP, attributes)

    def mutate_rows_ts(
        self,
        table_name: bytes,
        row_batches: Sequence[Any],
        timestamp: int,
        attributes: Attributes,
    ) -> None:
        """Apply the puts of every row, then the deletes, at ``timestamp``, as HBase does.

        HBase's handler sends one ``Put`` per batch with puts, all in one client batch,
        then likewise one ``Delete`` per batch: each row's part is atomic, the good rows
        of a batch are applied and the bad ones (an unknown family, ...) fail with
        ``RetriesExhaustedWithDetailsException: Failed N actions: <first cause>``; failed
        puts end the call before the deletes. A put of a bare family fails the whole call
        before anything is written (an internal error: HBase's handler throws an
        undeclared ``IllegalArgumentException``).
        """
        table = _table(table_name)
        write_ts, ttl = _write_timestamp(timestamp), _ttl(attributes)
        puts: list[list[Put]] = []
        deletes: list[list[Delete]] = []
        for batch in row_batches or ():
            try:
                row_puts, row_deletes = _mutations(
                    batch.row or b"", batch.mutations, write_ts, ttl, strict=True
                )
            except IllegalArgumentError as exc:
                raise internal_error(f"Internal error processing {api_of(timestamp)}") from exc
            if row_puts:
                puts.append(row_puts)
            if row_deletes:
                deletes.append(row_deletes)
        if (puts or deletes) and not self.backend.table_exists(table):
            # The puts fail first and end the call; a batch of deletes alone fails so too.
            raise _missing_table_put(table, len(puts) or len(deletes))
        for actions in (puts, deletes):
            failed: list[HModelError] = []
            for action in actions:
                try:
                    self.backend.mutate(table, action)
                except (ColumnFamilyNotFoundError, TableNotFoundError, TableDisabledError) as exc:
                    failed.append(exc)
            if failed:
                raise failed_actions(failed)

    def atomic_increment(self, table_name: bytes, row: bytes, column: bytes, value: int) -> int:
        """Add ``value`` to an 8-byte counter (F10) and return the new value.

        A bare family ``b"f"`` means the column with the empty qualifier, ``b"f:"``.
        """
        if split_column(column)[1] is None:
            column += b":"
        return self.backend.increment(_table(table_name), row, column, value)

    def delete_all(
        self, table_name: bytes, row: bytes, column: bytes, attributes: Attributes
    ) -> None:
        """Delete every version of a column (``b"f:q"``) or family (``b"f"``) of a row."""
        self.delete_all_ts(table_name, row, column, LATEST_TIMESTAMP, attributes)

    def delete_all_ts(
        self,
        table_name: bytes,
        row: bytes,
        column: bytes,
        timestamp: int,
        attributes: Attributes,
    ) -> None:
        """Delete the versions ``<= timestamp`` of a column or family of a row."""
        delete = Delete(row, column, _write_timestamp(timestamp))
        self.backend.mutate(_table(table_name), [delete])

    def delete_all_row(self, table_name: bytes, row: bytes, attributes: Attributes) -> None:
        """Delete a whole row."""
        self.delete_all_row_ts(table_name, row, LATEST_TIMESTAMP, attributes)

    def delete_all_row_ts(
        self, table_name: bytes, row: bytes, timestamp: int, attributes: Attributes
    ) -> None:
        """Delete every cell of a row with a timestamp ``<= timestamp``."""
        delete = Delete(row, None, _write_timestamp(timestamp))
        self.backend.mutate(_table(table_name), [delete])

    def increment(self, increment: Any) -> None:
        """Apply one ``TIncrement`` (its ``ammount``, sic, is added to ``family:qualifier``)."""
        if not increment.row or not increment.table:
            raise internal_error("Must supply a table and a row key; can't increment")
        column = increment.column or b""
        if split_column(column)[1] is None:
            raise internal_error(f"an increment needs a family:qualifier column, not {column!r}")
        self.backend.increment_many(
            _table(increment.table),
            [Increment(increment.row, column, increment.ammount or 0)],
        )

    def increment_rows(self, increments: Sequence[Any] | None) -> None:
        """Apply ``TIncrement`` structs one after the other; stops at the first failure."""
        for increment in increments or ():
            self.increment(increment)

    def append(self, append: Any) -> list[Any]:
        """Append bytes to cells of one row; returns the new cells in column order.

        A column named twice gets both values appended, in order. The returned timestamps
        are read back after the append (the engine's append returns values only).
        """
        if not append.row or not append.table:
            raise internal_error("Must supply a table and a row key; can't append")
        columns, values = list(append.columns or ()), list(append.values or ())
        if len(columns) != len(values):
            raise internal_error(
                "java.lang.IllegalArgumentException: Sizes of columns and values in tappend "
                "object are not matching"
            )
        merged: dict[bytes, bytes] = {}
        for column, value in zip(columns, values, strict=True):
            if split_column(column)[1] is None:
                raise internal_error(f"an append needs family:qualifier columns, not {column!r}")
            merged[column] = merged.get(column, b"") + (value or b"")
        table = _table(append.table)
        new_values = self.backend.append(table, append.row, merged)
        found = self.backend.get(table, [append.row], columns=sorted(new_values))
        stamps = (
            {column: cell.timestamp for column, cell in found[0].cells.items()} if found else {}
        )
        return _tcells(
            Cell(new_values[column], stamps.get(column, 0)) for column in sorted(new_values)
        )

    def check_and_put(  # noqa: PLR0917 -- the IDL fixes the arguments
        self,
        table_name: bytes,
        row: bytes,
        column: bytes,
        value: bytes | None,
        mput: Any,
        attributes: Attributes,
    ) -> bool:
        """Apply the put ``mput`` if ``column`` holds ``value`` (``None``: is absent).

        Both columns must be ``family:qualifier``. As in HBase, ``mput.isDelete`` is
        ignored: the mutation is always a put, at the server's time; and the check comes
        first: a failed one answers false before the put's family is looked at (an unknown
        one is then no error; HBase 2.6.1 measured).
        """
        if mput is None or mput.column is None or split_column(mput.column)[1] is None:
            raise IllegalArgumentError(
                "checkAndPut needs a put of a family:qualifier column", row=row
            )
        if split_column(column)[1] is None:
            raise IllegalArgumentError(
                "checkAndPut checks a family:qualifier column", row=row, column=column
            )
        put = Put(row, mput.column, mput.value or b"", None, _ttl(attributes))
        table = _table(table_name)
        found = self.backend.get(table, [row], columns=[column])
        stored = found[0].value(column) if found else None
        if (stored or None) != (value or None):  # unset and b"" are alike on both sides
            return False
        return self.backend.check_and_put(table, row, column, value, put)
