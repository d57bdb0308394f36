"""Translation of hmodel errors into the Thrift1 error replies HBase's server sends."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from thriftpy2.thrift import TApplicationException

from hmodel.backend.java_error import RETRIES_EXHAUSTED, THRIFT1_JAVA_EXCEPTIONS, java_name_of
from hmodel.errors import (
    ColumnFamilyNotFoundError,
    CounterError,
    DeclarationError,
    HModelError,
    IllegalArgumentError,
    TableExistsError,
    ValidationError,
)
from hmodel.testing.fake.java_text import server_text
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT

__all__ = ["failed_actions", "internal_error", "java_message", "thrift_error"]


def java_message(exc: HModelError) -> str:
    """The first line of HBase's reply message for ``exc``: ``<Java class>: <message>``.

    HBase puts the whole stack trace in the reply's message; this is its first line.
    """
    return f"{java_name_of(exc, THRIFT1_JAVA_EXCEPTIONS)}: {server_text(exc)}"


def _is_bad_argument(exc: HModelError) -> bool:
    # A counter that is not 8 bytes wide is a DoNotRetryIOException in HBase: an IOError.
    if isinstance(exc, CounterError):
        return False
    return isinstance(exc, (IllegalArgumentError, DeclarationError, ValidationError))


def internal_error(message: str) -> TApplicationException:
    """The reply Java Thrift sends for an exception the method does not declare."""
    return TApplicationException(TApplicationException.INTERNAL_ERROR, message)


def thrift_error(exc: HModelError, declared: Collection[type[Exception]]) -> Exception:
    """Return the Thrift exception HBase's Thrift1 server replies with for ``exc``.

    The rules follow ``ThriftHBaseServiceHandler``:

    * an existing table in ``createTable`` -> ``AlreadyExists("table name already in use")``;
    * a bad argument (:class:`~hmodel.errors.IllegalArgumentError`, a declaration or
      validation error) -> ``IllegalArgument`` when the method declares it, otherwise a
      ``TApplicationException`` (``INTERNAL_ERROR``), as Java Thrift answers a runtime
      ``IllegalArgumentException`` a method does not declare;
    * everything else (missing table or family, disabled table, a counter cell that is not
      8 bytes wide, ...) -> ``IOError``, which every method of the service declares.

    Messages start with the Java exception class HBase would name, then hmodel's message;
    a region server's exception (an unknown family, a cell that is no counter) names its
    class twice, as HBase's handler receives it wrapped.

    Args:
        exc: The error the handler raised.
        declared: The exception classes the called method declares (its ``throws``).
    """
    message = java_message(exc)
    if isinstance(exc, (ColumnFamilyNotFoundError, CounterError)):
        # A region server's exception reaches the handler wrapped once: "<class>: <class>: ..."
        message = f"{message.partition(':')[0]}: {message}"
    if isinstance(exc, TableExistsError) and HBASE_THRIFT.AlreadyExists in declared:
        return HBASE_THRIFT.AlreadyExists(message="table name already in use")  # type: ignore[no-any-return]
    if _is_bad_argument(exc):
        if HBASE_THRIFT.IllegalArgument in declared:
            return HBASE_THRIFT.IllegalArgument(message=message)  # type: ignore[no-any-return]
        return internal_error(message)
    if HBASE_THRIFT.IOError in declared:
        return HBASE_THRIFT.IOError(message=message)  # type: ignore[no-any-return]
    return internal_error(message)


def failed_actions(failed: Sequence[HModelError]) -> Exception:
    """HBase's client's answer to a batch some of whose actions failed in a region.

    ``RetriesExhaustedWithDetailsException: Failed N actions: <first cause's class>:
    <its message>: N times, servers with issues: <server>``.
    """
    first, count = failed[0], len(failed)
    plural = "" if count == 1 else "s"
    return HBASE_THRIFT.IOError(  # type: ignore[no-any-return]
        message=(
            f"{RETRIES_EXHAUSTED}: Failed {count} action{plural}: {java_message(first)}: "
            f"{count} time{plural}, servers with issues: localhost"
        )
    )
