"""Writes over Thrift1 with plain happybase: put, delete, batch, counters, and the raw calls."""

from __future__ import annotations

import happybase
import pytest
from thriftpy2.thrift import TApplicationException

from hmodel.clock import ManualClock
from hmodel.testing import FakeHBaseServer
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT, LATEST_TIMESTAMP

IOError_ = HBASE_THRIFT.IOError
IllegalArgument = HBASE_THRIFT.IllegalArgument
Mutation = HBASE_THRIFT.Mutation
BatchMutation = HBASE_THRIFT.BatchMutation
TIncrement = HBASE_THRIFT.TIncrement
TAppend = HBASE_THRIFT.TAppend


def ttl_attribute(millis: int) -> dict[bytes, bytes]:
    return {b"_ttl": millis.to_bytes(8, "big", signed=True)}


def test_put_without_timestamp_is_stamped_with_the_server_clock(
    table: happybase.Table, clock: ManualClock
) -> None:
    table.put(b"r", {b"f:q": b"v"})
    assert table.row(b"r", include_timestamp=True) == {b"f:q": (b"v", clock())}


def test_put_with_timestamp_writes_that_version(table: happybase.Table) -> None:
    table.put(b"r", {b"f:q": b"old"}, timestamp=5)
    table.put(b"r", {b"f:q": b"new", b"f:p": b"p"}, timestamp=9)
    assert table.cells(b"r", b"f:q", include_timestamp=True) == [(b"new", 9), (b"old", 5)]


def test_put_with_an_empty_qualifier(table: happybase.Table) -> None:
    table.put(b"r", {b"f:": b"v"})
    assert table.row(b"r") == {b"f:": b"v"}


def test_delete_without_columns_deletes_the_whole_row(table: happybase.Table) -> None:
    table.put(b"r", {b"f:a": b"1", b"g:b": b"2"})
    table.delete(b"r")
    assert table.row(b"r") == {}


def test_delete_of_columns_and_of_a_family(table: happybase.Table) -> None:
    table.put(b"r", {b"f:a": b"1", b"f:b": b"2", b"g:c": b"3", b"g:d": b"4"})
    table.delete(b"r", columns=[b"f:a", b"g"])
    assert table.row(b"r") == {b"f:b": b"2"}


def test_delete_with_timestamp_deletes_versions_up_to_and_including_it(
    table: happybase.Table,
) -> None:
    for ts in (10, 20, 30):
        table.put(b"r", {b"f:q": str(ts).encode()}, timestamp=ts)
    table.delete(b"r", columns=[b"f:q"], timestamp=20)
    assert table.cells(b"r", b"f:q", versions=3) == [b"30"]


def test_batch_applies_puts_before_deletes(table: happybase.Table) -> None:
    table.put(b"r", {b"f:old": b"x"}, timestamp=1)
    with table.batch(timestamp=5) as batch:
        batch.delete(b"r", columns=[b"f:q"])
        batch.put(b"r", {b"f:q": b"v"})
        batch.put(b"s", {b"f:q": b"w"})
    assert table.row(b"r") == {b"f:old": b"x"}
    assert table.row(b"s", include_timestamp=True) == {b"f:q": (b"w", 5)}


def test_batch_with_batch_size_sends_as_it_goes(table: happybase.Table) -> None:
    batch = table.batch(batch_size=2)
    batch.put(b"a", {b"f:q": b"1"})
    batch.put(b"b", {b"f:q": b"2"})
    assert table.row(b"a") == {b"f:q": b"1"}
    batch.put(b"c", {b"f:q": b"3"})
    assert table.row(b"c") == {}
    batch.send()
    assert table.row(b"c") == {b"f:q": b"3"}


def test_a_transaction_batch_sends_nothing_if_the_block_fails(table: happybase.Table) -> None:
    with pytest.raises(RuntimeError), table.batch(transaction=True) as batch:
        batch.put(b"r", {b"f:q": b"v"})
        raise RuntimeError("abort")
    assert table.row(b"r") == {}


def test_a_put_of_a_bare_family_fails_the_whole_mutateRows_call(
    table: happybase.Table, client: object
) -> None:
    batches = [
        BatchMutation(row=b"a", mutations=[Mutation(column=b"f:q", value=b"1")]),
        BatchMutation(row=b"b", mutations=[Mutation(column=b"f", value=b"2")]),
    ]
    # HBase 2.6.1's handler throws an undeclared IllegalArgumentException: an internal error.
    with pytest.raises(TApplicationException) as info:
        client.mutateRows(b"t", batches, {})  # type: ignore[attr-defined]
    assert info.value.message in (
        "Internal error processing mutateRows",
        b"Internal error processing mutateRows",
    )
    assert table.row(b"a") == {}


def test_mutateRow_skips_a_put_of_a_bare_family_and_writes_the_rest(
    table: happybase.Table, client: object
) -> None:
    mutations = [Mutation(column=b"f", value=b"skipped"), Mutation(column=b"f:q", value=b"v")]
    client.mutateRow(b"t", b"r", mutations, {})  # type: ignore[attr-defined]
    assert table.row(b"r") == {b"f:q": b"v"}


def test_mutateRowTs_deletes_then_puts_at_the_timestamp(
    table: happybase.Table, client: object
) -> None:
    table.put(b"r", {b"f:a": b"1", b"f:b": b"2"}, timestamp=1)
    mutations = [Mutation(column=b"f:c", value=b"3"), Mutation(isDelete=True, column=b"f:a")]
    client.mutateRowTs(b"t", b"r", mutations, 7, {})  # type: ignore[attr-defined]
    assert table.row(b"r", include_timestamp=True) == {b"f:b": (b"2", 1), b"f:c": (b"3", 7)}


def test_a_mutation_with_a_missing_value_writes_the_empty_value(
    table: happybase.Table, client: object
) -> None:
    client.mutateRow(b"t", b"r", [Mutation(column=b"f:q")], {})  # type: ignore[attr-defined]
    assert table.row(b"r") == {b"f:q": b""}


def test_the_ttl_attribute_expires_the_put_cells(
    table: happybase.Table, client: object, clock: ManualClock
) -> None:
    batches = [BatchMutation(row=b"r", mutations=[Mutation(column=b"f:q", value=b"v")])]
    client.mutateRows(b"t", batches, ttl_attribute(1_000))  # type: ignore[attr-defined]
    table.put(b"r", {b"g:keep": b"k"})
    assert table.row(b"r") == {b"f:q": b"v", b"g:keep": b"k"}
    clock.advance(1_000)
    assert table.row(b"r") == {b"f:q": b"v", b"g:keep": b"k"}  # expires after ts + ttl
    clock.advance(1)
    assert table.row(b"r") == {b"g:keep": b"k"}


def test_a_ttl_attribute_that_is_not_8_bytes_is_an_IllegalArgument(client: object) -> None:
    client.createTable(b"t", [HBASE_THRIFT.ColumnDescriptor(name=b"f:")])  # type: ignore[attr-defined]
    with pytest.raises(IllegalArgument, match="_ttl"):
        client.mutateRow(b"t", b"r", [Mutation(column=b"f:q", value=b"v")], {b"_ttl": b"1"})  # type: ignore[attr-defined]


def test_a_batch_with_an_unknown_family_applies_its_good_rows(table: happybase.Table) -> None:
    # As HBase 2.6.1: the good row is written, the bad one fails its action.
    with pytest.raises(IOError_, match="NoSuchColumnFamilyException"), table.batch() as batch:
        batch.put(b"r", {b"f:q": b"v"})
        batch.put(b"s", {b"zz:q": b"v"})
    assert list(table.scan()) == [(b"r", {b"f:q": b"v"})]


def test_a_negative_timestamp_is_an_IllegalArgument(table: happybase.Table) -> None:
    with pytest.raises(IllegalArgument, match="Timestamp cannot be negative"):
        table.put(b"r", {b"f:q": b"v"}, timestamp=-1)


def test_deleteAll_calls_delete_columns_families_and_rows(
    table: happybase.Table, client: object
) -> None:
    for ts in (10, 20):
        table.put(b"r", {b"f:a": b"a", b"f:b": b"b", b"g:c": b"c"}, timestamp=ts)
    client.deleteAllTs(b"t", b"r", b"f:a", 10, {})  # type: ignore[attr-defined]
    assert table.cells(b"r", b"f:a", versions=3, include_timestamp=True) == [(b"a", 20)]
    client.deleteAll(b"t", b"r", b"g", {})  # type: ignore[attr-defined]
    assert set(table.row(b"r")) == {b"f:a", b"f:b"}
    client.deleteAllRowTs(b"t", b"r", 15, {})  # type: ignore[attr-defined]
    assert table.cells(b"r", b"f:b", versions=3) == [b"b"]
    client.deleteAllRow(b"t", b"r", {})  # type: ignore[attr-defined]
    assert table.row(b"r") == {}


def test_deleteAllTs_at_latest_timestamp_deletes_everything_so_far(
    table: happybase.Table, client: object
) -> None:
    table.put(b"r", {b"f:q": b"v"}, timestamp=10**12)
    client.deleteAllTs(b"t", b"r", b"f:q", LATEST_TIMESTAMP, {})  # type: ignore[attr-defined]
    assert table.row(b"r") == {}


def test_counters_start_at_zero_and_move_atomically(table: happybase.Table) -> None:
    assert table.counter_get(b"r", b"f:n") == 0
    assert table.counter_inc(b"r", b"f:n") == 1
    assert table.counter_inc(b"r", b"f:n", value=10) == 11
    assert table.counter_dec(b"r", b"f:n", value=3) == 8
    assert table.row(b"r") == {b"f:n": (8).to_bytes(8, "big")}


def test_counter_set_stores_an_8_byte_big_endian_long(table: happybase.Table) -> None:
    table.counter_set(b"r", b"f:n", -5)
    assert table.counter_get(b"r", b"f:n") == -5
    assert table.counter_inc(b"r", b"f:n", 7) == 2


def test_incrementing_a_cell_that_is_not_8_bytes_raises_IOError(table: happybase.Table) -> None:
    table.put(b"r", {b"f:n": b"abc"})
    with pytest.raises(IOError_, match="DoNotRetryIOException"):
        table.counter_inc(b"r", b"f:n")


def test_atomicIncrement_of_a_bare_family_uses_the_empty_qualifier(
    table: happybase.Table, client: object
) -> None:
    assert client.atomicIncrement(b"t", b"r", b"f", 4) == 4  # type: ignore[attr-defined]
    assert table.counter_get(b"r", b"f:") == 4


def test_increment_and_incrementRows(table: happybase.Table, client: object) -> None:
    client.increment(TIncrement(table=b"t", row=b"r", column=b"f:n", ammount=2))  # type: ignore[attr-defined]
    client.incrementRows(  # type: ignore[attr-defined]
        [
            TIncrement(table=b"t", row=b"r", column=b"f:n", ammount=3),
            TIncrement(table=b"t", row=b"s", column=b"f:n", ammount=-1),
        ]
    )
    assert table.counter_get(b"r", b"f:n") == 5
    assert table.counter_get(b"s", b"f:n") == -1


def test_an_increment_without_a_row_is_an_internal_error_as_in_hbase(
    table: happybase.Table, client: object
) -> None:
    with pytest.raises(TApplicationException) as raised:
        client.increment(TIncrement(table=b"t", row=b"", column=b"f:n", ammount=1))  # type: ignore[attr-defined]
    assert b"Must supply a table and a row key" in raised.value.message


def test_append_returns_the_new_cells(
    table: happybase.Table, client: object, clock: ManualClock
) -> None:
    table.put(b"r", {b"f:a": b"x"})
    clock.advance(1)
    cells = client.append(  # type: ignore[attr-defined]
        TAppend(table=b"t", row=b"r", columns=[b"f:b", b"f:a"], values=[b"new", b"y"])
    )
    assert [(c.value, c.timestamp) for c in cells] == [(b"xy", clock()), (b"new", clock())]
    assert table.row(b"r") == {b"f:a": b"xy", b"f:b": b"new"}


def test_append_with_mismatched_columns_and_values_is_an_internal_error(
    table: happybase.Table, client: object
) -> None:
    with pytest.raises(TApplicationException) as raised:
        client.append(TAppend(table=b"t", row=b"r", columns=[b"f:a"], values=[]))  # type: ignore[attr-defined]
    assert b"Sizes of columns and values" in raised.value.message


def test_checkAndPut_applies_the_put_only_if_the_value_matches(
    table: happybase.Table, client: object
) -> None:
    table.put(b"r", {b"f:v": b"1"})
    put = Mutation(column=b"f:data", value=b"new")
    assert not client.checkAndPut(b"t", b"r", b"f:v", b"2", put, {})  # type: ignore[attr-defined]
    assert table.row(b"r") == {b"f:v": b"1"}
    assert client.checkAndPut(b"t", b"r", b"f:v", b"1", put, {})  # type: ignore[attr-defined]
    assert table.row(b"r") == {b"f:v": b"1", b"f:data": b"new"}


def test_checkAndPut_without_a_value_requires_the_cell_to_be_absent(
    table: happybase.Table, client: object
) -> None:
    put = Mutation(column=b"f:v", value=b"first")
    assert client.checkAndPut(b"t", b"r", b"f:v", None, put, {})  # type: ignore[attr-defined]
    assert not client.checkAndPut(b"t", b"r", b"f:v", None, put, {})  # type: ignore[attr-defined]


def test_checkAndPut_of_a_bare_family_is_an_IllegalArgument(
    table: happybase.Table, client: object
) -> None:
    with pytest.raises(IllegalArgument):
        client.checkAndPut(b"t", b"r", b"f:v", None, Mutation(column=b"f", value=b"x"), {})  # type: ignore[attr-defined]


def test_checkAndPut_honours_the_ttl_attribute(
    table: happybase.Table, client: object, clock: ManualClock
) -> None:
    put = Mutation(column=b"f:v", value=b"x")
    assert client.checkAndPut(b"t", b"r", b"f:v", None, put, ttl_attribute(10))  # type: ignore[attr-defined]
    clock.advance(11)
    assert table.row(b"r") == {}


def test_writes_go_to_the_engine_the_server_was_given(
    server: FakeHBaseServer, table: happybase.Table
) -> None:
    table.put(b"r", {b"f:q": b"v"}, timestamp=3)
    assert server.backend.get("t", [b"r"])[0].cells[b"f:q"].timestamp == 3


def _message(error: BaseException) -> bytes:
    message = getattr(error, "message", b"")
    return message if isinstance(message, bytes) else str(message).encode()


def test_puts_into_a_missing_table_exhaust_the_retries_as_hbase_answers(
    connection: happybase.Connection, client: object
) -> None:
    """mutateRows (happybase's puts): RetriesExhaustedWithDetailsException naming the table
    alone; one row's put with mutateRow (HBase 2.6) and deletes: TableNotFoundException."""
    exhausted = b"org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException: "
    missing = connection.table("nope")
    with pytest.raises(IOError_) as put:
        missing.put(b"r", {b"f:q": b"v"})
    assert _message(put.value) == exhausted + (
        b"Failed 1 action: nope: 1 time, servers with issues: null"
    )
    with pytest.raises(IOError_, match="TableNotFoundException"):
        client.mutateRow(b"nope", b"r", [HBASE_THRIFT.Mutation(column=b"f:q", value=b"v")], {})  # type: ignore[attr-defined]
    with pytest.raises(IOError_) as batch, missing.batch() as rows:
        rows.put(b"r", {b"f:q": b"v"})
        rows.put(b"s", {b"f:q": b"v"})
        rows.delete(b"t")
    assert _message(batch.value) == exhausted + (
        b"Failed 2 actions: nope: 2 times, servers with issues: null"
    )
    with pytest.raises(IOError_) as deleted:
        missing.delete(b"r")  # deleteAllRow
    assert _message(deleted.value).startswith(b"org.apache.hadoop.hbase.TableNotFoundException")
    with pytest.raises(IOError_) as deleted:
        missing.delete(b"r", [b"f:q"])  # mutateRows of one delete: the batch's answer
    assert _message(deleted.value) == exhausted + (
        b"Failed 1 action: nope: 1 time, servers with issues: null"
    )
    mutation = HBASE_THRIFT.Mutation(isDelete=True, column=b"f:q")
    with pytest.raises(IOError_, match="TableNotFoundException"):
        client.mutateRow(b"nope", b"r", [mutation], {})  # type: ignore[attr-defined]
