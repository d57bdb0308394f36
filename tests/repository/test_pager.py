"""``Pager.add_decoded`` (a decoded chunk at once) is ``Pager.add`` row by row (R8, issue 29)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel.backend.base import RowResult
from hmodel.repository.page import Position
from hmodel.repository.pager import Pager, RawPage

#: A chunk's rows: (span index, item or None for a skipped row).
ROWS = st.lists(st.tuples(st.integers(0, 2), st.one_of(st.none(), st.integers(0, 99))))
CHUNKS = st.lists(st.integers(0, 6), max_size=8)


def _rows(drawn: list[tuple[int, int | None]]) -> list[tuple[tuple[int, RowResult], Any]]:
    return [
        ((span, RowResult(f"r{n:03}".encode(), {})), item) for n, (span, item) in enumerate(drawn)
    ]


def _seen(page: RawPage[Any]) -> tuple[Any, ...]:
    positions = None if page.positions is None else [(p.last_row, p.done) for p in page.positions]
    return tuple(page.items), positions


def _never(result: RowResult) -> Any:
    raise AssertionError("add_decoded and add with an item never decode")


@settings(max_examples=200, deadline=None)
@given(drawn=ROWS, cuts=CHUNKS, size=st.integers(1, 4))
def test_a_chunk_added_at_once_makes_the_pages_of_its_rows_added_one_by_one(
    drawn: list[tuple[int, int | None]], cuts: list[int], size: int
) -> None:
    rows = _rows(drawn)
    start = [Position(), Position(b"r", False), Position()]
    one, many = Pager(start, size, _never), Pager(start, size, _never)
    want = []
    for (index, result), item in rows:
        page = one.add(index, result, item)
        if page is not None:
            want.append(_seen(page))
    got: list[Any] = []
    at = 0
    for cut in [*cuts, len(rows)]:  # chunks of the drawn sizes, then the rest
        chunk = rows[at : at + cut]
        at += len(chunk)
        pages = many.add_decoded([pair for pair, _ in chunk], [item for _, item in chunk])
        got.extend(_seen(page) for page in pages)
    assert got == want
    assert _seen(many.end()) == _seen(one.end())
