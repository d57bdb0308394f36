"""Contract gaps: bad arguments to reads and counters raise IllegalArgumentError everywhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hmodel.backend.base import Backend, Increment, Scan
from hmodel.errors import IllegalArgumentError

TABLE = "contract"  # the name the `table` fixture creates

#: Calls with an empty rowkey or a negative ``before`` (a timestamp is never negative).
BAD_CALLS: dict[str, Callable[[Backend], Any]] = {
    "get empty row": lambda b: b.get(TABLE, [b""]),
    "get_versions empty row": lambda b: b.get_versions(TABLE, b"", b"i:a", max_versions=1),
    "increment_many empty row": lambda b: b.increment_many(TABLE, [Increment(b"", b"d:c")]),
    "append empty row": lambda b: b.append(TABLE, b"", {b"i:a": b"x"}),
    "get negative before": lambda b: b.get(TABLE, [b"r"], before=-1),
    "get_versions negative before": lambda b: b.get_versions(
        TABLE, b"r", b"i:a", max_versions=1, before=-1
    ),
    "scan negative before": lambda b: list(b.scan(TABLE, Scan(before=-1))),
}


@pytest.mark.parametrize("call", BAD_CALLS.values(), ids=list(BAD_CALLS))
def test_an_empty_row_or_a_negative_before_is_an_illegal_argument(
    backend: Backend, table: str, call: Callable[[Backend], Any]
) -> None:
    """Every backend names the bad argument with IllegalArgumentError, not a bare BackendError."""
    with pytest.raises(IllegalArgumentError):
        call(backend)
