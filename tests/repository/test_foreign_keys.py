"""Repositories over foreign key layouts: gets, prefix scans and salted fan-out (K1, K3, I5)."""

from __future__ import annotations

import datetime as dt

from hmodel import Family, Key, Str, Table, field, model
from hmodel.backend.base import Backend
from hmodel.clock import ManualClock
from hmodel.keys import Descending, Int, JavaInt, PhoenixDate, phoenix_key
from hmodel.repository import Repository

UTC = dt.timezone.utc
METRICS = Table("fk_metric", [Family("0")])
EVENTS = Table("fk_event", [Family("e")])


@model(
    METRICS,
    key=phoenix_key(Str("host"), Descending(Int("n", size=4)), PhoenixDate("at"), salt_buckets=3),
)
class Metric:
    host: str
    n: int
    at: dt.datetime
    value: str = field("0:v")


@model(EVENTS, key=Key(Str("user"), JavaInt("seq", size=4), sep=b"|"))
class Event:
    user: str
    seq: int
    kind: str = field("e:k")


def test_a_salted_phoenix_key_gets_and_scans_in_key_order(backend: Backend) -> None:
    """Saved rows get back by key; a prefix scan fans out over the buckets and merges (I5)."""
    repo = Repository(Metric, backend, clock=ManualClock())
    repo.create_table()
    at = dt.datetime(2024, 1, 1, tzinfo=UTC)
    for host, n in [("h1", 1), ("h1", 7), ("h2", 3), ("h1", -2)]:
        repo.save(Metric(host=host, n=n, at=at, value=f"{host}/{n}"))
    assert repo.get(host="h1", n=7, at=at) == Metric(host="h1", n=7, at=at, value="h1/7")
    assert [m.n for m in repo.scan(prefix={"host": "h1"})] == [7, 1, -2]  # n DESC
    assert [m.n for m in repo.scan(prefix={"host": "h1"}, low=0, high=5)] == [1]


def test_java_int_bounds_across_zero_scan_both_runs(backend: Backend) -> None:
    """Bounds crossing zero read the non-negatives, then the negatives, as they are stored."""
    repo = Repository(Event, backend, clock=ManualClock())
    repo.create_table()
    for seq in (-3, -1, 0, 2, 9):
        repo.save(Event(user="u", seq=seq, kind="k"))
    repo.save(Event(user="v", seq=1, kind="k"))
    assert [e.seq for e in repo.scan(prefix={"user": "u"}, low=-2, high=5)] == [0, 2, -1]
    assert [e.seq for e in repo.scan(prefix={"user": "u"})] == [0, 2, 9, -3, -1]
