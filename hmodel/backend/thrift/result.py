"""Thrift1 ``TRowResult`` and ``TCell`` structs to hmodel's :class:`RowResult` and :class:`Cell`."""

from __future__ import annotations

from typing import Any

from hmodel.backend.base import Cell, RowResult

__all__ = ["cell", "column_order", "row_result"]


def column_order(column: bytes) -> tuple[bytes, bytes]:
    """Sort key of ``b"f:q"``: family, then qualifier, each as unsigned bytes.

    Not the same as sorting the joined bytes: ``b"a-:q"`` sorts before ``b"a:q"`` as bytes
    (``-`` < ``:``) but after it by family (``b"a"`` < ``b"a-"``), which is HBase's order.
    """
    family, _, qualifier = column.partition(b":")
    return family, qualifier


def cell(tcell: Any) -> Cell:
    """Return the :class:`Cell` of a Thrift1 ``TCell`` (a missing value reads as ``b""``)."""
    return Cell(value=tcell.value or b"", timestamp=tcell.timestamp)


def row_result(tresult: Any) -> RowResult | None:
    """Return the :class:`RowResult` of a Thrift1 ``TRowResult``; ``None`` if it has no cell.

    The ``columns`` map of the struct is unordered; the cells are put in column order.
    """
    columns: dict[bytes, Any] = tresult.columns or {}
    if not columns:
        return None
    ordered = sorted(columns, key=column_order)
    return RowResult(row=tresult.row, cells={name: cell(columns[name]) for name in ordered})
