"""The version rules of the engine, on their own: insertion, deletion horizon, visibility."""

from __future__ import annotations

from hmodel.backend.base import Cell
from hmodel.backend.memory.version import (
    Stored,
    Version,
    as_cell,
    deletion_horizon,
    insert_version,
    make_version,
    ttl_of,
    visible_versions,
)
from hmodel.schema import Family


def _stamps(versions: list[Stored]) -> list[int]:
    return [v.timestamp for v in versions]


def test_insert_keeps_newest_first_and_at_most_keep() -> None:
    """Out-of-order inserts end up sorted; the oldest beyond keep are dropped."""
    versions: list[Stored] = []
    for stamp in (5, 9, 1, 7):
        insert_version(versions, make_version(stamp, b"v"), keep=3)
    assert _stamps(versions) == [9, 7, 5]


def test_insert_of_an_existing_timestamp_replaces_it() -> None:
    """The later write of a timestamp wins."""
    versions: list[Stored] = [make_version(2, b"old")]
    insert_version(versions, make_version(2, b"new"), keep=3)
    assert versions == [Cell(b"new", 2)]


def test_the_horizon_is_the_newest_marker_honoured() -> None:
    """Without KEEP_DELETED_CELLS every marker counts; with it, only markers < before."""
    plain, keep = Family("f"), Family("f", keep_deleted_cells=True)
    assert deletion_horizon([3, 11], family=plain, before=5) == 11
    assert deletion_horizon([3, 11], family=keep, before=5) == 3
    assert deletion_horizon([3, 11], family=keep, before=None) == 11
    assert deletion_horizon([], family=plain, before=None) == -1


def test_visibility_applies_before_horizon_and_ttls_in_order() -> None:
    """before skips newer versions, the horizon cuts older ones, TTLs drop expired ones."""
    family = Family("f", versions=9, min_versions=1, ttl=1)
    versions = [make_version(5_000, b"a", ttl=10), make_version(3_000, b"b"), Cell(b"c", 2_500)]
    seen = visible_versions(versions, family, horizon=2_000, before=None, now=5_011)
    # 5000 is past its cell TTL; 3000 is past the family TTL but is the one MIN_VERSION.
    assert _stamps(seen) == [3_000]
    assert _stamps(visible_versions(versions, family, horizon=2_600, before=4_000, now=0)) == [
        3_000
    ]


def test_a_version_without_ttl_is_the_cell_a_read_returns() -> None:
    """No per-cell TTL: the stored object is the protocol's Cell, handed out as it is."""
    plain = make_version(7, b"v")
    assert type(plain) is Cell and as_cell(plain) is plain and ttl_of(plain) is None
    tagged = make_version(7, b"v", ttl=5)
    assert tagged == Version(7, b"v", 5) and ttl_of(tagged) == 5
    assert as_cell(tagged) == Cell(b"v", 7)
