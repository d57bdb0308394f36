"""Page tokens: one default key per process; a configured token_secret spans processes (R8)."""

from __future__ import annotations

import pytest

from hmodel import Family, Key, Store, Str, Table, field, model
from hmodel.backend.base import Backend
from hmodel.clock import ManualClock
from hmodel.errors import TokenError, ValidationError
from hmodel.patterns.index import Index
from hmodel.patterns.index_repository import IndexedRepository
from hmodel.repository import Repository
from hmodel.repository.page import TokenCodec

PETS = Table("tok_pet", [Family("p")])
BY_KIND = Table("tok_pet_by_kind", [Family("x")])


@model(PETS, key=Key(Str("name")))
class Pet:
    name: str
    kind: str = field("p:k")


def by_kind() -> Index[Pet]:
    return Index(Pet, on=["kind"], table=BY_KIND)


KIND = by_kind().name


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def pets(backend: Backend, clock: ManualClock) -> Backend:
    """Five dogs, written and indexed."""
    indexed = IndexedRepository(Repository(Pet, backend, clock=clock), [by_kind()])
    indexed.create_tables()
    for n in range(5):
        indexed.save(Pet(name=f"p{n}", kind="dog"))
    return backend


def test_a_store_built_per_request_serves_the_next_page_of_another(
    pets: Backend, clock: ManualClock
) -> None:
    """Two Stores of one process, no secret given: the second accepts the first's token."""
    first = Store(pets, clock=clock).repository(Pet).page(2)
    second = Store(pets, clock=clock).repository(Pet).page(2, token=first.next_token)
    assert [p.name for p in first] == ["p0", "p1"]
    assert [p.name for p in second] == ["p2", "p3"]


def test_an_indexed_repository_built_per_request_serves_the_next_page_of_another(
    pets: Backend, clock: ManualClock
) -> None:
    """Two IndexedRepositories of one process (each over its own Store) share the key."""

    def per_request() -> IndexedRepository[Pet]:
        return IndexedRepository(Store(pets, clock=clock).repository(Pet), [by_kind()])

    first = per_request().page(KIND, 2, {"kind": "dog"})
    second = per_request().page(KIND, 2, {"kind": "dog"}, token=first.next_token)
    assert [p.name for p in first] == ["p0", "p1"]
    assert [p.name for p in second] == ["p2", "p3"]


def test_a_configured_secret_is_shared_and_a_different_one_refuses(
    pets: Backend, clock: ManualClock
) -> None:
    """Processes sharing token_secret accept each other's tokens; another secret is named."""
    first = Store(pets, clock=clock, token_secret=b"service key").repository(Pet).page(2)
    same = Store(pets, clock=clock, token_secret=b"service key").repository(Pet)
    assert [p.name for p in same.page(2, token=first.next_token)] == ["p2", "p3"]
    indexed = IndexedRepository(same, [by_kind()])  # the repository's key by default
    token = indexed.page(KIND, 2, {"kind": "dog"}).next_token
    assert token is not None
    by_store = Store(pets, clock=clock, token_secret=b"service key").repository(Pet)
    resumed = IndexedRepository(by_store, [by_kind()]).page(KIND, 2, {"kind": "dog"}, token=token)
    assert [p.name for p in resumed] == ["p2", "p3"]
    other = Store(pets, clock=clock, token_secret=b"other key").repository(Pet)
    with pytest.raises(TokenError, match="this token_secret is not the one that signed it"):
        other.page(2, token=first.next_token)
    with pytest.raises(TokenError, match="no token_secret is configured"):
        Store(pets, clock=clock).repository(Pet).page(2, token=first.next_token)


def test_an_empty_secret_is_refused() -> None:
    """b"" would sign with an empty key: refused, not taken for the default."""
    with pytest.raises(ValidationError, match="token_secret"):
        TokenCodec(b"")
