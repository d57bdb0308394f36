"""Compare operators and the four byte comparators of the HBase filter language (I4)."""

from __future__ import annotations

import enum
import re

import attrs

from hmodel.errors import FilterError

__all__ = [
    "BinaryComparator",
    "BinaryPrefixComparator",
    "Comparator",
    "CompareOp",
    "RegexStringComparator",
    "SubstringComparator",
    "parse_comparator",
]


class CompareOp(enum.Enum):
    """A compare operator; its value is how the filter language writes it.

    A filter reads ``cell_part <op> operand``: ``ValueFilter(<, 'binary:m')`` keeps
    values less than ``m``.
    """

    LESS = "<"
    LESS_OR_EQUAL = "<="
    EQUAL = "="
    NOT_EQUAL = "!="
    GREATER_OR_EQUAL = ">="
    GREATER = ">"

    def passes(self, result: int) -> bool:
        """Whether a cell passes, given ``result = comparator.compare_to(cell_part)``.

        ``result`` compares the *operand* with the cell's bytes (negative: operand is
        smaller), as HBase's ``ByteArrayComparable.compareTo`` does, hence the mirrored
        tests (``CompareFilter.compare`` negated).
        """
        if self is CompareOp.LESS:
            return result > 0
        if self is CompareOp.LESS_OR_EQUAL:
            return result >= 0
        if self is CompareOp.EQUAL:
            return result == 0
        if self is CompareOp.NOT_EQUAL:
            return result != 0
        if self is CompareOp.GREATER_OR_EQUAL:
            return result <= 0
        return result < 0


def _sign(a: bytes, b: bytes) -> int:
    """Compare as unsigned bytes (HBase ``Bytes.compareTo``): -1, 0 or 1."""
    return (a > b) - (a < b)


@attrs.frozen
class BinaryComparator:
    """``binary:operand``: the cell bytes compared with the operand, unsigned bytewise."""

    operand: bytes
    kind = "binary"
    equality_only = False

    def compare_to(self, value: bytes) -> int:
        """Compare the operand with ``value`` (sign of ``operand - value``)."""
        return _sign(self.operand, value)


@attrs.frozen
class BinaryPrefixComparator:
    """``binaryprefix:operand``: only the first ``len(operand)`` bytes of the cell count.

    A cell shorter than the operand compares as its whole self, so ``b"ab"`` is less
    than the operand ``b"abc"`` and ``b"abz"`` greater.
    """

    operand: bytes
    kind = "binaryprefix"
    equality_only = False

    def compare_to(self, value: bytes) -> int:
        """Compare the operand with the first ``len(operand)`` bytes of ``value``."""
        return _sign(self.operand, value[: len(self.operand)])


@attrs.frozen
class SubstringComparator:
    """``substring:text``: 0 when the cell, decoded as UTF-8, contains ``text``, else 1.

    Case-insensitive: both sides are lower-cased (HBase lower-cases with
    ``Locale.ROOT``; Python's ``str.lower`` agrees except for a few special letters).
    Only ``=`` and ``!=`` may be used with it.
    """

    operand: bytes
    kind = "substring"
    equality_only = True
    _needle: str = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_needle", self.operand.decode("utf-8", "replace").lower())

    def compare_to(self, value: bytes) -> int:
        """0 if ``value`` contains the substring (ignoring case), 1 otherwise."""
        return 0 if self._needle in value.decode("utf-8", "replace").lower() else 1


@attrs.frozen
class RegexStringComparator:
    """``regexstring:pattern``: 0 when the pattern is *found* in the cell, else 1.

    HBase compiles a ``java.util.regex.Pattern`` with ``DOTALL`` and uses ``find()``;
    here Python's :mod:`re` with :data:`re.DOTALL` and :func:`re.search` stand in, on the
    cell decoded as UTF-8. Patterns Python cannot compile raise :class:`FilterError`.
    Only ``=`` and ``!=`` may be used with it.
    """

    operand: bytes
    kind = "regexstring"
    equality_only = True
    _pattern: re.Pattern[str] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        text = self.operand.decode("utf-8", "replace")
        try:
            pattern = re.compile(text, re.DOTALL)
        except re.error as exc:
            raise FilterError(f"invalid regexstring pattern: {exc}", value=text) from exc
        object.__setattr__(self, "_pattern", pattern)

    def compare_to(self, value: bytes) -> int:
        """0 if the pattern matches somewhere in ``value``, 1 otherwise."""
        return 0 if self._pattern.search(value.decode("utf-8", "replace")) else 1


Comparator = BinaryComparator | BinaryPrefixComparator | SubstringComparator | RegexStringComparator

_KINDS: dict[
    bytes,
    type[BinaryComparator]
    | type[BinaryPrefixComparator]
    | type[SubstringComparator]
    | type[RegexStringComparator],
] = {
    b"binary": BinaryComparator,
    b"binaryprefix": BinaryPrefixComparator,
    b"substring": SubstringComparator,
    b"regexstring": RegexStringComparator,
}


def parse_comparator(spec: bytes) -> Comparator:
    """Build a comparator from ``type:operand`` (the part before the first colon names it).

    Raises:
        FilterError: No colon, an unknown type (types are case-sensitive), or a regular
            expression that does not compile.
    """
    kind, colon, operand = spec.partition(b":")
    if not colon:
        raise FilterError(
            "a comparator is 'type:operand' with type binary, binaryprefix, substring "
            "or regexstring",
            value=spec,
        )
    factory = _KINDS.get(kind)
    if factory is None:
        name = kind.decode("utf-8", "backslashreplace")
        raise FilterError(
            f"unknown comparator type {name!r} (expected binary, binaryprefix, substring or "
            "regexstring)",
            value=spec,
        )
    return factory(operand)
