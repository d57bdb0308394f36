"""Units of work on both edges: the same queue, and one commit run sync or awaited.

Saves, partial updates, deletes, map entries (F6) and counters (F10) of several tables
are sent in one ``mutate`` per table (a read first for a prefixed map replaced), then one
``increment_many`` per table, on every target.
"""

from __future__ import annotations

import asyncio

import pytest

from hmodel import Family, Int, Key, Str, Table, counter, field, map_field, model, version_field
from hmodel.aio import AsyncMemoryBackend, AsyncUnitOfWork
from hmodel.backend.memory import MemoryBackend
from hmodel.errors import ValidationError
from tests.edges import Edge

shelves = Table("aio_shelf", [Family("s")])


@model(shelves, key=Key(Str("shelf_id")))
class Shelf:
    shelf_id: str
    name: str = field("s:n")
    room: str | None = field("s:r", default=None)
    books: dict[str, str] = map_field("s", prefix="b_")


tallies = Table("aio_tally", [Family("t")])


@model(tallies, key=Key(Str("shelf_id"), Int("day")))
class Tally:
    shelf_id: str
    day: int
    reads: int = counter("t:r")


papers = Table("aio_paper", [Family("p")])


@model(papers, key=Key(Str("paper_id")))
class Paper:
    paper_id: str
    text: str = field("p:t")
    version: int = version_field("p:v")


def test_a_commit_sends_one_mutate_per_table_then_the_increments(edge: Edge) -> None:
    shelves_repo, tallies_repo = edge.repo(Shelf), edge.repo(Tally)
    edge.call(shelves_repo.save(Shelf(shelf_id="old", name="o", books={"x": "1", "y": "2"})))
    edge.call(shelves_repo.save(Shelf(shelf_id="gone", name="g")))
    edge.events.clear()
    unit = edge.unit()
    unit.save(Shelf(shelf_id="s1", name="one", room="r1"))
    unit.update(Shelf, {"shelf_id": "old"}, room="r9", books={"y": "3"})
    unit.delete(Shelf, shelf_id="gone")
    unit.put_entries(Shelf, {"shelf_id": "s1"}, "books", {"a": "A"})
    unit.increment(Tally, {"shelf_id": "s1", "day": 1}, reads=2)
    assert unit.pending > 0
    before = edge.round_trips
    spent = edge.call(unit.commit())
    assert spent == edge.round_trips - before
    if isinstance(edge.backend, MemoryBackend):
        # shelves: the prefixed map's entries read, then one mutate; tallies: one increment.
        # (Thrift2 sends a table's puts and deletes of several rows as two calls; Thrift1
        # reads a table's families once before its first increments.)
        assert spent == 3
    assert unit.pending == 0
    assert edge.call(shelves_repo.get(shelf_id="s1")) == Shelf(
        shelf_id="s1", name="one", room="r1", books={"a": "A"}
    )
    assert edge.call(shelves_repo.get(shelf_id="old")) == Shelf(
        shelf_id="old", name="o", room="r9", books={"y": "3"}
    )
    assert edge.call(shelves_repo.exists(shelf_id="gone")) is False
    assert edge.call(tallies_repo.get(shelf_id="s1", day=1)).reads == 2
    (event,) = [e for e in edge.events if e.operation == "commit"]
    assert (event.table, event.round_trips, event.results) == ("aio_shelf,aio_tally", spent, 7)


def test_the_block_commits_when_it_ends_and_discards_on_an_error(edge: Edge) -> None:
    repo = edge.repo(Shelf)
    edge.within(edge.unit(), lambda u: u.save(Shelf(shelf_id="kept", name="k")))
    assert edge.call(repo.exists(shelf_id="kept")) is True

    def fails(unit: object) -> None:
        unit.save(Shelf(shelf_id="dropped", name="d"))  # type: ignore[attr-defined]
        raise KeyError("boom")

    before = edge.round_trips
    with pytest.raises(KeyError):
        edge.within(edge.unit(), fails)
    assert edge.round_trips == before
    assert edge.call(repo.exists(shelf_id="dropped")) is False


def test_bad_writes_are_refused_when_queued(edge: Edge) -> None:
    edge.repo(Shelf)
    unit = edge.unit()
    with pytest.raises(ValidationError) as info:
        unit.save(Paper(paper_id="p", text="t"))
    assert info.value.table == "aio_paper"
    with pytest.raises(ValidationError):
        unit.change_entries(Shelf, {"shelf_id": "s"}, "books", put={"a": "1"}, remove=["a"])
    assert unit.pending == 0
    assert edge.call(unit.commit()) == 0


def test_a_commit_cancelled_before_its_first_request_writes_nothing_and_empties_the_queue() -> None:
    engine = MemoryBackend()
    engine.create_table(shelves)
    unit = AsyncUnitOfWork(AsyncMemoryBackend(engine))
    unit.save(Shelf(shelf_id="s1", name="one"))
    before = engine.round_trips

    async def scenario() -> None:
        task = asyncio.create_task(unit.commit())
        await asyncio.sleep(0)  # the task runs up to its first suspension, before the mutate
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(scenario())
    finally:
        loop.close()
    assert engine.round_trips == before
    assert unit.pending == 0
    assert engine.get(shelves.full_name, [b"s1"]) == []
