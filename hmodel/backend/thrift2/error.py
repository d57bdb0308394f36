"""Translation of Thrift2 server and transport failures into hmodel's error tree.

The Java exception names live in :mod:`hmodel.backend.java_error`; ``JAVA_EXCEPTIONS``,
``java_class`` and ``java_name_of`` are re-exported here.
"""

from __future__ import annotations

import re
from typing import Any

from thriftpy2.protocol.exc import TProtocolException
from thriftpy2.thrift import TApplicationException
from thriftpy2.transport import TTransportException

from hmodel.backend.java_error import (
    JAVA_EXCEPTIONS,
    headline,
    java_class,
    java_name_of,
    strip_batch_prefix,
)
from hmodel.backend.thrift2.idl import TIllegalArgument, TIOError
from hmodel.errors import (
    BackendError,
    CounterError,
    FilterError,
    IllegalArgumentError,
    TableNotFoundError,
    UnsupportedOperationError,
)

__all__ = [
    "JAVA_EXCEPTIONS",
    "SERVER_ERRORS",
    "TRANSPORT_ERRORS",
    "java_class",
    "java_name_of",
    "server_error",
]

#: A DoNotRetryIOException saying the server cannot do what was asked.
_UNSUPPORTED = re.compile(r"\bnot supported\b", re.IGNORECASE)

#: Errors the server *answered* with: the connection is healthy and the request failed.
SERVER_ERRORS: tuple[type[BaseException], ...] = (TIOError, TIllegalArgument, TApplicationException)

#: Errors of the connection itself: the request may or may not have reached the server.
TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (
    TTransportException,
    TProtocolException,
    OSError,
    EOFError,
)


def _message(exc: BaseException) -> str:
    message: Any = getattr(exc, "message", None)
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    return str(message or exc or type(exc).__name__)


def server_error(
    exc: BaseException,
    *,
    method: str,
    table: str | None = None,
    server_table: bytes | None = None,
    row: bytes | None = None,
    column: bytes | None = None,
    filter_given: bool = False,
) -> BackendError:
    """Map an error a Thrift2 server answered with to the matching :class:`BackendError`.

    Only the Java class name at the start of a ``TIOError`` message counts (after the
    ``Failed N action(s):`` prefix of the batch calls): class names deeper in the stack
    trace say nothing about the error. A message that is just the table's name is HBase
    2.2's answer for a missing table. ``TIllegalArgument`` is a bad argument (an unknown
    scanner id); a ``TApplicationException`` is HBase's answer to a malformed request
    (a bad filter string when one was given). The caller raises the result ``from exc``.

    Args:
        exc: ``TIOError``, ``TIllegalArgument`` or ``TApplicationException``.
        method: The Thrift2 call that failed, e.g. ``"putMultiple"``.
        table: The table as the caller named it (without the table prefix).
        server_table: The table name sent to the server (with the prefix).
        row: The row concerned, if one.
        column: The column concerned, if one.
        filter_given: Whether the request carried a filter string.
    """
    message = _message(exc)
    text = f"{method} failed: {headline(message)}"
    context: dict[str, Any] = {"table": table, "row": row, "column": column}
    if isinstance(exc, TIllegalArgument):
        return IllegalArgumentError(text, **context)
    if isinstance(exc, TApplicationException):
        if filter_given:
            return FilterError(text, **context)
        return IllegalArgumentError(text, **context)
    bare = strip_batch_prefix(message)
    if server_table is not None:
        # HBase 2.2 names a missing table alone ("t"), or as a failed action ("t: 1 time, ...").
        name_text = server_table.decode("utf-8", "replace")
        if bare == name_text or bare.startswith(f"{name_text}: "):
            return TableNotFoundError(text, **context)
    name = java_class(message)
    for java_name, kind in JAVA_EXCEPTIONS:
        if name != java_name:
            continue
        if kind is CounterError:
            # An increment's DoNotRetryIOException is its cell ("Field is not a long").
            if method == "increment":
                return CounterError(text, **context)
            continue
        if kind is UnsupportedOperationError:
            # What the server cannot do ("Reverse scan with loading CFs on demand is not
            # supported"), not a malformed request.
            if _UNSUPPORTED.search(message):
                return UnsupportedOperationError(text, **context)
            continue
        if kind is IllegalArgumentError and filter_given:
            return FilterError(text, **context)
        if issubclass(kind, BackendError):
            return kind(text, **context)
    return BackendError(text, **context)
