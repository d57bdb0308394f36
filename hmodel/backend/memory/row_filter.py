"""The engine's bridge to the HBase filter language of :mod:`hmodel.backend.memory.filter` (I4)."""

from __future__ import annotations

import importlib
from typing import Protocol, cast

from hmodel.backend.memory.table import ColumnHistory
from hmodel.errors import FilterError

__all__ = ["FilterProgram", "FilterRun", "RowVerdict", "compile_scan_filter"]

_FILTER_PACKAGE = "hmodel.backend.memory.filter"


class RowVerdict(Protocol):
    """What a filter decides about one row."""

    @property
    def columns(self) -> ColumnHistory | None:
        """The columns to return (``None``: leave the row out), versions newest first."""
        ...

    @property
    def done(self) -> bool:
        """Whether the scan ends after this row (``PageFilter``, ``WhileMatchFilter``...)."""
        ...


class FilterRun(Protocol):
    """A compiled filter's state during one scan (page counts and the like)."""

    def apply(self, row: bytes, columns: ColumnHistory) -> RowVerdict:
        """Judge ``row`` given its visible columns, each with all visible versions."""
        ...


class FilterProgram(Protocol):
    """A compiled filter string; :meth:`start` gives fresh state for each scan."""

    def start(self) -> FilterRun:
        """Begin a scan."""
        ...


def compile_scan_filter(text: str | bytes) -> FilterProgram:
    """Compile ``Scan.filter`` with the engine's filter package.

    Raises:
        FilterError: The text does not parse or names an unsupported filter (raised by the
            filter package), or the filter package is not available.
    """
    try:
        package = importlib.import_module(_FILTER_PACKAGE)
    except ModuleNotFoundError as exc:
        if exc.name != _FILTER_PACKAGE:
            raise
        raise FilterError(
            "the memory engine's filter package is not available", value=text
        ) from exc
    return cast(FilterProgram, package.compile_filter(text))
