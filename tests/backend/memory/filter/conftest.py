"""Helpers for the filter-language tests: tiny tables and a scan loop like the engine's (I4)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

from hmodel.backend.base import Cell
from hmodel.backend.memory.filter import compile_filter

#: A table as the tests write it: row -> column -> value (one version at ts 1) or
#: ``[(timestamp, value), ...]`` (any order).
Table = Mapping[bytes, Mapping[bytes, bytes | list[tuple[int, bytes]]]]
#: A scan result: row -> column -> values, newest first.
Result = dict[bytes, dict[bytes, list[bytes]]]
Scan = Callable[..., Result]


def columns_of(
    spec: Mapping[bytes, bytes | list[tuple[int, bytes]]],
) -> list[tuple[bytes, list[Cell]]]:
    """The engine's view of one row: sorted columns, versions newest first."""
    result = []
    for column in sorted(spec):
        versions = spec[column]
        pairs = [(1, versions)] if isinstance(versions, bytes) else versions
        cells = [Cell(value, ts) for ts, value in sorted(pairs, reverse=True)]
        result.append((column, cells))
    return result


def run_scan(
    text: str | bytes,
    table: Table,
    *,
    max_versions: int | None = None,
    reverse: bool = False,
) -> Result:
    """Scan ``table`` (all rows, in key order) with the filter, as the engine would."""
    run = compile_filter(text).start(max_versions=max_versions, reverse=reverse)
    result: Result = {}
    for row in sorted(table, reverse=reverse):
        verdict = run.apply(row, columns_of(table[row]))
        if verdict.columns is not None:
            result[row] = {
                column: [cell.value for cell in cells] for column, cells in verdict.columns
            }
        if verdict.done:
            break
    return result


@pytest.fixture
def scan() -> Scan:
    """``scan(filter_text, table, max_versions=None, reverse=False) -> {row: {col: [values]}}``."""
    return run_scan
