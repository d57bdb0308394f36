"""HBASE_FACTS, "Errors": on the fake Thrift1 server and on a real HBase."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hmodel.backend.base import Backend, Delete, Increment, Put, Scan
from hmodel.errors import TableNotFoundError
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT
from tests.backend.facts.conftest import Wire1, raises_with

MISSING = b"facts_no_such_table"
_Mutation = HBASE_THRIFT.Mutation
_Batch = HBASE_THRIFT.BatchMutation


def _text(error: BaseException) -> str:
    message: Any = getattr(error, "message", b"")
    return message.decode("utf-8", "replace") if isinstance(message, bytes) else str(message)


def test_puts_into_a_missing_table_exhaust_the_retries(thrift1: Wire1) -> None:
    """A batch of puts (``mutateRows``) into a missing table: ``RetriesExhaustedWith
    DetailsException: Failed 1 action: <table>: 1 time, servers with issues: null``.

    (2.2.5 answered one row's put, ``mutateRow``, so too; 2.6.1 answers it
    ``TableNotFoundException``, see the next test.)
    """
    batch = [_Batch(row=b"r", mutations=[_Mutation(column=b"f:a", value=b"1")])]
    error = raises_with(lambda: thrift1.client.mutateRows(MISSING, batch, {}), HBASE_THRIFT.IOError)
    assert _text(error).startswith(
        "org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException: Failed 1 action: "
        + MISSING.decode()
        + ": 1 time, servers with issues: null"
    )


CALLS: dict[str, Callable[[Any], object]] = {
    "mutateRow": lambda c: c.mutateRow(MISSING, b"r", [_Mutation(column=b"f:a", value=b"1")], {}),
    "deleteAll": lambda c: c.deleteAll(MISSING, b"r", b"f:a", {}),
    "getRow": lambda c: c.getRow(MISSING, b"r", {}),
    "atomicIncrement": lambda c: c.atomicIncrement(MISSING, b"r", b"f:a", 1),
    "scan": lambda c: c.scannerGetList(c.scannerOpenWithScan(MISSING, HBASE_THRIFT.TScan(), {}), 1),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_other_calls_on_a_missing_table_are_table_not_found(thrift1: Wire1, call: str) -> None:
    """Deletes, gets, increments, scans (and on 2.6.1 one row's put): the reply's message
    starts with ``TableNotFoundException``; a stack trace may follow."""
    error = raises_with(lambda: CALLS[call](thrift1.client), HBASE_THRIFT.IOError)
    assert _text(error).startswith("org.apache.hadoop.hbase.TableNotFoundException")


@pytest.mark.parametrize(
    "call",
    [
        lambda b: b.mutate("missing", [Put(b"r", b"f:a", b"1")]),
        lambda b: b.mutate("missing", [Put(b"r", b"f:a", b"1"), Put(b"s", b"f:a", b"1")]),
        lambda b: b.mutate("missing", [Delete(b"r")]),
        lambda b: b.get("missing", [b"r"]),
        lambda b: b.increment("missing", b"r", b"f:a"),
        lambda b: b.increment_many("missing", [Increment(b"r", b"f:a")]),
        lambda b: list(b.scan("missing", Scan())),
    ],
    ids=["put", "puts", "delete", "get", "increment", "increments", "scan"],
)
def test_error_kinds_are_judged_by_the_class_at_the_start_of_the_message(
    backend: Backend, call: Callable[[Backend], object]
) -> None:
    """Messages carry the Java stack trace, which names other classes
    (``HBaseAdmin.checkTableExists`` in a TableNotFoundException's): the class at the start
    of the message decides, so every call on a missing table is ``TableNotFoundError``."""
    with pytest.raises(TableNotFoundError):
        call(backend)
