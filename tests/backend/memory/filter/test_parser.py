"""Parsing filter strings: the grammar, precedence, arguments and every error (I4)."""

from __future__ import annotations

import pytest

from hmodel.backend.memory.filter import SUPPORTED_FILTERS, compile_filter
from hmodel.backend.memory.filter import node as n
from hmodel.backend.memory.filter.comparator import (
    BinaryComparator,
    BinaryPrefixComparator,
    CompareOp,
    RegexStringComparator,
    SubstringComparator,
)
from hmodel.errors import FilterError, IllegalArgumentError

A = n.PrefixFilter(b"a")
B = n.PrefixFilter(b"b")
C = n.PrefixFilter(b"c")
D = n.PrefixFilter(b"d")


def tree(text: str | bytes) -> n.Node:
    return compile_filter(text).root


def AND(*filters: n.Node) -> n.FilterList:
    return n.FilterList(True, filters)


def OR(*filters: n.Node) -> n.FilterList:
    return n.FilterList(False, filters)


# --- every filter and its arguments ----------------------------------------------------------

EQ, NE, LT, LE, GT, GE = (
    CompareOp.EQUAL,
    CompareOp.NOT_EQUAL,
    CompareOp.LESS,
    CompareOp.LESS_OR_EQUAL,
    CompareOp.GREATER,
    CompareOp.GREATER_OR_EQUAL,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The reference guide's "Individual Filter Syntax" examples that HBase accepts.
        ("KeyOnlyFilter ()", n.KeyOnlyFilter()),
        ("KeyOnlyFilter (true)", n.KeyOnlyFilter(True)),
        ("KeyOnlyFilter (FALSE)", n.KeyOnlyFilter(False)),
        ("FirstKeyOnlyFilter ()", n.FirstKeyOnlyFilter()),
        ("PrefixFilter ('Row')", n.PrefixFilter(b"Row")),
        ("ColumnPrefixFilter ('Col')", n.ColumnPrefixFilter(b"Col")),
        (
            "MultipleColumnPrefixFilter ('Col1', 'Col2')",
            n.MultipleColumnPrefixFilter((b"Col1", b"Col2")),
        ),
        ("MultipleColumnPrefixFilter ()", n.MultipleColumnPrefixFilter(())),
        ("ColumnCountGetFilter (4)", n.ColumnCountGetFilter(4)),
        ("PageFilter (2)", n.PageFilter(2)),
        ("ColumnPaginationFilter (3, 5)", n.ColumnPaginationFilter(3, 5)),
        ("InclusiveStopFilter ('Row2')", n.InclusiveStopFilter(b"Row2")),
        (
            "TimestampsFilter (5985489, 48895495, 58489845945)",
            n.TimestampsFilter((5985489, 48895495, 58489845945)),
        ),
        ("TimestampsFilter ()", n.TimestampsFilter(())),
        ("RowFilter (<=, 'binary:xyz')", n.RowFilter(LE, BinaryComparator(b"xyz"))),
        (
            "FamilyFilter (>=, 'binaryprefix:FamilyB')",
            n.FamilyFilter(GE, BinaryPrefixComparator(b"FamilyB")),
        ),
        (
            "QualifierFilter (=, 'substring:Column1')",
            n.QualifierFilter(EQ, SubstringComparator(b"Column1")),
        ),
        ("ValueFilter (!=, 'binary:Value')", n.ValueFilter(NE, BinaryComparator(b"Value"))),
        ("ValueFilter (!=, 'regexstring:^v+$')", n.ValueFilter(NE, RegexStringComparator(b"^v+$"))),
        ("ValueFilter (>, 'binary:')", n.ValueFilter(GT, BinaryComparator(b""))),
        ("ValueFilter (<, 'binary:a:b')", n.ValueFilter(LT, BinaryComparator(b"a:b"))),
        (
            "ColumnRangeFilter ('abc', true, 'xyz', false)",
            n.ColumnRangeFilter(b"abc", True, b"xyz", False),
        ),
        ("ColumnRangeFilter ('', false, '', true)", n.ColumnRangeFilter(None, False, None, True)),
        (
            "SingleColumnValueFilter ('FamilyA', 'Column1', <=, 'binary:abc', true, false)",
            n.SingleColumnValueFilter(
                b"FamilyA", b"Column1", LE, BinaryComparator(b"abc"), True, False
            ),
        ),
        (
            "SingleColumnValueFilter ('FamilyA', 'Column1', <=, 'binary:abc')",
            n.SingleColumnValueFilter(b"FamilyA", b"Column1", LE, BinaryComparator(b"abc")),
        ),
        (
            "SingleColumnValueExcludeFilter ('FamilyA', 'Column1', <=, 'binary:abc', false, true)",
            n.SingleColumnValueExcludeFilter(
                b"FamilyA", b"Column1", LE, BinaryComparator(b"abc"), False, True
            ),
        ),
        (
            "DependentColumnFilter ('conf', 'blacklist', false, >=, 'binary:zebra')",
            n.DependentColumnFilter(b"conf", b"blacklist", False, GE, BinaryComparator(b"zebra")),
        ),
        (
            "DependentColumnFilter ('conf', 'blacklist', true)",
            n.DependentColumnFilter(b"conf", b"blacklist", True),
        ),
        (
            "DependentColumnFilter ('conf', 'blacklist')",
            n.DependentColumnFilter(b"conf", b"blacklist"),
        ),
        (
            "DependentColumnFilter ('c', 'b', false, >, 'substring:x')",
            n.DependentColumnFilter(b"c", b"b", False, GT, SubstringComparator(b"x")),
        ),
        (
            "ColumnValueFilter ('f', 'q', >, 'binary:5')",
            n.ColumnValueFilter(b"f", b"q", GT, BinaryComparator(b"5")),
        ),
        ("PageFilter (-0)", n.PageFilter(0)),
        ("PageFilter (9223372036854775807)", n.PageFilter(2**63 - 1)),
        ("ColumnCountGetFilter (2147483647)", n.ColumnCountGetFilter(2**31 - 1)),
    ],
)
def test_each_filter_parses_its_arguments(text: str, expected: n.Node) -> None:
    assert tree(text) == expected


def test_every_filter_the_language_registers_is_supported() -> None:
    """The names of HBase's ParseFilter.filterHashMap, no more, no fewer."""
    assert sorted(SUPPORTED_FILTERS) == [
        "ColumnCountGetFilter",
        "ColumnPaginationFilter",
        "ColumnPrefixFilter",
        "ColumnRangeFilter",
        "ColumnValueFilter",
        "DependentColumnFilter",
        "FamilyFilter",
        "FirstKeyOnlyFilter",
        "InclusiveStopFilter",
        "KeyOnlyFilter",
        "MultipleColumnPrefixFilter",
        "PageFilter",
        "PrefixFilter",
        "QualifierFilter",
        "RowFilter",
        "SingleColumnValueExcludeFilter",
        "SingleColumnValueFilter",
        "TimestampsFilter",
        "ValueFilter",
    ]


def test_string_arguments_are_the_utf8_bytes_of_the_literal() -> None:
    assert tree("PrefixFilter('\u4e2d')") == n.PrefixFilter("\u4e2d".encode())


def test_bytes_filter_strings_carry_arbitrary_binary_operands() -> None:
    assert tree(b"ValueFilter(=, 'binary:\x00\xff')") == n.ValueFilter(
        EQ, BinaryComparator(b"\x00\xff")
    )


def test_quotes_inside_arguments_are_doubled() -> None:
    assert tree("ValueFilter(=, 'binary:it''s')") == n.ValueFilter(EQ, BinaryComparator(b"it's"))


# --- operators, precedence and parentheses ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("PrefixFilter('a') AND PrefixFilter('b')", AND(A, B)),
        ("PrefixFilter('a') OR PrefixFilter('b')", OR(A, B)),
        ("PrefixFilter('a') AND PrefixFilter('b') AND PrefixFilter('c')", AND(A, B, C)),
        ("PrefixFilter('a') OR PrefixFilter('b') OR PrefixFilter('c')", OR(A, B, C)),
        # AND binds tighter than OR, on either side.
        ("PrefixFilter('a') AND PrefixFilter('b') OR PrefixFilter('c')", OR(AND(A, B), C)),
        ("PrefixFilter('a') OR PrefixFilter('b') AND PrefixFilter('c')", OR(A, AND(B, C))),
        (
            "PrefixFilter('a') AND PrefixFilter('b') OR PrefixFilter('c') AND PrefixFilter('d')",
            OR(AND(A, B), AND(C, D)),
        ),
        # SKIP and WHILE bind tighter than AND and OR.
        ("SKIP PrefixFilter('a') AND PrefixFilter('b')", AND(n.Skip(A), B)),
        ("PrefixFilter('a') OR WHILE PrefixFilter('b')", OR(A, n.While(B))),
        ("SKIP WHILE PrefixFilter('a')", n.Skip(n.While(A))),
        ("WHILE SKIP PrefixFilter('a')", n.While(n.Skip(A))),
        # Parentheses group; a parenthesised list stays one nested list.
        ("(PrefixFilter('a'))", A),
        ("((PrefixFilter('a')))", A),
        ("PrefixFilter('a') AND (PrefixFilter('b') OR PrefixFilter('c'))", AND(A, OR(B, C))),
        ("(PrefixFilter('a') AND PrefixFilter('b')) AND PrefixFilter('c')", AND(AND(A, B), C)),
        ("PrefixFilter('a') AND (PrefixFilter('b') AND PrefixFilter('c'))", AND(A, AND(B, C))),
        ("SKIP (PrefixFilter('a') OR PrefixFilter('b'))", n.Skip(OR(A, B))),
        ("WHILE(PrefixFilter('a'))", n.While(A)),
        # Spacing: none needed around parentheses, tabs and runs of spaces allowed.
        ("(PrefixFilter('a'))AND(PrefixFilter('b'))", AND(A, B)),
        ("\tPrefixFilter  (  'a'  )\tOR\tPrefixFilter('b')  ", OR(A, B)),
    ],
)
def test_operators_follow_hbase_precedence(text: str, expected: n.Node) -> None:
    assert tree(text) == expected


def test_reference_guide_compound_example_parses_once_its_typos_are_fixed() -> None:
    text = (
        "(RowFilter (=, 'binary:Row 1') AND TimestampsFilter (74689, 89734)) "
        "OR ColumnRangeFilter ('abc', true, 'xyz', false)"
    )
    assert tree(text) == OR(
        AND(n.RowFilter(EQ, BinaryComparator(b"Row 1")), n.TimestampsFilter((74689, 89734))),
        n.ColumnRangeFilter(b"abc", True, b"xyz", False),
    )


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty filter string at offset 0"),
        ("   ", "empty filter string"),
        (
            "PrefixFilter",
            "expected '\\(' after filter name 'PrefixFilter', found end of filter at offset 12",
        ),
        ("PrefixFilter 'a'", "expected '\\(' after filter name"),
        (
            "PrefixFilter('a'",
            "expected ',' or '\\)' in the argument list, found end of filter at offset 16",
        ),
        (
            "PrefixFilter('a' 'b')",
            "expected ',' or '\\)' in the argument list, found string 'b' at offset 17",
        ),
        ("PrefixFilter(,'a')", "expected an argument, found ',' at offset 13"),
        ("PrefixFilter('a',)", "expected an argument, found '\\)' at offset 17"),
        ("PrefixFilter(('a'))", "expected an argument, found '\\(' at offset 13"),
        ("PrefixFilter('a'))", "expected AND, OR or end of filter, found '\\)' at offset 17"),
        (
            "(PrefixFilter('a')",
            "expected '\\)' closing the parenthesis, found end of filter at offset 18",
        ),
        ("()", "expected a filter name, SKIP, WHILE or '\\(', found '\\)' at offset 1"),
        (
            "AND PrefixFilter('a')",
            "expected a filter name, SKIP, WHILE or '\\(', found 'AND' at offset 0",
        ),
        ("PrefixFilter('a') AND", "found end of filter at offset 21"),
        ("PrefixFilter('a') OR OR PrefixFilter('b')", "found 'OR' at offset 21"),
        (
            "PrefixFilter('a') PrefixFilter('b')",
            "expected AND, OR or end of filter, found 'PrefixFilter' at offset 18",
        ),
        ("PrefixFilter('a') and PrefixFilter('b')", "found 'and' at offset 18"),
        ("SKIP", "found end of filter at offset 4"),
        ("PrefixFilter('a') SKIP PrefixFilter('b')", "found 'SKIP' at offset 18"),
        ("'a'", "expected a filter name, SKIP, WHILE or '\\(', found string 'a' at offset 0"),
        (",", "found ',' at offset 0"),
        ("PrefixFilter('a') , KeyOnlyFilter()", "found ',' at offset 18"),
        ("PrefixFilter('abc", "unterminated quoted string opened at offset 13"),
    ],
)
def test_syntax_errors_name_the_token_and_its_offset(text: str, message: str) -> None:
    with pytest.raises(FilterError, match=message) as caught:
        compile_filter(text)
    assert caught.value.value == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("NoSuchFilter()", "unknown filter 'NoSuchFilter' at offset 0"),
        # The reference guide's own spelling is not what ParseFilter registers.
        (
            "TimeStampsFilter (5985489)",
            "unknown filter 'TimeStampsFilter' at offset 0; did you mean TimestampsFilter\\?",
        ),
        ("prefixfilter('a')", "did you mean PrefixFilter\\?"),
        ("SkipFilter(PrefixFilter('a'))", "SkipFilter is not supported .*use the SKIP operator"),
        ("WhileMatchFilter()", "use the WHILE operator"),
        ("FilterList()", "combine filters with AND / OR"),
        ("FuzzyRowFilter('a')", "FuzzyRowFilter is not supported by the filter language"),
        ("MultiRowRangeFilter()", "not supported"),
        ("RandomRowFilter(0.5)", "not supported"),
        ("PrefixFilter('a') AND Nope()", "unknown filter 'Nope' at offset 22"),
    ],
)
def test_unknown_and_unsupported_filters_are_errors(text: str, message: str) -> None:
    with pytest.raises(FilterError, match=message):
        compile_filter(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # Wrong argument counts name the filter and the counts.
        ("PrefixFilter()", "PrefixFilter takes 1 argument, got 0 at offset 0"),
        ("PrefixFilter('a', 'b')", "PrefixFilter takes 1 argument, got 2"),
        ("KeyOnlyFilter(true, true)", "KeyOnlyFilter takes 0 or 1 arguments, got 2"),
        ("FirstKeyOnlyFilter(1)", "FirstKeyOnlyFilter takes 0 arguments, got 1"),
        ("ColumnPrefixFilter()", "ColumnPrefixFilter takes 1 argument"),
        ("ColumnCountGetFilter()", "ColumnCountGetFilter takes 1 argument"),
        ("PageFilter(1, 2)", "PageFilter takes 1 argument, got 2"),
        ("ColumnPaginationFilter(1)", "ColumnPaginationFilter takes 2 arguments, got 1"),
        ("InclusiveStopFilter()", "InclusiveStopFilter takes 1 argument"),
        ("ColumnRangeFilter('a', true, 'b')", "ColumnRangeFilter takes 4 arguments, got 3"),
        ("RowFilter(=)", "RowFilter takes 2 arguments, got 1"),
        ("FamilyFilter(=, 'binary:a', 'x')", "FamilyFilter takes 2 arguments, got 3"),
        ("QualifierFilter()", "QualifierFilter takes 2 arguments"),
        ("ValueFilter (0)", "ValueFilter takes 2 arguments, got 1"),  # SKIP ValueFilter (0)
        ("SingleColumnValueFilter('f', 'q', =, 'binary:a', true)", "takes 4 or 6 arguments, got 5"),
        (
            "SingleColumnValueExcludeFilter('f', 'q', =)",
            "SingleColumnValueExcludeFilter takes 4 or 6",
        ),
        ("DependentColumnFilter('f')", "DependentColumnFilter takes 2 or 3 or 5 arguments, got 1"),
        ("DependentColumnFilter('f', 'q', true, =)", "got 4"),
        ("ColumnValueFilter('f', 'q', =)", "ColumnValueFilter takes 4 arguments, got 3"),
        # Wrong argument types name the filter, the argument and what was given.
        (
            "PrefixFilter(Row)",
            "argument 1 of PrefixFilter must be a quoted string, got 'Row' at offset 13",
        ),
        ("PageFilter('2')", "argument 1 of PageFilter must be an integer, got string '2'"),
        ("PageFilter(2.5)", "must be an integer, got '2.5'"),
        ("PageFilter(+2)", "must be an integer, got '\\+2'"),
        ("PageFilter(-)", "must be an integer"),
        (
            "PageFilter(-1)",
            "argument 1 of PageFilter must be an integer from 0 to 9223372036854775807",
        ),
        ("PageFilter(9223372036854775808)", "from 0 to 9223372036854775807"),
        ("ColumnCountGetFilter(-1)", "must be an integer from 0 to 2147483647"),
        ("ColumnCountGetFilter(2147483648)", "from 0 to 2147483647"),
        (
            "ColumnPaginationFilter(1, -1)",
            "argument 2 of ColumnPaginationFilter must be an integer from 0",
        ),
        ("TimestampsFilter(1, -5)", "argument 2 of TimestampsFilter must be an integer from 0"),
        ("TimestampsFilter(1, 'x')", "argument 2 of TimestampsFilter must be an integer"),
        ("KeyOnlyFilter(yes)", "argument 1 of KeyOnlyFilter must be true or false, got 'yes'"),
        ("KeyOnlyFilter('true')", "must be true or false, got string 'true'"),
        (
            "ColumnRangeFilter('a', 1, 'b', false)",
            "argument 2 of ColumnRangeFilter must be true or false",
        ),
        (
            "ColumnRangeFilter(a, true, 'b', false)",
            "argument 1 of ColumnRangeFilter must be a quoted string",
        ),
        (
            "MultipleColumnPrefixFilter('a', b)",
            "argument 2 of MultipleColumnPrefixFilter must be a quoted",
        ),
        (
            "MultipleColumnPrefixFilter('a', 'a')",
            "MultipleColumnPrefixFilter: prefixes must be distinct",
        ),
        ("RowFilter('=', 'binary:a')", "argument 1 of RowFilter must be a compare operator"),
        (
            "RowFilter(==, 'binary:a')",
            "must be a compare operator \\(<, <=, =, !=, >=, >\\), got '=='",
        ),
        ("RowFilter(<>, 'binary:a')", "must be a compare operator"),
        (
            "RowFilter(=, binary:a)",
            "argument 2 of RowFilter must be a quoted string, got 'binary:a'",
        ),
        ("RowFilter(=, 'a')", "argument 2 of RowFilter: a comparator is 'type:operand'"),
        ("ValueFilter(=, 'bin:a')", "unknown comparator type"),
        ("ValueFilter(=, 'Binary:a')", "unknown comparator type"),
        ("ValueFilter(=, 'regexstring:(')", "invalid regexstring pattern"),
        (
            "SingleColumnValueFilter('FamilyA', 'Column1', <=, 'abc')",
            "argument 4 of SingleColumnValueFilter: a comparator",
        ),
        (
            "SingleColumnValueExcludeFilter ('FamilyA', 'Column1', <=, 'binary:abc',"
            " 'false', 'true')",
            "argument 5 of SingleColumnValueExcludeFilter must be true or false, got string",
        ),
        (
            "SingleColumnValueFilter(f, 'q', =, 'binary:a')",
            "argument 1 of SingleColumnValueFilter must be a quoted",
        ),
        (
            "DependentColumnFilter('c', 'b', no)",
            "argument 3 of DependentColumnFilter must be true or false",
        ),
        (
            "DependentColumnFilter('c', 'b', false, >=, 'zebra')",
            "argument 5 of DependentColumnFilter: a comparator",
        ),
    ],
)
def test_bad_arguments_name_the_filter(text: str, message: str) -> None:
    with pytest.raises(FilterError, match=message):
        compile_filter(text)


@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
@pytest.mark.parametrize(
    "template",
    [
        "ValueFilter({op}, '{kind}:x')",
        "RowFilter({op}, '{kind}:x')",
        "FamilyFilter({op}, '{kind}:x')",
        "QualifierFilter({op}, '{kind}:x')",
        "SingleColumnValueFilter('f', 'q', {op}, '{kind}:x')",
        "SingleColumnValueExcludeFilter('f', 'q', {op}, '{kind}:x', true, true)",
        "ColumnValueFilter('f', 'q', {op}, '{kind}:x')",
    ],
)
@pytest.mark.parametrize("kind", ["substring", "regexstring"])
def test_substring_and_regexstring_allow_only_equality(op: str, template: str, kind: str) -> None:
    with pytest.raises(FilterError, match=f"a {kind} comparator can only be used with = and !="):
        compile_filter(template.format(op=op, kind=kind))


def test_filter_errors_are_illegal_argument_errors() -> None:
    """The Thrift server answers a bad filter with IllegalArgument; so does the engine."""
    with pytest.raises(IllegalArgumentError):
        compile_filter("Nope()")


# --- rendering --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("KeyOnlyFilter ()", "KeyOnlyFilter(false)"),
        ("PrefixFilter ( 'it''s' )", "PrefixFilter('it''s')"),
        ("ValueFilter(>=,'binaryprefix:a')", "ValueFilter(>=, 'binaryprefix:a')"),
        (
            "SingleColumnValueFilter('f', 'q', =, 'binary:v')",
            "SingleColumnValueFilter('f', 'q', =, 'binary:v', false, true)",
        ),
        ("ColumnRangeFilter('', TRUE, 'z', False)", "ColumnRangeFilter('', true, 'z', false)"),
        ("DependentColumnFilter('f', 'q')", "DependentColumnFilter('f', 'q', false)"),
        (
            "PrefixFilter('a') AND PrefixFilter('b') OR PrefixFilter('c')",
            "PrefixFilter('a') AND PrefixFilter('b') OR PrefixFilter('c')",
        ),
        (
            "(PrefixFilter('a') OR PrefixFilter('b')) AND PrefixFilter('c')",
            "(PrefixFilter('a') OR PrefixFilter('b')) AND PrefixFilter('c')",
        ),
        (
            "(PrefixFilter('a') AND PrefixFilter('b')) AND PrefixFilter('c')",
            "(PrefixFilter('a') AND PrefixFilter('b')) AND PrefixFilter('c')",
        ),
        (
            "SKIP (PrefixFilter('a') AND PrefixFilter('b'))",
            "SKIP (PrefixFilter('a') AND PrefixFilter('b'))",
        ),
        ("WHILE SKIP PrefixFilter('a')", "WHILE SKIP PrefixFilter('a')"),
        ("PrefixFilter('\u00e9')", "PrefixFilter('\u00e9')"),
        (b"PrefixFilter('\xff')", "PrefixFilter('\udcff')"),
    ],
)
def test_str_of_a_program_is_its_canonical_text(text: str | bytes, rendered: str) -> None:
    program = compile_filter(text)
    assert str(program) == rendered
    assert compile_filter(rendered) == program
