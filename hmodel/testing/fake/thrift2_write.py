"""The Thrift2 handler's writes: puts, deletes, conditional writes, increments, appends."""

from __future__ import annotations

from typing import Any

from hmodel.backend.base import Cell, Increment
from hmodel.backend.java_error import java_name_of
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.memory.mutation import EngineMutation
from hmodel.backend.thrift2.idl import HBASE2
from hmodel.errors import ColumnFamilyNotFoundError, CounterError, HModelError, TableNotFoundError
from hmodel.testing.fake.java_text import server_text
from hmodel.testing.fake.thrift2_convert import (
    deletes_of,
    empty_result,
    puts_of,
    require_row,
    result_of,
)
from hmodel.testing.fake.thrift2_error import failed_actions, internal_error, io_error

__all__ = ["WriteHandler", "compare"]

_DO_NOT_RETRY = "org.apache.hadoop.hbase.DoNotRetryIOException"

#: How often a non-EQUAL conditional write re-reads the cell when it changed meanwhile.
_CAS_ATTEMPTS = 100


def compare(operator: int, given: bytes, stored: bytes) -> bool:
    """HBase's check: ``given OP stored``, bytes compared unsigned (stored 5, LESS, given 3)."""
    ops = HBASE2.TCompareOperator
    if operator == ops.LESS:
        return given < stored
    if operator == ops.LESS_OR_EQUAL:
        return given <= stored
    if operator == ops.EQUAL:
        return given == stored
    if operator == ops.NOT_EQUAL:
        return given != stored
    if operator == ops.GREATER_OR_EQUAL:
        return given >= stored
    if operator == ops.GREATER:
        return given > stored
    raise ValueError(operator)


def _check_passes(
    operator: int, value: bytes | None, stored: bytes | None, *, name: str, row: bytes,
    column: bytes,
) -> bool:  # fmt: skip
    """HBase 2.6's check of a conditional write (``HRegion.checkAndMutate``, HBASE-26742).

    A ``None`` or zero-length ``value`` means null: the check passes when the cell is
    missing or empty, for every operator but ``NOT_EQUAL``, which passes when it holds a
    non-empty value. Any other value fails on a missing cell and is compared as
    ``value OP stored`` otherwise (:func:`compare`).

    Raises:
        TIOError: ``NO_OP`` with a value against an existing cell: HBase
            2.6.1 retries the call until the client gives up (minutes); the fake
            answers at once (a difference kept on purpose, see ``docs/engine.md``).
    """
    ops = HBASE2.TCompareOperator
    if not value:
        return bool((not stored) == (operator != ops.NOT_EQUAL))
    if stored is None:
        return False
    if operator == ops.NO_OP:
        raise io_error(
            _DO_NOT_RETRY,
            f"compare operator NO_OP with a value against an existing cell (table "
            f"{name!r}, row {row!r}, column {column!r}): HBase retries it until the "
            "client times out",
            api="checkAndMutate",
        )
    return compare(operator, value, stored)


def _same_row(row: bytes, mutations: list[EngineMutation], api: str) -> None:
    for mutation in mutations:
        if mutation.row != row:
            raise io_error(
                _DO_NOT_RETRY,
                "Action's getRow must match the passed row",
                api=api,
            )


class WriteHandler:
    """Writes over the engine, with HBase 2.2's Thrift2 answers for malformed ones.

    ``putMultiple`` and ``deleteMultiple`` apply each of their mutations atomically and
    the good ones when others fail, as HBase's client batch does. Conditional writes
    read the cell, answer false if the check fails (before looking at the mutations, as
    HBase does), else compare-and-set with the engine until the cell holds still;
    ``NO_OP`` with a value fails on a missing cell and is refused on an existing one (a
    real HBase 2.6 retries it until the client gives up).
    """

    backend: MemoryBackend

    def put(self, table: bytes, tput: Any) -> None:
        """Apply one ``TPut`` atomically."""
        self.backend.mutate(table.decode("utf-8", "replace"), puts_of(tput, "put"))

    def put_multiple(self, table: bytes, tputs: list[Any]) -> None:
        """Apply every ``TPut``, each atomically (an empty list does nothing).

        The good ones are applied when others fail (an unknown family): ``Failed N
        actions: <first cause>``, as HBase's client batch answers.
        """
        actions = [puts_of(tput, "putMultiple") for tput in tputs or []]
        self._apply_each(table, list(actions), "putMultiple")

    def delete_single(self, table: bytes, tdelete: Any) -> None:
        """Apply one ``TDelete``."""
        self.backend.mutate(table.decode("utf-8", "replace"), deletes_of(tdelete, "deleteSingle"))

    def delete_multiple(self, table: bytes, tdeletes: list[Any]) -> list[Any]:
        """Apply every ``TDelete`` as :meth:`put_multiple` its puts; answers ``[]``."""
        actions = [deletes_of(tdelete, "deleteMultiple") for tdelete in tdeletes or []]
        self._apply_each(table, list(actions), "deleteMultiple")
        return []

    def _apply_each(self, table: bytes, actions: list[list[Any]], api: str) -> None:
        name = table.decode("utf-8", "replace")
        if actions and not self.backend.table_exists(name):
            raise TableNotFoundError(name, table=name)
        failed: list[HModelError] = []
        for action in actions:
            try:
                self.backend.mutate(name, action)
            except ColumnFamilyNotFoundError as exc:
                failed.append(exc)
        if failed:
            raise failed_actions(failed, api=api)

    def mutate_row(self, table: bytes, trow_mutations: Any) -> None:
        """Apply one row's puts and deletes atomically.

        No mutations: an internal error on HBase 2.6.1 (2.2.5 did nothing, no error).
        """
        row = trow_mutations.row
        if not trow_mutations.mutations:
            raise internal_error("mutateRow")
        mutations = self._row_mutations(trow_mutations, "mutateRow")
        if not mutations:
            return
        _same_row(require_row(row, "mutateRow"), mutations, "mutateRow")
        try:
            self.backend.mutate(table.decode("utf-8", "replace"), mutations)
        except ColumnFamilyNotFoundError as exc:  # every mutation of the row fails with it
            raise failed_actions([exc] * len(trow_mutations.mutations), api="mutateRow") from exc

    @staticmethod
    def _row_mutations(trow_mutations: Any, api: str) -> list[EngineMutation]:
        mutations: list[EngineMutation] = []
        for tmutation in trow_mutations.mutations or []:
            if tmutation.put is not None:
                mutations.extend(puts_of(tmutation.put, api))
            elif tmutation.deleteSingle is not None:
                mutations.extend(deletes_of(tmutation.deleteSingle, api))
        return mutations

    def _check_and_apply(  # noqa: PLR0917 -- mirrors the IDL's conditional writes
        self,
        table: bytes,
        row: bytes,
        column: bytes,
        operator: int,
        value: bytes | None,
        mutations: list[EngineMutation],
        *,
        batch: bool = False,
    ) -> bool:
        """Check the cell, then apply ``mutations`` if the check passes.

        ``batch``: an unknown family of the checked column raises
        ``ColumnFamilyNotFoundError`` (checkAndMutate's batch wraps it), not the
        ``TIOError`` of a single read.
        """
        name = table.decode("utf-8", "replace")
        ops = HBASE2.TCompareOperator
        if operator not in ops._VALUES_TO_NAMES:
            raise io_error(
                _DO_NOT_RETRY, f"hmodel's fake server refuses compare operator {operator}",
                api="checkAndMutate",
            )  # fmt: skip
        # HBase checks first: a failed check answers false before the mutations are looked
        # at (an unknown family in them is then no error). The engine's check-and-mutate
        # then applies them only if the cell still holds what was read (compare and set).
        for _ in range(_CAS_ATTEMPTS):
            try:
                got = self.backend.get(name, [row], columns=[column])
            except ColumnFamilyNotFoundError as exc:
                if batch:  # checkAndMutate runs its check inside the batch
                    raise
                raise io_error(java_name_of(exc), server_text(exc), api="get") from exc
            stored = got[0].value(column) if got else None
            passed = _check_passes(operator, value, stored, name=name, row=row, column=column)
            if not passed:
                return False
            if self.backend.check_and_mutate(name, row, column, stored or None, mutations):
                return True
        raise io_error(_DO_NOT_RETRY, "the checked cell kept changing", api="checkAndMutate")

    def check_and_put(  # noqa: PLR0917 -- the IDL fixes the arguments
        self, table: bytes, row: bytes, family: bytes, qualifier: bytes, value: bytes | None,
        tput: Any,
    ) -> bool:  # fmt: skip
        """Apply the ``TPut`` if the cell equals ``value`` (unset: absent or empty)."""
        checked = require_row(row, "checkAndPut")
        puts: list[EngineMutation] = list(puts_of(tput, "checkAndPut"))
        _same_row(checked, puts, "checkAndPut")
        column = family + b":" + (qualifier or b"")
        return self._check_and_apply(
            table, checked, column, HBASE2.TCompareOperator.EQUAL, value, puts
        )

    def check_and_delete(  # noqa: PLR0917 -- the IDL fixes the arguments
        self, table: bytes, row: bytes, family: bytes, qualifier: bytes, value: bytes | None,
        tdelete: Any,
    ) -> bool:  # fmt: skip
        """Apply the ``TDelete`` if the cell equals ``value`` (unset: absent or empty)."""
        checked = require_row(row, "checkAndDelete")
        deletes: list[EngineMutation] = list(deletes_of(tdelete, "checkAndDelete"))
        _same_row(checked, deletes, "checkAndDelete")
        column = family + b":" + (qualifier or b"")
        try:
            return self._check_and_apply(
                table, checked, column, HBASE2.TCompareOperator.EQUAL, value, deletes
            )
        except ColumnFamilyNotFoundError as exc:  # the delete fails as a single one does
            raise io_error(java_name_of(exc), server_text(exc), api="deleteSingle") from exc

    def check_and_mutate(  # noqa: PLR0917 -- the IDL fixes the arguments
        self, table: bytes, row: bytes, family: bytes, qualifier: bytes, compare_operator: int,
        value: bytes | None, row_mutations: Any,
    ) -> bool:  # fmt: skip
        """Apply the row mutations if ``value OP stored``; an unset value is refused."""
        checked = require_row(row, "checkAndMutate")
        if value is None or row_mutations is None or not row_mutations.mutations:
            raise internal_error("checkAndMutate")
        mutations = self._row_mutations(row_mutations, "checkAndMutate")
        _same_row(checked, mutations, "checkAndMutate")
        if row_mutations.row != checked:
            raise io_error(_DO_NOT_RETRY, "Action's getRow must match", api="checkAndMutate")
        column = family + b":" + (qualifier or b"")
        try:
            return self._check_and_apply(
                table, checked, column, compare_operator, value, mutations, batch=True
            )
        except ColumnFamilyNotFoundError as exc:  # HBase runs the check and mutations as a batch
            count = len(row_mutations.mutations)
            raise failed_actions([exc] * count, api="mutateRow") from exc

    def increment(self, table: bytes, tincrement: Any) -> Any:
        """Add to each counter; answer the new values unless ``returnResults`` is false."""
        row = require_row(tincrement.row, "increment")
        if not tincrement.columns:
            raise internal_error("increment")
        name = table.decode("utf-8", "replace")
        increments = [
            Increment(
                row,
                tcolumn.family + b":" + (tcolumn.qualifier or b""),
                1 if tcolumn.amount is None else tcolumn.amount,
            )
            for tcolumn in tincrement.columns
        ]
        # HBase applies one Increment all or nothing: every cell is checked first.
        current = self.backend.get(name, [row], columns=[i.column for i in increments])
        for column, cell in current[0].cells.items() if current else ():
            if len(cell.value) != 8:
                raise CounterError(
                    f"Field is not a long, it's {len(cell.value)} bytes wide",
                    table=name,
                    row=row,
                    column=column,
                )
        totals = {
            i.column: self.backend.increment(name, row, i.column, i.amount) for i in increments
        }
        if tincrement.returnResults is False:
            return empty_result()
        return self._answer(
            name, row, {c: v.to_bytes(8, "big", signed=True) for c, v in totals.items()}
        )

    def append(self, table: bytes, tappend: Any) -> Any:
        """Append to each cell; answer the new values unless ``returnResults`` is false."""
        row = require_row(tappend.row, "append")
        if not tappend.columns:
            raise internal_error("append")
        name = table.decode("utf-8", "replace")
        values = {v.family + b":" + (v.qualifier or b""): v.value or b"" for v in tappend.columns}
        appended = self.backend.append(name, row, values)
        if tappend.returnResults is False:
            return empty_result()
        return self._answer(name, row, appended)

    def _answer(self, name: str, row: bytes, values: dict[bytes, bytes]) -> Any:
        """The new values as HBase answers them, with their cells' timestamps.

        The values are the ones computed, even when a delete marker at the same
        millisecond hides the new cell from reads (HBase answers them all the same).
        """
        got = self.backend.get(name, [row], columns=list(values))
        stamps = {c: cell.timestamp for c, cell in got[0].cells.items()} if got else {}
        now = self.backend.clock()
        return result_of(row, [(c, Cell(v, stamps.get(c, now))) for c, v in values.items()])
