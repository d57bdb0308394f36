"""Compiled filter programs and the per-row scan loop of a region server, flattened (I4)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

import attrs

from hmodel.backend.base import Cell, split_column
from hmodel.backend.memory.filter.combinator import build_runtime
from hmodel.backend.memory.filter.lexer import Source
from hmodel.backend.memory.filter.node import Node, is_family_essential
from hmodel.backend.memory.filter.parser import parse
from hmodel.backend.memory.filter.runtime import Filter, KeyValue, ReturnCode
from hmodel.errors import FilterError

__all__ = ["FilterProgram", "FilterRun", "RowVerdict", "compile_filter"]

Columns = list[tuple[bytes, list[Cell]]]


@attrs.frozen
class RowVerdict:
    """What a filter decided about one row.

    Attributes:
        columns: The kept columns in the order given, each with its kept versions newest
            first (values possibly rewritten, e.g. by ``KeyOnlyFilter``); ``None`` when
            the row is filtered out.
        done: The scan must end: after emitting this row if ``columns`` is not ``None``.
    """

    columns: Columns | None
    done: bool


def compile_filter(text: str | bytes) -> FilterProgram:
    """Parse a filter string of the HBase filter language into a reusable program.

    A ``str`` is taken as its UTF-8 bytes, so quoted arguments are the UTF-8 bytes of the
    literal (HBase's ``Bytes.toBytes(String)``); pass ``bytes`` for arbitrary binary
    operands.

    Raises:
        FilterError: A syntax error (the message gives the offset and the token), an
            unknown or unsupported filter, or arguments of the wrong number or type
            (the message names the filter).
    """
    source = Source.of(text)
    return FilterProgram(parse(source))


@attrs.frozen
class FilterProgram:
    """A parsed filter; immutable, so one program may serve many scans at once.

    ``str(program)`` is the filter in canonical syntax; compiling it again gives an
    equal program.
    """

    root: Node

    def __str__(self) -> str:
        return self.root.render().decode("utf-8", "surrogateescape")

    def on_demand(self, families: Iterable[bytes]) -> list[bytes]:
        """The ``families`` HBase would load on demand under this filter, in byte order.

        Those the filter does not need to decide on a row (see
        :func:`~hmodel.backend.memory.filter.node.is_family_essential`); HBase reads them
        only for the rows kept, and refuses a reversed scan that has any.
        """
        return sorted(name for name in families if not is_family_essential(self.root, name))

    def start(
        self,
        *,
        max_versions: int | None = None,
        reverse: bool = False,
        on_demand: Collection[bytes] = frozenset(),
    ) -> FilterRun:
        """Fresh state for one scan (``PageFilter`` counts rows, ``WHILE`` ends the scan).

        Args:
            max_versions: The versions per column the scan returns. HBase checks this
                count *after* the filter among the cells it included, and stops showing
                a column's older versions to the filter once the count is exceeded (which
                matters to ``SingleColumnValueFilter(..., false)``). ``None``: the filter
                sees every version given.
            reverse: The scan returns rows from the highest to the lowest
                (``PrefixFilter`` and ``InclusiveStopFilter`` end the scan on the other
                side).
            on_demand: The scanned families HBase loads on demand (:meth:`on_demand`),
                as its forward scans do by default: a row is looked at only if the other
                families hold a cell of it, judged on their cells alone, and given these
                families' cells (each shown to the filter) only if it is kept.

        Raises:
            FilterError: ``max_versions`` is less than 1.
        """
        if max_versions is not None and max_versions < 1:
            raise FilterError("max_versions must be >= 1", value=max_versions)
        return FilterRun(build_runtime(self.root, reversed_scan=reverse), max_versions, on_demand)


class FilterRun:
    """One scan's filter state; feed it the scan's rows in scan order with :meth:`apply`.

    Args:
        root: The filter tree's state.
        max_versions: See :meth:`FilterProgram.start`.
        joined: See ``on_demand`` in :meth:`FilterProgram.start`.
    """

    def __init__(
        self, root: Filter, max_versions: int | None, joined: Collection[bytes] = frozenset()
    ) -> None:
        self._root = root
        self._max_versions = max_versions
        self._joined = frozenset(joined)
        self._closed: set[bytes] = set()
        self._done = False

    @property
    def done(self) -> bool:
        """Whether the scan has ended; later rows are all filtered out."""
        return self._done

    def apply(
        self,
        row: bytes,
        columns: Sequence[tuple[bytes, Sequence[Cell]]],
        stored: Collection[bytes] = (),
    ) -> RowVerdict:
        """Judge ``row`` as HBase's region scanner would.

        Args:
            row: The row key.
            columns: The row's visible columns (``b"family:qualifier"``), each with all
                its visible versions newest first.
            stored: The scanned families that hold any cell in this row, visible or not:
                deleted versions, delete markers, columns not asked for, versions outside
                the time range. HBase's store scanner asks ``filter_all_remaining``
                before it looks at any of them, so each can close its family's scanner
                (``ColumnCountGetFilter``); and its region scanner asks ``filterRowKey``
                at the first of them, so a row with no visible cell still meets the
                row filters (``WHILE PrefixFilter(...)`` ends the scan there).

        Returns:
            The kept columns (``None``: the row is filtered out) and whether the scan
            ends after this row.
        """
        if self._done:
            return RowVerdict(None, True)
        joined = self._joined
        main = columns
        later: Sequence[tuple[bytes, Sequence[Cell]]] = ()
        if joined:
            stored = [name for name in stored if name not in joined]
            if not stored:
                return RowVerdict(None, False)  # not in the main heap: never looked at
            later = [(c, v) for c, v in columns if split_column(c)[0] in joined]
            main = [(c, v) for c, v in columns if split_column(c)[0] not in joined]
        cells = self._cells(row, main)
        if cells:
            kept = self._judge(cells, stored)
        else:
            kept = None
            self._meet(row, stored)
        if kept is not None and later:
            # HBase's joined heap: the families loaded on demand, for a row kept.
            kept.extend(self._collect(self._cells(row, later), ()))
        self._root.reset()
        self._done = self._root.filter_all_remaining()
        if kept is None:
            return RowVerdict(None, self._done)
        return RowVerdict(_regroup(columns, kept), self._done)

    def _cells(self, row: bytes, columns: Sequence[tuple[bytes, Sequence[Cell]]]) -> list[KeyValue]:
        """The row's cells in HBase order: family, qualifier, newest first.

        Families whose store scanner an earlier row closed are left out: in HBase each
        family's store scanner asks ``filter_all_remaining`` before every cell it reads,
        including the first one past a row, and closes for good when it is true (which
        matters for ``ColumnCountGetFilter``, whose state is reset between rows).
        """
        cells: list[KeyValue] = []
        for column, versions in columns:
            family, qualifier = split_column(column)
            if family in self._closed:
                continue
            ordered = sorted(versions, key=lambda cell: -cell.timestamp)
            cells.extend(
                KeyValue(row, family, qualifier or b"", cell.timestamp, cell.value)
                for cell in ordered
            )
        cells.sort(key=lambda kv: (kv.family, kv.qualifier))  # stable: versions keep order
        return cells

    def _judge(self, cells: list[KeyValue], stored: Collection[bytes]) -> list[KeyValue] | None:
        """Run the filter over one row's cells; the included cells, or ``None``."""
        root = self._root
        if root.filter_all_remaining() or root.filter_row_key(cells[0]):
            return None
        return self._finish_row(self._collect(cells, stored))

    def _collect(self, cells: list[KeyValue], stored: Collection[bytes]) -> list[KeyValue]:
        """Ask the filter about each of one row's cells in order; the cells it includes."""
        root = self._root
        results: list[KeyValue] = []
        counted: tuple[bytes, bytes] | None = None
        count = 0
        exhausted: bytes | None = None  # the family whose cell ended the filter
        i = 0
        while i < len(cells):
            cell = cells[i]
            if root.filter_all_remaining():
                break  # DONE_SCAN: nothing more of this row is looked at
            rc = root.filter_cell(cell)
            if rc is ReturnCode.INCLUDE_AND_NEXT_COL:
                results.append(root.transform_cell(cell))
                i = _next_column(cells, i)
            elif rc in (ReturnCode.INCLUDE, ReturnCode.INCLUDE_AND_SEEK_NEXT_ROW):
                column = (cell.family, cell.qualifier)
                count = count + 1 if column == counted else 1
                counted = column
                if self._max_versions is not None and count > self._max_versions:
                    i = _next_column(cells, i)
                else:
                    results.append(root.transform_cell(cell))
                    i += 1
            elif rc is ReturnCode.NEXT_COL:
                i = _next_column(cells, i)
            elif rc is ReturnCode.NEXT_ROW:
                i = _next_family(cells, i)
            elif rc is ReturnCode.SEEK_NEXT_USING_HINT:
                i = self._seek(cells, i)
            else:
                i += 1
            if exhausted is None and root.filter_all_remaining():
                exhausted = cell.family
        if exhausted is not None:
            self._close_from(exhausted, cells, stored)
        return results

    def _meet(self, row: bytes, stored: Collection[bytes]) -> None:
        """Show the row filters a row without a visible cell, as HBase's region scanner does.

        It calls ``filterRowKey`` with the first cell its store heap holds for the row
        (a family whose store an earlier row closed holds none); nothing of the row is
        returned whatever the answer, but the filter may end the scan.
        """
        open_families = sorted(name for name in stored if name not in self._closed)
        root = self._root
        if open_families and not root.filter_all_remaining():
            root.filter_row_key(KeyValue(row, open_families[0], b"", 0, b""))

    def _close_from(self, family: bytes, cells: list[KeyValue], stored: Collection[bytes]) -> None:
        """Close the stores that look at a cell while the filter says the scan is over.

        ``family``'s store looks at its next cell (later in the row, or in a later row
        before the filter is reset) and closes; so does the store of every later family
        with any cell in this row, visible or not. Earlier families had moved past the
        row before the filter ended, and families without a cell in the row are not
        looked at until the filter is reset: both go on.
        """
        self._closed.add(family)
        self._closed.update(kv.family for kv in cells if kv.family > family)
        self._closed.update(name for name in stored if name > family)

    def _seek(self, cells: list[KeyValue], i: int) -> int:
        """Index of the first cell of the same family at or after the root's hint."""
        cell = cells[i]
        hint = self._root.next_cell_hint(cell)
        if hint is None or hint <= cell.position() or self._root.reversed_scan:
            # A reversed store scanner only follows hints that lie behind it.
            return i + 1
        j = i + 1
        while j < len(cells) and cells[j].family == cell.family and cells[j].position() < hint:
            j += 1
        return j

    def _finish_row(self, results: list[KeyValue]) -> list[KeyValue] | None:
        """``filterRowCells`` and ``filterRow``, as ``RegionScannerImpl`` calls them."""
        root = self._root
        if not results:
            return None
        if root.has_filter_row():
            root.filter_row_cells(results)
            if not results or root.filter_row():
                return None
        elif root.filter_row():
            return None
        return results


def _next_column(cells: list[KeyValue], i: int) -> int:
    column = (cells[i].family, cells[i].qualifier)
    j = i + 1
    while j < len(cells) and (cells[j].family, cells[j].qualifier) == column:
        j += 1
    return j


def _next_family(cells: list[KeyValue], i: int) -> int:
    family = cells[i].family
    j = i + 1
    while j < len(cells) and cells[j].family == family:
        j += 1
    return j


def _regroup(columns: Sequence[tuple[bytes, Sequence[Cell]]], kept: list[KeyValue]) -> Columns:
    """The kept cells as ``(column, versions newest first)`` in the caller's column order."""
    by_column: dict[tuple[bytes, bytes], list[Cell]] = {}
    for kv in kept:
        by_column.setdefault((kv.family, kv.qualifier), []).append(Cell(kv.value, kv.timestamp))
    result: Columns = []
    for column, _versions in columns:
        family, qualifier = split_column(column)
        versions = by_column.get((family, qualifier or b""))
        if versions:
            result.append((column, versions))
    return result
