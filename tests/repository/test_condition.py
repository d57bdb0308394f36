"""Conditions refuse what they cannot render with a typed error naming the field or value."""

from __future__ import annotations

import pytest

from hmodel.errors import HModelError, QueryError
from hmodel.repository import where
from hmodel.repository.condition import And, FieldColumn, Or


def _resolve(name: str) -> FieldColumn:
    return FieldColumn(b"f", name.encode(), lambda value: str(value).encode(), True)


@pytest.mark.parametrize("text", ["\udcff", "ok\ud800", "\udfff!"])
def test_contains_with_text_utf8_cannot_encode_is_a_query_error(text: str) -> None:
    """A lone surrogate is not text HBase's substring comparator can take."""
    with pytest.raises(QueryError, match="UTF-8") as caught:
        where("note").contains(text).render(_resolve)
    assert (caught.value.field, caught.value.value) == ("note", text)


@pytest.mark.parametrize(
    "combine",
    [
        lambda c: c & "junk",
        lambda c: c | "junk",
        lambda c: "junk" & c,
        lambda c: "junk" | c,
        lambda c: c & None,
        lambda c: c | 3,
        lambda c: c & where("b"),
    ],
    ids=["and", "or", "rand", "ror", "none", "int", "bare-where"],
)
def test_combining_a_condition_with_something_else_is_a_query_error(combine: object) -> None:
    condition = where("a") == 1
    with pytest.raises(QueryError, match="combines conditions") as caught:
        combine(condition)  # type: ignore[operator]
    assert isinstance(caught.value, HModelError)


def test_a_bare_where_says_to_compare_the_field_first() -> None:
    with pytest.raises(QueryError, match=r"where\('b'\) == value"):
        (where("a") == 1) | where("b")  # type: ignore[operator]


def test_and_and_or_built_directly_check_their_parts() -> None:
    with pytest.raises(QueryError):
        And((where("a") == 1, "junk"))
    with pytest.raises(QueryError, match="tuple of conditions"):
        Or("junk")
    both = (where("a") == 1) & ((where("b") == 2) | (where("c") == 3))
    assert both.render(_resolve).count(b"SingleColumnValueFilter") == 3
