"""A Thrift1 mutateRowsTs written from cells is its structs' message, byte for byte (issue 29)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hmodel.backend.thrift.batch import row_batches
from hmodel.backend.thrift.idl import Hbase
from hmodel.backend.thrift.request import mutate_rows_ts
from hmodel.backend.wire import WireCodec

CODEC = WireCodec(Hbase, protocol="binary", decode_response=False)

CELLS = st.lists(
    st.tuples(st.binary(min_size=1, max_size=10), st.none() | st.binary(max_size=40)), max_size=6
)
ROWS = st.dictionaries(st.binary(min_size=1, max_size=30), CELLS, max_size=5)
ATTRIBUTES = st.dictionaries(st.binary(max_size=8), st.binary(max_size=8), max_size=2)


@given(
    table=st.binary(min_size=1, max_size=30),
    rows=ROWS,
    timestamp=st.integers(min_value=-(2**63), max_value=2**63 - 1),
    attributes=ATTRIBUTES,
)
def test_the_written_message_is_the_structs_encoded(
    table: bytes,
    rows: dict[bytes, list[tuple[bytes, bytes | None]]],
    timestamp: int,
    attributes: dict[bytes, bytes],
) -> None:
    encoded = CODEC.encode("mutateRowsTs", (table, row_batches(rows), timestamp, attributes))
    assert mutate_rows_ts(table, rows, timestamp, attributes) == encoded
