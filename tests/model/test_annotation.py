"""Reading field annotations: Optional parts, dict arguments and run-time type checks."""

from __future__ import annotations

from typing import Any, ClassVar, Optional, Union

import pytest

from hmodel.model.annotation import check_value, describe, dict_types, is_classvar, split_optional


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        (str, (str, False)),
        (str | None, (str, True)),
        (Optional[int], (int, True)),  # noqa: UP045 -- the old spelling must work too
        (int | str | None, (Union[int, str], True)),  # noqa: UP007
        (list[str], (list[str], False)),
    ],
)
def test_split_optional_separates_none_from_the_value_type(hint: Any, expected: Any) -> None:
    assert split_optional(hint) == expected


def test_dict_types_reads_the_key_and_value_types_of_a_dict() -> None:
    assert dict_types(dict[str, int]) == (str, int)
    assert dict_types(list[str]) is None
    assert dict_types(dict) is None


def test_class_variables_are_recognised() -> None:
    assert is_classvar(ClassVar[int])
    assert is_classvar(ClassVar)
    assert not is_classvar(int)


@pytest.mark.parametrize(
    ("value", "hint", "ok"),
    [
        ("a", str, True),
        (1, str, False),
        (True, int, False),  # a bool is not accepted as an int
        (True, bool, True),
        (1, float, True),  # the numeric tower
        (1.5, int, False),
        ([1], list[int], True),  # generics are left to the codec
        (None, int | None, True),
        ("a", int | None, False),
    ],
)
def test_check_value_accepts_instances_of_plain_classes_only(
    value: object, hint: Any, ok: bool
) -> None:
    assert check_value(value, hint) is ok


def test_describe_names_hints_for_messages() -> None:
    assert describe(str) == "str"
    assert describe(dict[str, int]) == "dict[str, int]"
