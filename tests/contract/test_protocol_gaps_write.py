"""Contract gaps: TTLs (F8), server time in mutate, and empty calls."""

from __future__ import annotations

from hmodel.backend.base import Backend, Cell, Delete, Put
from hmodel.schema import Family, Table

#: A timestamp far in the future of any clock (2**62 ms is some 146 million years away).
FUTURE = 2**62


def test_a_cell_past_its_per_cell_ttl_is_not_read(backend: Backend, table: str) -> None:
    """Put.ttl (ms): a cell stamped at 1 with a 1 s TTL expired long ago; without one it stays."""
    backend.mutate(
        table,
        [
            Put(b"r", b"i:gone", b"v", timestamp=1, ttl=1_000),
            Put(b"r", b"i:kept", b"v", timestamp=1),
        ],
    )
    assert list(backend.get(table, [b"r"])[0].cells) == [b"i:kept"]
    assert backend.get_versions(table, b"r", b"i:gone", max_versions=3) == []


def test_a_per_cell_ttl_is_counted_from_the_cell_timestamp(backend: Backend, table: str) -> None:
    """A long TTL keeps a cell visible; the same TTL on an older stamp does not (F8)."""
    backend.mutate(
        table,
        [
            Put(b"r", b"i:a", b"v", timestamp=FUTURE, ttl=60_000),
            Put(b"r", b"i:b", b"v", timestamp=1, ttl=60_000),
        ],
    )
    assert backend.get(table, [b"r"])[0].cells == {b"i:a": Cell(b"v", FUTURE)}


def test_a_cell_past_its_family_ttl_is_not_read(backend: Backend) -> None:
    """Family TTL (s): a cell stamped at 1 in a family with TTL 1 s is expired (F8)."""
    backend.create_table(Table("expiring", [Family("e", ttl=1), Family("p")]))
    backend.mutate(
        "expiring",
        [Put(b"r", b"e:a", b"v", timestamp=1), Put(b"r", b"p:a", b"v", timestamp=1)],
    )
    assert list(backend.get("expiring", [b"r"])[0].cells) == [b"p:a"]


def test_a_delete_without_timestamp_spares_cells_stamped_in_the_future(
    backend: Backend, table: str
) -> None:
    """A delete "now" masks versions up to now; one stamped later survives it."""
    backend.mutate(
        table,
        [Put(b"r", b"i:a", b"past", timestamp=1), Put(b"r", b"i:a", b"future", timestamp=FUTURE)],
    )
    backend.mutate(table, [Delete(b"r", b"i:a"), Delete(b"r")])
    assert backend.get_versions(table, b"r", b"i:a", max_versions=3) == [Cell(b"future", FUTURE)]


def test_a_put_and_a_delete_without_timestamps_in_one_call_leave_the_cell_deleted(
    backend: Backend, table: str
) -> None:
    """Both take the server's time and the put goes first, so the delete masks it."""
    backend.mutate(table, [Delete(b"r", b"i:a"), Put(b"r", b"i:a", b"v")])
    assert backend.get(table, [b"r"]) == []


def test_puts_with_and_without_timestamps_in_one_call_all_land(
    backend: Backend, table: str
) -> None:
    """Several (timestamp, ttl) pairs in one mutate: every put is applied."""
    backend.mutate(
        table,
        [
            Put(b"r", b"i:a", b"1", timestamp=5),
            Put(b"r", b"i:b", b"2"),
            Put(b"s", b"i:a", b"3", timestamp=5, ttl=FUTURE),
            Put(b"s", b"d:x", b"4", timestamp=6),
        ],
    )
    assert [sorted(r.cells) for r in backend.get(table, [b"r", b"s"])] == [
        [b"i:a", b"i:b"],
        [b"d:x", b"i:a"],
    ]


def test_an_empty_mutate_changes_nothing(backend: Backend, table: str) -> None:
    """mutate with no mutations succeeds and writes nothing."""
    backend.mutate(table, [])
    backend.increment_many(table, [])
    assert backend.append(table, b"r", {}) == {}
    assert backend.get(table, [b"r"]) == []
