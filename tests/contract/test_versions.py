"""Contract: cell versions, VERSIONS pruning and KEEP_DELETED_CELLS (F7, F9)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from hmodel.backend.base import Backend, Cell, Delete, Put, Scan
from hmodel.clock import system_clock
from hmodel.errors import IllegalArgumentError
from hmodel.schema import Family, Table


def _stamps(cells: list[Cell]) -> list[int]:
    return [cell.timestamp for cell in cells]


def test_get_versions_returns_versions_newest_first(backend: Backend, table: str) -> None:
    """Versions written out of timestamp order still read newest first."""
    for stamp in (20, 10, 30):
        backend.mutate(table, [Put(b"r", b"i:a", b"v%d" % stamp, timestamp=stamp)])
    cells = backend.get_versions(table, b"r", b"i:a", max_versions=10)
    assert cells == [Cell(b"v30", 30), Cell(b"v20", 20), Cell(b"v10", 10)]
    assert _stamps(backend.get_versions(table, b"r", b"i:a", max_versions=2)) == [30, 20]


def test_versions_beyond_the_family_versions_are_not_visible(backend: Backend, table: str) -> None:
    """Family i keeps VERSIONS=3: a fourth version pushes the oldest out (F7)."""
    for stamp in (1, 2, 3, 4):
        backend.mutate(table, [Put(b"r", b"i:a", b"v", timestamp=stamp)])
    assert _stamps(backend.get_versions(table, b"r", b"i:a", max_versions=10)) == [4, 3, 2]


def test_default_versions_keeps_one(backend: Backend, table: str) -> None:
    """Family d has HBase's default VERSIONS=1."""
    backend.mutate(table, [Put(b"r", b"d:a", b"old", timestamp=1)])
    backend.mutate(table, [Put(b"r", b"d:a", b"new", timestamp=2)])
    assert backend.get_versions(table, b"r", b"d:a", max_versions=5) == [Cell(b"new", 2)]


def test_an_older_write_does_not_replace_a_newer_version(backend: Backend, table: str) -> None:
    """The latest cell is the one with the highest timestamp, not the last written."""
    backend.mutate(table, [Put(b"r", b"d:a", b"new", timestamp=20)])
    backend.mutate(table, [Put(b"r", b"d:a", b"old", timestamp=10)])
    assert backend.get(table, [b"r"])[0].cells[b"d:a"] == Cell(b"new", 20)


def test_rewriting_the_same_timestamp_keeps_the_later_write(backend: Backend, table: str) -> None:
    """Same row, column and timestamp written twice: the second value wins."""
    backend.mutate(table, [Put(b"r", b"i:a", b"first", timestamp=7)])
    backend.mutate(table, [Put(b"r", b"i:a", b"second", timestamp=7)])
    assert backend.get_versions(table, b"r", b"i:a", max_versions=5) == [Cell(b"second", 7)]


def test_get_versions_before_is_strictly_less_than(backend: Backend, table: str) -> None:
    """before=t excludes the version stamped exactly t."""
    for stamp in (10, 20, 30):
        backend.mutate(table, [Put(b"r", b"i:a", b"v", timestamp=stamp)])
    assert _stamps(backend.get_versions(table, b"r", b"i:a", max_versions=5, before=30)) == [20, 10]
    assert _stamps(backend.get_versions(table, b"r", b"i:a", max_versions=1, before=25)) == [20]
    assert backend.get_versions(table, b"r", b"i:a", max_versions=5, before=10) == []


def test_get_versions_of_a_missing_cell_is_empty(backend: Backend, table: str) -> None:
    """No row, no column: no versions, no error."""
    assert backend.get_versions(table, b"nobody", b"i:a", max_versions=3) == []


def test_get_versions_needs_at_least_one_version(backend: Backend, table: str) -> None:
    """max_versions=0 is refused."""
    with pytest.raises(IllegalArgumentError):
        backend.get_versions(table, b"r", b"i:a", max_versions=0)


# --- seed 001 §42: puts at 10, 12, 14 and a column delete at 11 (F9) -------------------------


def _section_42(
    backend: Backend, create_or_skip: Callable[[Table], str], *, keep_deleted_cells: bool
) -> str:
    name = "kdc" if keep_deleted_cells else "nokdc"
    family = Family("e", versions=2_147_483_647, keep_deleted_cells=keep_deleted_cells)
    create_or_skip(Table(name, [family]))
    for stamp in (10, 12, 14):
        backend.mutate(name, [Put(b"r1", b"e:c1", b"value", timestamp=stamp)])
    backend.mutate(name, [Delete(b"r1", b"e:c1", timestamp=11)])
    return name


def test_section_42_without_keep_deleted_cells_hides_ts_10_forever(
    backend: Backend, create_or_skip: Callable[[Table], str]
) -> None:
    """The delete at 11 masks ts 10 even for reads whose range ends before the delete."""
    name = _section_42(backend, create_or_skip, keep_deleted_cells=False)
    assert _stamps(backend.get_versions(name, b"r1", b"e:c1", max_versions=1000)) == [14, 12]
    for before in (11, 12):
        assert backend.get_versions(name, b"r1", b"e:c1", max_versions=1000, before=before) == []
    assert _stamps(backend.get_versions(name, b"r1", b"e:c1", max_versions=1000, before=13)) == [12]
    assert backend.get(name, [b"r1"], before=11) == []


def test_section_42_with_keep_deleted_cells_time_travel_sees_ts_10(
    backend: Backend, create_or_skip: Callable[[Table], str]
) -> None:
    """KEEP_DELETED_CELLS: a range ending at or before the delete (before=11) still sees ts 10."""
    name = _section_42(backend, create_or_skip, keep_deleted_cells=True)
    assert _stamps(backend.get_versions(name, b"r1", b"e:c1", max_versions=1000)) == [14, 12]
    assert backend.get_versions(name, b"r1", b"e:c1", max_versions=1000, before=11) == [
        Cell(b"value", 10)
    ]
    assert backend.get(name, [b"r1"], before=11)[0].cells[b"e:c1"] == Cell(b"value", 10)
    assert backend.get_versions(name, b"r1", b"e:c1", max_versions=1000, before=12) == []
    assert _stamps(backend.get_versions(name, b"r1", b"e:c1", max_versions=1000, before=13)) == [12]


@pytest.mark.parametrize(
    ("ages", "kept"),
    [
        ([10, 180, 240], [10, 180]),
        ([180, 240], [180]),
        ([10, 20, 180], [10, 20, 180]),
    ],
    ids=["one-live", "none-live", "two-live"],
)
def test_min_versions_shows_the_first_expired_version_past_its_count(
    backend: Backend, create_or_skip: Callable[[Table], str], ages: list[int], kept: list[int]
) -> None:
    """Under a TTL with MIN_VERSIONS 1, a read keeps the versions up to and including the
    first expired one once MIN_VERSIONS are counted (HBase's column tracker includes the
    version that ends the column; 2.6.1 measured). Ages in minutes, TTL one hour."""
    family = Family("e", versions=5, ttl=3600, min_versions=1)
    name = create_or_skip(Table("minimum", [family]))
    now = system_clock()
    backend.mutate(
        name, [Put(b"r", b"e:c", b"%d" % age, timestamp=now - age * 60_000) for age in ages]
    )
    found = backend.get_versions(name, b"r", b"e:c", max_versions=5)
    assert [int(cell.value) for cell in found] == kept


@pytest.mark.parametrize(
    ("columns", "shown"),
    [((), False), ((b"e",), False), ((b"e:c",), True)],
    ids=["every-column", "the-family", "the-column"],
)
def test_min_versions_shows_filters_that_version_only_for_a_column_asked_for_by_name(
    backend: Backend,
    create_or_skip: Callable[[Table], str],
    columns: tuple[bytes, ...],
    shown: bool,
) -> None:
    """Read with its whole family (HBase's wildcard column tracker), a column past its
    MIN_VERSIONS hides its expired versions from a filter; asked for by name (the explicit
    tracker), the first expired one is shown (2.6.1 measured)."""
    family = Family("e", versions=5, ttl=3600, min_versions=1)
    name = create_or_skip(Table("minimum", [family]))
    now = system_clock()
    ages = {b"live": 10, b"e1": 180, b"e2": 240}
    backend.mutate(
        name,
        [Put(b"r", b"e:c", value, timestamp=now - age * 60_000) for value, age in ages.items()],
    )
    found = list(backend.scan(name, Scan(columns=columns, filter="ValueFilter(=, 'binary:e1')")))
    assert [row.cells[b"e:c"].value for row in found] == ([b"e1"] if shown else [])
