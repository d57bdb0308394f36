"""Message templates fill their holes with exactly the bytes a whole encode gives (issue 29)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.backend.template import I64, STRING, ListTemplate, MessageTemplate
from hmodel.backend.thrift.idl import Hbase
from hmodel.backend.thrift2.idl import (
    HBASE2,
    TColumn,
    TColumnIncrement,
    TGet,
    TIncrement,
    TTimeRange,
)
from hmodel.backend.wire import WireCodec

THRIFT1 = WireCodec(Hbase, protocol="binary", decode_response=False)
THRIFT2 = WireCodec(HBASE2.THBaseService, protocol="binary", decode_response=False)

ROWS = st.binary(min_size=1, max_size=300)
AMOUNTS = st.integers(min_value=-(2**63), max_value=2**63 - 1)
COLUMNS = st.lists(st.binary(min_size=1, max_size=12), max_size=5)


@given(row=ROWS, columns=COLUMNS, table=st.binary(min_size=1, max_size=20))
def test_a_thrift1_get_template_gives_the_encoded_message(
    row: bytes, columns: list[bytes], table: bytes
) -> None:
    template = MessageTemplate.build(
        THRIFT1, "getRowsWithColumns", lambda hole: (table, [hole], columns, {}), STRING
    )
    assert template is not None
    assert template.fill(row) == THRIFT1.encode("getRowsWithColumns", (table, [row], columns, {}))


@given(row=ROWS, amount=AMOUNTS, column=st.binary(min_size=3, max_size=12))
def test_a_two_hole_template_fills_both_in_order(row: bytes, amount: int, column: bytes) -> None:
    template = MessageTemplate.build(
        THRIFT1, "atomicIncrement", lambda r, a: (b"t", r, column, a), STRING, I64
    )
    assert template is not None
    assert template.fill(row, amount) == THRIFT1.encode(
        "atomicIncrement", (b"t", row, column, amount)
    )


@given(row=ROWS, amount=AMOUNTS)
def test_a_hole_inside_a_nested_struct_is_found(row: bytes, amount: int) -> None:
    def increment(r: bytes, a: int) -> tuple[object, ...]:
        column = TColumnIncrement(family=b"f", qualifier=b"q", amount=a)
        return (b"t", TIncrement(row=r, columns=[column], returnResults=True))

    template = MessageTemplate.build(THRIFT2, "increment", increment, STRING, I64)
    assert template is not None
    assert template.fill(row, amount) == THRIFT2.encode("increment", increment(row, amount))


@given(row=ROWS)
def test_a_thrift2_get_template_gives_the_encoded_message(row: bytes) -> None:
    def call(r: bytes) -> tuple[object, ...]:
        columns = [TColumn(family=b"f", qualifier=b"q")]
        return (b"t", [TGet(r, columns, None, TTimeRange(0, 2**63 - 1), 1)])

    template = MessageTemplate.build(THRIFT2, "getMultiple", call, STRING)
    assert template is not None
    assert template.fill(row) == THRIFT2.encode("getMultiple", call(row))


def test_no_template_for_the_compact_protocol() -> None:
    compact = WireCodec(Hbase, protocol="compact", decode_response=False)
    assert MessageTemplate.build(compact, "getRow", lambda r: (b"t", r, {}), STRING) is None


def test_no_template_when_the_hole_is_not_in_the_message() -> None:
    assert MessageTemplate.build(THRIFT1, "getRow", lambda r: (b"t", b"fixed", {}), STRING) is None


def test_a_hole_refuses_a_value_of_another_type() -> None:
    template = MessageTemplate.build(
        THRIFT1, "atomicIncrement", lambda r, a: (b"t", r, b"f:q", a), STRING, I64
    )
    assert template is not None
    with pytest.raises(TypeError):
        template.fill("row", 1)
    with pytest.raises(TypeError):
        template.fill(b"row", True)
    one = MessageTemplate.build(THRIFT1, "getRow", lambda r: (b"t", r, {}), STRING)
    assert one is not None
    with pytest.raises(TypeError):
        one.fill(bytearray(b"row"))


FAMILY_COLUMNS = st.lists(
    st.tuples(st.binary(min_size=1, max_size=6), st.none() | st.binary(max_size=8)), max_size=5
)


@given(
    rows=st.lists(ROWS, min_size=1, max_size=40),
    columns=FAMILY_COLUMNS,
    table=st.binary(min_size=1, max_size=20),
)
def test_a_thrift2_get_many_template_gives_the_encoded_message(
    rows: list[bytes], columns: list[tuple[bytes, bytes | None]], table: bytes
) -> None:
    """Any number of rows, any columns: the bytes of a TGet per row, as thriftpy2 writes them."""
    tcols = [TColumn(family=f, qualifier=q) for f, q in columns] or None

    def arguments(keys: list[bytes]) -> tuple[object, ...]:
        return (table, [TGet(key, tcols, None, None, 1) for key in keys])

    template = ListTemplate.build(THRIFT2, "getMultiple", arguments)
    assert template is not None
    assert template.fill(rows) == THRIFT2.encode("getMultiple", arguments(rows))


@given(rows=st.lists(ROWS, min_size=1, max_size=40), columns=COLUMNS)
def test_a_thrift1_list_template_gives_the_encoded_message(
    rows: list[bytes], columns: list[bytes]
) -> None:
    """A list of plain strings (no element struct): nothing before or after each row."""

    def arguments(keys: list[bytes]) -> tuple[object, ...]:
        return (b"t", keys, columns, {})

    template = ListTemplate.build(THRIFT1, "getRowsWithColumns", arguments)
    assert template is not None
    assert (template.before, template.after) == (b"", b"")
    assert template.fill(rows) == THRIFT1.encode("getRowsWithColumns", arguments(rows))


def test_no_list_template_for_the_compact_protocol_or_a_row_not_in_a_list() -> None:
    compact = WireCodec(Hbase, protocol="compact", decode_response=False)
    assert ListTemplate.build(compact, "getRowsWithColumns", lambda k: (b"t", k, [], {})) is None
    # The rows are not list elements: the one-row and two-row messages do not differ so.
    assert (
        ListTemplate.build(THRIFT1, "getRowWithColumns", lambda k: (b"t", b"".join(k), [], {}))
        is None
    )


def test_a_list_template_refuses_a_row_of_another_type() -> None:
    template = ListTemplate.build(THRIFT1, "getRowsWithColumns", lambda k: (b"t", k, [], {}))
    assert template is not None
    with pytest.raises(TypeError):
        template.fill([b"a", "b"])  # type: ignore[list-item]
