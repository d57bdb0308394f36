"""Thrift2 write messages written from cells are their structs' messages, byte for byte."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hmodel.backend.thrift2.idl import HBASE2, TRowMutations
from hmodel.backend.thrift2.mutation import Thrift2RowBatch
from hmodel.backend.thrift2.request import delete_multiple, mutate_row, put_multiple
from hmodel.backend.wire import WireCodec

CODEC = WireCodec(HBASE2.THBaseService, protocol="binary", decode_response=False)

COLUMNS = st.builds(
    lambda f, q: f + b":" + q,
    st.binary(min_size=1, max_size=4).filter(lambda f: b":" not in f),
    st.binary(max_size=6),
)
CELLS = st.lists(st.tuples(COLUMNS, st.none() | st.binary(max_size=30)), max_size=6)
ROWS = st.dictionaries(st.binary(min_size=1, max_size=20), CELLS, min_size=1, max_size=4)
STAMPS = st.integers(min_value=0, max_value=2**63 - 1)
TABLES = st.binary(min_size=1, max_size=20)


def _batch(
    rows: dict[bytes, list[tuple[bytes, bytes | None]]], stamp: int, ttl: int | None
) -> Thrift2RowBatch:
    batch = Thrift2RowBatch(stamp, ttl, frozenset())
    for row, cells in rows.items():
        batch.add_row(row, cells)
    return batch


@given(table=TABLES, rows=ROWS, stamp=STAMPS, ttl=st.none() | st.integers(1, 10**9))
def test_a_row_mutation_is_its_structs_encoded(
    table: bytes, rows: dict[bytes, list[tuple[bytes, bytes | None]]], stamp: int, ttl: int | None
) -> None:
    row, cells = next(iter(rows.items()))
    batch = _batch({row: cells}, stamp, ttl)
    if not (batch.puts or batch.deletes):
        return
    structs = TRowMutations(row=row, mutations=batch.tmutations())
    written = mutate_row(
        table, row, batch.puts.get(row, []), batch.deletes.get(row, []), stamp, batch.attributes
    )
    assert written == CODEC.encode("mutateRow", (table, structs))


@given(table=TABLES, rows=ROWS, stamp=STAMPS, ttl=st.none() | st.integers(1, 10**9))
def test_puts_and_deletes_of_many_rows_are_their_structs_encoded(
    table: bytes, rows: dict[bytes, list[tuple[bytes, bytes | None]]], stamp: int, ttl: int | None
) -> None:
    batch = _batch(rows, stamp, ttl)
    assert put_multiple(table, batch.puts, stamp, batch.attributes) == CODEC.encode(
        "putMultiple", (table, batch.tputs())
    )
    assert delete_multiple(table, batch.deletes, stamp) == CODEC.encode(
        "deleteMultiple", (table, batch.tdeletes())
    )
