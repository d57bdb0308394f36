"""Taxonomies (R11): parents and children kept on both rows, walks, cycles, on every backend."""

from __future__ import annotations

from typing import Any

import pytest

from hmodel import Store
from hmodel.aio import AsyncTaxonomy
from hmodel.backend.base import Backend
from hmodel.clock import ManualClock
from hmodel.errors import CycleError, NotFoundError
from hmodel.patterns import Taxonomy
from tests.edges import Edge
from tests.patterns.taxonomy_models import TREE, Animal


@pytest.fixture
def animals(backend: Backend, edge: Edge) -> Any:
    """The animal taxonomy, linked on the test's edge: ``Taxonomy`` or ``AsyncTaxonomy``."""
    clock = ManualClock()
    store = Store(backend, clock=clock)
    store.create_tables(Animal)
    names = {"animal"} | {c for children in TREE.values() for c in children}
    store.repository(Animal).save_many([Animal(animal_id=n, name=n) for n in sorted(names)])
    taxonomy = edge.pick(Taxonomy, AsyncTaxonomy)(
        edge.store(clock=clock), Animal, parents="parents", children="children"
    )
    for parent, children in TREE.items():
        for child in children:
            edge.call(taxonomy.link(parent, child, child, child_value=parent))
    return taxonomy


def test_links_are_kept_on_both_rows_R11(animals: Any, edge: Edge) -> None:
    assert edge.call(animals.children("dog")) == {"red-dog": "red-dog", "black-dog": "black-dog"}
    assert edge.call(animals.parents("red-dog")) == {"dog": "dog"}
    dog = edge.call(animals.repository.get(animal_id="dog"))
    assert dog is not None and dog.parents == {"animal": "animal"}
    edge.call(animals.unlink("dog", "black-dog"))
    assert edge.call(animals.children("dog")) == {"red-dog": "red-dog"}
    assert edge.call(animals.parents("black-dog")) == {}
    assert edge.call(animals.verify()) == []


def test_walks_read_one_level_per_round_trip(animals: Any, edge: Edge) -> None:
    before = edge.round_trips
    assert edge.call(animals.ancestors("red-dog")) == ["dog", "animal"]
    assert edge.round_trips - before == 3  # red-dog, dog, animal
    before = edge.round_trips
    found = edge.call(animals.descendants("animal"))
    assert edge.round_trips - before == 3  # 1 node, then 5, then 3
    assert set(found[:5]) == set(TREE["animal"])
    assert set(found[5:]) == {"red-dog", "black-dog", "tiger-of-northeast"}
    assert (
        edge.call(animals.descendants("pig")) == [] and edge.call(animals.ancestors("animal")) == []
    )


def test_several_parents_and_a_shared_ancestor_once(animals: Any, edge: Edge) -> None:
    """A DAG: a red dog is also a pet; its ancestors list each node once."""
    edge.call(animals.repository.save(Animal(animal_id="pet", name="pet")))
    edge.call(animals.link("animal", "pet", "pet"))
    edge.call(animals.link("pet", "red-dog", "red-dog"))
    assert edge.call(animals.parents("red-dog")) == {"dog": "dog", "pet": "red-dog"}
    assert sorted(edge.call(animals.ancestors("red-dog"))) == ["animal", "dog", "pet"]
    assert edge.call(animals.ancestors("red-dog"))[-1] == "animal"


def test_a_link_that_would_close_a_cycle_is_refused(animals: Any, edge: Edge) -> None:
    with pytest.raises(CycleError) as raised:
        edge.call(animals.link("red-dog", "animal", "x"))
    assert (raised.value.table, raised.value.row) == ("tx_animal", b"red-dog\x00\x00")
    assert raised.value.value == b"animal\x00\x00"
    with pytest.raises(CycleError):
        edge.call(animals.link("dog", "dog", "x"))
    assert (
        edge.call(animals.children("red-dog")) == {} and edge.call(animals.parents("animal")) == {}
    )
    assert edge.call(animals.cycles()) == []


def test_walks_end_on_a_cycle_closed_behind_the_check(animals: Any, edge: Edge) -> None:
    """Two concurrent links can close a cycle (the check is not atomic): cycles() finds it."""
    edge.call(animals.relation.link("red-dog", "dog", "dog"))  # bypasses the check
    assert edge.call(animals.cycles()) == ["dog", "red-dog"]
    assert set(edge.call(animals.ancestors("red-dog"))) == {"dog", "animal", "red-dog"}
    assert set(edge.call(animals.descendants("dog"))) == {"red-dog", "black-dog", "dog"}


def test_a_link_never_creates_a_node(animals: Any, edge: Edge) -> None:
    with pytest.raises(NotFoundError):
        edge.call(animals.link("dog", "wolf", "wolf"))
    assert edge.call(animals.children("dog")) == {"red-dog": "red-dog", "black-dog": "black-dog"}


def test_verify_finds_one_sided_links_and_repair_completes_them(animals: Any, edge: Edge) -> None:
    """A crash between the two rows: the child lists the parent, the parent not the child."""
    edge.call(animals.repository.put_entries({"animal_id": "cat"}, "parents", {"tiger": "tiger"}))
    edge.call(animals.repository.remove_entries({"animal_id": "dog"}, "children", ["red-dog"]))
    found = edge.call(animals.verify())
    assert sorted((dict(f.left)["animal_id"], dict(f.right)["animal_id"]) for f in found) == [
        ("dog", "red-dog"),
        ("tiger", "cat"),
    ]
    assert {f.side for f in found} == {"right"}
    assert edge.call(animals.repair(found)) == 2
    assert edge.call(animals.verify()) == []
    assert edge.call(animals.children("tiger")) == {
        "tiger-of-northeast": "tiger-of-northeast",
        "cat": "tiger",
    }


def test_many_reads_are_aligned_and_empty_for_missing_rows(animals: Any, edge: Edge) -> None:
    got = edge.call(animals.relation.of_left_many(["dog", "nobody", "pig"]))
    assert got == [{"red-dog": "red-dog", "black-dog": "black-dog"}, {}, {}]
    assert edge.call(animals.relation.of_right_many([])) == []
