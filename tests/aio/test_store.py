"""AsyncStore: one cached async repository per model, shared stamps, listeners and tokens."""

from __future__ import annotations

import asyncio

from hmodel import Family, Key, Store, Str, Table, field, model
from hmodel.aio import AsyncRepository, AsyncStore
from hmodel.backend.memory import AsyncMemoryBackend, MemoryBackend
from hmodel.repository.event import QueryEvent


@model(Table("aio_store_pet", [Family("p")]), key=Key(Str("name")))
class Pet:
    name: str
    kind: str = field("p:k")


def test_the_async_store_shares_stamps_listeners_and_token_key_with_its_repositories() -> None:
    engine = MemoryBackend()
    sync = Store(engine, token_secret=b"k" * 32)
    sync.create_tables(Pet)
    events: list[QueryEvent] = []
    store = AsyncStore(
        AsyncMemoryBackend(engine),
        stamps=sync.stamps,
        token_secret=b"k" * 32,
        listeners=[events.append],
    )
    pets = store.repository(Pet)
    assert isinstance(pets, AsyncRepository)
    assert pets is store.repository(Pet)
    assert pets.stamps is sync.stamps

    async def main() -> str | None:
        async with store.unit_of_work() as unit:
            unit.save(Pet(name="a", kind="cat"))
        await pets.save(Pet(name="b", kind="dog"))
        page = await pets.page(1)
        assert page.next_token is not None
        # A token made by the async store's repository resumes in the sync store's.
        rest = sync.repository(Pet).page(1, token=page.next_token)
        return rest.items[0].name

    assert asyncio.run(main()) == "b"
    assert {event.operation for event in events} >= {"commit", "save", "page"}
