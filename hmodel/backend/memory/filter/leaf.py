"""The per-scan state and cell logic of each single filter, following HBase's classes (I4)."""

from __future__ import annotations

import bisect

from hmodel.backend.memory.filter import node
from hmodel.backend.memory.filter.comparator import Comparator, CompareOp
from hmodel.backend.memory.filter.runtime import Filter, KeyValue, Position, ReturnCode

__all__ = ["build_leaf"]

_FIRST = float("-inf")


def _sign(a: bytes, b: bytes) -> int:
    return (a > b) - (a < b)


def _fails(op: CompareOp, comparator: Comparator, part: bytes) -> bool:
    """HBase ``CompareFilter.compare``: ``True`` when ``part`` does not satisfy the test."""
    return not op.passes(comparator.compare_to(part))


class KeyOnly(Filter):
    """``KeyOnlyFilter``: every cell, value emptied or replaced by its 4-byte length."""

    def __init__(self, spec: node.KeyOnlyFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.len_as_value = spec.len_as_value

    def filter_row_key(self, first: KeyValue) -> bool:
        return False

    def transform_cell(self, cell: KeyValue) -> KeyValue:
        value = len(cell.value).to_bytes(4, "big") if self.len_as_value else b""
        return cell._replace(value=value)


class FirstKeyOnly(Filter):
    """``FirstKeyOnlyFilter``: the first cell of the row, then ``NEXT_ROW``."""

    def __init__(self, spec: node.FirstKeyOnlyFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.found = False

    def reset(self) -> None:
        self.found = False

    def filter_row_key(self, first: KeyValue) -> bool:
        return False

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        if self.found:
            return ReturnCode.NEXT_ROW
        self.found = True
        return ReturnCode.INCLUDE


class Prefix(Filter):
    """``PrefixFilter``: rows starting with the prefix; done once rows pass it."""

    def __init__(self, spec: node.PrefixFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.prefix = spec.prefix
        self.passed = False
        self.filter_out = True

    def filter_row_key(self, first: KeyValue) -> bool:
        if self.filter_all_remaining():
            return True
        if len(first.row) < len(self.prefix):
            return True
        cmp = _sign(first.row[: len(self.prefix)], self.prefix)
        if (cmp < 0) if self.reversed_scan else (cmp > 0):
            self.passed = True
        self.filter_out = cmp != 0
        return self.filter_out

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        return ReturnCode.NEXT_ROW if self.filter_out else ReturnCode.INCLUDE

    def filter_row(self) -> bool:
        return self.filter_out

    def reset(self) -> None:
        self.filter_out = True

    def filter_all_remaining(self) -> bool:
        return self.passed


class Page(Filter):
    """``PageFilter``: counts the rows that reach :meth:`filter_row`; done at the page size."""

    def __init__(self, spec: node.PageFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.page_size = spec.page_size
        self.accepted = 0

    def filter_all_remaining(self) -> bool:
        return self.accepted >= self.page_size

    def has_filter_row(self) -> bool:
        return True

    def filter_row(self) -> bool:
        self.accepted += 1
        return self.accepted > self.page_size


class ColumnPrefix(Filter):
    """``ColumnPrefixFilter``: qualifiers starting with the prefix, seeking to it."""

    def __init__(self, spec: node.ColumnPrefixFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.prefix = spec.prefix

    def filter_row_key(self, first: KeyValue) -> bool:
        return False

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        qualifier = cell.qualifier
        if len(qualifier) < len(self.prefix):
            cmp = _sign(qualifier, self.prefix[: len(qualifier)])
            return ReturnCode.SEEK_NEXT_USING_HINT if cmp <= 0 else ReturnCode.NEXT_ROW
        cmp = _sign(qualifier[: len(self.prefix)], self.prefix)
        if cmp < 0:
            return ReturnCode.SEEK_NEXT_USING_HINT
        return ReturnCode.NEXT_ROW if cmp > 0 else ReturnCode.INCLUDE

    def next_cell_hint(self, cell: KeyValue) -> Position | None:
        return (cell.family, self.prefix, _FIRST, 0)


class MultipleColumnPrefix(Filter):
    """``MultipleColumnPrefixFilter``: qualifiers starting with one of the prefixes.

    As in HBase only the largest prefix ``<=`` the qualifier is tested.
    """

    def __init__(self, spec: node.MultipleColumnPrefixFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.prefixes = sorted(spec.prefixes)
        self.hint = b""

    def filter_row_key(self, first: KeyValue) -> bool:
        return False

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        if not self.prefixes:
            return ReturnCode.INCLUDE
        qualifier = cell.qualifier
        lesser = bisect.bisect_right(self.prefixes, qualifier)
        if lesser == 0:
            self.hint = self.prefixes[0]
            return ReturnCode.SEEK_NEXT_USING_HINT
        largest = self.prefixes[lesser - 1]
        if qualifier.startswith(largest):
            return ReturnCode.INCLUDE
        if lesser == len(self.prefixes):
            return ReturnCode.NEXT_ROW
        self.hint = self.prefixes[lesser]
        return ReturnCode.SEEK_NEXT_USING_HINT

    def next_cell_hint(self, cell: KeyValue) -> Position | None:
        return (cell.family, self.hint, _FIRST, 0)


class ColumnRange(Filter):
    """``ColumnRangeFilter``: qualifiers within the bounds, seeking to the lower one."""

    def __init__(self, spec: node.ColumnRangeFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.spec = spec

    def filter_row_key(self, first: KeyValue) -> bool:
        return False

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        spec = self.spec
        cmp_min = 1 if spec.min_column is None else _sign(cell.qualifier, spec.min_column)
        if cmp_min < 0:
            return ReturnCode.SEEK_NEXT_USING_HINT
        if not spec.min_inclusive and cmp_min == 0:
            return ReturnCode.NEXT_COL
        if spec.max_column is None:
            return ReturnCode.INCLUDE
        cmp_max = _sign(cell.qualifier, spec.max_column)
        if cmp_max < 0 or (spec.max_inclusive and cmp_max == 0):
            return ReturnCode.INCLUDE
        return ReturnCode.NEXT_ROW

    def next_cell_hint(self, cell: KeyValue) -> Position | None:
        return (cell.family, self.spec.min_column or b"", _FIRST, 0)


class Row(Filter):
    """``RowFilter``: decides on the row key, then passes or skips every cell."""

    def __init__(self, spec: node.RowFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.spec = spec
        self.filter_out = False

    def reset(self) -> None:
        self.filter_out = False

    def filter_row_key(self, first: KeyValue) -> bool:
        if _fails(self.spec.op, self.spec.comparator, first.row):
            self.filter_out = True
        return self.filter_out

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        return ReturnCode.NEXT_ROW if self.filter_out else ReturnCode.INCLUDE

    def filter_row(self) -> bool:
        return self.filter_out


class Family(Filter):
    """``FamilyFilter``: a failing family skips the rest of that family (``NEXT_ROW``)."""

    def __init__(self, spec: node.FamilyFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.spec = spec

    def filter_row_key(self, first: KeyValue) -> bool:
        return False

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        if cell.family and _fails(self.spec.op, self.spec.comparator, cell.family):
            return ReturnCode.NEXT_ROW
        return ReturnCode.INCLUDE


class Qualifier(Filter):
    """``QualifierFilter``: a failing qualifier skips the cell, the empty one included.

    HBase 1.x let an empty qualifier pass unexamined; HBase 2 compares it like any other.
    """

    def __init__(self, spec: node.QualifierFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.spec = spec

    def filter_row_key(self, first: KeyValue) -> bool:
        return False

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        if _fails(self.spec.op, self.spec.comparator, cell.qualifier):
            return ReturnCode.SKIP
        return ReturnCode.INCLUDE


class Value(Filter):
    """``ValueFilter``: a failing value skips the cell."""

    def __init__(self, spec: node.ValueFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.spec = spec

    def filter_row_key(self, first: KeyValue) -> bool:
        return False

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        if _fails(self.spec.op, self.spec.comparator, cell.value):
            return ReturnCode.SKIP
        return ReturnCode.INCLUDE


class SingleColumnValue(Filter):
    """``SingleColumnValueFilter``: remembers whether the column was found and matched."""

    def __init__(self, spec: node.SingleColumnValueFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.spec = spec
        self.found = False
        self.matched = False

    def reset(self) -> None:
        self.found = False
        self.matched = False

    def filter_row_key(self, first: KeyValue) -> bool:
        return False

    def _is_tested(self, cell: KeyValue) -> bool:
        return cell.family == self.spec.family and cell.qualifier == self.spec.qualifier

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        spec = self.spec
        if self.matched:
            return ReturnCode.INCLUDE
        if spec.latest_version_only and self.found:
            return ReturnCode.NEXT_ROW
        if not self._is_tested(cell):
            return ReturnCode.INCLUDE
        self.found = True
        if _fails(spec.op, spec.comparator, cell.value):
            return ReturnCode.NEXT_ROW if spec.latest_version_only else ReturnCode.INCLUDE
        self.matched = True
        return ReturnCode.INCLUDE

    def has_filter_row(self) -> bool:
        return True

    def filter_row(self) -> bool:
        return not self.matched if self.found else self.spec.filter_if_missing


class SingleColumnValueExclude(SingleColumnValue):
    """``SingleColumnValueExcludeFilter``: as above, then the tested column is removed."""

    def filter_row_cells(self, cells: list[KeyValue]) -> None:
        cells[:] = [cell for cell in cells if not self._is_tested(cell)]


class Timestamps(Filter):
    """``TimestampsFilter`` (no seek hints, as the filter language builds it)."""

    def __init__(self, spec: node.TimestampsFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.timestamps = frozenset(spec.timestamps)
        self.minimum = min(spec.timestamps, default=2**63 - 1)

    def filter_row_key(self, first: KeyValue) -> bool:
        return False

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        if cell.timestamp in self.timestamps:
            return ReturnCode.INCLUDE
        if cell.timestamp < self.minimum:
            return ReturnCode.NEXT_COL
        return ReturnCode.SKIP


class InclusiveStop(Filter):
    """``InclusiveStopFilter``: done at the first row past the stop row."""

    def __init__(self, spec: node.InclusiveStopFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.stop_row = spec.stop_row
        self.done = False

    def filter_row_key(self, first: KeyValue) -> bool:
        if self.filter_all_remaining():
            return True
        cmp = _sign(first.row, self.stop_row)
        self.done = cmp < 0 if self.reversed_scan else cmp > 0
        return self.done

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        return ReturnCode.NEXT_ROW if self.done else ReturnCode.INCLUDE

    def filter_all_remaining(self) -> bool:
        return self.done


class ColumnCountGet(Filter):
    """``ColumnCountGetFilter``: the first ``limit`` columns of a row.

    Once a cell past the limit is seen, :meth:`filter_all_remaining` is true until the
    next reset, which closes the scanner (ending a scan).
    """

    def __init__(self, spec: node.ColumnCountGetFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.limit = spec.limit
        self.count = 0

    def filter_all_remaining(self) -> bool:
        return self.count > self.limit

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        self.count += 1
        if self.filter_all_remaining():
            return ReturnCode.NEXT_COL
        return ReturnCode.INCLUDE_AND_NEXT_COL

    def reset(self) -> None:
        self.count = 0


class ColumnPagination(Filter):
    """``ColumnPaginationFilter(limit, offset)``: counts columns across the row's families."""

    def __init__(self, spec: node.ColumnPaginationFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.limit = spec.limit
        self.offset = spec.offset
        self.count = 0

    def filter_row_key(self, first: KeyValue) -> bool:
        return False

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        if self.count >= self.offset + self.limit:
            return ReturnCode.NEXT_ROW
        code = ReturnCode.NEXT_COL if self.count < self.offset else ReturnCode.INCLUDE_AND_NEXT_COL
        self.count += 1
        return code

    def reset(self) -> None:
        self.count = 0


class DependentColumn(Filter):
    """``DependentColumnFilter``: keeps cells whose timestamp a reference version has."""

    def __init__(self, spec: node.DependentColumnFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.spec = spec
        self.stamps: set[int] = set()

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        spec = self.spec
        if cell.family != spec.family or cell.qualifier != spec.qualifier:
            return ReturnCode.INCLUDE
        if (
            spec.op is not None
            and spec.comparator is not None
            and _fails(spec.op, spec.comparator, cell.value)
        ):
            return ReturnCode.SKIP
        self.stamps.add(cell.timestamp)
        return ReturnCode.SKIP if spec.drop_dependent_column else ReturnCode.INCLUDE

    def filter_row_cells(self, cells: list[KeyValue]) -> None:
        cells[:] = [cell for cell in cells if cell.timestamp in self.stamps]

    def has_filter_row(self) -> bool:
        return True

    def reset(self) -> None:
        self.stamps.clear()


class ColumnValue(Filter):
    """``ColumnValueFilter``: only the passing versions of one column."""

    def __init__(self, spec: node.ColumnValueFilter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.spec = spec
        self.found = False

    def reset(self) -> None:
        self.found = False

    def filter_row_key(self, first: KeyValue) -> bool:
        return False

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        spec = self.spec
        if cell.family != spec.family or cell.qualifier != spec.qualifier:
            return ReturnCode.NEXT_ROW if self.found else ReturnCode.NEXT_COL
        self.found = True
        if _fails(spec.op, spec.comparator, cell.value):
            return ReturnCode.SKIP
        return ReturnCode.INCLUDE


def build_leaf(spec: node.Node, *, reversed_scan: bool) -> Filter:
    """Fresh per-scan state for the single filter ``spec``.

    Raises:
        TypeError: ``spec`` is an operator node (``SKIP``, ``WHILE``, ``AND``/``OR``).
    """
    r = reversed_scan
    match spec:
        case node.KeyOnlyFilter():
            return KeyOnly(spec, reversed_scan=r)
        case node.FirstKeyOnlyFilter():
            return FirstKeyOnly(spec, reversed_scan=r)
        case node.PrefixFilter():
            return Prefix(spec, reversed_scan=r)
        case node.PageFilter():
            return Page(spec, reversed_scan=r)
        case node.ColumnPrefixFilter():
            return ColumnPrefix(spec, reversed_scan=r)
        case node.MultipleColumnPrefixFilter():
            return MultipleColumnPrefix(spec, reversed_scan=r)
        case node.ColumnRangeFilter():
            return ColumnRange(spec, reversed_scan=r)
        case node.RowFilter():
            return Row(spec, reversed_scan=r)
        case node.FamilyFilter():
            return Family(spec, reversed_scan=r)
        case node.QualifierFilter():
            return Qualifier(spec, reversed_scan=r)
        case node.ValueFilter():
            return Value(spec, reversed_scan=r)
        case node.SingleColumnValueExcludeFilter():
            return SingleColumnValueExclude(spec, reversed_scan=r)
        case node.SingleColumnValueFilter():
            return SingleColumnValue(spec, reversed_scan=r)
        case node.TimestampsFilter():
            return Timestamps(spec, reversed_scan=r)
        case node.InclusiveStopFilter():
            return InclusiveStop(spec, reversed_scan=r)
        case node.ColumnCountGetFilter():
            return ColumnCountGet(spec, reversed_scan=r)
        case node.ColumnPaginationFilter():
            return ColumnPagination(spec, reversed_scan=r)
        case node.DependentColumnFilter():
            return DependentColumn(spec, reversed_scan=r)
        case node.ColumnValueFilter():
            return ColumnValue(spec, reversed_scan=r)
    raise TypeError(f"not a single filter: {spec!r}")
