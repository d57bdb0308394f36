"""A user's repository code, type-checked by ``test_typecheck_repository.py``.

Lines ending in ``# E: <code>`` must be reported by ``mypy --strict`` with the
``hmodel.mypy_plugin`` plugin, with that error code; every other line must be clean.
This module is read by mypy only, never imported.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from typing_extensions import assert_type

from hmodel import Family, Key, Str, Table, field, model, where
from hmodel.backend.memory import MemoryBackend
from hmodel.codecs import Float64
from hmodel.keys import Timestamp
from hmodel.patterns import TimeBuckets
from hmodel.repository import Repository
from hmodel.repository.condition import Comparison, Condition

USERS = Table("user", [Family("i")])
EVENTS = Table("event", [Family("e")])


@model(USERS, key=Key(Str("user_id")))
class User:
    user_id: str
    nickname: str = field("i:n")
    age: int | None = field("i:a", default=None)


@model(EVENTS, key=Key(Str("user"), Timestamp("at")))
class Event:
    user: str
    at: datetime
    kind: str = field("e:k")


repo = Repository(User, MemoryBackend())
events = Repository(Event, MemoryBackend())

# I4: where(...) comparisons are conditions, combined with & and |.
assert_type(where("age") > 18, Comparison)
assert_type(where("age") >= 18, Comparison)
assert_type(where("age") < 65, Comparison)
assert_type(where("age") <= 65, Comparison)
assert_type(where("nickname") == "bob", Comparison)
assert_type(where("nickname") != "bob", Comparison)
assert_type((where("age") > 18) & (where("nickname") == "bob"), Condition)
assert_type((where("age") > 18) | where("nickname").startswith("b"), Condition)
adults = list(repo.scan(where=where("age") > 18))
assert_type(adults, list[User])

# get(..., required=True) is the model; without it, the model or None.
assert_type(repo.get(user_id="u1", required=True), User)
assert_type(repo.get(user_id="u1"), User | None)
assert_type(repo.get(user_id="u1", required=False), User | None)
assert_type(repo.get(user_id="u1", required=True, fields=["nickname"]), User)
assert_type(events.get(user="u1", at=datetime(2024, 1, 1), required=True), Event)

# K1: key arguments are named and typed like the model's key fields.
repo.get(user_idd="u1")  # E: call-overload
repo.get(user_id=1)  # E: call-overload
repo.get()  # E: call-overload
events.get(user="u1")  # E: call-overload
events.get(user="u1", at="2024-01-01")  # E: call-overload
assert_type(repo.exists(user_id="u1"), bool)
repo.exists(userid="u1")  # E: call-arg
repo.get_fields(["nickname"], user_id="u1")
repo.history("nickname", user_id=7)  # E: arg-type
repo.delete(user_id="u1")
repo.delete(User(user_id="u1", nickname="n"))
repo.delete(user="u1")  # E: call-arg

# What the docs' examples rely on beyond repositories (issue 18).
# A TimeSeries takes a dict keyed by datetime (or int) although Mapping's key is invariant.
cpu = TimeBuckets(Table("tsdb", [Family("t")]), key=Key(Str("host")), value=Float64(),
                  bucket=timedelta(hours=1)).on(MemoryBackend())  # fmt: skip
cpu.append({"host": "web1"}, {datetime(2024, 1, 1): 0.5})
cpu.append({"host": "web1"}, {1_700_000_000: 0.5})
cpu.append({"host": "web1"}, [(datetime(2024, 1, 1), 0.5), (1_700_000_000, 0.25)])
