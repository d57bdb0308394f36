"""Translation of the Thrift2 server's answers into hmodel's errors (class at the start only)."""

from __future__ import annotations

import pytest
from thriftpy2.thrift import TApplicationException

from hmodel.backend.thrift2.error import JAVA_EXCEPTIONS, java_class, java_name_of, server_error
from hmodel.backend.thrift2.idl import TIllegalArgument, TIOError
from hmodel.errors import (
    BackendError,
    ColumnFamilyNotFoundError,
    CounterError,
    FilterError,
    IllegalArgumentError,
    TableDisabledError,
    TableExistsError,
    TableNotFoundError,
    UnsupportedOperationError,
)

TRACE = "\n\tat org.apache.hadoop.hbase.client.HBaseAdmin.checkTableExists(HBaseAdmin.java:1)"


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("org.apache.hadoop.hbase.TableNotFoundException: t" + TRACE, TableNotFoundError),
        ("org.apache.hadoop.hbase.TableExistsException: t", TableExistsError),
        ("org.apache.hadoop.hbase.TableNotEnabledException: t", TableDisabledError),
        (
            "Failed 1 action: org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: "
            "Column family zz does not exist in region t,,1: 1 time, servers with issues: h",
            ColumnFamilyNotFoundError,
        ),
        (
            "org.apache.hadoop.hbase.DoNotRetryIOException: Action's getRow must match",
            IllegalArgumentError,
        ),
        ("org.apache.hadoop.hbase.InvalidFamilyOperationException: exists", IllegalArgumentError),
        ("java.io.IOException: something else" + TRACE, BackendError),
        ("t", TableNotFoundError),  # HBase 2.2: a missing table is named alone
        ("Failed 1 action: t: 1 time, servers with issues: null", TableNotFoundError),
    ],
)
def test_the_java_class_at_the_start_decides(message: str, expected: type[BackendError]) -> None:
    """Class names deeper in the stack trace (checkTableExists) do not count."""
    error = server_error(
        TIOError(message=message), method="putMultiple", table="t", server_table=b"t"
    )
    assert type(error) is expected
    assert error.table == "t" and error.message.startswith("putMultiple failed: ")


def test_counters_are_recognised_in_increments_only() -> None:
    """DoNotRetryIOException "Field is not a long" is a CounterError from an increment."""
    exc = TIOError(message="org.apache.hadoop.hbase.DoNotRetryIOException: Field is not a long")
    assert type(server_error(exc, method="increment")) is CounterError
    assert type(server_error(exc, method="mutateRow")) is IllegalArgumentError


def test_application_exceptions_are_bad_requests_or_bad_filters() -> None:
    """HBase answers malformed requests with TApplicationException (type 6)."""
    exc = TApplicationException(6, "Internal error processing openScanner")
    assert type(server_error(exc, method="openScanner", filter_given=True)) is FilterError
    assert type(server_error(exc, method="get")) is IllegalArgumentError
    invalid = TIllegalArgument(message="Invalid scanner Id")
    assert type(server_error(invalid, method="getScannerRows")) is IllegalArgumentError


def test_the_table_of_java_names_serves_both_directions() -> None:
    """What the fake server names an error, the client reads back as the same error."""
    for _java_name, kind in JAVA_EXCEPTIONS:
        # What the server cannot do says so; other DoNotRetryIOExceptions are bad requests.
        words = "this is not supported" if kind is UnsupportedOperationError else "x"
        sent = f"{java_name_of(kind('x'))}: {words}\n\tat a.b.C(C.java:1)"
        method = "increment" if kind is CounterError else "mutateRow"
        read = server_error(TIOError(message=sent), method=method)
        assert type(read) is kind
        assert java_class(sent) == java_name_of(kind("x"))
