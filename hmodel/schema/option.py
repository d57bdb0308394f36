"""Checks of the bool and enum options of families and tables, raising SchemaError."""

from __future__ import annotations

import enum
from typing import TypeVar

from hmodel.errors import SchemaError

__all__ = ["bool_option", "enum_option"]

_E = TypeVar("_E", bound=enum.Enum)


def bool_option(option: str, value: bool, *, family: str | None = None) -> bool:
    """Return ``value`` if it is a ``bool``; else SchemaError naming ``option`` (and ``family``)."""
    if not isinstance(value, bool):
        raise SchemaError(f"{option} must be a bool", column=family, value=value)
    return value


def enum_option(option: str, kind: type[_E], value: _E | str, *, family: str | None = None) -> _E:
    """Return ``value`` as a member of ``kind``; a str matches a member's value in any case.

    Raises:
        SchemaError: No such member, listing the valid ones and naming ``option``.
    """
    if isinstance(value, kind):
        return value
    if isinstance(value, str):
        for member in kind:
            if member.value == value.upper():
                return member
    names = ", ".join(str(member.value) for member in kind)
    raise SchemaError(f"{option} must be one of {names}", column=family, value=value)
