"""Translation of hmodel errors into the Thrift1 replies HBase's server sends."""

from __future__ import annotations

import pytest
from thriftpy2.thrift import TApplicationException

from hmodel.errors import (
    BackendError,
    ColumnFamilyNotFoundError,
    CounterError,
    FilterError,
    HModelError,
    IllegalArgumentError,
    SchemaError,
    TableDisabledError,
    TableExistsError,
    TableNotFoundError,
)
from hmodel.testing.fake.thrift1_error import thrift_error
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT

IO_ONLY = [HBASE_THRIFT.IOError]
IO_AND_IA = [HBASE_THRIFT.IOError, HBASE_THRIFT.IllegalArgument]
CREATE_TABLE = [HBASE_THRIFT.IOError, HBASE_THRIFT.IllegalArgument, HBASE_THRIFT.AlreadyExists]


@pytest.mark.parametrize(
    ("error", "java_name"),
    [
        (TableNotFoundError("no such table", table="t"), "TableNotFoundException"),
        (TableDisabledError("disabled", table="t"), "TableNotEnabledException"),
        (ColumnFamilyNotFoundError("no family", column=b"x"), "NoSuchColumnFamilyException"),
        (CounterError("not a long"), "DoNotRetryIOException"),
        (BackendError("anything else"), "java.io.IOException"),
    ],
)
def test_server_side_failures_are_IOErrors_naming_the_java_exception(
    error: HModelError, java_name: str
) -> None:
    reply = thrift_error(error, IO_AND_IA)
    assert isinstance(reply, HBASE_THRIFT.IOError)
    assert java_name in reply.message
    assert error.message in reply.message


def test_counter_errors_are_IOErrors_even_where_IllegalArgument_is_declared() -> None:
    assert isinstance(thrift_error(CounterError("3 bytes wide"), IO_AND_IA), HBASE_THRIFT.IOError)


@pytest.mark.parametrize(
    "error",
    [IllegalArgumentError("bad"), FilterError("bad filter"), SchemaError("VERSIONS must be >= 1")],
)
def test_bad_arguments_are_IllegalArgument_where_declared(error: HModelError) -> None:
    reply = thrift_error(error, IO_AND_IA)
    assert isinstance(reply, HBASE_THRIFT.IllegalArgument)
    assert reply.message.startswith("java.lang.IllegalArgumentException: ")


def test_bad_arguments_are_internal_errors_where_IllegalArgument_is_not_declared() -> None:
    reply = thrift_error(FilterError("bad filter"), IO_ONLY)
    assert isinstance(reply, TApplicationException)
    assert reply.type == TApplicationException.INTERNAL_ERROR
    assert "bad filter" in reply.message


def test_existing_table_is_AlreadyExists_in_createTable() -> None:
    reply = thrift_error(TableExistsError("exists", table="t"), CREATE_TABLE)
    assert isinstance(reply, HBASE_THRIFT.AlreadyExists)
    assert reply.message == "table name already in use"


def test_existing_table_is_an_IOError_where_AlreadyExists_is_not_declared() -> None:
    assert isinstance(thrift_error(TableExistsError("exists"), IO_ONLY), HBASE_THRIFT.IOError)


def test_nothing_declared_falls_back_to_an_internal_error() -> None:
    assert isinstance(thrift_error(TableNotFoundError("gone"), []), TApplicationException)
