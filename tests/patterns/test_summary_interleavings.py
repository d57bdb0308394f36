"""Summary tables (I3): two writers of one data row, every interleaving (the write protocol).

Run by :func:`hmodel.testing.interleave.explore` on the memory engine. Each client reads
order ``o1`` and saves a change through :class:`SummarizedRepository` (a ConflictError,
with a version field, ends the client: its write was refused). The invariant, at the end
of every run where no client died: the counters equal a recount of the data table
(``verify().ok``). With a version field it holds in every interleaving, for a change of a
summed value and a move to another group; without one, two writers that read the same
old row both subtract it, and the explorer finds that order (the drift the docs state).
A client dying between the data write and its increments leaves the summary off by that
write; ``rebuild`` fixes it, which the last test checks after every such death.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from hmodel import Store
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.errors import ConflictError
from hmodel.patterns import SummarizedRepository
from hmodel.testing.interleave import Client, Moment, World, explore
from tests.patterns.summary_models import DailyOrders, LockedOrder, Order, at, daily

T0 = 1_700_000_000_000

#: What each client changes of order o1: its total, or its day (a move to another group).
CHANGES: dict[str, dict[str, Any]] = {"total": {"total": 900}, "day": {"placed_at": at(2)}}


def world(model: type[Any], a: str, b: str, *, offset: int = 1) -> Callable[[], World]:
    """Order o1 (ann, day 1, 500) saved; clients ``a`` and ``b`` change it as named."""

    def scenario() -> World:
        clock = ManualClock(T0)
        backend = MemoryBackend(clock=clock)
        store = Store(backend, clock=ManualClock(T0))
        store.create_tables(model, DailyOrders)
        fields = {"order_id": "o1", "customer_id": "ann", "placed_at": at(1), "total": 500}
        SummarizedRepository(store.repository(model), [daily(store, model)]).save(model(**fields))
        clock.advance(1000)

        def client(change: Mapping[str, Any]) -> Callable[[Client], Any]:
            def run(me: Client) -> Any:
                mine = Store(me.backend, clock=me.clock)
                orders = SummarizedRepository(mine.repository(model), [daily(mine, model)])
                order = orders.repository.get(order_id="o1")
                assert order is not None
                for name, value in change.items():
                    setattr(order, name, value)
                try:
                    return orders.save(order)
                except ConflictError:
                    return None

            return run

        def check(moment: Moment) -> None:
            if moment.done and not any(o.crashed for o in moment.outcomes.values()):
                report = daily(Store(moment.backend), model).verify()
                assert report.ok, f"the summary drifted: {report.samples}"

        clients = {"a": client(CHANGES[a]), "b": client(CHANGES[b])}
        return World(backend, clock, clients, check, {"b": offset})

    return scenario


@pytest.mark.parametrize(("a", "b"), [("total", "total"), ("total", "day"), ("day", "day")])
@pytest.mark.parametrize("offset", [0, 1, -1])
def test_locked_writers_never_make_the_summary_drift_I3(a: str, b: str, offset: int) -> None:
    found = explore(world(LockedOrder, a, b, offset=offset))
    found.assert_holds()
    assert found.exhaustive and found.interleavings > 1


@pytest.mark.parametrize(("a", "b"), [("total", "total"), ("total", "day")])
def test_unlocked_writers_can_make_the_summary_drift_as_documented(a: str, b: str) -> None:
    """Without a version field both writers subtract the row they read: found, not hidden."""
    found = explore(world(Order, a, b))
    assert found.violation is not None
    assert "the summary drifted" in str(found.violation.error)


def test_a_writer_dying_midway_is_fixed_by_rebuild() -> None:
    """Every death of one of two locked writers: verify finds at most its delta, rebuild fixes."""
    rebuilt: list[bool] = []

    def scenario() -> World:
        made = world(LockedOrder, "total", "day")()

        def check(moment: Moment) -> None:
            if not moment.done:
                return
            summary = daily(Store(moment.backend), LockedOrder)
            if any(o.crashed for o in moment.outcomes.values()):
                summary.rebuild()
                rebuilt.append(True)
            assert summary.verify().ok

        return World(made.backend, made.clock, made.clients, check, made.offsets)

    found = explore(scenario, crashes=1)
    found.assert_holds()
    assert rebuilt
