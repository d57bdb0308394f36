"""Reading field annotations: ``Optional`` parts, ``dict`` arguments, run-time type checks."""

from __future__ import annotations

import types
import typing
from typing import Any, ClassVar

from hmodel.codecs.default import describe_type as describe

__all__ = ["check_value", "describe", "dict_types", "is_classvar", "split_optional"]

_NONE = type(None)


def _union_args(hint: Any) -> tuple[Any, ...] | None:
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return typing.get_args(hint)
    return None


def split_optional(hint: Any) -> tuple[Any, bool]:
    """Return ``(hint without None, whether None was allowed)``.

    ``str | None`` and ``Optional[str]`` give ``(str, True)``; ``int | str | None`` gives
    ``(int | str, True)``; ``str`` gives ``(str, False)``.
    """
    args = _union_args(hint)
    if args is None or _NONE not in args:
        return hint, hint is None or hint is _NONE
    rest = tuple(a for a in args if a is not _NONE)
    if len(rest) == 1:
        return rest[0], True
    return typing.Union[rest], True  # noqa: UP007 -- a Union built at run time from a tuple


def dict_types(hint: Any) -> tuple[Any, Any] | None:
    """Return ``(key type, value type)`` of ``dict[K, V]``, or ``None`` for other hints."""
    if typing.get_origin(hint) is not dict:
        return None
    args = typing.get_args(hint)
    if len(args) != 2:
        return None
    return args[0], args[1]


def is_classvar(hint: Any) -> bool:
    """Whether ``hint`` is ``ClassVar[...]`` (not a field)."""
    return hint is ClassVar or typing.get_origin(hint) is ClassVar


def check_value(value: object, hint: Any) -> bool:
    """Whether ``value`` is an instance of the plain class ``hint``, as far as can be told.

    Only plain classes are checked (``str``, ``int``, ``datetime``, an enum, a user class);
    for generic or special hints (``list[str]``, ``Literal``, ``Any``) the codec is the
    judge and this returns ``True``. ``bool`` is not accepted for ``int`` (nor ``float``),
    and an ``int`` is accepted for ``float`` (the numeric tower).
    """
    if type(value) is hint:  # the common case, decided without the checks below
        return True
    if not isinstance(hint, type) or typing.get_origin(hint) is not None:
        args = _union_args(hint)
        if args is not None:
            return any(check_value(value, a) for a in args)
        return True
    if hint is Any or hint is object:
        return True
    if isinstance(value, bool) and hint is not bool:
        return hint not in (int, float) and isinstance(value, hint)
    if hint is float and isinstance(value, int):
        return True
    return isinstance(value, hint)
