"""AsyncFaultyBackend: FaultyBackend's nth-call hooks on the asyncio edge, every target."""

from __future__ import annotations

import asyncio

import pytest

from hmodel import Family, Key, Repository, Str, Table, field, model
from hmodel.aio import AsyncRepository
from hmodel.backend.aio import InProcessAsyncBackend
from hmodel.backend.base import Backend
from hmodel.errors import OutcomeUnknownError
from hmodel.testing.async_edge import async_backend_of
from hmodel.testing.fault import AsyncFaultyBackend


@model(Table("async_faulty_pet", [Family("p")]), key=Key(Str("name")))
class Pet:
    name: str
    kind: str = field("p:k")


def test_a_request_cut_at_its_nth_call_on_the_async_edge(backend: Backend) -> None:
    """The second mutate lands but its answer is lost (fail_after); before the next one,
    a coroutine action saves another pet; the first save passed untouched."""
    Repository(Pet, backend).create_table()
    made = async_backend_of(backend)
    assert made is not None
    faulty = AsyncFaultyBackend(made)
    faulty.on("mutate", nth=2, fail=OutcomeUnknownError("reply lost"), fail_after=True)
    pets = AsyncRepository(Pet, faulty)

    async def other(method: str, args: tuple[object, ...]) -> None:
        await AsyncRepository(Pet, made).save(Pet(name="cat", kind="cat"))

    async def main() -> None:
        await pets.save(Pet(name="rex", kind="dog"))
        with pytest.raises(OutcomeUnknownError, match="reply lost"):
            await pets.save(Pet(name="bo", kind="dog"))
        faulty.on("mutate", nth=1, before=other)  # counted from here: the next mutate
        await pets.save(Pet(name="ed", kind="eel"))
        if not isinstance(made, InProcessAsyncBackend):
            await faulty.aclose()

    asyncio.run(main())
    assert faulty.calls.count("mutate") == 3
    found = {p.name for p in Repository(Pet, backend).scan()}
    assert found == {"rex", "bo", "cat", "ed"}  # the cut write landed
