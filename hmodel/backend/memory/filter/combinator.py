"""AND / OR filter lists and the SKIP / WHILE wrappers, following HBase's classes (I4)."""

from __future__ import annotations

from collections.abc import Sequence

from hmodel.backend.memory.filter import node
from hmodel.backend.memory.filter.leaf import build_leaf
from hmodel.backend.memory.filter.runtime import (
    INCLUDES,
    Filter,
    KeyValue,
    Position,
    ReturnCode,
    compare_positions,
)

__all__ = ["build_runtime", "merge_all", "merge_one"]

_STEP = {
    ReturnCode.INCLUDE: 0,
    ReturnCode.SKIP: 0,
    ReturnCode.INCLUDE_AND_NEXT_COL: 1,
    ReturnCode.NEXT_COL: 1,
    ReturnCode.INCLUDE_AND_SEEK_NEXT_ROW: 2,
    ReturnCode.NEXT_ROW: 2,
    ReturnCode.SEEK_NEXT_USING_HINT: 0,
}
_CODE = {
    (True, 0): ReturnCode.INCLUDE,
    (False, 0): ReturnCode.SKIP,
    (True, 1): ReturnCode.INCLUDE_AND_NEXT_COL,
    (False, 1): ReturnCode.NEXT_COL,
    (True, 2): ReturnCode.INCLUDE_AND_SEEK_NEXT_ROW,
    (False, 2): ReturnCode.NEXT_ROW,
}
_HINT = ReturnCode.SEEK_NEXT_USING_HINT


def merge_all(rc: ReturnCode, local: ReturnCode) -> ReturnCode:
    """Merge two return codes as HBase's MUST_PASS_ALL list does ("maximal step").

    The cell is included only if both include it, the larger skip wins, and a seek
    hint beats everything.
    """
    if _HINT in (rc, local):
        return _HINT
    return _CODE[(rc in INCLUDES and local in INCLUDES, max(_STEP[rc], _STEP[local]))]


def merge_one(rc: ReturnCode | None, local: ReturnCode) -> ReturnCode:
    """Merge two return codes as HBase's MUST_PASS_ONE list does ("minimal step").

    The cell is included if either includes it, the smaller skip wins, and a seek hint
    counts as a plain skip unless both seek. ``rc`` is ``None`` for the first filter.
    """
    if rc is None:
        return local
    if rc is _HINT and local is _HINT:
        return _HINT
    return _CODE[(rc in INCLUDES or local in INCLUDES, min(_STEP[rc], _STEP[local]))]


class AllOf(Filter):
    """``f AND g ...``, HBase's ``FilterListWithAND``.

    Later filters only see the cells earlier ones include (HBASE-20565).
    """

    def __init__(self, filters: Sequence[Filter], *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.filters = list(filters)
        self.seekers: list[Filter] = []

    def reset(self) -> None:
        for child in self.filters:
            child.reset()
        self.seekers.clear()

    def filter_all_remaining(self) -> bool:
        return any(child.filter_all_remaining() for child in self.filters)

    def filter_row_key(self, first: KeyValue) -> bool:
        result = False
        for child in self.filters:  # every child sees the row key (PrefixFilter needs it)
            if child.filter_all_remaining() or child.filter_row_key(first):
                result = True
        return result

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        rc = ReturnCode.INCLUDE
        self.seekers.clear()
        for child in self.filters:
            if child.filter_all_remaining():
                return ReturnCode.NEXT_ROW
            local = child.filter_cell(cell)
            if local is _HINT:
                self.seekers.append(child)
            rc = merge_all(rc, local)
            if rc not in INCLUDES:
                return rc
        return _HINT if self.seekers else rc

    def transform_cell(self, cell: KeyValue) -> KeyValue:
        for child in self.filters:
            cell = child.transform_cell(cell)
        return cell

    def filter_row_cells(self, cells: list[KeyValue]) -> None:
        for child in self.filters:
            child.filter_row_cells(cells)

    def has_filter_row(self) -> bool:
        return any(child.has_filter_row() for child in self.filters)

    def filter_row(self) -> bool:
        return any(child.filter_row() for child in self.filters)

    def next_cell_hint(self, cell: KeyValue) -> Position | None:
        best: Position | None = None
        for child in self.seekers:
            if child.filter_all_remaining():
                continue
            hint = child.next_cell_hint(cell)
            if best is None or (
                hint is not None
                and compare_positions(best, hint, reversed_scan=self.reversed_scan) < 0
            ):
                best = hint
        return best


class OneOf(Filter):
    """``f OR g ...``, HBase's ``FilterListWithOR``.

    A child that asked to skip ahead is not asked again about the cells it skipped
    (HBASE-17678, HBASE-18368).
    """

    def __init__(self, filters: Sequence[Filter], *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.filters = list(filters)
        count = len(self.filters)
        self.included = [False] * count
        self.previous_codes: list[ReturnCode | None] = [None] * count
        self.previous_cells: list[KeyValue | None] = [None] * count

    def reset(self) -> None:
        for i, child in enumerate(self.filters):
            child.reset()
            self.included[i] = False
            self.previous_codes[i] = None
            self.previous_cells[i] = None

    def filter_all_remaining(self) -> bool:
        return all(child.filter_all_remaining() for child in self.filters)

    def filter_row_key(self, first: KeyValue) -> bool:
        result = True
        for child in self.filters:
            if not child.filter_all_remaining() and not child.filter_row_key(first):
                result = False
        return result

    def _from_previous(self, i: int, cell: KeyValue) -> ReturnCode | None:
        previous, code = self.previous_cells[i], self.previous_codes[i]
        if previous is None or code is None:
            return None
        if code in (ReturnCode.INCLUDE, ReturnCode.SKIP):
            return None
        if code is _HINT:
            hint = self.filters[i].next_cell_hint(previous)
            if hint is not None and (
                compare_positions(cell.position(), hint, reversed_scan=self.reversed_scan) < 0
            ):
                return _HINT
            return None
        if code in (ReturnCode.NEXT_COL, ReturnCode.INCLUDE_AND_NEXT_COL):
            same = (previous.family, previous.qualifier) == (cell.family, cell.qualifier)
            return ReturnCode.NEXT_COL if same else None
        return ReturnCode.NEXT_ROW if previous.family == cell.family else None

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        rc: ReturnCode | None = None
        for i, child in enumerate(self.filters):
            self.included[i] = False
            if child.filter_all_remaining():
                continue
            local = self._from_previous(i, cell)
            if local is None:
                local = child.filter_cell(cell)
            self.previous_codes[i] = local
            keep = local not in (ReturnCode.INCLUDE, ReturnCode.SKIP)
            self.previous_cells[i] = cell if keep else None
            rc = merge_one(rc, local)
            self.included[i] = local in INCLUDES
        return ReturnCode.SKIP if rc is None else rc

    def transform_cell(self, cell: KeyValue) -> KeyValue:
        for child, included in zip(self.filters, self.included, strict=True):
            if included:
                cell = child.transform_cell(cell)
        return cell

    def filter_row_cells(self, cells: list[KeyValue]) -> None:
        for child in self.filters:
            child.filter_row_cells(cells)

    def has_filter_row(self) -> bool:
        return any(child.has_filter_row() for child in self.filters)

    def filter_row(self) -> bool:
        return all(child.filter_row() for child in self.filters)

    def next_cell_hint(self, cell: KeyValue) -> Position | None:
        least: Position | None = None
        for child in self.filters:
            if child.filter_all_remaining():
                continue
            hint = child.next_cell_hint(cell)
            if hint is None:
                return None
            if (
                least is None
                or compare_positions(least, hint, reversed_scan=self.reversed_scan) > 0
            ):
                least = hint
        return least


class SkipRow(Filter):
    """``SKIP f``, HBase's ``SkipFilter``.

    Drops the row if ``f`` returned anything but ``INCLUDE`` for one of its cells. Like
    HBase it does not pass row keys, seek hints or ``filter_row_cells`` on to ``f``.
    """

    def __init__(self, inner: Filter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.inner = inner
        self.failed = False

    def reset(self) -> None:
        self.inner.reset()
        self.failed = False

    def filter_row_key(self, first: KeyValue) -> bool:
        return False

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        rc = self.inner.filter_cell(cell)
        self.failed = self.failed or rc is not ReturnCode.INCLUDE
        return rc

    def transform_cell(self, cell: KeyValue) -> KeyValue:
        return self.inner.transform_cell(cell)

    def has_filter_row(self) -> bool:
        return True

    def filter_row(self) -> bool:
        return self.failed


class WhileMatch(Filter):
    """``WHILE f``, HBase's ``WhileMatchFilter``.

    Once ``f`` rejects a row key, a cell (anything but ``INCLUDE``) or a row, every
    remaining row is filtered: the scan is over.
    """

    def __init__(self, inner: Filter, *, reversed_scan: bool) -> None:
        super().__init__(reversed_scan=reversed_scan)
        self.inner = inner
        self.over = False

    def reset(self) -> None:
        self.inner.reset()

    def filter_all_remaining(self) -> bool:
        return self.over or self.inner.filter_all_remaining()

    def filter_row_key(self, first: KeyValue) -> bool:
        if self.filter_all_remaining():
            return True
        result = self.inner.filter_row_key(first)
        self.over = self.over or result
        return result

    def filter_cell(self, cell: KeyValue) -> ReturnCode:
        rc = self.inner.filter_cell(cell)
        self.over = self.over or rc is not ReturnCode.INCLUDE
        return rc

    def transform_cell(self, cell: KeyValue) -> KeyValue:
        return self.inner.transform_cell(cell)

    def has_filter_row(self) -> bool:
        return True

    def filter_row(self) -> bool:
        result = self.inner.filter_row()
        self.over = self.over or result
        return result


def build_runtime(spec: node.Node, *, reversed_scan: bool = False) -> Filter:
    """Fresh per-scan state for the whole tree ``spec``."""
    r = reversed_scan
    if isinstance(spec, node.FilterList):
        children = [build_runtime(child, reversed_scan=r) for child in spec.filters]
        return (
            AllOf(children, reversed_scan=r)
            if spec.must_pass_all
            else OneOf(children, reversed_scan=r)
        )
    if isinstance(spec, node.Skip):
        return SkipRow(build_runtime(spec.filter, reversed_scan=r), reversed_scan=r)
    if isinstance(spec, node.While):
        return WhileMatch(build_runtime(spec.filter, reversed_scan=r), reversed_scan=r)
    return build_leaf(spec, reversed_scan=r)
