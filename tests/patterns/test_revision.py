"""The revision table: phases in order, check-and-put between runners, pending revisions."""

from __future__ import annotations

import pytest

from examples.ecommerce.migrations import BUYERS_SALT16, ORDERS_SALT16
from hmodel.backend.base import Backend
from hmodel.clock import ManualClock
from hmodel.errors import ConflictError, DeclarationError, ValidationError
from hmodel.patterns import PHASES, DataMigration, RevisionTable
from hmodel.patterns.revision import ordered_revisions
from tests.patterns.test_migration_interleavings import NewItem, OldItem, to_new


def test_a_revision_goes_through_its_phases_in_order_with_times_and_counts(
    backend: Backend,
) -> None:
    clock = ManualClock(1_000)
    revisions = RevisionTable(backend, clock=clock)
    revisions.create()
    revisions.create()  # exists: nothing to do
    assert revisions.state(ORDERS_SALT16.revision) is None
    for n, phase in enumerate(PHASES):
        clock.advance(10)
        counts = {"read": 120} if phase == "migrating" else None
        state = revisions.advance(ORDERS_SALT16, phase, counts=counts)
        assert state.phase == phase
        assert state.times[phase] == 1_000 + 10 * (n + 1)
    assert revisions.states()[ORDERS_SALT16.revision].counts == {"read": 120}


def test_two_runners_cannot_both_start_a_revision(backend: Backend) -> None:
    """The phase changes by check-and-put: the second runner from a phase is refused."""
    first, second = RevisionTable(backend), RevisionTable(backend)
    first.create()
    first.advance(ORDERS_SALT16, "expanding")
    first.advance(ORDERS_SALT16, "migrating")
    with pytest.raises(ConflictError, match="'migrating', not 'expanding'"):
        second.advance(ORDERS_SALT16, "migrating")
    with pytest.raises(ConflictError, match="'migrating', not unrecorded"):
        second.advance(ORDERS_SALT16, "expanding")
    with pytest.raises(ConflictError, match="not begun"):
        second.advance(BUYERS_SALT16, "verified")


def test_a_revision_begins_only_after_the_one_it_follows_is_contracted(backend: Backend) -> None:
    revisions = RevisionTable(backend)
    revisions.create()
    with pytest.raises(ConflictError, match="follows '2026_11_orders_salt16', which is not begun"):
        revisions.advance(BUYERS_SALT16, "expanding")
    for phase in PHASES:
        revisions.advance(ORDERS_SALT16, phase)
    assert revisions.advance(BUYERS_SALT16, "expanding").down_revision == ORDERS_SALT16.revision
    assert [
        (m.revision, s and s.phase) for m, s in revisions.pending([BUYERS_SALT16, ORDERS_SALT16])
    ] == [(BUYERS_SALT16.revision, "expanding")]


def test_pending_revisions_without_a_table_are_all_of_them(backend: Backend) -> None:
    revisions = RevisionTable(backend)
    pending = revisions.pending([BUYERS_SALT16, ORDERS_SALT16])
    assert [(m.revision, s) for m, s in pending] == [
        (ORDERS_SALT16.revision, None),
        (BUYERS_SALT16.revision, None),
    ]


def test_revisions_form_one_chain() -> None:
    first = DataMigration("r1", None, OldItem, NewItem, to_new)
    second = DataMigration("r2", "r1", OldItem, NewItem, to_new)
    assert ordered_revisions([second, first]) == [first, second]
    with pytest.raises(DeclarationError, match="share a revision id"):
        ordered_revisions([first, first])
    with pytest.raises(DeclarationError, match="both follow the same revision"):
        ordered_revisions([first, second, DataMigration("r3", "r1", OldItem, NewItem, to_new)])
    with pytest.raises(DeclarationError, match="undeclared revision"):
        ordered_revisions([second])


def test_bad_phases_and_revision_ids_are_refused(backend: Backend) -> None:
    revisions = RevisionTable(backend)
    with pytest.raises(ValidationError, match="a phase is one of"):
        revisions.advance(ORDERS_SALT16, "done")
    with pytest.raises(ValidationError, match="printable ASCII"):
        revisions.state("")
