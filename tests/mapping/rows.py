"""Turning the puts of a save into the row a read would return, for the mapping tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from hmodel.backend.base import Cell, Mutation, Put, RowResult


def row_after(
    mutations: Iterable[Mutation], *, extra: Mapping[bytes, bytes] | None = None
) -> RowResult:
    """The row holding the puts of ``mutations`` (one row, written to an empty table).

    Deletes are ignored: on an empty row they remove nothing. ``extra`` adds cells at
    timestamp 1, e.g. counters, which a save never writes.
    """
    rows: set[bytes] = set()
    cells: dict[bytes, Cell] = {}
    for mutation in mutations:
        rows.add(mutation.row)
        if isinstance(mutation, Put):
            assert mutation.timestamp is not None
            cells[mutation.column] = Cell(mutation.value, mutation.timestamp)
    assert len(rows) == 1, rows
    for column, value in (extra or {}).items():
        cells[column] = Cell(value, 1)
    return RowResult(rows.pop(), dict(sorted(cells.items())))
