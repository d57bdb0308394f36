"""The field specifiers of a model class body: column, map, counter and version fields."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, TypeVar, overload

import attrs

from hmodel.codecs import Codec

__all__ = [
    "NO_DEFAULT",
    "ColumnSpec",
    "CounterSpec",
    "ExtraSpec",
    "MapSpec",
    "Spec",
    "VersionSpec",
    "counter",
    "extra_field",
    "field",
    "map_field",
    "version_field",
]

T = TypeVar("T")


class _NoDefault(enum.Enum):
    """The type of :data:`NO_DEFAULT`."""

    NO_DEFAULT = "NO_DEFAULT"

    def __repr__(self) -> str:
        return "NO_DEFAULT"


#: Marks a field declared without a default (``None`` is a real default).
NO_DEFAULT = _NoDefault.NO_DEFAULT

# Each specifier returns one of these records; the @model decorator, which knows the model,
# the table and the annotation, checks it and turns it into an attrs attribute, so every
# error names the model and the field. The typed overloads make the class body type-check.


@attrs.frozen
class ColumnSpec:
    """What ``field(...)`` declared: a plain column (F2), maybe multi-version (F7)."""

    column: str
    codec: Codec[Any] | None
    default: object
    factory: Callable[[], Any] | None
    history: bool
    max_bytes: int | None = None
    warn_bytes: int | None = None


@attrs.frozen
class MapSpec:
    """What ``map_field(...)`` declared: a dict kept in dynamic qualifiers (F6)."""

    family: str
    prefix: str
    key_codec: Codec[Any] | None
    value_codec: Codec[Any] | None
    max_bytes: int | None = None
    warn_bytes: int | None = None


@attrs.frozen
class CounterSpec:
    """What ``counter(...)`` declared: an 8-byte big-endian long changed by increments (F10)."""

    column: str


@attrs.frozen
class VersionSpec:
    """What ``version_field(...)`` declared: the optimistic-locking version column."""

    column: str


@attrs.frozen
class ExtraSpec:
    """What ``extra_field(...)`` declared: the qualifiers no other field uses."""

    family: str | None


Spec = ColumnSpec | MapSpec | CounterSpec | VersionSpec | ExtraSpec


@overload
def field(
    column: str,
    *,
    codec: Codec[Any] | None = None,
    default: T,
    history: bool = False,
    max_bytes: int | None = None,
    warn_bytes: int | None = None,
) -> T: ...


@overload
def field(
    column: str,
    *,
    codec: Codec[Any] | None = None,
    factory: Callable[[], T],
    history: bool = False,
    max_bytes: int | None = None,
    warn_bytes: int | None = None,
) -> T: ...


@overload
def field(
    column: str,
    *,
    codec: Codec[T],
    history: bool = False,
    max_bytes: int | None = None,
    warn_bytes: int | None = None,
) -> T: ...


@overload
def field(
    column: str,
    *,
    history: bool = False,
    max_bytes: int | None = None,
    warn_bytes: int | None = None,
) -> Any: ...


def field(
    column: str,
    *,
    codec: Codec[Any] | None = None,
    default: object = NO_DEFAULT,
    factory: Callable[[], Any] | None = None,
    history: bool = False,
    max_bytes: int | None = None,
    warn_bytes: int | None = None,
) -> Any:
    """Declare a plain column field, stored in one cell under a short name (F2).

    ``nickname: str = field("i:n")``: the code says ``nickname``; HBase stores family ``i``,
    qualifier ``n``. The value is one cell, encoded by ``codec``, or by the codec
    :func:`hmodel.codecs.codec_for_type` picks for the annotation (``str`` -> UTF-8, ``int``
    -> 8-byte long, ...).

    The field is required (a constructor argument, and a column every stored row must
    have) unless it has a ``default`` or a ``factory`` or its annotation is ``Optional``.
    An ``Optional`` field without a default defaults to ``None`` at run time; write
    ``default=None`` so type checkers know the argument may be left out. ``None`` is
    stored as the *absence* of the cell: saving it deletes older values.

    Args:
        column: ``"family:qualifier"``, e.g. ``"i:n"``; the family must be in the table.
        codec: The cell codec; default: from the annotation.
        default: The value when none is given, and when a stored row lacks the column.
        factory: A callable making the default (for mutable defaults); not with ``default``.
        history: Whether older versions of the cell are meaningful (F7), so a repository
            may read them; the family must keep ``VERSIONS > 1``.
        max_bytes: Refuse to write a value whose encoded cell is longer than this (F11):
            the mapper raises :class:`~hmodel.errors.CellTooLargeError` before any write.
            Default: the model's ``max_cell_bytes``.
        warn_bytes: Write, but emit a :class:`~hmodel.errors.CellSizeWarning`, when the
            encoded cell is longer than this (F11). Default: the model's
            ``warn_cell_bytes``.

    Returns:
        A declaration the :func:`~hmodel.model.model` decorator consumes (typed as the
        field's value so the class body type-checks).
    """
    return ColumnSpec(column, codec, default, factory, history, max_bytes, warn_bytes)


def map_field(
    family: str,
    *,
    prefix: str = "",
    key_codec: Codec[Any] | None = None,
    value_codec: Codec[Any] | None = None,
    max_bytes: int | None = None,
    warn_bytes: int | None = None,
) -> Any:
    """Declare a dict stored as one cell per entry under dynamic qualifiers (F6).

    ``fans: dict[str, str] = map_field("f")``. Each entry is one cell: the qualifier is
    ``prefix`` followed by the encoded key, the value is the encoded value, e.g.
    ``fans["u42"] = "mutual"`` is ``f:u42`` = ``mutual``. The map owns every qualifier of
    ``family`` that starts with ``prefix``; no other field of the model may use one. With
    ``prefix=""`` it owns the whole family, which lets a full save clear removed entries
    with one family delete. A map defaults to an empty dict and is never ``None``.

    Args:
        family: The family name, e.g. ``"f"`` (no colon).
        prefix: The qualifier prefix of the entries (text, stored as UTF-8), e.g. ``"d_"``.
        key_codec: Codec of the keys; default: from the dict's key annotation (``str`` ->
            UTF-8).
        value_codec: Codec of the values; default: from the dict's value annotation.
        max_bytes: Refuse an entry whose encoded value is longer than this (F11); each
            entry is one cell. Default: the model's ``max_cell_bytes``.
        warn_bytes: Warn (:class:`~hmodel.errors.CellSizeWarning`) about an entry whose
            encoded value is longer than this. Default: the model's ``warn_cell_bytes``.
    """
    return MapSpec(family, prefix, key_codec, value_codec, max_bytes, warn_bytes)


def extra_field(family: str | None = None) -> Any:
    """Declare a catch-all of the cells no other field of the model declares, byte for byte.

    ``rest: dict[bytes, bytes] = extra_field("d")`` holds every qualifier of family ``d``
    that no column, counter, version or map field of the model uses, qualifier bytes to
    cell bytes; ``extra_field()`` does so for every family of the table, keyed by the
    whole column ``b"f:q"``. A scan then loses no cell of a table another program wrote,
    and a save writes the entries back unchanged (entries removed from the dict are
    deleted only when the repository reads the stored row first, as for a map with a
    prefix). A key naming a declared column is refused. At most one per model.

    Args:
        family: The family, or ``None`` for all the table's families.
    """
    return ExtraSpec(family)


def counter(column: str) -> int:
    """Declare a counter, an int the server increments atomically (F10).

    ``views: int = counter("i:v")``. The cell is an 8-byte big-endian signed long, the
    layout HBase increments atomically on the server. A counter defaults to 0, reads as 0
    when the cell is absent, and is never written by a full save: only increments change it,
    so concurrent increments are never lost to a save of a stale copy. A counter may live in
    a family with a TTL.

    Args:
        column: ``"family:qualifier"``.
    """
    return CounterSpec(column)  # type: ignore[return-value]  # consumed by @model


def version_field(column: str) -> int:
    """Declare the optimistic-locking version of a model.

    ``version: int = version_field("i:_v")``: an 8-byte big-endian long, 0 for a row never
    saved. The repository checks it and bumps it on save; the mapping never writes it in a
    plain save. At most one per model.

    Args:
        column: ``"family:qualifier"``.
    """
    return VersionSpec(column)  # type: ignore[return-value]  # consumed by @model
