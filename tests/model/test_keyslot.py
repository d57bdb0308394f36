"""Key fields refuse to change (K10) through their own descriptor, not a class ``__setattr__``.

The model class keeps ``object.__setattr__``, so its value fields are plain slots
(CPython's fast store, which the generated reader uses); each key field's
:class:`~hmodel.model.keyslot.KeySlot` fills its slot once and refuses a second
assignment. These tests hold the rule everywhere an instance is made: the class's
``__init__``, ``attrs.evolve``, ``copy``, ``pickle``, and the mapper's generated reader.
"""

from __future__ import annotations

import copy
import pickle
from datetime import datetime, timezone
from typing import Any

import attrs
import pytest

from hmodel import Family, Key, ReverseTimestamp, Salt, Str, Table, field, model
from hmodel.backend.base import Cell, RowResult
from hmodel.errors import ValidationError
from hmodel.mapping import mapper_for
from hmodel.model.keyslot import KeySlot, guard_key_fields

WHEN = datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=timezone.utc)


@model(
    Table("keyslot_posts", [Family("p")]),
    key=Key(Salt("author", buckets=4), Str("author"), ReverseTimestamp("at")),
)
class Post:
    """A K1/K4/K5 key of two fields, two value fields."""

    author: str
    at: datetime
    title: str = field("p:t")
    likes: int = field("p:l", default=0)


def a_post() -> Post:
    return Post(author="ana", at=WHEN, title="hello", likes=3)


def test_the_model_class_keeps_object_setattr() -> None:
    assert Post.__setattr__ is object.__setattr__
    assert isinstance(vars(Post)["author"], KeySlot)
    assert isinstance(vars(Post)["at"], KeySlot)
    assert not isinstance(vars(Post)["title"], KeySlot)


@pytest.mark.parametrize("name, value", [("author", "bob"), ("at", WHEN.replace(year=2025))])
def test_a_key_field_refuses_to_change_k10(name: str, value: Any) -> None:
    post = a_post()
    with pytest.raises(ValidationError, match="cannot change \\(K10") as caught:
        setattr(post, name, value)
    assert caught.value.field == name
    assert caught.value.value == value
    assert post == a_post()  # nothing changed
    with pytest.raises(ValidationError):
        object.__setattr__(post, name, value)  # the class's way round it is guarded too


def test_a_key_field_cannot_be_deleted_and_set_again() -> None:
    post = a_post()
    with pytest.raises(AttributeError):
        del post.author
    assert post.author == "ana"


def test_value_fields_change_freely() -> None:
    post = a_post()
    post.title = "edited"
    post.likes += 1
    assert (post.title, post.likes) == ("edited", 4)


@pytest.mark.parametrize(
    "make",
    [
        copy.copy,
        copy.deepcopy,
        lambda post: pickle.loads(pickle.dumps(post)),
        lambda post: attrs.evolve(post, title="hello"),
    ],
    ids=["copy", "deepcopy", "pickle", "evolve"],
)
def test_copies_are_equal_and_keep_their_keys_immutable(make: Any) -> None:
    made = make(a_post())
    assert made == a_post()
    assert type(made) is Post
    with pytest.raises(ValidationError):
        made.author = "bob"


def test_evolve_under_a_new_key_makes_a_new_instance() -> None:
    moved = attrs.evolve(a_post(), author="bob")
    assert moved.author == "bob"
    assert a_post().author == "ana"


def test_a_read_instance_equals_the_constructed_one_and_keeps_its_key() -> None:
    mapper = mapper_for(Post)
    post = a_post()
    row = mapper.rowkey(post)
    cells = {b"p:t": Cell(b"hello", 5), b"p:l": Cell(b"\0" * 7 + b"\3", 5)}
    read = mapper.from_row(RowResult(row, cells))
    assert read == post
    with pytest.raises(ValidationError):
        read.at = WHEN.replace(year=2025)
    read.title = "edited"  # the generated reader's store kept the slot plain
    assert read.title == "edited"


def test_the_class_is_checked_to_be_slotted() -> None:
    class Plain:
        author = "ana"

    with pytest.raises(TypeError, match="not a slot"):
        guard_key_fields(Plain, "Plain", ("author",))


def test_a_model_class_with_its_own_setattr_is_read_through_the_slots() -> None:
    """A class ``__setattr__`` is not run by the reader (its slots are set directly)."""
    calls: list[str] = []

    @model(Table("keyslot_logged", [Family("p")]), key=Key(Str("k")))
    class Logged:
        k: str
        v: str = field("p:v")

        def __setattr__(self, name: str, value: Any) -> None:
            calls.append(name)
            object.__setattr__(self, name, value)

    mapper = mapper_for(Logged)
    read = mapper.from_row(RowResult(mapper.key_of(k="x"), {b"p:v": Cell(b"y", 1)}))
    assert (read.k, read.v) == ("x", "y")
    assert calls == []
    read.v = "z"
    assert calls == ["v"]
    with pytest.raises(ValidationError):
        read.k = "other"
