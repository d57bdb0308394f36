"""Arguments of the wrong type are IllegalArgumentErrors on every backend, before any request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hmodel.backend.base import Backend, Increment, Put, Scan
from hmodel.errors import IllegalArgumentError
from hmodel.schema import Family, Table

TABLE = "typed"


@pytest.fixture
def table(backend: Backend) -> str:
    backend.create_table(Table(TABLE, [Family("f")]))
    return TABLE


@pytest.mark.parametrize(
    "make",
    [
        lambda: Scan(limit="3"),
        lambda: Scan(limit=1.5),
        lambda: Scan(batch_size="3"),
        lambda: Scan(before=1.5),
        lambda: Scan(reverse="no"),
        lambda: Scan(limit=True),
    ],
    ids=["limit str", "limit float", "batch str", "before float", "reverse str", "limit bool"],
)
def test_a_scan_with_fields_of_the_wrong_type_cannot_be_made(make: Callable[[], Scan]) -> None:
    with pytest.raises(IllegalArgumentError):
        make()


BAD_CALLS: dict[str, Callable[[Backend], Any]] = {
    "increment by a float": lambda b: b.increment(TABLE, b"r", b"f:c", 1.5),
    "increment by a bool": lambda b: b.increment(TABLE, b"r", b"f:c", True),
    "increment_many of a non-Increment": lambda b: b.increment_many(TABLE, ["x"]),
    "increment_many by a float": lambda b: b.increment_many(TABLE, [Increment(b"r", b"f:c", 0.5)]),
    "check_and_put of a non-Put": lambda b: b.check_and_put(TABLE, b"r", b"f:c", None, "x"),
    "append of a list": lambda b: b.append(TABLE, b"r", [(b"f:c", b"x")]),
    "scan of a non-Scan": lambda b: list(b.scan(TABLE, "x")),
    "put with a str ttl": lambda b: b.mutate(TABLE, [Put(b"r", b"f:c", b"v", ttl="5")]),
    "put with a float timestamp": lambda b: b.mutate(
        TABLE, [Put(b"r", b"f:c", b"v", timestamp=1.5)]
    ),
}


@pytest.mark.parametrize("call", BAD_CALLS.values(), ids=list(BAD_CALLS))
def test_calls_with_arguments_of_the_wrong_type_are_refused(
    backend: Backend, table: str, call: Callable[[Backend], Any]
) -> None:
    with pytest.raises(IllegalArgumentError):
        call(backend)
    assert backend.get(table, [b"r"]) == []


def test_before_may_be_javas_long_max_on_every_backend(backend: Backend, table: str) -> None:
    backend.mutate(table, [Put(b"r", b"f:c", b"v", timestamp=5)])
    assert [r.row for r in backend.get(table, [b"r"], before=2**63 - 1)] == [b"r"]
