"""Errors HBase's Thrift1 server answers with, mapped to hmodel's error tree (style 4)."""

from __future__ import annotations

import pytest
from thriftpy2.thrift import TApplicationException

from hmodel.backend.thrift.error import server_error, server_message
from hmodel.backend.thrift.idl import AlreadyExists, IllegalArgument, ThriftIOError
from hmodel.errors import (
    BackendError,
    ColumnFamilyNotFoundError,
    CounterError,
    FilterError,
    IllegalArgumentError,
    TableExistsError,
    TableNotFoundError,
)

_TRACE = "\n\tat org.apache.hadoop.hbase.thrift.ThriftHBaseServiceHandler.get(Handler.java:1)"


_HB = "org.apache.hadoop.hbase."
_CASES = [
    (
        "getRows",
        ThriftIOError(message=f"{_HB}TableNotFoundException: t{_TRACE}"),
        TableNotFoundError,
    ),
    (
        "deleteTable",
        ThriftIOError(message="java.io.IOException: table does not exist"),
        TableNotFoundError,
    ),
    (
        "mutateRows",
        ThriftIOError(message=f"{_HB}TableNotFoundException: t".encode()),
        TableNotFoundError,
    ),
    (
        "mutateRows",
        ThriftIOError(
            message=f"{_HB}regionserver.NoSuchColumnFamilyException: Column family h does not "
            f"exist in region t,,1 in table 't'{_TRACE}"
        ),
        ColumnFamilyNotFoundError,
    ),
    ("createTable", AlreadyExists(message="table name already in use"), TableExistsError),
    (
        "atomicIncrement",
        ThriftIOError(
            message=f"{_HB}DoNotRetryIOException: Field is not a long, it's 3 bytes wide"
        ),
        CounterError,
    ),
    (
        "incrementRows",
        ThriftIOError(
            message="java.io.IOException: Attempted to increment field that isn't 64 bits wide"
        ),
        CounterError,
    ),
    (
        "checkAndPut",
        IllegalArgument(message=b"IllegalArgumentException: Row length is 0"),
        IllegalArgumentError,
    ),
    ("getRows", ThriftIOError(message=f"{_HB}RegionTooBusyException: busy"), BackendError),
]


@pytest.mark.parametrize(("method", "exc", "kind"), _CASES)
def test_server_errors_map_to_their_hmodel_kind(
    method: str, exc: BaseException, kind: type[BackendError]
) -> None:
    error = server_error(exc, method=method, table="t")
    assert type(error) is kind
    assert error.table == "t"
    assert method in error.message


def test_a_filter_the_server_cannot_parse_is_a_filter_error() -> None:
    exc = TApplicationException(
        TApplicationException.INTERNAL_ERROR, "Internal error processing scannerOpenWithScan"
    )
    error = server_error(exc, method="scannerOpenWithScan", table="t", filter_given=True)
    assert isinstance(error, FilterError)


def test_an_internal_error_without_a_filter_is_a_plain_backend_error() -> None:
    exc = TApplicationException(TApplicationException.INTERNAL_ERROR, "boom")
    assert type(server_error(exc, method="getRows")) is BackendError


def test_only_the_first_line_of_a_java_stack_trace_is_kept_in_the_message() -> None:
    exc = ThriftIOError(message=f"org.apache.hadoop.hbase.TableNotFoundException: t{_TRACE}")
    error = server_error(exc, method="getRows", table="t", row=b"r", column=b"f:q")
    assert "ThriftHBaseServiceHandler" not in error.message
    assert (error.row, error.column) == (b"r", b"f:q")
    assert "ThriftHBaseServiceHandler" in server_message(exc)


def test_counter_wording_outside_increments_is_not_a_counter_error() -> None:
    exc = ThriftIOError(message="java.io.IOException: Field is not a long")
    assert type(server_error(exc, method="mutateRows")) is BackendError
