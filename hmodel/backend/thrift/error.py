"""Translation of Thrift, happybase and socket failures into hmodel's error tree (style 4)."""

from __future__ import annotations

import re
from typing import Any

from thriftpy2.protocol.exc import TProtocolException
from thriftpy2.thrift import TApplicationException
from thriftpy2.transport import TTransportException

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

__all__ = ["SERVER_ERRORS", "TRANSPORT_ERRORS", "server_error", "server_message"]

#: Errors the server *answered* with: the connection is healthy and the request failed.
SERVER_ERRORS: tuple[type[BaseException], ...] = (
    ThriftIOError,
    IllegalArgument,
    AlreadyExists,
    TApplicationException,
)

#: Errors of the connection itself: the request may or may not have reached the server.
#: ``OSError`` covers ``socket.timeout``, ``ConnectionResetError`` and ``BrokenPipeError``.
TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (
    TTransportException,
    TProtocolException,
    OSError,
    EOFError,
)

_COLUMN_FAMILY = re.compile(
    r"NoSuchColumnFamily|column family \S+ does not exist|unknown column family", re.IGNORECASE
)
_TABLE_NOT_FOUND = re.compile(
    r"TableNotFound|doesn't exist|table does not exist|no such table", re.IGNORECASE
)
_TABLE_EXISTS = re.compile(r"TableExists|already exists|already in use", re.IGNORECASE)
_COUNTER = re.compile(r"not a long|64 bits wide|counter|overflow", re.IGNORECASE)
_FILTER = re.compile(r"filter|comparator", re.IGNORECASE)


def server_message(exc: BaseException) -> str:
    """Return the text of a Thrift server error; HBase sends a whole Java stack trace.

    ``IOError``, ``IllegalArgument`` and ``AlreadyExists`` carry ``message`` (bytes when
    the client does not decode responses); ``TApplicationException`` carries it as well.
    """
    message: Any = getattr(exc, "message", None)
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    if not message:
        message = str(exc) or type(exc).__name__
    return str(message)


def _headline(message: str) -> str:
    """The first line of a (possibly multi-line Java stack trace) message, shortened."""
    line = message.strip().splitlines()[0] if message.strip() else message
    return line if len(line) <= 300 else line[:297] + "..."


def server_error(
    exc: BaseException,
    *,
    method: str,
    table: str | None = None,
    row: bytes | None = None,
    column: bytes | None = None,
    filter_given: bool = False,
) -> BackendError:
    """Map an error the Thrift server answered with to the matching :class:`BackendError`.

    HBase's Thrift1 handler wraps every Java exception into ``IOError`` whose message is
    the Java stack trace, so the kind is recognised by the Java class name or message in
    it (``TableNotFoundException``, ``NoSuchColumnFamilyException``, ``Field is not a
    long``...). The first line of the server's message is kept in the new error's
    message; the caller raises it ``from exc`` so the whole original stays the cause.

    Args:
        exc: The Thrift exception (``IOError``, ``IllegalArgument``, ``AlreadyExists`` or
            ``TApplicationException``).
        method: The Thrift1 RPC that failed, e.g. ``"mutateRows"``.
        table: The table, as the caller named it (without the table prefix).
        row: The row concerned, if one.
        column: The column concerned, if one.
        filter_given: Whether the request carried a filter string: HBase's filter parser
            fails with an ``IllegalArgumentException`` that reaches the client as a
            ``TApplicationException`` rather than ``IOError``.
    """
    message = server_message(exc)
    text = f"{method} failed: {_headline(message)}"
    context: dict[str, Any] = {"table": table, "row": row, "column": column}
    if isinstance(exc, AlreadyExists) or (
        isinstance(exc, ThriftIOError) and _TABLE_EXISTS.search(message)
    ):
        return TableExistsError(text, **context)
    if _COLUMN_FAMILY.search(message):
        return ColumnFamilyNotFoundError(text, **context)
    if _TABLE_NOT_FOUND.search(message):
        return TableNotFoundError(text, **context)
    if method in ("atomicIncrement", "incrementRows") and _COUNTER.search(message):
        return CounterError(text, **context)
    if filter_given and (isinstance(exc, TApplicationException) or _FILTER.search(message)):
        return FilterError(text, **context)
    if isinstance(exc, IllegalArgument):
        return IllegalArgumentError(text, **context)
    return BackendError(text, **context)
