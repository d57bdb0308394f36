"""Filter names and their arguments, checked as each HBase ``createFilterFromArguments`` does."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence

from hmodel.backend.memory.filter import node
from hmodel.backend.memory.filter.comparator import (
    Comparator,
    CompareOp,
    RegexStringComparator,
    SubstringComparator,
    parse_comparator,
)
from hmodel.backend.memory.filter.lexer import Source, Token, TokenKind
from hmodel.errors import FilterError

__all__ = ["SUPPORTED_FILTERS", "Factory", "build_filter", "lookup_filter"]

_INTEGER = re.compile(rb"-?[0-9]+")
_INT_MAX = 2**31 - 1
_LONG_MAX = 2**63 - 1
_OPERATORS = {op.value.encode(): op for op in CompareOp}

#: HBase filters that exist as classes but that the filter language cannot name.
_NOT_IN_LANGUAGE = {
    "SkipFilter": "use the SKIP operator",
    "WhileMatchFilter": "use the WHILE operator",
    "FilterList": "combine filters with AND / OR",
    "FuzzyRowFilter": "HBase's ParseFilter does not register it",
    "MultiRowRangeFilter": "HBase's ParseFilter does not register it",
    "RandomRowFilter": "HBase's ParseFilter does not register it",
    "FirstKeyValueMatchingQualifiersFilter": "HBase's ParseFilter does not register it",
}


class _Arguments:
    """The raw arguments of one filter call, with HBase's conversions (``ParseFilter``)."""

    def __init__(self, source: Source, name: Token, tokens: Sequence[Token]) -> None:
        self.source = source
        self.name = name.value.decode()
        self.start = name.start
        self.tokens = tokens

    def count(self, *allowed: int) -> int:
        """Check the number of arguments is one of ``allowed``; return it."""
        given = len(self.tokens)
        if given not in allowed:
            wanted = " or ".join(str(n) for n in allowed)
            plural = "" if allowed == (1,) else "s"
            raise self.source.error(
                f"{self.name} takes {wanted} argument{plural}, got {given}", self.start
            )
        return given

    def _fail(self, index: int, what: str) -> FilterError:
        token = self.tokens[index]
        return self.source.error(
            f"argument {index + 1} of {self.name} must be {what}, got {token.describe()}",
            token.start,
        )

    def string(self, index: int) -> bytes:
        """A quoted string argument, as bytes."""
        token = self.tokens[index]
        if token.kind is not TokenKind.STRING:
            raise self._fail(index, "a quoted string")
        return token.value

    def integer(self, index: int, *, maximum: int, minimum: int = 0) -> int:
        """A bare integer argument (``-?[0-9]+``) within ``[minimum, maximum]``."""
        token = self.tokens[index]
        if token.kind is not TokenKind.WORD or not _INTEGER.fullmatch(token.value):
            raise self._fail(index, "an integer")
        value = int(token.value)
        if not minimum <= value <= maximum:
            raise self._fail(index, f"an integer from {minimum} to {maximum}")
        return value

    def boolean(self, index: int) -> bool:
        """A bare ``true`` or ``false`` (any case)."""
        token = self.tokens[index]
        word = token.value.lower() if token.kind is TokenKind.WORD else b""
        if word not in (b"true", b"false"):
            raise self._fail(index, "true or false")
        return word == b"true"

    def operator(self, index: int) -> CompareOp:
        """A bare compare operator: ``<``, ``<=``, ``=``, ``!=``, ``>=`` or ``>``."""
        token = self.tokens[index]
        op = _OPERATORS.get(token.value) if token.kind is TokenKind.WORD else None
        if op is None:
            raise self._fail(index, "a compare operator (<, <=, =, !=, >=, >)")
        return op

    def comparator(self, index: int, op: CompareOp | None = None) -> Comparator:
        """A quoted ``'type:operand'``; with ``op``, substring/regexstring need = or !=."""
        spec = self.string(index)
        try:
            comparator = parse_comparator(spec)
        except FilterError as exc:
            raise self.source.error(
                f"argument {index + 1} of {self.name}: {exc.message}", self.tokens[index].start
            ) from exc
        equality = (CompareOp.EQUAL, CompareOp.NOT_EQUAL)
        if (
            op is not None
            and isinstance(comparator, (RegexStringComparator, SubstringComparator))
            and op not in equality
        ):
            raise self.source.error(
                f"{self.name}: a {comparator.kind} comparator can only be used with = and !=",
                self.tokens[index].start,
            )
        return comparator


def _key_only(args: _Arguments) -> node.Node:
    if args.count(0, 1) == 0:
        return node.KeyOnlyFilter()
    return node.KeyOnlyFilter(args.boolean(0))


def _first_key_only(args: _Arguments) -> node.Node:
    args.count(0)
    return node.FirstKeyOnlyFilter()


def _prefix(args: _Arguments) -> node.Node:
    args.count(1)
    return node.PrefixFilter(args.string(0))


def _column_prefix(args: _Arguments) -> node.Node:
    args.count(1)
    return node.ColumnPrefixFilter(args.string(0))


def _multiple_column_prefix(args: _Arguments) -> node.Node:
    prefixes = tuple(args.string(i) for i in range(len(args.tokens)))
    if len(set(prefixes)) != len(prefixes):
        raise args.source.error(f"{args.name}: prefixes must be distinct", args.start)
    return node.MultipleColumnPrefixFilter(prefixes)


def _column_count_get(args: _Arguments) -> node.Node:
    args.count(1)
    return node.ColumnCountGetFilter(args.integer(0, maximum=_INT_MAX))


def _page(args: _Arguments) -> node.Node:
    args.count(1)
    return node.PageFilter(args.integer(0, maximum=_LONG_MAX))


def _column_pagination(args: _Arguments) -> node.Node:
    args.count(2)
    return node.ColumnPaginationFilter(
        args.integer(0, maximum=_INT_MAX), args.integer(1, maximum=_INT_MAX)
    )


def _inclusive_stop(args: _Arguments) -> node.Node:
    args.count(1)
    return node.InclusiveStopFilter(args.string(0))


def _timestamps(args: _Arguments) -> node.Node:
    return node.TimestampsFilter(
        tuple(args.integer(i, maximum=_LONG_MAX) for i in range(len(args.tokens)))
    )


def _column_range(args: _Arguments) -> node.Node:
    args.count(4)
    return node.ColumnRangeFilter(
        args.string(0) or None, args.boolean(1), args.string(2) or None, args.boolean(3)
    )


def _compare(kind: type[node.CompareFilter]) -> Callable[[_Arguments], node.Node]:
    def build(args: _Arguments) -> node.Node:
        args.count(2)
        op = args.operator(0)
        return kind(op, args.comparator(1, op))

    return build


def _single_column_value(
    kind: type[node.SingleColumnValueFilter],
) -> Callable[[_Arguments], node.Node]:
    def build(args: _Arguments) -> node.Node:
        given = args.count(4, 6)
        family, qualifier, op = args.string(0), args.string(1), args.operator(2)
        comparator = args.comparator(3, op)
        if given == 4:
            return kind(family, qualifier, op, comparator)
        return kind(family, qualifier, op, comparator, args.boolean(4), args.boolean(5))

    return build


def _dependent_column(args: _Arguments) -> node.Node:
    given = args.count(2, 3, 5)
    family, qualifier = args.string(0), args.string(1)
    if given == 2:
        return node.DependentColumnFilter(family, qualifier)
    drop = args.boolean(2)
    if given == 3:
        return node.DependentColumnFilter(family, qualifier, drop)
    # HBase does not restrict substring/regexstring to = and != for this filter.
    return node.DependentColumnFilter(family, qualifier, drop, args.operator(3), args.comparator(4))


def _column_value(args: _Arguments) -> node.Node:
    args.count(4)
    family, qualifier, op = args.string(0), args.string(1), args.operator(2)
    return node.ColumnValueFilter(family, qualifier, op, args.comparator(3, op))


_FACTORIES: dict[str, Callable[[_Arguments], node.Node]] = {
    "ColumnCountGetFilter": _column_count_get,
    "ColumnPaginationFilter": _column_pagination,
    "ColumnPrefixFilter": _column_prefix,
    "ColumnRangeFilter": _column_range,
    "ColumnValueFilter": _column_value,
    "DependentColumnFilter": _dependent_column,
    "FamilyFilter": _compare(node.FamilyFilter),
    "FirstKeyOnlyFilter": _first_key_only,
    "InclusiveStopFilter": _inclusive_stop,
    "KeyOnlyFilter": _key_only,
    "MultipleColumnPrefixFilter": _multiple_column_prefix,
    "PageFilter": _page,
    "PrefixFilter": _prefix,
    "QualifierFilter": _compare(node.QualifierFilter),
    "RowFilter": _compare(node.RowFilter),
    "SingleColumnValueExcludeFilter": _single_column_value(node.SingleColumnValueExcludeFilter),
    "SingleColumnValueFilter": _single_column_value(node.SingleColumnValueFilter),
    "TimestampsFilter": _timestamps,
    "ValueFilter": _compare(node.ValueFilter),
}

#: The filter names the language knows: exactly those HBase's ``ParseFilter`` registers.
SUPPORTED_FILTERS = frozenset(_FACTORIES)


Factory = Callable[[_Arguments], node.Node]


def lookup_filter(source: Source, name: Token) -> Factory:
    """The builder of the filter called ``name`` (checked before its arguments are read).

    Raises:
        FilterError: The name is not a filter of the language (case matters).
    """
    text = name.value.decode("utf-8", "backslashreplace")
    factory = _FACTORIES.get(text)
    if factory is None:
        reason = _NOT_IN_LANGUAGE.get(text)
        if reason:
            raise source.error(
                f"filter {text} is not supported by the filter language ({reason})", name.start
            )
        close = difflib.get_close_matches(text, SUPPORTED_FILTERS, n=1, cutoff=0.8)
        if not close:
            close = [known for known in SUPPORTED_FILTERS if known.lower() == text.lower()]
        hint = f"; did you mean {close[0]}?" if close else ""
        raise source.error(f"unknown filter {text!r}", name.start, hint)
    return factory


def build_filter(
    source: Source, name: Token, factory: Factory, arguments: Sequence[Token]
) -> node.Node:
    """Build the node for ``name(arguments...)`` with the builder :func:`lookup_filter` gave.

    Raises:
        FilterError: The arguments are of the wrong number or type, naming the filter.
    """
    return factory(_Arguments(source, name, arguments))
