"""explain(): any repository operation's backend calls and RPCs, without sending them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hmodel import Family, Key, Repository, Str, Table, field, map_field, model, version_field
from hmodel.backend.base import Backend
from hmodel.repository import Explanation
from hmodel.testing.fault import FaultyBackend

people = Table("ex_user", [Family("i"), Family("f"), Family("s")])


@model(people, key=Key(Str("user_id")))
class User:
    user_id: str
    name: str = field("i:n")
    city: str | None = field("i:c", default=None)
    fans: dict[str, str] = map_field("f")
    dirs: dict[str, str] = map_field("s", prefix="d_")


@model(Table("ex_account", [Family("a")]), key=Key(Str("id")))
class Account:
    id: str
    balance: int = field("a:b")
    version: int = version_field("a:v")


OPERATIONS: dict[str, Callable[[Repository[Any]], object]] = {
    "get": lambda r: r.get(user_id="u"),
    "get_many": lambda r: r.get_many([{"user_id": "u"}, {"user_id": "v"}]),
    "save": lambda r: r.save(User(user_id="u", name="n", fans={"a": "1"})),
    "update with a prefixed map": lambda r: r.update({"user_id": "u"}, dirs={"x": "1"}),
    "update": lambda r: r.update({"user_id": "u"}, city=None),
    "delete": lambda r: r.delete(user_id="u"),
    "put_entries": lambda r: r.put_entries({"user_id": "u"}, "fans", {"b": "2"}),
}


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_an_explanation_costs_what_the_call_costs(backend: Backend, name: str) -> None:
    """Same calls, same round trips as running it; nothing is written by explaining."""
    repo = Repository(User, backend)
    repo.create_table()
    explained = repo.explain(OPERATIONS[name])
    assert repo.get(user_id="u") is None  # explaining wrote nothing
    before = backend.round_trips
    OPERATIONS[name](repo)
    assert explained.round_trips == backend.round_trips - before
    assert explained.calls and all(c.table == "ex_user" for c in explained.calls)


def test_explanations_name_the_wire_rpcs(backend: Backend) -> None:
    """Over Thrift1 a get is getRowsWithColumns; a save of a prefixed map reads first."""
    repo = Repository(User, backend)
    text = repo.explain(lambda r: r.save(User(user_id="u", name="n"))).describe()
    methods = [c.method for c in repo.explain(lambda r: r.save(User(user_id="u", name="n"))).calls]
    assert methods == ["get", "mutate"]
    if "check_and_mutate" not in backend.capabilities and backend.rpc_names:
        assert "getRowsWithColumns" in text and "mutateRows" in text


def test_a_locked_save_is_explained_per_protocol(backend: Backend) -> None:
    """One check_and_mutate where the backend has it; claim, data, commit over Thrift1."""
    bank = Repository(Account, backend)
    methods = [c.method for c in bank.explain(lambda r: r.save(Account(id="a", balance=1))).calls]
    if "check_and_mutate" in backend.capabilities:
        assert methods == ["check_and_mutate"]
    else:
        assert methods == ["check_and_put", "mutate", "check_and_put"]


def test_a_scan_is_explained_with_its_ranges(backend: Backend) -> None:
    """A lazy scan is run to its end against the stand-in: one call per range."""
    repo = Repository(User, backend)
    explained = repo.explain(lambda r: r.scan({"user_id": "u"}, reverse=True))
    (call,) = explained.calls
    assert call.method == "scan" and "reverse=True" in call.detail


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_a_wrapped_backend_is_explained_as_the_backend_it_wraps(
    backend: Backend, name: str
) -> None:
    """A wrapper (fault injection) keeps the wrapped backend's RPC names and request counts."""
    repo = Repository(User, backend)
    repo.create_table()
    wrapped = Repository(User, FaultyBackend(backend))

    def calls(explained: Explanation) -> list[tuple[str, str, tuple[bytes, ...], int]]:
        return [(c.method, c.rpc, c.rows, c.round_trips) for c in explained.calls]

    assert calls(wrapped.explain(OPERATIONS[name])) == calls(repo.explain(OPERATIONS[name]))
