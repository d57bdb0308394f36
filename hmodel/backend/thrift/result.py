"""Thrift1 ``TRowResult`` and ``TCell`` structs to hmodel's :class:`RowResult` and :class:`Cell`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hmodel.backend.base import (
    Cell,
    RowResult,
    WireCells,
    column_order,
    in_column_order,
    wire_cell,
)

__all__ = [
    "cell",
    "column_order",
    "in_column_order",
    "kept_row_result",
    "kept_rows",
    "row_result",
    "row_results",
]

# ``RowResult`` and ``WireCells`` are slotted classes with neither converters nor
# validators: allocating one and setting its slots directly makes the same object as the
# ``__init__`` (for the frozen attrs classes, a ``__setattr__`` detour) in about half the
# time. Reads make one ``RowResult`` per row returned, so this is the hot path.
_new = object.__new__
_set_row = RowResult.__dict__["row"].__set__
_set_cells = RowResult.__dict__["cells"].__set__
_set_wire = WireCells.__dict__["wire"].__set__
_set_order = WireCells.__dict__["_order"].__set__


def cell(tcell: Any) -> Cell:
    """Return the :class:`Cell` of a Thrift1 ``TCell`` (a missing value reads as ``b""``)."""
    return wire_cell(tcell)


def row_result(tresult: Any) -> RowResult | None:
    """Return the :class:`RowResult` of a Thrift1 ``TRowResult``; ``None`` if it has no cell.

    The cells stay the ``TCell`` structs the server sent, in a
    :class:`~hmodel.backend.base.WireCells` mapping that makes each ``Cell`` when it is
    read (a missing value as ``b""``) and iterates in column order (the struct's
    ``columns`` map is unordered): a read that decodes each field once (the mapper's
    reader) builds no ``Cell`` at all.
    """
    columns: dict[bytes, Any] | None = tresult.columns
    if not columns:
        return None
    cells = _new(WireCells)
    _set_wire(cells, columns)
    _set_order(cells, None)
    result = _new(RowResult)
    _set_row(result, tresult.row)
    _set_cells(result, cells)
    return result


class _Kept:
    """A ``TRowResult``'s row with only the cells a family read keeps (rare: see below)."""

    __slots__ = ("columns", "row")

    def __init__(self, row: bytes, columns: dict[bytes, Any]) -> None:
        self.row = row
        self.columns = columns


def kept_row_result(tresult: Any, keep: frozenset[bytes]) -> RowResult | None:
    """As :func:`row_result`, keeping only the cells of ``keep``'s columns.

    For a read sent as a read of the families (:mod:`hmodel.backend.family_read`): a
    row whose columns are all wanted (the usual case) costs one subset test; otherwise
    its other cells are dropped, and a row left with none is ``None``, as the server
    answers for a row none of whose named columns it holds.
    """
    columns: dict[bytes, Any] | None = tresult.columns
    if columns and not columns.keys() <= keep:
        tresult = _Kept(tresult.row, {c: cell for c, cell in columns.items() if c in keep})
    return row_result(tresult)


def kept_rows(keep: frozenset[bytes]) -> Callable[[Any], RowResult | None]:
    """:func:`kept_row_result` of ``keep``, as one function of the row struct.

    A scanner calls it for every row it fetches: the usual row (every column wanted)
    goes from here straight to :func:`row_result`, the same object as
    :func:`kept_row_result` makes, one call fewer (and no ``functools.partial``).
    """

    def kept(tresult: Any) -> RowResult | None:
        columns: dict[bytes, Any] | None = tresult.columns
        if columns and not columns.keys() <= keep:
            return kept_row_result(tresult, keep)
        return row_result(tresult)

    return kept


def row_results(tresults: list[Any], keep: frozenset[bytes] | None = None) -> list[RowResult]:
    """The :class:`RowResult` of each ``TRowResult`` of a batch, leaving out rows without a cell.

    ``[r for r in map(row_result, tresults) if r is not None]`` (with ``keep``: of
    :func:`kept_rows`): a scan's batch, or a multi-row get's answer, in one call
    (``tests/backend/thrift/test_thrift_result.py`` holds it to the row-by-row functions
    with hypothesis).

    Args:
        tresults: The server's row structs, in its order.
        keep: For a read sent as a read of the families (:mod:`hmodel.backend.family_read`):
            the columns kept; a row holding others goes through :func:`kept_row_result`.
    """
    made = row_result if keep is None else kept_rows(keep)
    return [result for result in map(made, tresults) if result is not None]
