"""Scan plans: a reverse plan with a filter needs every family (HBase refuses on-demand ones)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import attrs
import pytest

from hmodel import Key, ReverseTimestamp, Salt, Str, Table, field, model
from hmodel.backend.base import RowResult, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.memory.filter import compile_filter
from hmodel.errors import ConnectionLostError
from hmodel.repository import Repository
from hmodel.repository.plan import EVERY_FAMILY, KeySpan, ScanPlan
from hmodel.schema import Family
from hmodel.testing.fault import FaultyBackend

CONDITION = b"SingleColumnValueFilter('a', 'c', =, 'binary:Paris', true, true)"
SPANS = (KeySpan(b"", b""),)


def test_a_reverse_plan_adds_a_filter_that_needs_every_family() -> None:
    plan = ScanPlan("t", SPANS, filter=CONDITION, reverse=True)
    assert plan.filter == b"(" + CONDITION + b") AND " + EVERY_FAMILY
    assert compile_filter(plan.filter).on_demand([b"a", b"b", b"c"]) == []
    assert compile_filter(CONDITION).on_demand([b"a", b"b", b"c"]) == [b"b", b"c"]


def test_forward_plans_and_plans_without_a_filter_are_sent_as_given() -> None:
    assert ScanPlan("t", SPANS, filter=CONDITION).filter == CONDITION
    assert ScanPlan("t", SPANS, reverse=True).filter is None


def test_rebuilding_a_reverse_plan_does_not_add_the_filter_twice() -> None:
    plan = ScanPlan("t", SPANS, filter=CONDITION, reverse=True)
    assert attrs.evolve(plan).filter == plan.filter
    assert attrs.evolve(plan, table="u").fingerprint() != plan.fingerprint()


@model(
    Table("salted_open", [Family("p")]),
    key=Key(Salt("user", buckets=4), Str("user"), ReverseTimestamp("ts")),
)
class Point:
    user: str
    ts: dt.datetime
    value: int = field("p:v")


class _Tracked(MemoryBackend):
    """The engine, each scan's rows wrapped to record when they are closed."""

    def __init__(self) -> None:
        super().__init__()
        self.closed = 0

    def scan(self, table: str, scan: Scan) -> Iterator[RowResult]:
        return _Rows(self, super().scan(table, scan))


class _Rows:
    def __init__(self, owner: _Tracked, rows: Iterator[RowResult]) -> None:
        self.owner, self.rows = owner, rows

    def __iter__(self) -> _Rows:
        return self

    def __next__(self) -> RowResult:
        return next(self.rows)

    def close(self) -> None:
        self.owner.closed += 1


def test_a_scan_that_fails_to_open_closes_the_spans_already_open() -> None:
    """A salted read opens one scan per bucket; if one cannot open, the others are closed."""
    tracked = _Tracked()
    faulty = FaultyBackend(tracked)
    repo: Repository[Point] = Repository(Point, faulty)
    repo.create_table()
    faulty.on("scan", nth=3, fail=ConnectionLostError("dropped"))
    with pytest.raises(ConnectionLostError):
        list(repo.scan())
    assert tracked.closed == 2  # the two scans opened before the third failed
    faulty.on("scan", nth=2, fail=ConnectionLostError("dropped"))
    with pytest.raises(ConnectionLostError):
        next(iter(repo.pages(10)))
    assert tracked.closed == 3
