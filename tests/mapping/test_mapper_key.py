"""Rowkeys of instances and of key field values (K1, K10)."""

from __future__ import annotations

from datetime import datetime

import pytest

from hmodel.errors import DeclarationError, ValidationError
from hmodel.keys import Const, Key, Salt, Str, Timestamp
from hmodel.mapping import Mapper, mapper_for
from hmodel.model import field, model
from hmodel.schema import Family, Table

from .sample import CustomerOrder, Everything, User


def test_key_of_encodes_the_key_fields_with_the_key_declaration() -> None:
    assert mapper_for(Everything).key_of(name="a", n=1) == b"a\x00\x00" + bytes.fromhex(
        "8000000000000001"
    )


def test_rowkey_of_an_instance_is_the_key_of_its_key_fields() -> None:
    user = User(user_id="u1", nickname="bob")

    assert mapper_for(User).rowkey(user) == mapper_for(User).key_of(user_id="u1") == b"u1\x00\x00"


def test_key_of_rejects_a_missing_key_field() -> None:
    with pytest.raises(ValidationError, match="missing key field 'order_id'") as caught:
        mapper_for(CustomerOrder).key_of(customer_id="c1")
    assert caught.value.field == "order_id"


def test_key_of_rejects_an_unknown_field() -> None:
    with pytest.raises(ValidationError, match="not a key field") as caught:
        mapper_for(User).key_of(user_id="u1", nickname="bob")
    assert caught.value.field == "nickname"


def test_key_of_rejects_a_value_of_the_wrong_type() -> None:
    with pytest.raises(ValidationError, match="takes int, not str") as caught:
        mapper_for(Everything).key_of(name="a", n="1")
    assert (caught.value.field, caught.value.value) == ("n", "1")


def test_key_of_rejects_a_value_the_key_component_cannot_encode() -> None:
    with pytest.raises(ValidationError, match="does not encode") as caught:
        mapper_for(Everything).key_of(name="a", n=2**70)
    assert caught.value.field == "n"


def test_mapper_for_returns_one_cached_mapper_per_model() -> None:
    assert mapper_for(User) is mapper_for(User)
    assert isinstance(mapper_for(User), Mapper)
    assert repr(mapper_for(User)) == "Mapper(User)"


def test_salt_width_is_the_offset_after_the_salt_bucket() -> None:
    """K3/I5: per-bucket scans merge on the bytes after the leading tag and salt."""
    events = Table("events", [Family("e")])

    @model(events, key=Key(Const(b"E"), Salt("device", buckets=8), Str("device"), Timestamp("at")))
    class Event:
        device: str
        at: datetime
        kind: str = field("e:k")

    assert mapper_for(Event).salt_width == 2
    assert mapper_for(User).salt_width == 0


def test_salt_width_after_a_variable_width_component_is_a_declaration_error() -> None:
    events = Table("events", [Family("e")])

    @model(events, key=Key(Str("device"), Salt("device", buckets=8), Timestamp("at")))
    class Event:
        device: str
        at: datetime
        kind: str = field("e:k")

    with pytest.raises(DeclarationError, match="precedes the salt"):
        mapper_for(Event).salt_width  # noqa: B018 -- the property raises
