"""The rest of the repository on both edges: partial writes, projections, versions (F7),
counters of many rows (F10), map entries (F6, R10) and moves (K10).

Each body runs on the sync and the async edge on every target: both edges run the same
sans-I/O operation of ``RepositoryCore``, so they give the same values, errors, round
trips and events.
"""

from __future__ import annotations

import pytest

from hmodel import Family, Int, Key, Str, Table, counter, field, map_field, model, version_field
from hmodel.errors import QueryError, ValidationError
from tests.edges import Edge

people = Table("aio_person", [Family("p", versions=3), Family("t")])


@model(people, key=Key(Str("person_id")))
class Person:
    person_id: str
    name: str = field("p:n")
    city: str | None = field("p:c", default=None)
    age: int | None = field("p:a", default=None)
    tags: dict[str, str] = map_field("p", prefix="t_")
    labels: dict[str, str] = map_field("t")


hits = Table("aio_hit", [Family("h")])


@model(hits, key=Key(Str("page"), Int("day")))
class Hit:
    page: str
    day: int
    views: int = counter("h:v")
    clicks: int = counter("h:c")


notes = Table("aio_note", [Family("n")])


@model(notes, key=Key(Str("note_id")))
class Note:
    note_id: str
    text: str = field("n:t")
    version: int = version_field("n:v")


def warm(edge: Edge, repo: object) -> None:
    """A first write: over Thrift1 it may read the table's families once (then cached)."""
    edge.call(repo.save(Person(person_id="warm", name="w")))  # type: ignore[attr-defined]


def test_update_writes_only_the_fields_named_in_one_round_trip(edge: Edge) -> None:
    repo = edge.repo(Person)
    warm(edge, repo)
    edge.call(repo.save(Person(person_id="p1", name="ann", city="Oslo", age=30)))
    before = edge.round_trips
    edge.call(repo.update({"person_id": "p1"}, city="Rome", age=None))
    assert edge.round_trips - before == 1
    assert edge.call(repo.get(person_id="p1")) == Person(person_id="p1", name="ann", city="Rome")
    assert [e.operation for e in edge.events][-2:] == ["update", "get"]


def test_update_replaces_a_prefixed_map_exactly_reading_it_first(edge: Edge) -> None:
    repo = edge.repo(Person)
    warm(edge, repo)
    edge.call(repo.save(Person(person_id="p1", name="ann", tags={"a": "1", "b": "2"})))
    before = edge.round_trips
    edge.call(repo.update({"person_id": "p1"}, tags={"b": "3", "c": "4"}))
    assert edge.round_trips - before == 2  # the map's stored entries, then the write
    assert edge.call(repo.get(person_id="p1")).tags == {"b": "3", "c": "4"}


def test_update_refuses_key_fields_unknown_fields_and_locked_models_writing_nothing(
    edge: Edge,
) -> None:
    repo, note_repo = edge.repo(Person), edge.repo(Note)
    before = edge.round_trips
    with pytest.raises(ValidationError) as info:
        edge.call(repo.update({"person_id": "p1"}, person_id="p2"))
    assert info.value.table == "aio_person"
    with pytest.raises(ValidationError):
        edge.call(repo.update({"person_id": "p1"}, nope=1))
    with pytest.raises(ValidationError):
        edge.call(repo.update({"person_id": "p1"}, age="old"))
    with pytest.raises(ValidationError) as locked:
        edge.call(note_repo.update({"note_id": "n1"}, text="x"))
    assert locked.value.table == "aio_note"
    assert edge.round_trips == before
    assert edge.call(repo.get(person_id="p1")) is None


def test_get_fields_reads_a_projection_as_a_dict_in_one_round_trip(edge: Edge) -> None:
    repo = edge.repo(Person)
    edge.call(repo.save(Person(person_id="p1", name="ann", city="Oslo")))
    before = edge.round_trips
    got = edge.call(repo.get_fields(["city", "age"], person_id="p1"))
    assert edge.round_trips - before == 1
    assert got == {"person_id": "p1", "city": "Oslo", "age": None}
    assert edge.call(repo.get_fields(["city"], person_id="nobody")) is None
    with pytest.raises(QueryError):
        edge.call(repo.get_fields("city", person_id="p1"))


def test_history_lists_a_fields_versions_newest_first(edge: Edge) -> None:
    """F7: the family keeps 3 versions; ``limit`` and ``before`` narrow them."""
    repo = edge.repo(Person)
    for city in ("Oslo", "Rome", "Lima", "Kyiv"):
        edge.call(repo.update({"person_id": "p1"}, name="ann", city=city))
    before = edge.round_trips
    versions = edge.call(repo.history("city", person_id="p1"))
    assert edge.round_trips - before == 1
    assert [v for v, _ in versions] == ["Kyiv", "Lima", "Rome"]
    stamps = [t for _, t in versions]
    assert stamps == sorted(stamps, reverse=True)
    assert edge.call(repo.history("city", limit=1, person_id="p1")) == versions[:1]
    older = edge.call(repo.history("city", before=stamps[0], person_id="p1"))
    assert [v for v, _ in older][:2] == ["Lima", "Rome"]
    with pytest.raises(QueryError) as info:
        edge.call(repo.history("city", limit=0, person_id="p1"))
    assert info.value.field == "city"


def test_increment_many_adds_to_counters_of_many_rows_in_one_request(edge: Edge) -> None:
    """F10: one increment per counter, each atomic, in one request (one row here:
    Thrift2 has no multi-row increment and sends one per row)."""
    repo = edge.repo(Hit)
    edge.call(repo.increment_many([({"page": "warm", "day": 0}, {"views": 1})]))
    before = edge.round_trips
    edge.call(repo.increment_many([({"page": "a", "day": 1}, {"views": 3, "clicks": 1})]))
    assert edge.round_trips - before == 1
    edge.call(repo.increment_many([({"page": "b", "day": 1}, {"views": 5})]))
    assert edge.call(repo.increment_many([])) is None
    assert edge.round_trips - before == 2
    found = edge.call(repo.get_many([{"page": "a", "day": 1}, {"page": "b", "day": 1}]))
    assert [(h.views, h.clicks) for h in found] == [(3, 1), (5, 0)]
    edge.call(
        repo.increment_many(
            [({"page": "a", "day": 1}, {"views": 1}), ({"page": "b", "day": 1}, {"clicks": 2})]
        )
    )
    found = edge.call(repo.get_many([{"page": "a", "day": 1}, {"page": "b", "day": 1}]))
    assert [(h.views, h.clicks) for h in found] == [(4, 1), (5, 2)]
    done = [e for e in edge.events if e.operation == "increment_many"][-4:-1]
    assert [(e.rows, e.results, e.round_trips) for e in done] == [
        ((repo.mapper.key_of(page="a", day=1),), 2, 1),
        ((repo.mapper.key_of(page="b", day=1),), 1, 1),
        ((), 0, 0),
    ]


@pytest.mark.parametrize("name", ["tags", "labels"])
def test_map_entries_are_put_removed_changed_and_read_without_rewriting_the_row(
    edge: Edge, name: str
) -> None:
    """F6 on a map with a prefix (sharing its family) and one owning its family."""
    repo = edge.repo(Person)
    warm(edge, repo)
    key = {"person_id": "p1"}
    edge.call(repo.save(Person(person_id="p1", name="ann", **{name: {"a": "1"}})))
    before = edge.round_trips
    edge.call(repo.put_entries(key, name, {"b": "2", "c": "3"}))
    edge.call(repo.remove_entries(key, name, ["a", "absent"]))
    assert edge.round_trips - before == 2
    assert edge.call(repo.get_entries(key, name)) == {"b": "2", "c": "3"}
    assert edge.call(repo.get_entries(key, name, ["c", "zz"])) == {"c": "3"}
    before = edge.round_trips
    edge.call(repo.change_entries(key, name, put={"d": "4"}, remove=["b"]))
    assert edge.round_trips - before == 1
    edge.call(repo.change_entries(key, name))  # nothing to change: no round trip
    assert edge.round_trips - before == 1
    got = edge.call(repo.get(person_id="p1"))
    assert getattr(got, name) == {"c": "3", "d": "4"} and got.name == "ann"
    assert edge.call(repo.get_entries({"person_id": "nobody"}, name)) == {}


def test_map_entry_changes_refuse_bad_input_writing_nothing(edge: Edge) -> None:
    repo, note_repo = edge.repo(Person), edge.repo(Note)
    key = {"person_id": "p1"}
    before = edge.round_trips
    with pytest.raises(ValidationError) as info:
        edge.call(repo.change_entries(key, "tags", put={"a": "1"}, remove=["a"]))
    assert info.value.table == "aio_person"
    with pytest.raises(ValidationError):
        edge.call(repo.put_entries(key, "name", {"a": "1"}))  # not a map field
    with pytest.raises(ValidationError):
        edge.call(note_repo.change_entries({"note_id": "n"}, "text", put={"a": "1"}))
    assert edge.round_trips == before
    assert edge.call(repo.get_entries(key, "tags")) == {}


def test_move_saves_a_copy_under_the_new_key_and_deletes_the_old_row(edge: Edge) -> None:
    """K10: the copy is returned; the old row is gone; the events are a save and a delete."""
    repo = edge.repo(Person)
    ann = edge.call(repo.save(Person(person_id="p1", name="ann", tags={"a": "1"})))
    edge.events.clear()
    moved = edge.call(repo.move(ann, person_id="p2"))
    assert moved == Person(person_id="p2", name="ann", tags={"a": "1"})
    assert [e.operation for e in edge.events] == ["save", "delete"]
    assert edge.call(repo.get(person_id="p1")) is None
    assert edge.call(repo.get(person_id="p2")) == moved
    assert edge.call(repo.move(moved, person_id="p2")) is moved  # same key: nothing to do
    with pytest.raises(ValidationError) as info:
        edge.call(repo.move(moved, name="bob"))
    assert info.value.field == "name"


def test_move_of_a_locked_model_checks_the_version_of_the_row_it_deletes(edge: Edge) -> None:
    repo = edge.repo(Note)
    note = edge.call(repo.save(Note(note_id="n1", text="hi")))
    moved = edge.call(repo.move(note, note_id="n2"))
    assert moved.note_id == "n2" and moved.version > 0 and moved.text == "hi"
    assert edge.call(repo.exists(note_id="n1")) is False
    assert edge.call(repo.get(note_id="n2")) == moved
