"""Declarations refused because they would lose data or fail on every save (review fixes)."""

from __future__ import annotations

import datetime as dt

import pytest

from hmodel import Family, Key, Str, Table, field, model
from hmodel.codecs import Bool, Date, Long
from hmodel.errors import DeclarationError, EncodeError, HModelError, SchemaError

table = Table("review", [Family("i"), Family("é")])


def test_an_optional_field_with_another_default_is_refused() -> None:
    # None is stored as an absent cell: a default of 5 would replace a saved None on reading.
    with pytest.raises(DeclarationError) as info:

        @model(table, key=Key(Str("id")))
        class Score:
            id: str
            score: int | None = field("i:s", default=5)

    assert info.value.field == "score"


@pytest.mark.parametrize(
    ("annotation", "codec"), [(bool, Long()), (int, Bool()), (dt.datetime, Date())]
)
def test_a_codec_must_handle_every_value_of_the_annotation(annotation: type, codec: object) -> None:
    with pytest.raises(DeclarationError):
        model(table, key=Key(Str("id")))(
            type(
                "M",
                (),
                {"__annotations__": {"id": str, "x": annotation}, "x": field("i:x", codec=codec)},
            )  # type: ignore[arg-type]
        )


def test_a_column_may_use_any_family_name_hbase_allows() -> None:
    @model(table, key=Key(Str("id")))
    class Accented:
        id: str
        x: str = field("é:x")

    assert Accented(id="a", x="b").x == "b"


@pytest.mark.parametrize("name", ["order\n", "ns\n"])
def test_names_with_a_trailing_newline_are_refused(name: str) -> None:
    with pytest.raises(SchemaError):
        Table(name, [Family("d")]) if name == "order\n" else Table(
            "t", [Family("d")], namespace=name
        )


def test_errors_about_huge_values_are_still_typed() -> None:
    with pytest.raises(EncodeError) as info:
        Long().encode(10**5000)
    assert isinstance(info.value, HModelError)
    assert "cannot be shown" in str(info.value)
