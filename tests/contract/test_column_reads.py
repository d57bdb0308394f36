"""Contract: a read of single columns returns exactly those, whatever else the family holds.

The Thrift1 backend sends such reads as reads of the families and keeps the columns
asked for (``family_reads``, docs/thrift.md); this suite holds every backend to the
result of naming the columns: the other cells of the family are absent, a row holding
none of the columns is absent, and a scan's limit counts only the rows returned.
"""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Put, Scan

#: Rows ``a`` .. ``h``: ``b``, ``d`` and ``f`` hold only cells the reads do not ask for.
_ROWS = {
    b"a": {b"i:x": b"ax", b"i:y": b"ay", b"i:z": b"az"},
    b"b": {b"i:xx": b"bxx", b"i:w": b"bw"},
    b"c": {b"i:x": b"cx"},
    b"d": {b"i:": b"d-empty-qualifier", b"d:x": b"d-other-family"},
    b"e": {b"i:y": b"ey", b"i:yy": b"eyy", b"d:y": b"e-other-family"},
    b"f": {b"i:z": b"fz"},
    b"g": {b"i:x": b"gx", b"i:y": b"gy"},
    b"h": {b"i:y": b"hy", b"i:x\x00": b"h-nul"},
}

#: What a read of ``i:x`` and ``i:y`` returns: the other rows hold neither.
_WANTED = {
    b"a": {b"i:x": b"ax", b"i:y": b"ay"},
    b"c": {b"i:x": b"cx"},
    b"e": {b"i:y": b"ey"},
    b"g": {b"i:x": b"gx", b"i:y": b"gy"},
    b"h": {b"i:y": b"hy"},
}

_COLUMNS = (b"i:x", b"i:y")


@pytest.fixture
def filled(backend: Backend, table: str) -> str:
    backend.mutate(
        table,
        [
            Put(row, column, value, timestamp=10)
            for row, cells in _ROWS.items()
            for column, value in cells.items()
        ],
    )
    return table


def _values(results: list) -> dict[bytes, dict[bytes, bytes]]:  # type: ignore[type-arg]
    return {r.row: {c: cell.value for c, cell in r.cells.items()} for r in results}


def test_get_of_columns_returns_only_them_and_leaves_out_rows_with_none(
    backend: Backend, filled: str
) -> None:
    """R2 projection: cells of other qualifiers and families never come back."""
    rows = [*_ROWS, b"missing"]
    results = backend.get(filled, rows, columns=_COLUMNS)
    assert [r.row for r in results] == list(_WANTED)
    assert _values(results) == _WANTED
    assert [list(r.cells) for r in results] == [list(cells) for cells in _WANTED.values()]
    assert backend.get(filled, [b"b", b"d", b"f"], columns=_COLUMNS) == []
    [one] = backend.get(filled, [b"e"], columns=list(_COLUMNS))
    assert _values([one]) == {b"e": {b"i:y": b"ey"}}


def test_get_of_columns_in_two_families(backend: Backend, filled: str) -> None:
    """A column of another family is kept only where named."""
    results = backend.get(filled, list(_ROWS), columns=[b"i:y", b"d:y"])
    assert _values(results) == {
        b"a": {b"i:y": b"ay"},
        b"e": {b"d:y": b"e-other-family", b"i:y": b"ey"},
        b"g": {b"i:y": b"gy"},
        b"h": {b"i:y": b"hy"},
    }


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
def test_scan_of_columns_returns_only_them(backend: Backend, filled: str, reverse: bool) -> None:
    """The rows holding none of the columns are skipped in both directions."""
    results = list(backend.scan(filled, Scan(columns=_COLUMNS, reverse=reverse, batch_size=2)))
    expected = list(_WANTED)[::-1] if reverse else list(_WANTED)
    assert [r.row for r in results] == expected
    assert _values(results) == _WANTED


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
@pytest.mark.parametrize("limit", [1, 2, 3, 4, 5, 6])
def test_scan_limit_counts_only_rows_returned(
    backend: Backend, filled: str, reverse: bool, limit: int
) -> None:
    """A limit of n gives the first n rows holding a column, past rows holding none."""
    results = list(
        backend.scan(filled, Scan(columns=_COLUMNS, reverse=reverse, limit=limit, batch_size=1))
    )
    expected = list(_WANTED)[::-1] if reverse else list(_WANTED)
    assert [r.row for r in results] == expected[:limit]


def test_scan_of_columns_with_a_filter_sees_only_those_columns(
    backend: Backend, filled: str
) -> None:
    """The filter runs on the named columns' cells: ``i:z`` is not among them."""
    scan = Scan(columns=_COLUMNS, filter="QualifierFilter(=,'binary:z')")
    assert list(backend.scan(filled, scan)) == []
    scan = Scan(columns=_COLUMNS, filter="ValueFilter(=,'binary:gy')")
    assert _values(list(backend.scan(filled, scan))) == {b"g": {b"i:y": b"gy"}}


def test_scan_with_bounds_of_columns(backend: Backend, filled: str) -> None:
    """Bounds are ``[start, stop)`` as ever; rows holding none inside them are skipped."""
    results = list(backend.scan(filled, Scan(start=b"b", stop=b"g", columns=_COLUMNS)))
    assert [r.row for r in results] == [b"c", b"e"]
