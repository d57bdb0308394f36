"""The parsed form of a filter string: one immutable node per filter or operator (I4)."""

from __future__ import annotations

import attrs

from hmodel.backend.memory.filter.comparator import Comparator, CompareOp

__all__ = [
    "ColumnCountGetFilter",
    "ColumnPaginationFilter",
    "ColumnPrefixFilter",
    "ColumnRangeFilter",
    "ColumnValueFilter",
    "CompareFilter",
    "DependentColumnFilter",
    "FamilyFilter",
    "FilterList",
    "FirstKeyOnlyFilter",
    "InclusiveStopFilter",
    "KeyOnlyFilter",
    "MultipleColumnPrefixFilter",
    "Node",
    "PageFilter",
    "PrefixFilter",
    "QualifierFilter",
    "RowFilter",
    "SingleColumnValueExcludeFilter",
    "SingleColumnValueFilter",
    "Skip",
    "TimestampsFilter",
    "ValueFilter",
    "While",
    "is_family_essential",
    "quote",
]


def quote(value: bytes) -> bytes:
    """Write ``value`` as a filter-language string literal: ``'it''s'`` for ``it's``."""
    return b"'" + value.replace(b"'", b"''") + b"'"


def _bool(value: bool) -> bytes:
    return b"true" if value else b"false"


def _comparator(comparator: Comparator) -> bytes:
    return quote(comparator.kind.encode() + b":" + comparator.operand)


def _call(name: str, *arguments: bytes) -> bytes:
    return name.encode() + b"(" + b", ".join(arguments) + b")"


class _Leaf:
    """Mixin: a filter with a name and arguments, rendered as ``Name(arg, ...)``."""

    def _arguments(self) -> tuple[bytes, ...]:
        """The rendered arguments."""
        raise NotImplementedError

    def render(self) -> bytes:
        """This filter in canonical filter-language syntax (UTF-8 bytes)."""
        return _call(type(self).__name__, *self._arguments())


@attrs.frozen
class KeyOnlyFilter(_Leaf):
    """Every cell, with its value emptied.

    With ``len_as_value`` the value becomes the original value's length as a 4-byte
    big-endian int (HBase ``Bytes.toBytes(int)``).
    """

    len_as_value: bool = False

    def _arguments(self) -> tuple[bytes, ...]:
        return (_bool(self.len_as_value),)


@attrs.frozen
class FirstKeyOnlyFilter(_Leaf):
    """Only the first cell of each row (its first column's newest version)."""

    def _arguments(self) -> tuple[bytes, ...]:
        return ()


@attrs.frozen
class PrefixFilter(_Leaf):
    """Rows whose key starts with ``prefix``; the scan ends once rows pass the prefix."""

    prefix: bytes

    def _arguments(self) -> tuple[bytes, ...]:
        return (quote(self.prefix),)


@attrs.frozen
class ColumnPrefixFilter(_Leaf):
    """Cells whose qualifier starts with ``prefix`` (in every family)."""

    prefix: bytes

    def _arguments(self) -> tuple[bytes, ...]:
        return (quote(self.prefix),)


@attrs.frozen
class MultipleColumnPrefixFilter(_Leaf):
    """Cells whose qualifier starts with any of ``prefixes`` (none given: every cell)."""

    prefixes: tuple[bytes, ...]

    def _arguments(self) -> tuple[bytes, ...]:
        return tuple(quote(prefix) for prefix in self.prefixes)


@attrs.frozen
class ColumnCountGetFilter(_Leaf):
    """The first ``limit`` columns of a row, newest version each.

    Made for gets: a family's scanner closes once it sees a row with more than ``limit``
    columns, so a one-family scan ends at the first wide row (whose first ``limit``
    columns are still returned).
    """

    limit: int

    def _arguments(self) -> tuple[bytes, ...]:
        return (str(self.limit).encode(),)


@attrs.frozen
class PageFilter(_Leaf):
    """At most ``page_size`` rows per scan (per region in HBase; the engine is one region)."""

    page_size: int

    def _arguments(self) -> tuple[bytes, ...]:
        return (str(self.page_size).encode(),)


@attrs.frozen
class ColumnPaginationFilter(_Leaf):
    """Columns ``offset`` to ``offset + limit - 1`` of each row (0-based), newest version each."""

    limit: int
    offset: int

    def _arguments(self) -> tuple[bytes, ...]:
        return (str(self.limit).encode(), str(self.offset).encode())


@attrs.frozen
class InclusiveStopFilter(_Leaf):
    """Rows up to and including ``stop_row``; the scan ends after it."""

    stop_row: bytes

    def _arguments(self) -> tuple[bytes, ...]:
        return (quote(self.stop_row),)


@attrs.frozen
class TimestampsFilter(_Leaf):
    """Cells whose timestamp is one of ``timestamps`` (none given: no cell)."""

    timestamps: tuple[int, ...]

    def _arguments(self) -> tuple[bytes, ...]:
        return tuple(str(timestamp).encode() for timestamp in self.timestamps)


@attrs.frozen
class ColumnRangeFilter(_Leaf):
    """Cells whose qualifier lies between ``min_column`` and ``max_column``.

    ``None`` (written ``''``) leaves that side unbounded; each bound is inclusive or
    exclusive as its flag says. Qualifiers compare as unsigned bytes.
    """

    min_column: bytes | None
    min_inclusive: bool
    max_column: bytes | None
    max_inclusive: bool

    def _arguments(self) -> tuple[bytes, ...]:
        return (
            quote(self.min_column or b""),
            _bool(self.min_inclusive),
            quote(self.max_column or b""),
            _bool(self.max_inclusive),
        )


@attrs.frozen
class CompareFilter(_Leaf):
    """Base of the filters that compare one part of each cell: ``part <op> comparator``."""

    op: CompareOp
    comparator: Comparator

    def _arguments(self) -> tuple[bytes, ...]:
        return (self.op.value.encode(), _comparator(self.comparator))


@attrs.frozen
class RowFilter(CompareFilter):
    """Rows whose key satisfies ``row <op> comparator``."""


@attrs.frozen
class FamilyFilter(CompareFilter):
    """Cells whose family satisfies ``family <op> comparator``."""


@attrs.frozen
class QualifierFilter(CompareFilter):
    """Cells whose qualifier satisfies ``qualifier <op> comparator``.

    An empty qualifier is compared like any other, as in HBase 2 (1.x let it pass).
    """


@attrs.frozen
class ValueFilter(CompareFilter):
    """Cells whose value satisfies ``value <op> comparator``."""


@attrs.frozen
class SingleColumnValueFilter(_Leaf):
    """Whole rows, kept or dropped on one column's value.

    A row whose ``family:qualifier`` passes is kept whole; one where it fails is dropped;
    one without the column is kept unless ``filter_if_missing``. With
    ``latest_version_only`` (the default) only the newest version is tested, otherwise
    any passing version keeps the row.
    """

    family: bytes
    qualifier: bytes
    op: CompareOp
    comparator: Comparator
    filter_if_missing: bool = False
    latest_version_only: bool = True

    def _arguments(self) -> tuple[bytes, ...]:
        return (
            quote(self.family),
            quote(self.qualifier),
            self.op.value.encode(),
            _comparator(self.comparator),
            _bool(self.filter_if_missing),
            _bool(self.latest_version_only),
        )


@attrs.frozen
class SingleColumnValueExcludeFilter(SingleColumnValueFilter):
    """As :class:`SingleColumnValueFilter`, but the tested column is left out of the rows."""


@attrs.frozen
class DependentColumnFilter(_Leaf):
    """Cells whose timestamp equals that of a (passing) version of ``family:qualifier``.

    With ``op``/``comparator`` only versions of the reference column that pass count;
    ``drop_dependent_column`` leaves the reference column out of the result.
    """

    family: bytes
    qualifier: bytes
    drop_dependent_column: bool = False
    op: CompareOp | None = None
    comparator: Comparator | None = None

    def _arguments(self) -> tuple[bytes, ...]:
        head = (quote(self.family), quote(self.qualifier), _bool(self.drop_dependent_column))
        if self.op is None or self.comparator is None:
            return head
        return (*head, self.op.value.encode(), _comparator(self.comparator))


@attrs.frozen
class ColumnValueFilter(_Leaf):
    """Only the versions of ``family:qualifier`` that pass; every other cell is dropped."""

    family: bytes
    qualifier: bytes
    op: CompareOp
    comparator: Comparator

    def _arguments(self) -> tuple[bytes, ...]:
        return (
            quote(self.family),
            quote(self.qualifier),
            self.op.value.encode(),
            _comparator(self.comparator),
        )


@attrs.frozen
class Skip:
    """``SKIP f``: a row is dropped unless ``f`` includes every cell it is shown."""

    filter: Node

    def render(self) -> bytes:
        """``SKIP`` and the operand, parenthesised if it is an ``AND``/``OR`` list."""
        return b"SKIP " + _operand(self.filter)


@attrs.frozen
class While:
    """``WHILE f``: the scan ends at the first row key or cell ``f`` rejects."""

    filter: Node

    def render(self) -> bytes:
        """``WHILE`` and the operand, parenthesised if it is an ``AND``/``OR`` list."""
        return b"WHILE " + _operand(self.filter)


@attrs.frozen
class FilterList:
    """``f AND g AND ...`` (``must_pass_all``) or ``f OR g OR ...``; two or more filters."""

    must_pass_all: bool
    filters: tuple[Node, ...]

    def render(self) -> bytes:
        """The filters joined by ``AND``/``OR``; nested lists keep their parentheses."""
        joiner = b" AND " if self.must_pass_all else b" OR "
        parts = []
        for child in self.filters:
            # An AND list inside an OR list needs no parentheses: AND binds tighter.
            bare = isinstance(child, FilterList) and child.must_pass_all and not self.must_pass_all
            parts.append(child.render() if bare else _operand(child))
        return joiner.join(parts)


def _operand(node: Node) -> bytes:
    return b"(" + node.render() + b")" if isinstance(node, FilterList) else node.render()


Node = (
    KeyOnlyFilter
    | FirstKeyOnlyFilter
    | PrefixFilter
    | ColumnPrefixFilter
    | MultipleColumnPrefixFilter
    | ColumnCountGetFilter
    | PageFilter
    | ColumnPaginationFilter
    | InclusiveStopFilter
    | TimestampsFilter
    | ColumnRangeFilter
    | CompareFilter
    | SingleColumnValueFilter
    | DependentColumnFilter
    | ColumnValueFilter
    | Skip
    | While
    | FilterList
)
"""Any node of a parsed filter."""


def is_family_essential(node: Node, family: bytes) -> bool:
    """Whether ``node`` needs ``family``'s cells to decide on a row (HBase ``isFamilyEssential``).

    HBase loads a non-essential family only for rows the filter keeps ("on demand", on by
    default through ``hbase.hregion.scan.loadColumnFamiliesOnDemand``). Only the filters
    tied to one column say so of other families: ``SingleColumnValueFilter`` (and its
    ``Exclude`` variant) with ``filterIfMissing``, and ``ColumnValueFilter``; ``SKIP`` and
    ``WHILE`` ask their operand, a list any of its members. Every other filter needs every
    family.
    """
    match node:
        case SingleColumnValueFilter():
            return not node.filter_if_missing or node.family == family
        case ColumnValueFilter():
            return node.family == family
        case Skip() | While():
            return is_family_essential(node.filter, family)
        case FilterList():
            return any(is_family_essential(child, family) for child in node.filters)
        case _:
            return True
