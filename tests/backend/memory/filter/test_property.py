"""Property tests: rendered programs parse back equal, and nothing but FilterError escapes (I4)."""

from __future__ import annotations

import contextlib
import re

from hypothesis import given
from hypothesis import strategies as st

from hmodel.backend.base import Cell
from hmodel.backend.memory.filter import compile_filter
from hmodel.backend.memory.filter import node as n
from hmodel.backend.memory.filter.comparator import (
    BinaryComparator,
    BinaryPrefixComparator,
    Comparator,
    CompareOp,
    RegexStringComparator,
    SubstringComparator,
)
from hmodel.backend.memory.filter.evaluator import FilterProgram
from hmodel.errors import FilterError

# Operands with quotes, colons, spaces, non-ASCII and non-UTF-8 bytes.
operands = st.binary(max_size=5) | st.text(alphabet="ab':, (\u00e9", max_size=5).map(str.encode)
words = st.text(alphabet="ab'\u00e9 ", max_size=4).map(str.encode)
comparators: st.SearchStrategy[Comparator] = st.one_of(
    st.builds(BinaryComparator, operands),
    st.builds(BinaryPrefixComparator, operands),
    st.builds(SubstringComparator, words),
    st.builds(
        RegexStringComparator,
        st.text(alphabet="ab'.\u00e9", max_size=4).map(lambda s: re.escape(s).encode()),
    ),
)
equality = st.sampled_from([CompareOp.EQUAL, CompareOp.NOT_EQUAL])


@st.composite
def op_and_comparator(draw: st.DrawFn) -> tuple[CompareOp, Comparator]:
    comparator = draw(comparators)
    ops = equality if comparator.equality_only else st.sampled_from(list(CompareOp))
    return draw(ops), comparator


def compare(kind: type[n.CompareFilter]) -> st.SearchStrategy[n.Node]:
    return op_and_comparator().map(lambda pair: kind(*pair))


def single_column(kind: type[n.SingleColumnValueFilter]) -> st.SearchStrategy[n.Node]:
    def build(
        family: bytes,
        qualifier: bytes,
        pair: tuple[CompareOp, Comparator],
        missing: bool,
        latest: bool,
    ) -> n.Node:
        return kind(family, qualifier, pair[0], pair[1], missing, latest)

    return st.builds(
        build,
        operands,
        operands,
        op_and_comparator(),
        st.booleans(),
        st.booleans(),
    )


counts = st.integers(0, 3)
leaves: st.SearchStrategy[n.Node] = st.one_of(
    st.builds(n.KeyOnlyFilter, st.booleans()),
    st.just(n.FirstKeyOnlyFilter()),
    st.builds(n.PrefixFilter, operands),
    st.builds(n.ColumnPrefixFilter, operands),
    st.builds(n.MultipleColumnPrefixFilter, st.lists(operands, max_size=3, unique=True).map(tuple)),
    st.builds(n.ColumnCountGetFilter, counts),
    st.builds(n.PageFilter, counts),
    st.builds(n.ColumnPaginationFilter, counts, counts),
    st.builds(n.InclusiveStopFilter, operands),
    st.builds(n.TimestampsFilter, st.lists(st.integers(0, 4), max_size=3).map(tuple)),
    st.builds(
        n.ColumnRangeFilter,
        operands.filter(bool) | st.none(),
        st.booleans(),
        operands.filter(bool) | st.none(),
        st.booleans(),
    ),
    compare(n.RowFilter),
    compare(n.FamilyFilter),
    compare(n.QualifierFilter),
    compare(n.ValueFilter),
    single_column(n.SingleColumnValueFilter),
    single_column(n.SingleColumnValueExcludeFilter),
    st.builds(n.DependentColumnFilter, operands, operands, st.booleans()),
    st.builds(
        n.DependentColumnFilter,
        operands,
        operands,
        st.booleans(),
        st.sampled_from(list(CompareOp)),
        comparators,
    ),
    st.builds(
        lambda family, qualifier, pair: n.ColumnValueFilter(family, qualifier, *pair),
        operands,
        operands,
        op_and_comparator(),
    ),
)
trees: st.SearchStrategy[n.Node] = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.builds(n.Skip, children),
        st.builds(n.While, children),
        st.builds(
            n.FilterList, st.booleans(), st.lists(children, min_size=2, max_size=3).map(tuple)
        ),
    ),
    max_leaves=6,
)


@given(trees)
def test_str_of_a_program_parses_back_to_the_same_program(root: n.Node) -> None:
    program = FilterProgram(root)
    assert compile_filter(str(program)) == program
    assert compile_filter(root.render()) == program


FRAGMENTS = [
    "PrefixFilter",
    "ValueFilter",
    "SingleColumnValueFilter",
    "PageFilter",
    "KeyOnlyFilter",
    "TimestampsFilter",
    "ColumnRangeFilter",
    "Nope",
    "(",
    ")",
    ",",
    "'",
    "''",
    " ",
    "\t",
    "AND",
    "OR",
    "SKIP",
    "WHILE",
    "and",
    "=",
    "!=",
    "<=",
    ">",
    "'binary:x'",
    "'substring:y'",
    "'regexstring:('",
    "'f'",
    "1",
    "-1",
    "99999999999999999999",
    "true",
    "false",
    "x",
    "\u00e9",
    "\n",
    "\x00",
]


@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join) | st.text(max_size=30))
def test_any_text_compiles_or_raises_filter_error(text: str) -> None:
    try:
        program = compile_filter(text)
    except FilterError:
        return
    assert compile_filter(str(program)) == program


@given(st.binary(max_size=30))
def test_any_bytes_compile_or_raise_filter_error(data: bytes) -> None:
    with contextlib.suppress(FilterError):
        compile_filter(data)


qualifiers = st.sampled_from([b"", b"a", b"ab", b"b", b"\xff"])
families = st.sampled_from([b"f", b"g"])
rows = st.dictionaries(
    st.tuples(families, qualifiers).map(lambda fq: fq[0] + b":" + fq[1]),
    st.lists(
        st.tuples(st.integers(0, 4), st.sampled_from([b"", b"a", b"x", b"\xff"])),
        min_size=1,
        max_size=3,
        unique_by=lambda tv: tv[0],
    ),
    max_size=4,
)
tables = st.dictionaries(
    st.sampled_from([b"", b"a", b"ab", b"b", b"\x00", b"\xff"]), rows, max_size=4
)


@given(trees, tables, st.sampled_from([None, 1, 2]), st.booleans())
def test_running_any_program_keeps_only_given_cells_in_order(
    root: n.Node,
    table: dict[bytes, dict[bytes, list[tuple[int, bytes]]]],
    max_versions: int | None,
    reverse: bool,
) -> None:
    run = FilterProgram(root).start(max_versions=max_versions, reverse=reverse)
    done = False
    for row in sorted(table, reverse=reverse):
        columns = [
            (column, [Cell(value, ts) for ts, value in sorted(table[row][column], reverse=True)])
            for column in sorted(table[row])
        ]
        verdict = run.apply(row, columns)
        if done:
            assert verdict.columns is None
        done = done or verdict.done
        if verdict.columns is None:
            continue
        given_order = [column for column, _ in columns]
        kept_order = [column for column, _ in verdict.columns]
        assert kept_order == [column for column in given_order if column in kept_order]
        for column, cells in verdict.columns:
            assert cells
            stamps = [cell.timestamp for cell in cells]
            assert stamps == sorted(stamps, reverse=True)
            assert set(stamps) <= {ts for ts, _ in table[row][column]}
            if max_versions is not None:
                assert len(cells) <= max_versions
