"""Contract gaps: administration details and every call on a missing table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hmodel.backend.base import Backend, Delete, Increment, Put, Scan
from hmodel.errors import TableNotFoundError
from hmodel.schema import BloomFilter, Compression, Family, Table

MISSING = "missing"

#: Every data and admin call that names a table, with arguments that are fine otherwise.
CALLS: dict[str, Callable[[Backend], Any]] = {
    "describe_families": lambda b: b.describe_families(MISSING),
    "regions": lambda b: b.regions(MISSING),
    "get": lambda b: b.get(MISSING, [b"r"], columns=[b"f:q"], before=5),
    "get_versions": lambda b: b.get_versions(MISSING, b"r", b"f:q", max_versions=2),
    "scan": lambda b: list(
        b.scan(MISSING, Scan(start=b"a", reverse=True, filter="KeyOnlyFilter()"))
    ),
    "mutate put": lambda b: b.mutate(MISSING, [Put(b"r", b"f:q", b"v", timestamp=1)]),
    "mutate row delete": lambda b: b.mutate(MISSING, [Delete(b"r")]),
    "increment": lambda b: b.increment(MISSING, b"r", b"f:c"),
    "increment_many": lambda b: b.increment_many(MISSING, [Increment(b"r", b"f:c")]),
    "check_and_put": lambda b: b.check_and_put(
        MISSING, b"r", b"f:q", None, Put(b"r", b"f:q", b"v")
    ),
    "append": lambda b: b.append(MISSING, b"r", {b"f:q": b"v"}),
}


@pytest.mark.parametrize("call", CALLS.values(), ids=list(CALLS))
def test_every_call_on_a_missing_table_raises_table_not_found(
    backend: Backend, call: Callable[[Backend], Any]
) -> None:
    """Reads, writes, counters, check-and-put, append and admin reads all say the table is gone."""
    with pytest.raises(TableNotFoundError):
        call(backend)


def test_describe_families_reports_the_options_thrift1_carries(backend: Backend) -> None:
    """COMPRESSION, BLOOMFILTER and BLOCKCACHE come back as declared, like VERSIONS and TTL (F3)."""
    declared = Family(
        "c", compression=Compression.GZ, bloom_filter=BloomFilter.ROWCOL, block_cache=False
    )
    backend.create_table(Table("options", [declared, Family("p")]))
    families = backend.describe_families("options")
    described = families["c"]
    assert (described.compression, described.bloom_filter, described.block_cache) == (
        Compression.GZ,
        BloomFilter.ROWCOL,
        False,
    )
    assert families["p"].block_cache


def test_a_deleted_table_is_no_longer_listed(backend: Backend) -> None:
    """list_tables and table_exists forget a table once it is deleted."""
    backend.create_table(Table("kept", [Family("f")]))
    backend.create_table(Table("dropped", [Family("f")]))
    backend.delete_table("dropped")
    assert backend.list_tables() == ["kept"]
    assert not backend.table_exists("dropped")
