"""Contract: table administration (create, delete, list, describe, regions)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from hmodel.backend.base import Backend, Delete, Put, Region
from hmodel.errors import TableExistsError, TableNotFoundError
from hmodel.schema import Family, Table


def test_created_tables_exist_and_are_listed_sorted(backend: Backend) -> None:
    """list_tables names every table once, in sorted order."""
    for name in ("zeta", "alpha", "mid"):
        backend.create_table(Table(name, [Family("f")]))
    assert backend.table_exists("alpha")
    assert not backend.table_exists("nope")
    assert backend.list_tables() == ["alpha", "mid", "zeta"]


def test_creating_an_existing_table_raises_table_exists(backend: Backend) -> None:
    """HBase's TableExistsException becomes TableExistsError naming the table."""
    backend.create_table(Table("twice", [Family("f")]))
    with pytest.raises(TableExistsError) as caught:
        backend.create_table(Table("twice", [Family("g")]))
    assert caught.value.table == "twice"


def test_deleted_table_is_gone_with_its_rows(backend: Backend) -> None:
    """delete_table removes the table; creating it again starts empty."""
    backend.create_table(Table("gone", [Family("f")]))
    backend.mutate("gone", [Put(b"r", b"f:q", b"v", timestamp=1)])
    backend.delete_table("gone")
    assert not backend.table_exists("gone")
    backend.create_table(Table("gone", [Family("f")]))
    assert backend.get("gone", [b"r"]) == []


def test_deleting_a_missing_table_raises_table_not_found(backend: Backend) -> None:
    """TableNotFoundError carries the table name."""
    with pytest.raises(TableNotFoundError) as caught:
        backend.delete_table("missing")
    assert caught.value.table == "missing"


def test_reading_a_missing_table_raises_table_not_found(backend: Backend) -> None:
    """Every data call on an unknown table raises TableNotFoundError."""
    with pytest.raises(TableNotFoundError):
        backend.get("missing", [b"r"])


def test_writing_into_a_missing_table_raises_table_not_found(backend: Backend) -> None:
    """Puts and deletes into an unknown table raise TableNotFoundError naming it.

    HBase 2.2 answers a put with ``RetriesExhaustedWithDetailsException: Failed 1 action:
    <table>: 1 time, servers with issues: null`` and a delete with TableNotFoundException.
    """
    for mutations in (
        [Put(b"r", b"f:q", b"v")],
        [Put(b"r", b"f:q", b"v"), Put(b"s", b"f:q", b"v", timestamp=5)],
        [Delete(b"r", b"f:q")],
    ):
        with pytest.raises(TableNotFoundError) as caught:
            backend.mutate("missing", mutations)
        assert caught.value.table == "missing"


def test_describe_families_reports_versions_and_ttl(backend: Backend) -> None:
    """The options every backend can see (VERSIONS, TTL, IN_MEMORY) come back as declared (F3)."""
    backend.create_table(
        Table("described", [Family("a", versions=5, ttl=3600, in_memory=True), Family("b")])
    )
    families = backend.describe_families("described")
    assert sorted(families) == ["a", "b"]
    assert (families["a"].versions, families["a"].ttl, families["a"].in_memory) == (5, 3600, True)
    assert families["b"].versions == 1
    assert not families["b"].has_ttl


def test_regions_follow_the_split_points(
    backend: Backend, create_or_skip: Callable[[Table], str]
) -> None:
    """n split points give n + 1 regions covering the whole key space (K11)."""
    create_or_skip(Table("split", [Family("f")], splits=[b"g", b"p"]))
    assert backend.regions("split") == [
        Region(b"", b"g"),
        Region(b"g", b"p"),
        Region(b"p", b""),
    ]


def test_an_unsplit_table_is_one_region(backend: Backend) -> None:
    """Without split points the table is a single region from b"" to b""."""
    backend.create_table(Table("whole", [Family("f")]))
    assert backend.regions("whole") == [Region(b"", b"")]
