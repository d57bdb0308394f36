"""Thrift1 ``TRowResult`` and ``TCell`` structs to hmodel's :class:`RowResult` and :class:`Cell`."""

from __future__ import annotations

from typing import Any

from hmodel.backend.base import Cell, RowResult

__all__ = ["cell", "column_order", "in_column_order", "row_result"]

# ``Cell`` and ``RowResult`` are attrs frozen slotted classes with neither converters nor
# validators: allocating one and setting its slots directly makes the same object as the
# generated ``__init__`` (which goes through a frozen ``__setattr__`` detour) in about half
# the time. Reads build one ``Cell`` per cell returned, so this is the hot path.
_new = object.__new__
_set_value = Cell.__dict__["value"].__set__
_set_timestamp = Cell.__dict__["timestamp"].__set__
_set_row = RowResult.__dict__["row"].__set__
_set_cells = RowResult.__dict__["cells"].__set__


def column_order(column: bytes) -> tuple[bytes, bytes]:
    """Sort key of ``b"f:q"``: family, then qualifier, each as unsigned bytes.

    Not the same as sorting the joined bytes: ``b"a-:q"`` sorts before ``b"a:q"`` as bytes
    (``-`` < ``:``) but after it by family (``b"a"`` < ``b"a-"``), which is HBase's order.
    """
    family, _, qualifier = column.partition(b":")
    return family, qualifier


def in_column_order(columns: Any) -> list[bytes]:
    """The names of ``columns`` (``b"f:q"``, an iterable) sorted by :func:`column_order`.

    Sorting the joined bytes gives the same order when every column has the same family
    (they then differ only after the common ``b"f:"``), so the names are sorted as bytes
    first, without a key function. Sorted so, every name between two that start with
    ``b"f:"`` starts with it too: when the first and the last share their family, all do.
    Otherwise (or when the first has no colon) they are sorted by :func:`column_order`.
    """
    names = sorted(columns)
    if len(names) > 1:
        first = names[0]
        colon = first.find(b":")
        if colon < 0 or not names[-1].startswith(first[: colon + 1]):
            return sorted(columns, key=column_order)
    return names


def cell(tcell: Any) -> Cell:
    """Return the :class:`Cell` of a Thrift1 ``TCell`` (a missing value reads as ``b""``)."""
    made = _new(Cell)
    _set_value(made, tcell.value or b"")
    _set_timestamp(made, tcell.timestamp)
    return made


def row_result(tresult: Any) -> RowResult | None:
    """Return the :class:`RowResult` of a Thrift1 ``TRowResult``; ``None`` if it has no cell.

    The ``columns`` map of the struct is unordered; the cells are put in column order.
    """
    columns: dict[bytes, Any] | None = tresult.columns
    if not columns:
        return None
    cells: dict[bytes, Cell] = {}
    for name in in_column_order(columns):
        tcell = columns[name]
        made = _new(Cell)  # cell(tcell), inlined: one call less per cell
        _set_value(made, tcell.value or b"")
        _set_timestamp(made, tcell.timestamp)
        cells[name] = made
    result = _new(RowResult)
    _set_row(result, tresult.row)
    _set_cells(result, cells)
    return result
