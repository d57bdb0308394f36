"""Taxonomies (R11): two concurrent links, every interleaving (what the docs promise).

Run by :func:`hmodel.testing.interleave.explore` on the memory engine. Client ``a`` links
``x`` under ``y`` while ``b`` links ``y`` under ``x`` (or ``a`` links and ``b`` unlinks one
pair). At the end of every run: both rows of every link agree (``verify() == []``), and
when both links of the cycle pair returned, the walks still end. The cycle check runs
before each link, not with it: the explorer finds the order in which both pass and a
cycle closes, which the docs state and ``cycles()`` reports.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hmodel import Store
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.errors import CycleError
from hmodel.patterns import Taxonomy
from hmodel.testing.interleave import Client, Moment, World, explore
from tests.patterns.taxonomy_models import Animal

T0 = 1_700_000_000_000


def taxonomy(store: Store) -> Taxonomy[Animal]:
    return Taxonomy(store, Animal, parents="parents", children="children")


def world(
    a: Callable[[Taxonomy[Animal]], Any],
    b: Callable[[Taxonomy[Animal]], Any],
    check: Callable[[Taxonomy[Animal], Moment], None],
) -> Callable[[], World]:
    def scenario() -> World:
        clock = ManualClock(T0)
        backend = MemoryBackend(clock=clock)
        store = Store(backend, clock=ManualClock(T0))
        store.create_tables(Animal)
        store.repository(Animal).save_many([Animal(animal_id=n, name=n) for n in ("x", "y")])
        clock.advance(1000)

        def client(act: Callable[[Taxonomy[Animal]], Any]) -> Callable[[Client], Any]:
            def run(me: Client) -> Any:
                try:
                    return act(taxonomy(Store(me.backend, clock=me.clock)))
                except CycleError:
                    return "refused"

            return run

        def checked(moment: Moment) -> None:
            if moment.done and not any(o.crashed for o in moment.outcomes.values()):
                check(taxonomy(Store(moment.backend)), moment)

        return World(backend, clock, {"a": client(a), "b": client(b)}, checked, {"b": 1})

    return scenario


def test_links_in_opposite_directions_keep_both_rows_agreeing_R11() -> None:
    def agree(kinds: Taxonomy[Animal], moment: Moment) -> None:
        assert kinds.verify() == []
        refused = [o.value == "refused" for o in moment.outcomes.values()]
        if not any(refused):
            assert kinds.cycles() == ["x", "y"]  # both passed the check: the cycle closed
            assert kinds.ancestors("x") == ["y", "x"]  # the walk still ends
        else:
            assert kinds.cycles() == []

    found = explore(world(lambda t: t.link("y", "x", "x"), lambda t: t.link("x", "y", "y"), agree))
    found.assert_holds()
    assert found.exhaustive


def test_concurrent_links_can_close_a_cycle_as_documented() -> None:
    """The explorer finds the order in which both checks pass."""

    def no_cycle(kinds: Taxonomy[Animal], moment: Moment) -> None:
        assert kinds.cycles() == [], "a cycle closed"

    found = explore(
        world(lambda t: t.link("y", "x", "x"), lambda t: t.link("x", "y", "y"), no_cycle)
    )
    assert found.violation is not None
    assert "a cycle closed" in str(found.violation.error)


def test_a_link_and_an_unlink_of_one_pair_agree_on_both_rows() -> None:
    def agree(kinds: Taxonomy[Animal], moment: Moment) -> None:
        assert kinds.verify() == []

    found = explore(world(lambda t: t.link("x", "y", "y"), lambda t: t.unlink("x", "y"), agree))
    found.assert_holds()
    assert found.exhaustive
