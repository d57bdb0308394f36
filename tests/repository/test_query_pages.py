"""Typed queries and streamed pages (issue 10's house; R8, K3, I5)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from hmodel import Family, Int, Key, Salt, Str, Table, field, model, where
from hmodel.backend.base import Backend
from hmodel.errors import QueryError
from hmodel.repository import Query, Repository
from hmodel.schema import SaltSplits

readings = Table("qp_reading", [Family("d")], splits=SaltSplits(4))


@model(readings, key=Key(Salt("device", buckets=4), Str("device"), Int("seq", size=4)))
class Reading:
    device: str
    seq: int
    value: int = field("d:v")


@pytest.fixture
def repo(backend: Backend) -> Iterator[Repository[Reading]]:
    repository = Repository(Reading, backend)
    try:
        backend.create_table(readings)
    except Exception:  # Thrift1 cannot pre-split at creation
        backend.create_table(readings.without_splits())
    repository.save_many(
        [Reading(device=f"d{d}", seq=s, value=d * 100 + s) for d in range(8) for s in range(25)]
    )
    yield repository


def _natural(items: list[Reading]) -> list[tuple[str, int]]:
    return [(r.device, r.seq) for r in items]


def test_a_query_is_a_reusable_value(repo: Repository[Reading]) -> None:
    """The same Query drives scan, page and plan; keywords build the same thing."""
    q = Query({"device": "d3"}, low=5, high=8, high_inclusive=True)
    assert _natural(list(repo.scan(query=q))) == [("d3", s) for s in range(5, 9)]
    assert repo.plan(query=q) == repo.plan({"device": "d3"}, low=5, high=8, high_inclusive=True)
    assert _natural(list(repo.page(2, query=q).items)) == [("d3", 5), ("d3", 6)]
    assert _natural(list(repo.scan(query=q.replace(reverse=True, limit=1)))) == [("d3", 8)]


def test_a_query_and_keywords_together_are_refused(repo: Repository[Reading]) -> None:
    """One way to say what to read, not two."""
    with pytest.raises(QueryError):
        repo.scan(query=Query(), reverse=True)
    with pytest.raises(QueryError):
        Query(limit=-1)
    with pytest.raises(QueryError):
        Query(fields="value")  # type: ignore[arg-type]
    with pytest.raises(QueryError):
        Query(reverse="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("reverse", [False, True])
def test_streamed_pages_cover_the_table_once_in_order(
    repo: Repository[Reading], reverse: bool
) -> None:
    """pages() over 4 salt buckets: every row once, in natural-key order, pages of 30."""
    pages = list(repo.pages(30, reverse=reverse, where=where("value") != -1))
    seen = [r for p in pages for r in p.items]
    expected = sorted(((f"d{d}", s) for d in range(8) for s in range(25)), reverse=reverse)
    assert _natural(seen) == expected
    assert [len(p.items) for p in pages] == [30] * 6 + [20]
    assert pages[-1].next_token is None and all(p.next_token for p in pages[:-1])


def test_a_streamed_page_token_resumes_exactly_after_it(repo: Repository[Reading]) -> None:
    """Each token of a streamed read resumes at the following page, in another call."""
    pages = list(repo.pages(40))
    for before, after in itertools.pairwise(pages):
        resumed = repo.page(40, token=before.next_token)
        assert _natural(list(resumed.items)) == _natural(list(after.items))


def test_pages_open_one_scanner_per_bucket_for_the_whole_read(
    repo: Repository[Reading], backend: Backend
) -> None:
    """200 rows in pages of 10 over 4 buckets: no re-planning or re-opening per page."""
    before = backend.round_trips
    count = sum(len(p.items) for p in repo.pages(10))
    spent = backend.round_trips - before
    assert count == 200
    # Per bucket: an open and one fetch of up to 100 rows (50 rows each), and over Thrift
    # a close: at most 4 x 3, where a page-by-page read costs 20 pages x 4 buckets x 2+.
    assert spent <= 12
