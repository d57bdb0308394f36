"""Conditions on non-key fields, rendered as HBase filter-language strings (I4)."""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import Any

import attrs

from hmodel.errors import QueryError

__all__ = ["And", "Comparison", "Condition", "FieldColumn", "Or", "Resolver", "where"]


@attrs.frozen
class FieldColumn:
    """What a condition needs to know of a field: its column and how its values become bytes.

    Attributes:
        family: Family name bytes (``b"i"``).
        qualifier: Qualifier bytes (``b"n"``).
        encode: The field codec's ``encode``.
        ordered: Whether the codec's bytes sort like its values (so ``<``/``>`` are meaningful
            under HBase's unsigned byte comparator).
    """

    family: bytes
    qualifier: bytes
    encode: Callable[[Any], bytes]
    ordered: bool


#: Maps a field name to its :class:`FieldColumn`; raises :class:`QueryError` for unknown fields.
Resolver = Callable[[str], FieldColumn]

_OPS = {"=": b"=", "!=": b"!=", "<": b"<", "<=": b"<=", ">": b">", ">=": b">="}


def quote(data: bytes) -> bytes:
    """Quote bytes as a filter-language string literal: ``'...'`` with ``'`` doubled.

    This is the only escaping the HBase filter language has; with it, user data can never
    close the literal and inject operators, parentheses or keywords.

    >>> quote(b"it's (AND) me")
    b"'it''s (AND) me'"
    """
    return b"'" + data.replace(b"'", b"''") + b"'"


class Condition(abc.ABC):
    """A server-side condition on one or more fields; combine with ``&`` and ``|``."""

    @abc.abstractmethod
    def render(self, resolve: Resolver) -> bytes:
        """Render as a filter string, resolving field names through ``resolve``."""

    @abc.abstractmethod
    def fields(self) -> frozenset[str]:
        """The field names the condition reads."""

    def __and__(self, other: Condition) -> Condition:
        return And((self, _condition(other, "&")))

    def __or__(self, other: Condition) -> Condition:
        return Or((self, _condition(other, "|")))

    def __rand__(self, other: object) -> Condition:
        return And((_condition(other, "&"), self))

    def __ror__(self, other: object) -> Condition:
        return Or((_condition(other, "|"), self))


def _condition(value: object, operator: str) -> Condition:
    """Return ``value`` if it is a :class:`Condition`, else say what to write instead.

    Raises:
        QueryError: ``value`` is not a condition (a bare ``where("f")``, a string, ...).
    """
    if isinstance(value, Condition):
        return value
    hint = (
        f": compare the field first, e.g. where({value.name!r}) == value"
        if isinstance(value, where)
        else ""
    )
    raise QueryError(
        f"{operator} combines conditions, not {type(value).__name__}{hint}", value=value
    )


def _parts(parts: object, operator: str) -> tuple[Condition, ...]:
    """The parts of an ``And``/``Or``, each checked to be a condition."""
    if not isinstance(parts, tuple) or len(parts) < 1:
        raise QueryError(f"{operator} takes a tuple of conditions", value=parts)
    return tuple(_condition(part, operator) for part in parts)


def _and_parts(parts: object) -> tuple[Condition, ...]:
    return _parts(parts, "&")


def _or_parts(parts: object) -> tuple[Condition, ...]:
    return _parts(parts, "|")


@attrs.frozen
class Comparison(Condition):
    """``field <op> value``, evaluated by a ``SingleColumnValueFilter`` on the server.

    Rows that do not have the field's column are excluded (``filterIfMissing=true``), and
    only the latest version is tested (``latestVersionOnly=true``).
    """

    field: str
    op: str
    value: Any
    comparator: str = "binary"

    def render(self, resolve: Resolver) -> bytes:
        """Render as ``SingleColumnValueFilter('f', 'q', op, 'comparator:value', true, true)``."""
        column = resolve(self.field)
        if self.op not in ("=", "!=") and self.comparator == "binary" and not column.ordered:
            raise QueryError(
                f"cannot compare with {self.op!r}: the field's stored bytes do not sort like "
                "its values, so HBase's byte comparator would give wrong answers; use == or !=, "
                "or store it with an order-preserving codec (an int: "
                "field(..., codec=OrderedLong()))",
                field=self.field,
                value=self.value,
            )
        if self.comparator == "substring":
            if not isinstance(self.value, str):
                raise QueryError("contains() takes a str", field=self.field, value=self.value)
            try:
                encoded = self.value.encode()
            except UnicodeEncodeError as exc:
                raise QueryError(
                    f"contains() takes text that UTF-8 can encode: {exc.reason} at "
                    f"position {exc.start}",
                    field=self.field,
                    value=self.value,
                ) from None
        else:
            try:
                encoded = column.encode(self.value)
            except Exception as exc:  # the codec's EncodeError, or a TypeError
                raise QueryError(
                    f"value does not fit the field: {exc}", field=self.field, value=self.value
                ) from exc
        return b"SingleColumnValueFilter(%s, %s, %s, %s, true, true)" % (
            quote(column.family),
            quote(column.qualifier),
            _OPS[self.op],
            quote(self.comparator.encode() + b":" + encoded),
        )

    def fields(self) -> frozenset[str]:
        """The one field compared."""
        return frozenset({self.field})


@attrs.frozen
class And(Condition):
    """All of the conditions hold (HBase ``AND``)."""

    parts: tuple[Condition, ...] = attrs.field(converter=_and_parts)

    def render(self, resolve: Resolver) -> bytes:
        """Render as ``(a) AND (b) ...``."""
        return b" AND ".join(b"(" + p.render(resolve) + b")" for p in self.parts)

    def fields(self) -> frozenset[str]:
        """The union of the parts' fields."""
        return frozenset().union(*(p.fields() for p in self.parts))


@attrs.frozen
class Or(Condition):
    """At least one of the conditions holds (HBase ``OR``)."""

    parts: tuple[Condition, ...] = attrs.field(converter=_or_parts)

    def render(self, resolve: Resolver) -> bytes:
        """Render as ``(a) OR (b) ...``."""
        return b" OR ".join(b"(" + p.render(resolve) + b")" for p in self.parts)

    def fields(self) -> frozenset[str]:
        """The union of the parts' fields."""
        return frozenset().union(*(p.fields() for p in self.parts))


@attrs.frozen(eq=False, order=False)
class where:  # noqa: N801 -- reads as a keyword: where("age") >= 18
    """Start a condition on a non-key field: ``where("nickname") == "bob"``.

    Comparisons use the field's codec to turn the value into bytes, so the server compares
    exactly what is stored. ``<``, ``<=``, ``>``, ``>=`` are accepted only for codecs whose
    bytes sort like their values (UTF-8 strings, raw bytes, ...).

    Example:
        >>> cond = (where("nickname") == "bob") | where("nickname").startswith("al")
        >>> sorted(cond.fields())
        ['nickname']
    """

    name: str

    def __eq__(self, value: object) -> Comparison:  # type: ignore[override]
        return Comparison(self.name, "=", value)

    def __ne__(self, value: object) -> Comparison:  # type: ignore[override]
        return Comparison(self.name, "!=", value)

    def __lt__(self, value: object) -> Comparison:
        return Comparison(self.name, "<", value)

    def __le__(self, value: object) -> Comparison:
        return Comparison(self.name, "<=", value)

    def __gt__(self, value: object) -> Comparison:
        return Comparison(self.name, ">", value)

    def __ge__(self, value: object) -> Comparison:
        return Comparison(self.name, ">=", value)

    __hash__ = None  # type: ignore[assignment]

    def startswith(self, prefix: object) -> Comparison:
        """The stored value starts with the encoded ``prefix`` (``binaryprefix`` comparator)."""
        return Comparison(self.name, "=", prefix, comparator="binaryprefix")

    def contains(self, text: str) -> Comparison:
        """The stored value contains ``text``, ignoring case (HBase ``substring`` comparator)."""
        return Comparison(self.name, "=", text, comparator="substring")
