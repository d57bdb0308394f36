"""OrderedLong: an int cell whose bytes sort like its values, for server-side range conditions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel import Family, Key, Str, Table, field, model
from hmodel.backend.base import Backend
from hmodel.codecs import OrderedLong
from hmodel.errors import DecodeError, EncodeError, QueryError
from hmodel.repository import Repository, where

LONGS = st.integers(min_value=-(2**63), max_value=2**63 - 1)


@given(LONGS)
def test_round_trip(value: int) -> None:
    assert OrderedLong().decode(OrderedLong().encode(value)) == value


@given(LONGS, LONGS)
def test_bytes_sort_like_the_values(a: int, b: int) -> None:
    assert (OrderedLong().encode(a) < OrderedLong().encode(b)) == (a < b)


def test_the_layout_is_the_sign_flipped_long() -> None:
    assert OrderedLong().encode(0) == b"\x80" + b"\x00" * 7
    assert OrderedLong().encode(-(2**63)) == b"\x00" * 8
    assert OrderedLong().encode(2**63 - 1) == b"\xff" * 8
    assert OrderedLong.ordered


@pytest.mark.parametrize("bad", [True, 1.5, "1", 2**63, -(2**63) - 1])
def test_what_cannot_be_stored_is_refused(bad: object) -> None:
    with pytest.raises(EncodeError):
        OrderedLong().encode(bad)  # type: ignore[arg-type]


def test_a_cell_of_another_width_is_refused() -> None:
    with pytest.raises(DecodeError):
        OrderedLong().decode(b"\x80\x00")


members = Table("ordered_member", [Family("m")])


@model(members, key=Key(Str("member_id")))
class Member:
    member_id: str
    age: int = field("m:a", codec=OrderedLong())
    score: int = field("m:s", default=0)  # a plain Long: range conditions refused


def test_range_conditions_on_an_ordered_field_run_on_the_server(backend: Backend) -> None:
    repo = Repository(Member, backend)
    repo.create_table()
    ages = [-(2**40), -3, 0, 17, 18, 19, 40, 2**50]
    repo.save_many([Member(member_id=f"m{n}", age=age) for n, age in enumerate(ages)])
    assert sorted(m.age for m in repo.scan(where=where("age") > 18)) == [19, 40, 2**50]
    assert sorted(m.age for m in repo.scan(where=where("age") <= 0)) == [-(2**40), -3, 0]
    with pytest.raises(QueryError, match="OrderedLong"):
        list(repo.scan(where=where("score") > 1))
