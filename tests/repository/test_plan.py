"""Scan plans: a reverse plan with a filter needs every family (HBase refuses on-demand ones)."""

from __future__ import annotations

import attrs

from hmodel.backend.memory.filter import compile_filter
from hmodel.repository.plan import EVERY_FAMILY, KeySpan, ScanPlan

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
