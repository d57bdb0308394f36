"""Bad arguments raise typed errors naming what was wrong, and change nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hmodel.backend.base import Delete, Increment, Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.errors import ColumnFamilyNotFoundError, CounterError, IllegalArgumentError
from hmodel.schema import Family, Table

#: Values of the wrong type, typed Any so the calls type-check.
BAD: Any = "not bytes"
BAD_FILTER: Any = 42
BAD_TABLE: Any = b"t"
BAD_BYTES: Any = bytearray(b"v")
BAD_STAMP: Any = "1"


@pytest.fixture
def engine_t(engine: MemoryBackend) -> MemoryBackend:
    """The engine with table t, family f."""
    engine.create_table(Table("t", [Family("f")]))
    return engine


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda e: e.get("t", [BAD]), "rows"),
        (lambda e: e.get("t", b"row"), "rows"),
        (lambda e: e.get("t", [b"r"], columns=[BAD]), "column"),
        (lambda e: e.get("t", [b"r"], columns=b"f"), "columns"),
        (lambda e: e.get("t", [b"r"], before=-1), "before"),
        (lambda e: e.get_versions("t", b"r", b"f:q", max_versions=0), "max_versions"),
        (lambda e: e.mutate("t", [Put(BAD, b"f:q", b"v")]), "row"),
        (lambda e: e.mutate("t", [Put(b"r", BAD, b"v")]), "column"),
        (lambda e: e.mutate("t", [Put(b"r", b"f:q", BAD)]), "value"),
        (lambda e: e.mutate("t", [Put(b"r", b"f:q", BAD_BYTES)]), "value"),
        (lambda e: e.mutate("t", [Put(b"r", b"f:q", b"v", timestamp=-1)]), "timestamp"),
        (lambda e: e.mutate("t", [Put(b"r", b"f:q", b"v", timestamp=True)]), "timestamp"),
        (lambda e: e.mutate("t", [Put(b"r", b"f:q", b"v", ttl=-5)]), "ttl"),
        (lambda e: e.mutate("t", [Delete(b"r", timestamp=BAD_STAMP)]), "timestamp"),
        (lambda e: e.mutate("t", Put(b"r", b"f:q", b"v")), "mutations"),
        (lambda e: e.increment("t", b"r", b"f:n", 2**63), "amount"),
        (lambda e: e.increment("t", b"r", b"f:n", True), "amount"),
        (lambda e: e.increment_many("t", [Increment(b"r", b"f:n", BAD)]), "amount"),
        (lambda e: e.check_and_put("t", b"r", b"f:q", BAD, Put(b"r", b"f:q", b"v")), "expected"),
        (lambda e: e.append("t", b"r", {b"f:q": BAD}), "value"),
        (lambda e: e.scan("t", Scan(start=BAD)), "start"),
        (lambda e: e.scan("t", Scan(filter=BAD_FILTER)), "filter"),
        (lambda e: e.get(BAD_TABLE, [b"r"]), "table"),
    ],
)
def test_bad_arguments_raise_illegal_argument_naming_them(
    engine_t: MemoryBackend, call: Callable[[MemoryBackend], object], argument: str
) -> None:
    """Each wrong type or range raises IllegalArgumentError whose field names the argument."""
    with pytest.raises(IllegalArgumentError) as caught:
        call(engine_t)
    assert caught.value.field == argument
    assert argument in str(caught.value)


@pytest.mark.parametrize("row", [b"", b"x" * 32_768])
def test_rowkeys_must_be_1_to_32767_bytes(engine_t: MemoryBackend, row: bytes) -> None:
    """HBase refuses empty rowkeys and rowkeys longer than Short.MAX_VALUE."""
    with pytest.raises(IllegalArgumentError):
        engine_t.mutate("t", [Put(row, b"f:q", b"v")])
    engine_t.mutate("t", [Put(b"x" * 32_767, b"f:q", b"v")])


def test_a_put_to_a_bare_family_is_refused(engine_t: MemoryBackend) -> None:
    """The column of a put is b"f:q"; b"f" alone names the family."""
    with pytest.raises(IllegalArgumentError) as caught:
        engine_t.mutate("t", [Put(b"r", b"f", b"v")])
    assert caught.value.column == b"f"


def test_get_versions_of_a_bare_family_is_refused(engine_t: MemoryBackend) -> None:
    """get_versions reads one cell."""
    with pytest.raises(IllegalArgumentError):
        engine_t.get_versions("t", b"r", b"f", max_versions=1)


def test_an_unknown_family_names_table_and_column(engine_t: MemoryBackend) -> None:
    """ColumnFamilyNotFoundError carries table= and column=."""
    with pytest.raises(ColumnFamilyNotFoundError) as caught:
        engine_t.mutate("t", [Put(b"r", b"zz:q", b"v")])
    assert (caught.value.table, caught.value.column) == ("t", b"zz:q")


def test_a_bad_mutation_anywhere_in_the_call_applies_nothing(engine_t: MemoryBackend) -> None:
    """Validation precedes application: a bad delete after good puts leaves the table empty."""
    with pytest.raises(IllegalArgumentError):
        engine_t.mutate("t", [Put(b"r", b"f:q", b"v"), Delete(b"r", timestamp=-3)])
    with pytest.raises(IllegalArgumentError):
        engine_t.mutate("t", [Put(b"r", b"f:q", b"v"), "junk"])  # type: ignore[list-item]
    assert engine_t.raw("t", b"r") == []


def test_increment_of_a_non_long_names_its_width(engine_t: MemoryBackend) -> None:
    """The message says how wide the field is, like HBase's."""
    engine_t.mutate("t", [Put(b"r", b"f:n", b"abc")])
    with pytest.raises(CounterError, match="3 bytes wide"):
        engine_t.increment("t", b"r", b"f:n")


def test_a_counter_that_would_overflow_is_refused(engine_t: MemoryBackend) -> None:
    """Beyond 2**63 - 1 the engine raises instead of wrapping; the cell keeps its value."""
    assert engine_t.increment("t", b"r", b"f:n", 2**63 - 1) == 2**63 - 1
    with pytest.raises(CounterError):
        engine_t.increment("t", b"r", b"f:n")
    assert engine_t.increment("t", b"r", b"f:n", -(2**63 - 1)) == 0
    assert engine_t.increment("t", b"r", b"f:n", -(2**63)) == -(2**63)
    with pytest.raises(CounterError):
        engine_t.increment("t", b"r", b"f:n", -1)


def test_increment_many_stops_at_a_failing_counter(engine_t: MemoryBackend) -> None:
    """Each increment is atomic on its own: those before the failure stay applied."""
    engine_t.mutate("t", [Put(b"bad", b"f:n", b"xy")])
    with pytest.raises(CounterError):
        engine_t.increment_many(
            "t", [Increment(b"a", b"f:n"), Increment(b"bad", b"f:n"), Increment(b"c", b"f:n")]
        )
    assert [r.row for r in engine_t.get("t", [b"a", b"c"])] == [b"a"]


def test_check_and_delete_on_another_row_is_refused(engine_t: MemoryBackend) -> None:
    """The delete must be on the checked row."""
    with pytest.raises(IllegalArgumentError):
        engine_t.check_and_delete("t", b"r", b"f:q", None, Delete(b"other"))
