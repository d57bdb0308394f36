"""Taxonomies (R11): parents and children kept on both rows, walks, cycles, on every backend."""

from __future__ import annotations

import pytest

from hmodel import Store
from hmodel.backend.base import Backend
from hmodel.clock import ManualClock
from hmodel.errors import CycleError, NotFoundError
from hmodel.patterns import Taxonomy
from tests.patterns.taxonomy_models import TREE, Animal


@pytest.fixture
def animals(backend: Backend) -> Taxonomy[Animal]:
    store = Store(backend, clock=ManualClock())
    store.create_tables(Animal)
    names = {"animal"} | {c for children in TREE.values() for c in children}
    store.repository(Animal).save_many([Animal(animal_id=n, name=n) for n in sorted(names)])
    taxonomy = Taxonomy(store, Animal, parents="parents", children="children")
    for parent, children in TREE.items():
        for child in children:
            taxonomy.link(parent, child, child, child_value=parent)
    return taxonomy


def test_links_are_kept_on_both_rows_R11(animals: Taxonomy[Animal]) -> None:
    assert animals.children("dog") == {"red-dog": "red-dog", "black-dog": "black-dog"}
    assert animals.parents("red-dog") == {"dog": "dog"}
    dog = animals.repository.get(animal_id="dog")
    assert dog is not None and dog.parents == {"animal": "animal"}
    animals.unlink("dog", "black-dog")
    assert animals.children("dog") == {"red-dog": "red-dog"}
    assert animals.parents("black-dog") == {}
    assert animals.verify() == []


def test_walks_read_one_level_per_round_trip(animals: Taxonomy[Animal], backend: Backend) -> None:
    before = backend.round_trips
    assert animals.ancestors("red-dog") == ["dog", "animal"]
    assert backend.round_trips - before == 3  # red-dog, dog, animal
    before = backend.round_trips
    found = animals.descendants("animal")
    assert backend.round_trips - before == 3  # 1 node, then 5, then 3
    assert set(found[:5]) == set(TREE["animal"])
    assert set(found[5:]) == {"red-dog", "black-dog", "tiger-of-northeast"}
    assert animals.descendants("pig") == [] and animals.ancestors("animal") == []


def test_several_parents_and_a_shared_ancestor_once(animals: Taxonomy[Animal]) -> None:
    """A DAG: a red dog is also a pet; its ancestors list each node once."""
    animals.repository.save(Animal(animal_id="pet", name="pet"))
    animals.link("animal", "pet", "pet")
    animals.link("pet", "red-dog", "red-dog")
    assert animals.parents("red-dog") == {"dog": "dog", "pet": "red-dog"}
    assert sorted(animals.ancestors("red-dog")) == ["animal", "dog", "pet"]
    assert animals.ancestors("red-dog")[-1] == "animal"


def test_a_link_that_would_close_a_cycle_is_refused(animals: Taxonomy[Animal]) -> None:
    with pytest.raises(CycleError) as raised:
        animals.link("red-dog", "animal", "x")
    assert (raised.value.table, raised.value.row) == ("tx_animal", b"red-dog\x00\x00")
    assert raised.value.value == b"animal\x00\x00"
    with pytest.raises(CycleError):
        animals.link("dog", "dog", "x")
    assert animals.children("red-dog") == {} and animals.parents("animal") == {}
    assert animals.cycles() == []


def test_walks_end_on_a_cycle_closed_behind_the_check(animals: Taxonomy[Animal]) -> None:
    """Two concurrent links can close a cycle (the check is not atomic): cycles() finds it."""
    animals.relation.link("red-dog", "dog", "dog")  # bypasses the check
    assert animals.cycles() == ["dog", "red-dog"]
    assert set(animals.ancestors("red-dog")) == {"dog", "animal", "red-dog"}
    assert set(animals.descendants("dog")) == {"red-dog", "black-dog", "dog"}


def test_a_link_never_creates_a_node(animals: Taxonomy[Animal]) -> None:
    with pytest.raises(NotFoundError):
        animals.link("dog", "wolf", "wolf")
    assert animals.children("dog") == {"red-dog": "red-dog", "black-dog": "black-dog"}


def test_verify_finds_one_sided_links_and_repair_completes_them(
    animals: Taxonomy[Animal],
) -> None:
    """A crash between the two rows: the child lists the parent, the parent not the child."""
    animals.repository.put_entries({"animal_id": "cat"}, "parents", {"tiger": "tiger"})
    animals.repository.remove_entries({"animal_id": "dog"}, "children", ["red-dog"])
    found = animals.verify()
    assert sorted((dict(f.left)["animal_id"], dict(f.right)["animal_id"]) for f in found) == [
        ("dog", "red-dog"),
        ("tiger", "cat"),
    ]
    assert {f.side for f in found} == {"right"}
    assert animals.repair(found) == 2
    assert animals.verify() == []
    assert animals.children("tiger") == {"tiger-of-northeast": "tiger-of-northeast", "cat": "tiger"}


def test_many_reads_are_aligned_and_empty_for_missing_rows(animals: Taxonomy[Animal]) -> None:
    got = animals.relation.of_left_many(["dog", "nobody", "pig"])
    assert got == [{"red-dog": "red-dog", "black-dog": "black-dog"}, {}, {}]
    assert animals.relation.of_right_many([]) == []
