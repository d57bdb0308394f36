"""The per-scan filter protocol, as HBase's ``Filter`` class defines it (I4)."""

from __future__ import annotations

import enum
from typing import NamedTuple

__all__ = ["INCLUDES", "Filter", "KeyValue", "Position", "ReturnCode", "compare_positions"]


class ReturnCode(enum.Enum):
    """What a filter says about one cell (HBase ``Filter.ReturnCode``).

    ``NEXT_ROW`` skips the rest of the row *in the cell's family* only: in HBase each
    family is a separate store scanned on its own.
    """

    INCLUDE = "include"
    INCLUDE_AND_NEXT_COL = "include, then skip the column's older versions"
    INCLUDE_AND_SEEK_NEXT_ROW = "include, then skip the family's other cells"
    SKIP = "skip"
    NEXT_COL = "skip the column's remaining versions"
    NEXT_ROW = "skip the family's remaining cells in this row"
    SEEK_NEXT_USING_HINT = "skip to the filter's hint"


#: The return codes that keep the cell.
INCLUDES = frozenset(
    {ReturnCode.INCLUDE, ReturnCode.INCLUDE_AND_NEXT_COL, ReturnCode.INCLUDE_AND_SEEK_NEXT_ROW}
)


class KeyValue(NamedTuple):
    """One version of one cell as a filter sees it."""

    row: bytes
    family: bytes
    qualifier: bytes
    timestamp: int
    value: bytes

    def position(self) -> Position:
        """Where the cell sorts in its row: family, qualifier, then newest first."""
        return (self.family, self.qualifier, -self.timestamp, 1)


#: A place in a row: ``(family, qualifier, -timestamp, tie)``. Seek hints use ``-inf``
#: ("before every version of the column"), ``+inf`` ("after it") or ``tie = 0``
#: ("just before the version with this timestamp").
Position = tuple[bytes, bytes, float, int]


def compare_positions(a: Position, b: Position, *, reversed_scan: bool) -> int:
    """Compare two positions as a ``FilterList`` does: negated in a reversed scan."""
    result = (a > b) - (a < b)
    return -result if reversed_scan else result


class Filter:
    """A filter's state during one scan; every method has HBase ``FilterBase``'s default.

    The scan calls, per row: :meth:`filter_row_key` with the row's first cell; then
    :meth:`filter_cell` for each cell in order (and :meth:`transform_cell` for each
    included one); then :meth:`filter_row_cells` and :meth:`filter_row`;
    then :meth:`reset`. :meth:`filter_all_remaining` ends the scan.

    Args:
        reversed_scan: Whether rows come from the highest to the lowest.
    """

    def __init__(self, *, reversed_scan: bool = False) -> None:
        self.reversed_scan = reversed_scan

    def reset(self) -> None:
        """Forget per-row state; called between rows."""

    def filter_all_remaining(self) -> bool:
        """Whether the scan should end now."""
        return False

    def filter_row_key(self, first: KeyValue) -> bool:
        """Whether to drop the row given its first cell (default: if the scan is over)."""
        return self.filter_all_remaining()

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        """Judge one cell."""
        return ReturnCode.INCLUDE

    def transform_cell(self, cell: KeyValue) -> KeyValue:
        """Rewrite an included cell (``KeyOnlyFilter`` empties its value)."""
        return cell

    def filter_row_cells(self, cells: list[KeyValue]) -> None:
        """Edit the row's included cells in place, once all cells were judged."""

    def has_filter_row(self) -> bool:
        """Whether :meth:`filter_row` (and :meth:`filter_row_cells`) need the whole row."""
        return False

    def filter_row(self) -> bool:
        """Whether to drop the row after its cells were judged."""
        return False

    def next_cell_hint(self, cell: KeyValue) -> Position | None:
        """Where to seek after :attr:`ReturnCode.SEEK_NEXT_USING_HINT` (``None``: next cell)."""
        return None
