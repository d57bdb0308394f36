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
    UnsupportedOperationError,
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


def test_a_filter_the_parser_refuses_is_a_filter_error_whatever_its_wording() -> None:
    """The fake server's parser message says "is not supported": still the filter's fault."""
    exc = TApplicationException(
        TApplicationException.INTERNAL_ERROR,
        "Internal error processing scannerOpenWithScan: java.lang.IllegalArgumentException: "
        "filter WhileMatchFilter is not supported by the filter language",
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


# What HBase 2.2 sends: the class and its message, then the Java stack trace.
_DELETE_TRACE = (
    "\n\tat org.apache.hadoop.hbase.client.HBaseAdmin.checkTableExists(HBaseAdmin.java:1559)"
    "\n\tat org.apache.hadoop.hbase.client.HBaseAdmin.deleteTable(HBaseAdmin.java:843)"
    "\n\tat org.apache.hadoop.hbase.thrift.ThriftHBaseServiceHandler.deleteTable("
    "ThriftHBaseServiceHandler.java:300)"
)
_FAMILY_TRACE = (
    "\n\tat org.apache.hadoop.hbase.regionserver.HRegion.checkFamily(HRegion.java:8123)"
    "\n\tCaused by: org.apache.hadoop.hbase.TableExistsException: in a cause, not the class"
    "\n\tat org.apache.hadoop.hbase.TableNotFoundException.<init>(Unknown Source)"
)


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        (f"{_HB}TableNotFoundException: hmodel_test_t{_DELETE_TRACE}", TableNotFoundError),
        (f"TableNotFoundException: t{_DELETE_TRACE}", TableNotFoundError),
        (
            f"{_HB}regionserver.NoSuchColumnFamilyException: Column family h does not exist "
            f"in region t,,1 in table 't'{_FAMILY_TRACE}",
            ColumnFamilyNotFoundError,
        ),
        (f"{_HB}TableExistsException: t{_FAMILY_TRACE}", TableExistsError),
        (f"{_HB}RegionTooBusyException: busy{_DELETE_TRACE}{_FAMILY_TRACE}", BackendError),
        (f"java.io.IOException: timed out{_DELETE_TRACE}", BackendError),
    ],
)
def test_only_the_class_at_the_start_of_the_message_decides_the_kind(
    message: str, kind: type[BackendError]
) -> None:
    """Class names in the stack trace (checkTableExists, causes) never decide the kind."""
    error = server_error(ThriftIOError(message=message), method="deleteTable", table="t")
    assert type(error) is kind


def test_delete_table_of_a_missing_table_on_hbase_2_2_is_table_not_found() -> None:
    """The trace of HBase 2.2's answer names HBaseAdmin.checkTableExists: not TableExists."""
    exc = ThriftIOError(message=f"{_HB}TableNotFoundException: hmodel_test_gone{_DELETE_TRACE}")
    error = server_error(exc, method="deleteTable", table="gone")
    assert type(error) is TableNotFoundError
    assert "checkTableExists" not in error.message


_EXHAUSTED = f"{_HB}client.RetriesExhaustedWithDetailsException: "


@pytest.mark.parametrize(
    ("detail", "server_table", "kind"),
    [
        # HBase 2.2, a put into a missing table: the cause is the table's name alone.
        ("Failed 1 action: p_t: 1 time, servers with issues: null", "p_t", TableNotFoundError),
        ("Failed 3 actions: p_t: 3 times, servers with issues: null", "p_t", TableNotFoundError),
        ("Failed 1 action: ns:t: 1 time, servers with issues: null", "ns:t", TableNotFoundError),
        ("Failed 1 action: t: 1 time, servers with issues: null", None, TableNotFoundError),
        # A cause that names its class decides by that class.
        (
            f"Failed 1 action: {_HB}TableNotFoundException: t: 1 time, servers with issues: null",
            "t",
            TableNotFoundError,
        ),
        (
            "Failed 1 action: org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException:"
            " Column family h does not exist in region t,,1: 1 time, servers with issues: "
            "host,16020,1",
            "t",
            ColumnFamilyNotFoundError,
        ),
        # HBase 2.6.1: the cause's message runs on to its stack trace, so the first line
        # ends before "servers with issues"; the cause's class still decides.
        (
            "Failed 1 action: org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException:"
            " Column family nope does not exist in region t,,1795730975766.bcab. in table 't'"
            "\n\tat org.apache.hadoop.hbase.regionserver.HRegion.checkFamily(HRegion.java:1)",
            "t",
            ColumnFamilyNotFoundError,
        ),
        ("Failed 1 action: RegionTooBusyException: busy\n\tat x.y(Z.java:1)", "t", BackendError),
        # Another name, a server reached, or other causes: not a missing table.
        ("Failed 1 action: other: 1 time, servers with issues: null", "p_t", BackendError),
        ("Failed 1 action: p_t: 1 time, servers with issues: host,16020,1", "p_t", BackendError),
        (
            "Failed 2 actions: p_t: 1 time, RegionTooBusyException: 1 time, "
            "servers with issues: null",
            "p_t",
            BackendError,
        ),
        (
            "Failed 1 action: RegionTooBusyException: 1 time, servers with issues: h",
            "t",
            BackendError,
        ),
    ],
)
def test_retries_exhausted_is_judged_by_its_causes(
    detail: str, server_table: str | None, kind: type[BackendError]
) -> None:
    """A put into a missing table (HBase 2.2: the table's name alone) is TableNotFound."""
    exc = ThriftIOError(message=f"{_EXHAUSTED}{detail}{_DELETE_TRACE}")
    error = server_error(exc, method="mutateRows", table="t", server_table=server_table)
    assert type(error) is kind
    assert error.table == "t"


def test_a_reverse_scan_refused_for_on_demand_families_is_unsupported() -> None:
    """HBase's DoNotRetryIOException for reverse + filterIfMissing over several families."""
    exc = ThriftIOError(
        message=f"{_HB}DoNotRetryIOException: Reverse scan with loading CFs on demand is not "
        f"supported{_DELETE_TRACE}"
    )
    error = server_error(exc, method="scannerOpenWithScan", table="t", filter_given=True)
    assert type(error) is UnsupportedOperationError
