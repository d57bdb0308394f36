"""Grouping of puts and deletes into Thrift1 ``mutateRows`` / ``mutateRowsTs`` calls."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from hmodel.backend.argument import (
    LONG_MAX,
    MAX_ROW_LENGTH,
    require_int,
    require_row,
    require_timestamp,
)
from hmodel.backend.base import Delete, Mutation, Put, RowBatch
from hmodel.backend.thrift.argument import require_bytes, require_cell_column
from hmodel.backend.thrift.idl import BatchMutation
from hmodel.backend.thrift.idl import Mutation as TMutation
from hmodel.errors import IllegalArgumentError

__all__ = [
    "TTL_ATTRIBUTE",
    "MutationBatch",
    "Thrift1RowBatch",
    "plan_batches",
    "row_batches",
    "ttl_attribute",
]

#: The operation attribute HBase's ``Mutation.setTTL`` sets: the TTL in milliseconds as an
#: 8-byte big-endian signed long.
TTL_ATTRIBUTE = b"_ttl"


def ttl_attribute(ttl: int) -> dict[bytes, bytes]:
    """The Thrift1 ``attributes`` map carrying a per-cell TTL of ``ttl`` ms (F8)."""
    return {TTL_ATTRIBUTE: ttl.to_bytes(8, "big", signed=True)}


@attrs.define
class MutationBatch:
    """The mutations of one ``mutateRows`` (``timestamp is None``) or ``mutateRowsTs`` call.

    Attributes:
        timestamp: The call's timestamp; ``None``: the server's current time.
        ttl: The per-cell TTL in ms sent as the ``"_ttl"`` attribute; ``None``: none.
        rows: Per row, in order of first appearance, the Thrift1 ``Mutation`` structs.
        has_puts: Whether any mutation of the batch is a put.
        has_deletes: Whether any mutation of the batch is a delete.
    """

    timestamp: int | None
    ttl: int | None
    rows: dict[bytes, list[Any]] = attrs.field(factory=dict)
    has_puts: bool = False
    has_deletes: bool = False

    @property
    def attributes(self) -> dict[bytes, bytes]:
        """The call's ``attributes``: the TTL attribute when the batch has a TTL."""
        return {} if self.ttl is None else ttl_attribute(self.ttl)

    @property
    def has_puts_and_deletes(self) -> bool:
        """Whether the batch mixes puts and deletes (the server applies the puts first)."""
        return self.has_puts and self.has_deletes

    def row_batches(self) -> list[Any]:
        """The ``list<BatchMutation>`` argument: one ``BatchMutation`` per row."""
        return [BatchMutation(row=row, mutations=list(ms)) for row, ms in self.rows.items()]


class Thrift1RowBatch(RowBatch):
    """A :class:`~hmodel.backend.base.RowBatch` kept as Thrift1 calls' cells, row by row.

    Each added cell is kept as its ``(column, value)`` pair (``value`` ``None``: a column
    delete), appended to its row's list in order of arrival (a row added again extends
    its list): the mutations :func:`plan_batches` orders for ``batch.mutations()``,
    without a ``Put`` per cell or a check of each. A call is sent either as its whole
    binary message written from the pairs (:func:`~hmodel.backend.thrift.request.mutate_rows_ts`)
    or as ``Mutation`` structs (:func:`row_batches`) for another protocol; the same
    bytes on the binary protocol. Deletes carry no TTL, so with a ttl they travel in a
    call of their own after the puts' (as :func:`plan_batches` orders them); without
    one, in the puts' call.
    """

    __slots__ = ("deletes", "has_deletes", "has_puts", "rows")

    def __init__(self, timestamp: int, ttl: int | None, families: frozenset[bytes]) -> None:
        super().__init__(timestamp, ttl, families)
        #: Per row, its puts' pairs (and its deletes' when the batch has no ttl).
        self.rows: dict[bytes, list[tuple[bytes, bytes | None]]] = {}
        #: Per row, its deletes' pairs when the batch has a ttl (another call).
        self.deletes: dict[bytes, list[tuple[bytes, bytes | None]]] = (
            self.rows if ttl is None else {}
        )
        self.has_puts = False
        self.has_deletes = False

    def add_row(self, row: bytes, cells: list[tuple[bytes, bytes | None]]) -> None:
        """Add a row's cells (see the class docstring)."""
        if self.deletes is self.rows:  # no ttl: every cell in the row's one list
            if not cells:
                return
            kept = self.rows.get(row)
            if kept is None:
                self.rows[row] = kept = []
            kept.extend(cells)
            if not (self.has_puts and self.has_deletes):
                for _, value in cells:
                    if value is None:
                        self.has_deletes = True
                    else:
                        self.has_puts = True
            return
        puts: list[tuple[bytes, bytes | None]] | None = None
        deleted: list[tuple[bytes, bytes | None]] | None = None
        for cell in cells:
            if cell[1] is None:
                if deleted is None:
                    deleted = self.deletes.get(row)
                    if deleted is None:
                        deleted = self.deletes[row] = []
                    self.has_deletes = True
                deleted.append(cell)
                continue
            if puts is None:
                puts = self.rows.get(row)
                if puts is None:
                    puts = self.rows[row] = []
                self.has_puts = True
            puts.append(cell)

    def mutations(self) -> list[Mutation]:
        """The batch's puts and deletes (row by row, each call's in turn)."""
        timestamp, ttl = self.timestamp, self.ttl
        groups = [self.rows] if self.deletes is self.rows else [self.rows, self.deletes]
        return [
            Delete(row, column, timestamp)
            if value is None
            else Put(row, column, value, timestamp, ttl)
            for group in groups
            for row, cells in group.items()
            for column, value in cells
        ]

    def calls(
        self,
    ) -> list[tuple[dict[bytes, list[tuple[bytes, bytes | None]]], dict[bytes, bytes]]]:
        """Per ``mutateRowsTs`` call, in order: its rows' cells and its attributes."""
        calls = []
        if self.rows:
            attributes = {} if self.ttl is None else ttl_attribute(self.ttl)
            calls.append((self.rows, attributes))
        if self.deletes is not self.rows and self.deletes:
            calls.append((self.deletes, {}))
        return calls

    @property
    def checks_families(self) -> bool:
        """Whether ``mutate`` would check the families first (a call that could land in part).

        That is: several calls, several rows, or one call of puts and deletes.
        """
        if self.deletes is not self.rows:
            return (bool(self.rows) and bool(self.deletes)) or len(self.rows or self.deletes) > 1
        return len(self.rows) > 1 or (self.has_puts and self.has_deletes)


def row_batches(rows: dict[bytes, list[tuple[bytes, bytes | None]]]) -> list[Any]:
    """The ``list<BatchMutation>`` argument of a call of these rows' cells.

    A pair's value ``None`` is a column delete (``isDelete`` true, no value).
    """
    return [
        BatchMutation(
            row=row,
            mutations=[
                TMutation(True, column) if value is None else TMutation(False, column, value)
                for column, value in cells
            ],
        )
        for row, cells in rows.items()
    ]


#: No timestamp or ttl seen yet (``None`` is one).
_UNSET = object()


def _check(mutation: object, index: int) -> Put | Delete:
    if isinstance(mutation, Put):
        require_row(mutation.row, table=None)
        require_cell_column(mutation.column, table=None, row=mutation.row, what="a put")
        require_bytes("value", mutation.value, table=None, row=mutation.row)
        require_timestamp("timestamp", mutation.timestamp, table=None, row=mutation.row)
        if mutation.ttl is not None:
            require_int(
                "ttl", mutation.ttl, table=None, row=mutation.row, minimum=0, maximum=LONG_MAX
            )
        return mutation
    if isinstance(mutation, Delete):
        require_row(mutation.row, table=None)
        require_timestamp("timestamp", mutation.timestamp, table=None, row=mutation.row)
        if mutation.column is not None:
            column = require_bytes("column", mutation.column, table=None, row=mutation.row)
            if not column.partition(b":")[0]:
                raise IllegalArgumentError(
                    "a delete's column names no family", row=mutation.row, column=column
                )
        return mutation
    raise IllegalArgumentError(f"mutation {index} is neither a Put nor a Delete", value=mutation)


def plan_batches(
    mutations: Sequence[Mutation], families: Callable[[], Sequence[bytes]]
) -> list[MutationBatch]:
    """Group ``mutations`` into one :class:`MutationBatch` per ``(timestamp, ttl)`` pair.

    Thrift1's ``mutateRowsTs`` carries one timestamp and one attribute map for the whole
    call, so mutations that share both travel together and the others need a call each.
    A whole-row delete (``Delete(column=None)``) is sent as a family delete of every
    family of the table (what HBase's ``Delete`` of a row does), so it travels in the same
    call as the other mutations of its timestamp; ``families`` is only called when such a
    delete is present.

    The batches are ordered so that every put is sent before every delete whose outcome
    it could change: put-only batches first, then batches with deletes at explicit
    timestamps, then the batch at the server's current time. (Explicit-timestamp delete
    markers mask puts by timestamp whatever the arrival order, so only "now" deletes
    must come last; within one call the server applies puts before deletes.)

    Two puts of one cell at one timestamp (both at "now", or at the same explicit one)
    are one version, the later one's. When they differ in ttl they travel in two calls
    whose order follows the rules above, not the mutations' order, so the earlier put
    is left out: it would otherwise overwrite the later one when its call comes last.

    Raises:
        IllegalArgumentError: A mutation is not a ``Put``/``Delete``, a put names a bare
            family, or a put's ttl is negative.
    """
    fetched: list[Sequence[bytes]] = []

    def families_once() -> Sequence[bytes]:
        if not fetched:
            fetched.append(families())
        return fetched[0]

    batches = _plan(mutations, families_once)
    with_puts = [key for key, batch in batches.items() if batch.has_puts]
    if len({timestamp for timestamp, _ in with_puts}) < len(with_puts):
        # Puts at one timestamp in calls of different ttls: one may overwrite another.
        kept = _without_overwritten(mutations)
        if len(kept) < len(mutations):
            batches = _plan(kept, families_once)
    return sorted(
        batches.values(),
        key=lambda b: (b.has_deletes, b.has_deletes and b.timestamp is None),
    )


def _without_overwritten(mutations: Sequence[Mutation]) -> list[Mutation]:
    """``mutations`` without the puts a later put overwrites from another call.

    That is a later put of the same cell at the same timestamp with another ttl (with the
    same ttl both travel in one call, which applies them in order).
    """
    last_ttl: dict[tuple[bytes, bytes, int | None], int | None] = {}
    kept: list[Mutation] = []
    for mutation in reversed(mutations):
        if isinstance(mutation, Put):
            cell = (mutation.row, mutation.column, mutation.timestamp)
            ttl = last_ttl.setdefault(cell, mutation.ttl)
            if ttl != mutation.ttl:
                continue
        kept.append(mutation)
    kept.reverse()
    return kept


def _plan(
    mutations: Sequence[Mutation], families: Callable[[], Sequence[bytes]]
) -> dict[tuple[int | None, int | None], MutationBatch]:
    """The batches of ``mutations`` by ``(timestamp, ttl)``, each mutation checked."""
    batches: dict[tuple[int | None, int | None], MutationBatch] = {}
    table_families: Sequence[bytes] | None = None
    # The batch of the previous put, by the identity of its timestamp and ttl: puts of a
    # bulk write usually share both, so most skip building and hashing the key.
    last_timestamp: object = _UNSET
    last_ttl: object = _UNSET
    last_rows: dict[bytes, list[Any]] = {}
    for index, mutation in enumerate(mutations):
        if type(mutation) is Put:
            row = mutation.row
            column = mutation.column
            value = mutation.value
            timestamp = mutation.timestamp
            ttl = mutation.ttl
            # The checks of _check, on exact types (a bool is not an int, a bytes subclass
            # takes the full checks); anything off runs them, for their error.
            if not (
                type(row) is bytes
                and 0 < len(row) <= MAX_ROW_LENGTH
                and type(column) is bytes
                and column.find(b":") > 0  # a colon, after a non-empty family
                and type(value) is bytes
                and (timestamp is None or (type(timestamp) is int and 0 <= timestamp < LONG_MAX))
                and (ttl is None or (type(ttl) is int and 0 <= ttl <= LONG_MAX))
            ):
                _check(mutation, index)
            if timestamp is not last_timestamp or ttl is not last_ttl:
                key = (timestamp, ttl)
                batch = batches.get(key)
                if batch is None:
                    batch = batches[key] = MutationBatch(timestamp=timestamp, ttl=ttl)
                batch.has_puts = True
                last_timestamp, last_ttl, last_rows = timestamp, ttl, batch.rows
            structs = last_rows.get(row)
            if structs is None:
                structs = last_rows[row] = []
            structs.append(TMutation(False, column, value))  # isDelete, column, value
            continue
        checked = _check(mutation, index)
        put_ttl = checked.ttl if isinstance(checked, Put) else None
        key = (checked.timestamp, put_ttl)
        batch = batches.get(key)
        if batch is None:
            batch = batches[key] = MutationBatch(timestamp=checked.timestamp, ttl=put_ttl)
        rows = batch.rows.setdefault(checked.row, [])
        if isinstance(checked, Put):
            batch.has_puts = True
            rows.append(TMutation(isDelete=False, column=checked.column, value=checked.value))
        elif checked.column is not None:
            batch.has_deletes = True
            rows.append(TMutation(isDelete=True, column=checked.column))
        else:
            batch.has_deletes = True
            if table_families is None:
                table_families = families()
            rows.extend(TMutation(isDelete=True, column=family) for family in table_families)
    return batches
