"""Guarded row writes: mutations applied only to a row that exists, never creating one."""

from __future__ import annotations

import enum
from collections.abc import Collection, Sequence
from typing import Any

from hmodel.backend.aio import AsyncBackend
from hmodel.backend.base import Backend, Delete, Mutation, Put, RowResult
from hmodel.backend.op import Call, Op, run
from hmodel.mapping import Mapper

__all__ = ["Outcome", "RowGuard"]

#: The capability of the atomic guard (the memory engine, HBase's Thrift2 API).
ATOMIC = "check_and_mutate"


class Outcome(enum.Enum):
    """What a guarded write did."""

    #: The mutations were applied to the existing row.
    APPLIED = "applied"
    #: The guard cell changed since the row was read: nothing applied; read it again.
    CHANGED = "changed"
    #: The row does not exist (any more): nothing of the write is left.
    GONE = "gone"


class RowGuard:
    """Writes some cells of one model's rows only while the row exists (copies, relations).

    A row of a model *exists* when it holds every required column of the model (a save
    always writes them); with no required column, when it holds any of the model's cells.
    A write of a few cells (a copied field, a map entry) to a row that was deleted would
    otherwise make a partial row, which every later read fails to decode.

    **Atomic backends** (``check_and_mutate``: the memory engine, HBase's Thrift2 API):
    one ``check_and_mutate`` compares a cell read from the row (the guard: a required
    cell if possible, whose bytes are not empty, since HBase's check of ``b""`` also
    matches a missing cell) with the bytes read, and applies the mutations in the same
    atomic row operation. A deleted row fails the check, so nothing is written; the
    caller reads the row again on :attr:`Outcome.CHANGED`.

    **Thrift1** (``checkAndPut`` of one server-stamped cell only, which cannot carry the
    writes' own timestamps): the mutations are sent with ``mutate``, the row is read back
    (one ``get``), and if it no longer exists the cells just written are deleted again,
    each at its own timestamp (a delete masks only versions up to it, so a newer write
    survives). Between the two a reader can see the partial row, and a process that dies
    there leaves it; the copy and relation ``verify`` calls name such rows.

    The same fallback serves a row whose cells read all hold ``b""`` (no usable guard).

    Each I/O method is written once as a sans-I/O operation (:mod:`hmodel.backend.op`):
    :meth:`_read_op`, :meth:`_write_op`, :meth:`_write_many_op`, which a pattern's own
    operations run with ``yield from`` on either edge. :meth:`read`, :meth:`write` and
    :meth:`write_many` run them on a synchronous ``backend``.

    Args:
        backend: Where the rows are: a :class:`~hmodel.backend.base.Backend`, or an
            :class:`~hmodel.backend.aio.AsyncBackend` for the operations alone (the
            synchronous methods need a synchronous backend).
        mapper: The model whose rows are written.
    """

    def __init__(self, backend: Backend | AsyncBackend, mapper: Mapper[Any]) -> None:
        self.backend = backend
        self.mapper = mapper
        self.table = mapper.info.table.full_name
        info = mapper.info
        self.required = tuple(
            mapper.column_of(name) for name, column in info.columns.items() if column.required
        )
        self.read_columns: tuple[bytes, ...] = self.required or tuple(mapper.columns(None))

    @property
    def atomic(self) -> bool:
        """Whether the backend has the atomic check-and-mutate."""
        return ATOMIC in self.backend.capabilities

    def exists(self, result: RowResult | None) -> bool:
        """Whether ``result`` (read with at least :attr:`read_columns`) is a stored row."""
        if result is None or not result.cells:
            return False
        return all(column in result.cells for column in self.required)

    def guard_of(
        self, result: RowResult, avoid: Collection[bytes] = ()
    ) -> tuple[bytes, bytes] | None:
        """A cell of ``result`` to check, ``(column, bytes)``: not empty, required if possible.

        Columns in ``avoid`` (those the write changes) are taken last.
        """
        chosen: tuple[bytes, bytes] | None = None
        for column in (*self.required, *result.cells):
            cell = result.cells.get(column)
            if cell is None or not cell.value:
                continue
            if column not in avoid:
                return column, cell.value
            if chosen is None:
                chosen = column, cell.value
        return chosen

    def read(self, row: bytes, columns: Sequence[bytes] = ()) -> RowResult | None:
        """The row with :attr:`read_columns` and ``columns`` (one ``get``), or ``None``."""
        return run(self._read_op(row, columns), self.backend)

    def _read_op(self, row: bytes, columns: Sequence[bytes] = ()) -> Op[RowResult | None]:
        """The operation of :meth:`read`."""
        wanted = list(dict.fromkeys((*self.read_columns, *columns))) if columns else []
        found = yield Call("get", (self.table, [row]), {"columns": wanted})
        return found[0] if found else None

    def write(self, read: RowResult, mutations: Sequence[Mutation]) -> Outcome:
        """Apply ``mutations`` (all on ``read.row``) if the row still exists.

        ``read`` is the row as last read (with at least :attr:`read_columns`).
        Round trips: one ``check_and_mutate``; over Thrift1 a ``mutate`` and a ``get``,
        plus a ``mutate`` of deletes when the row is gone.
        """
        return run(self._write_op(read, mutations), self.backend)

    def _write_op(self, read: RowResult, mutations: Sequence[Mutation]) -> Op[Outcome]:
        """The operation of :meth:`write`."""
        if not mutations:
            return Outcome.APPLIED
        if not self.exists(read):
            return Outcome.GONE
        written = {m.column for m in mutations if m.column is not None}
        guard = self.guard_of(read, written)
        if self.atomic and guard is not None:
            column, expected = guard
            applied = yield Call(
                "check_and_mutate", (self.table, read.row, column, expected, mutations)
            )
            return Outcome.APPLIED if applied else Outcome.CHANGED
        outcomes = yield from self._write_many_op([(read.row, mutations)])
        return outcomes[read.row]

    def write_many(
        self, writes: Sequence[tuple[bytes, Sequence[Mutation]]]
    ) -> dict[bytes, Outcome]:
        """The Thrift1 way for several rows: one ``mutate``, one ``get`` back, then undo.

        Every row is written, all rows are read back in one ``get``, and the puts of the
        rows found gone are deleted at their own timestamps (one more ``mutate``).
        """
        return run(self._write_many_op(writes), self.backend)

    def _write_many_op(
        self, writes: Sequence[tuple[bytes, Sequence[Mutation]]]
    ) -> Op[dict[bytes, Outcome]]:
        """The operation of :meth:`write_many`."""
        mutations = [m for _, ms in writes for m in ms]
        if not mutations:
            return {row: Outcome.APPLIED for row, _ in writes}
        yield Call("mutate", (self.table, mutations))
        rows = list(dict.fromkeys(row for row, _ in writes))
        results = yield Call("get", (self.table, rows), {"columns": list(self.read_columns)})
        found = {r.row: r for r in results}
        outcome: dict[bytes, Outcome] = {}
        undo: list[Mutation] = []
        for row, ms in writes:
            if self.exists(found.get(row)):
                outcome[row] = Outcome.APPLIED
                continue
            outcome[row] = Outcome.GONE
            undo.extend(Delete(row, m.column, m.timestamp) for m in ms if isinstance(m, Put))
        if undo:
            yield Call("mutate", (self.table, undo))
        return outcome
