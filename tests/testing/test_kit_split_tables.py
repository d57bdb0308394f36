"""The kit's targets create models whose tables have split points (K11), Thrift1 included."""

from __future__ import annotations

from hmodel.backend.base import Backend
from hmodel.keys import Key, Salt, Str
from hmodel.model import field, model
from hmodel.repository import Repository
from hmodel.schema import Family, SaltSplits, Table


def test_the_getting_started_model_is_created_and_used_on_every_target(backend: Backend) -> None:
    users = Table("user", [Family("i")], splits=SaltSplits(4))

    @model(users, key=Key(Salt("user_id", buckets=4), Str("user_id")))
    class User:
        user_id: str
        nickname: str = field("i:n")
        city: str | None = field("i:c", default=None)

    repo = Repository(User, backend)
    repo.create_table()
    repo.save(User(user_id="u1", nickname="Ann", city="Hangzhou"))

    assert repo.get(user_id="u1") == User(user_id="u1", nickname="Ann", city="Hangzhou")
    assert len(backend.regions("user")) == 4
