"""codec_for_type: the default cell codec of a field annotation."""

from __future__ import annotations

import datetime as dt
import enum
import typing
import uuid
from decimal import Decimal
from typing import Annotated, Any, NewType, Optional, Union

import pytest

from hmodel.codecs import (
    Bool,
    Codec,
    Date,
    DateTime,
    DecimalCodec,
    Float64,
    Json,
    Long,
    Raw,
    Utf8,
    UUIDCodec,
    codec_for_type,
)
from hmodel.errors import DeclarationError

UserId = NewType("UserId", int)


class Colour(enum.IntEnum):
    RED = 1


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, Utf8()),
        (bytes, Raw()),
        (int, Long()),
        (float, Float64()),
        (bool, Bool()),
        (Decimal, DecimalCodec()),
        (dt.datetime, DateTime()),
        (dt.date, Date()),
        (uuid.UUID, UUIDCodec()),
        (dict, Json(top="object")),
        (list, Json(top="array")),
        (dict[str, int], Json(top="object")),
        (list[str], Json(top="array")),
        (typing.Dict[str, list[int]], Json(top="object")),  # noqa: UP006
        (typing.List[str], Json(top="array")),  # noqa: UP006
    ],
)
def test_each_type_has_its_default_codec(annotation: object, expected: Codec[Any]) -> None:
    assert codec_for_type(annotation) == expected


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (Optional[int], Long()),  # noqa: UP045
        (int | None, Long()),
        (None | str, Utf8()),
        (Union[None, dt.date], Date()),  # noqa: UP007
        (Annotated[int, "doc"], Long()),
        (Annotated[Optional[str], "doc"], Utf8()),  # noqa: UP045
        (Optional[Annotated[bytes, "doc"]], Raw()),  # noqa: UP045
        (UserId, Long()),
        (UserId | None, Long()),
        (dict[str, int] | None, Json(top="object")),
    ],
)
def test_optional_annotated_and_newtype_give_the_codec_of_the_inner_type(
    annotation: object, expected: Codec[Any]
) -> None:
    assert codec_for_type(annotation) == expected


def test_each_call_returns_a_fresh_equal_codec() -> None:
    assert codec_for_type(int) is not codec_for_type(int)
    assert type(codec_for_type(int)) is Long


@pytest.mark.parametrize(
    ("annotation", "named"),
    [
        ("int", "'int'"),
        (Any, "Any"),
        (int | str, "int | str"),
        (Optional[Union[int, str]], "int"),  # noqa: UP007, UP045
        (Colour, "Colour"),
        (set[int], "set"),
        (tuple, "tuple"),
        (None, "None"),
        (object, "object"),
    ],
)
def test_types_without_a_default_codec_are_a_declaration_error_naming_them(
    annotation: object, named: str
) -> None:
    with pytest.raises(DeclarationError, match="no default codec for type") as caught:
        codec_for_type(annotation)
    assert named in caught.value.message


def test_a_string_annotation_asks_for_resolution() -> None:
    with pytest.raises(DeclarationError, match="resolve string annotations first"):
        codec_for_type("Optional[int]")
