"""Translation of Thrift, happybase and socket failures into hmodel's error tree (style 4)."""

from __future__ import annotations

import re
from typing import Any

from thriftpy2.protocol.exc import TProtocolException
from thriftpy2.thrift import TApplicationException
from thriftpy2.transport import TTransportException

from hmodel.backend.java_error import (
    JAVA_EXCEPTIONS,
    RETRIES_EXHAUSTED,
    headline,
    leading_class,
    simple_name,
    strip_batch_prefix,
)
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

# The kind of an error by the simple name of the Java class that starts its message: the
# entries of the shared table the Thrift1 client decides by the class alone.
_BY_CLASS: dict[str, type[BackendError]] = {
    simple_name(java_name): kind
    for java_name, kind in JAVA_EXCEPTIONS
    if kind in (TableNotFoundError, TableExistsError, ColumnFamilyNotFoundError)
}

# ``RetriesExhaustedWithDetailsException`` (a put that failed in the client inside the
# Thrift server): ``Failed 2 actions: <causes>, servers with issues: <hosts or null>``,
# each cause ``<description>: <n> time(s)``.
_RETRIES_EXHAUSTED = simple_name(RETRIES_EXHAUSTED)
_FAILED_ACTIONS = re.compile(
    r"Failed \d+ actions?: (?P<causes>.*?),? servers with issues: (?P<servers>.*)$"
)
_CAUSE_COUNT = re.compile(r": \d+ times?(?:, |,?$)")

# Wordings recognised in the first line of a message whose class is generic
# (``IOException``, ``DoNotRetryIOException``...) or that names no class at all.
_COLUMN_FAMILY = re.compile(
    r"column family \S+ does not exist|unknown column family", re.IGNORECASE
)
_TABLE_NOT_FOUND = re.compile(r"doesn't exist|table does not exist|no such table", re.IGNORECASE)
_TABLE_EXISTS = re.compile(r"already exists|already in use", re.IGNORECASE)
_COUNTER = re.compile(r"not a long|64 bits wide|counter|overflow", re.IGNORECASE)
_FILTER = re.compile(r"filter|comparator", re.IGNORECASE)
_UNSUPPORTED = re.compile(r"\bis not supported\b", re.IGNORECASE)


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


def _missing_table_causes(detail: str, server_table: str | None) -> bool:
    """Whether a ``RetriesExhaustedWithDetailsException`` says its table does not exist.

    HBase 2.2 answers a put into a missing table with ``Failed 1 action: <table>: 1 time,
    servers with issues: null``: the one cause is described by the table's name alone
    and no region server was reached. Both must hold, and the name must be the table the
    request was sent to (when the caller knows it), so that no other failure is taken for
    a missing table.
    """
    match = _FAILED_ACTIONS.match(detail.strip())
    if match is None or match.group("servers").strip() != "null":
        return False
    causes = [cause for cause in _CAUSE_COUNT.split(match.group("causes")) if cause]
    if len(causes) != 1:
        return False
    (cause,) = causes
    return cause == server_table if server_table is not None else ":" not in cause


def _kind_of(line: str, *, server_table: str | None) -> type[BackendError] | None:
    """The error kind a message's first line names, ``None`` when it names none.

    The Java class at the start decides; a generic class (``IOException``,
    ``DoNotRetryIOException``...) or none at all lets the wording of that line decide.
    A ``RetriesExhaustedWithDetailsException`` is judged by the causes it lists.
    """
    name, detail = leading_class(line)
    if name is not None and name in _BY_CLASS:
        return _BY_CLASS[name]
    if name == _RETRIES_EXHAUSTED:
        if _missing_table_causes(detail, server_table):
            return TableNotFoundError
        causes = _FAILED_ACTIONS.match(detail.strip())
        # HBase 2.6 puts the cause's own message (and stack trace) first, so the line ends
        # before "servers with issues": the class right after "Failed N action(s):" decides.
        first_cause = causes.group("causes") if causes is not None else strip_batch_prefix(detail)
        cause_name, _ = leading_class(first_cause)
        return _BY_CLASS.get(cause_name or "")
    if _UNSUPPORTED.search(detail):
        return UnsupportedOperationError
    if _COLUMN_FAMILY.search(detail):
        return ColumnFamilyNotFoundError
    if _TABLE_NOT_FOUND.search(detail):
        return TableNotFoundError
    if _TABLE_EXISTS.search(detail):
        return TableExistsError
    return None


def server_error(
    exc: BaseException,
    *,
    method: str,
    table: str | None = None,
    server_table: str | None = None,
    row: bytes | None = None,
    column: bytes | None = None,
    filter_given: bool = False,
) -> BackendError:
    """Map an error the Thrift server answered with to the matching :class:`BackendError`.

    HBase's Thrift1 handler wraps every Java exception into ``IOError`` whose message is
    ``<Java class>: <message>`` followed by the Java stack trace. The kind is decided by
    the class name at the **start** of the message only (``TableNotFoundException``,
    ``NoSuchColumnFamilyException``...), never by names further on: the stack trace of
    a ``TableNotFoundException`` names ``HBaseAdmin.checkTableExists``. For a generic
    class (``IOException``, ``DoNotRetryIOException``) or a message without one, the
    wording of the first line decides (``Field is not a long``, ``is not supported``...).
    ``RetriesExhaustedWithDetailsException: Failed 1 action: <table>: 1 time, servers
    with issues: null``, HBase 2.2's answer to a put into a missing table, is a
    :class:`~hmodel.errors.TableNotFoundError`. The first line of the server's message
    is kept in the new error's message; the caller raises it ``from exc`` so the whole
    original stays the cause.

    Args:
        exc: The Thrift exception (``IOError``, ``IllegalArgument``, ``AlreadyExists`` or
            ``TApplicationException``).
        method: The Thrift1 RPC that failed, e.g. ``"mutateRows"``.
        table: The table, as the caller named it (without the table prefix).
        server_table: The table name the request was sent with (prefix included), to
            recognise it in messages that name it alone.
        row: The row concerned, if one.
        column: The column concerned, if one.
        filter_given: Whether the request carried a filter string: HBase's filter parser
            fails with an ``IllegalArgumentException`` that reaches the client as a
            ``TApplicationException`` rather than ``IOError``.
    """
    message = server_message(exc)
    first = headline(message)
    text = f"{method} failed: {first}"
    context: dict[str, Any] = {"table": table, "row": row, "column": column}
    if isinstance(exc, AlreadyExists):
        return TableExistsError(text, **context)
    if filter_given and isinstance(exc, TApplicationException):
        return FilterError(text, **context)  # the parser's, whatever its wording
    kind = _kind_of(first, server_table=server_table)
    if kind is not None:
        return kind(text, **context)
    if method in ("atomicIncrement", "incrementRows") and _COUNTER.search(first):
        return CounterError(text, **context)
    if filter_given and _FILTER.search(first):
        return FilterError(text, **context)
    if isinstance(exc, IllegalArgument):
        return IllegalArgumentError(text, **context)
    return BackendError(text, **context)
