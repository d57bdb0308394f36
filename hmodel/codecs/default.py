"""The default cell codec for a field's type annotation."""

from __future__ import annotations

import datetime as dt
import types
import typing
import uuid
from decimal import Decimal
from typing import Any

from hmodel.codecs.boolean import Bool
from hmodel.codecs.codec import Codec
from hmodel.codecs.date import Date, DateTime
from hmodel.codecs.document import Json
from hmodel.codecs.identifier import UUIDCodec
from hmodel.codecs.number import DecimalCodec, Float64, Long
from hmodel.codecs.raw import Raw
from hmodel.codecs.text import Utf8
from hmodel.errors import DeclarationError

__all__ = ["codec_for_type", "describe_type"]

_DEFAULTS: dict[object, type[Codec[Any]]] = {
    str: Utf8,
    bytes: Raw,
    int: Long,
    float: Float64,
    bool: Bool,
    Decimal: DecimalCodec,
    dt.datetime: DateTime,
    dt.date: Date,
    uuid.UUID: UUIDCodec,
}


def codec_for_type(tp: object) -> Codec[Any]:
    """Return the default codec for the annotation ``tp``.

    ``str`` -> :class:`Utf8`, ``bytes`` -> :class:`Raw`, ``int`` -> :class:`Long`,
    ``float`` -> :class:`Float64`, ``bool`` -> :class:`Bool`, ``Decimal`` ->
    :class:`DecimalCodec`, ``datetime`` -> :class:`DateTime` (microseconds), ``date`` ->
    :class:`Date`, ``UUID`` -> :class:`UUIDCodec`, and ``dict`` or ``list``, bare or
    parametrised (``dict[str, int]``, ``typing.List[str]``), -> :class:`Json` whose
    document must be an object (``top="object"``) or an array (``top="array"``).
    ``Optional[X]`` and ``X | None`` give the codec of ``X`` (a missing value is a missing
    cell, never encoded), ``Annotated[X, ...]`` and ``NewType`` s give the codec of their
    base type. The match is exact: a subclass such as an ``IntEnum`` has no default.

    Args:
        tp: A type annotation, already evaluated (not a string).

    Raises:
        DeclarationError: ``tp`` has no default codec (a string annotation, a union of two
            types, ``Any``, a subclass, ...); the message names it.

    Example:
        >>> codec_for_type(int | None)
        Long()
        >>> codec_for_type(dict[str, list[int]])
        Json(top='object')
    """
    base = _strip(tp)
    if base is dict:
        return Json(top="object")
    if base is list:
        return Json(top="array")
    codec = _DEFAULTS.get(base)
    if codec is None:
        hint = " (resolve string annotations first)" if isinstance(tp, str) else ""
        raise DeclarationError(
            f"no default codec for type {describe_type(tp)}{hint}; pass a codec explicitly",
            value=tp,
        )
    return codec()


def _strip(tp: object) -> object:
    """Return ``tp`` without ``Optional``, ``Annotated``, ``NewType`` and type parameters."""
    while True:
        supertype = getattr(tp, "__supertype__", None)
        if supertype is not None:  # typing.NewType
            tp = supertype
            continue
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
        elif origin is typing.Union or origin is types.UnionType:
            members = [arg for arg in typing.get_args(tp) if arg is not type(None)]
            if len(members) != 1:
                return tp
            tp = members[0]
        elif origin in (dict, list):
            return origin
        else:
            return tp


def describe_type(tp: object) -> str:
    """Name a type hint for a message: ``int`` rather than ``<class 'int'>``, ``int | None``."""
    if isinstance(tp, type) and typing.get_origin(tp) is None:
        return tp.__qualname__
    return repr(tp).replace("typing.", "")
