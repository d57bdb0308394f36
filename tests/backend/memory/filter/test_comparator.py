"""Compare operators and the four comparators, as HBase's ByteArrayComparable classes (I4)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.backend.memory.filter.comparator import (
    BinaryComparator,
    BinaryPrefixComparator,
    CompareOp,
    RegexStringComparator,
    SubstringComparator,
    parse_comparator,
)
from hmodel.errors import FilterError


@pytest.mark.parametrize(
    ("op", "less", "equal", "greater"),
    [
        # Whether a cell passes when it is less than, equal to, greater than the operand.
        (CompareOp.LESS, True, False, False),
        (CompareOp.LESS_OR_EQUAL, True, True, False),
        (CompareOp.EQUAL, False, True, False),
        (CompareOp.NOT_EQUAL, True, False, True),
        (CompareOp.GREATER_OR_EQUAL, False, True, True),
        (CompareOp.GREATER, False, False, True),
    ],
)
def test_operators_read_cell_op_operand(
    op: CompareOp, less: bool, equal: bool, greater: bool
) -> None:
    comparator = BinaryComparator(b"m")
    assert [op.passes(comparator.compare_to(cell)) for cell in (b"a", b"m", b"z")] == [
        less,
        equal,
        greater,
    ]


@pytest.mark.parametrize(
    ("operand", "value", "result"),
    [
        (b"abc", b"abc", 0),
        (b"abc", b"abd", -1),
        (b"abc", b"ab", 1),
        (b"abc", b"abcd", -1),
        (b"", b"", 0),
        (b"", b"a", -1),
        (b"\x7f", b"\x80", -1),  # unsigned: 0x80 sorts after 0x7f
        (b"\xff", b"\x00", 1),
    ],
)
def test_binary_compares_unsigned_bytes(operand: bytes, value: bytes, result: int) -> None:
    assert BinaryComparator(operand).compare_to(value) == result


@pytest.mark.parametrize(
    ("operand", "value", "result"),
    [
        (b"abc", b"abc", 0),
        (b"abc", b"abcdef", 0),
        (b"abc", b"abd", -1),
        (b"abc", b"abb\xff", 1),
        (b"abc", b"ab", 1),  # a shorter cell compares as itself
        (b"", b"anything", 0),
        (b"\x80", b"\x7f\xff", 1),
    ],
)
def test_binaryprefix_compares_only_the_operand_length(
    operand: bytes, value: bytes, result: int
) -> None:
    assert BinaryPrefixComparator(operand).compare_to(value) == result


@pytest.mark.parametrize(
    ("operand", "value", "result"),
    [
        (b"an", b"banana", 0),
        (b"AN", b"banana", 0),
        (b"an", b"BANANA", 0),
        (b"xy", b"banana", 1),
        (b"", b"", 0),
        ("\u00c9T\u00c9".encode(), "\u00e9t\u00e9".encode(), 0),
        (b"a", b"\xff", 1),  # undecodable bytes become U+FFFD, never an error
    ],
)
def test_substring_is_a_case_insensitive_utf8_search(
    operand: bytes, value: bytes, result: int
) -> None:
    assert SubstringComparator(operand).compare_to(value) == result


@pytest.mark.parametrize(
    ("pattern", "value", "result"),
    [
        (b"ab*yz", b"xxabbbyzxx", 0),  # find(), not a whole match
        (b"^ab", b"xab", 1),
        (b"^a.c$", b"a\nc", 0),  # DOTALL: . matches a newline
        (b"^[0-9]+$", b"12345", 0),
        (b"^[0-9]+$", b"12a45", 1),
        ("\u00e9+".encode(), "caf\u00e9\u00e9".encode(), 0),
        (b"(?i)ROW", b"row1", 0),
    ],
)
def test_regexstring_searches_the_utf8_text_with_dotall(
    pattern: bytes, value: bytes, result: int
) -> None:
    assert RegexStringComparator(pattern).compare_to(value) == result


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (b"binary:abc", BinaryComparator(b"abc")),
        (b"binaryprefix:abc", BinaryPrefixComparator(b"abc")),
        (b"substring:abc", SubstringComparator(b"abc")),
        (b"regexstring:a.c", RegexStringComparator(b"a.c")),
        (b"binary:a:b:", BinaryComparator(b"a:b:")),  # only the first colon separates
        (b"binary:", BinaryComparator(b"")),
    ],
)
def test_parse_comparator_splits_at_the_first_colon(spec: bytes, expected: object) -> None:
    assert parse_comparator(spec) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (b"abc", "a comparator is 'type:operand'"),
        (b"", "a comparator is 'type:operand'"),
        (b"BINARY:a", "unknown comparator type"),
        (b":a", "unknown comparator type"),
        (b"regexstring:[", "invalid regexstring pattern"),
        (b"regexstring:(?<name>x)", "invalid regexstring pattern"),  # Java-only syntax
    ],
)
def test_bad_comparators_raise_filter_errors(spec: bytes, message: str) -> None:
    with pytest.raises(FilterError, match=message):
        parse_comparator(spec)


@given(st.binary(max_size=8), st.binary(max_size=8))
def test_binary_comparison_agrees_with_python_bytes_order(operand: bytes, value: bytes) -> None:
    result = BinaryComparator(operand).compare_to(value)
    assert (result < 0, result == 0, result > 0) == (
        operand < value,
        operand == value,
        operand > value,
    )


@given(st.binary(max_size=6), st.binary(max_size=10))
def test_binaryprefix_equal_means_the_cell_starts_with_the_operand(
    operand: bytes, value: bytes
) -> None:
    assert (BinaryPrefixComparator(operand).compare_to(value) == 0) == value.startswith(operand)
