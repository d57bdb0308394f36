"""The one exception tree of hmodel, rooted at :class:`HModelError`."""

from __future__ import annotations

from typing import Any

__all__ = [
    "AuthenticationError",
    "BackendError",
    "CellSizeWarning",
    "CellTooLargeError",
    "CheckConfigError",
    "ClaimLostError",
    "CodecError",
    "ColumnFamilyNotFoundError",
    "ConflictError",
    "ConnectionLostError",
    "CounterError",
    "CycleError",
    "DeclarationError",
    "DecodeError",
    "EncodeError",
    "FilterError",
    "HModelError",
    "HModelWarning",
    "HTTPStatusError",
    "IdExhaustedError",
    "IllegalArgumentError",
    "InputError",
    "KeyDecodeError",
    "KeyEncodeError",
    "LeaseExpiredError",
    "MigrationRefusedError",
    "MonotonicKeyWarning",
    "NotFoundError",
    "OperationsError",
    "OutcomeUnknownError",
    "QueryError",
    "ReadInterruptedError",
    "RowExistsError",
    "RowKeyError",
    "SampleError",
    "SchemaError",
    "ServerStartError",
    "TLSError",
    "TableDisabledError",
    "TableExistsError",
    "TableNotFoundError",
    "TokenError",
    "UniqueViolationError",
    "UnsupportedOperationError",
    "ValidationError",
    "error_type",
]


def _show(value: Any) -> str:
    """Render a context value for a message: bytes as Python literals, long values shortened."""
    try:
        text = repr(value)
    except Exception:  # e.g. an int over Python's 4300-digit repr limit
        text = f"<{type(value).__name__} that cannot be shown>"
    return text if len(text) <= 80 else text[:77] + "..."


class HModelError(Exception):
    """Root of every error hmodel raises.

    Each error names what it concerns. The context attributes are ``None`` when they do
    not apply, and the non-``None`` ones are appended to the message (once: an item the
    message already quotes as ``name=value`` is not repeated), so a log line says which
    table, row, column, field or key component was involved.

    Args:
        message: What went wrong, in one sentence.
        table: The table name involved, if any.
        row: The rowkey involved, as bytes, if any.
        column: The column (``b"family:qualifier"`` or a family name) involved, if any.
        field: The model field (or key component) name involved, if any.
        value: The offending value, if any (rendered with ``repr``, shortened).
    """

    def __init__(
        self,
        message: str,
        *,
        table: str | None = None,
        row: bytes | None = None,
        column: bytes | str | None = None,
        field: str | None = None,
        value: Any = None,
    ) -> None:
        self.message = message
        self.table = table
        self.row = row
        self.column = column
        self.field = field
        self.value = value
        super().__init__(self._render())

    def _render(self) -> str:
        parts = [self.message]
        shown = (
            f"{name}={_show(getattr(self, name))}"
            for name in ("table", "row", "column", "field", "value")
            if getattr(self, name) is not None
        )
        # A message that already carries a context item (a server's answer quoting the
        # error it raised, say) does not get it a second time.
        context = [item for item in shown if item not in self.message]
        if context:
            parts.append(f"({', '.join(context)})")
        return " ".join(parts)


# --- declarations -------------------------------------------------------------------------


class DeclarationError(HModelError):
    """A table, family, key or model declaration is invalid; raised at declaration time."""


class SchemaError(DeclarationError):
    """A table or family option is invalid (F3, F4), e.g. ``VERSIONS=0``."""


# --- bytes <-> values ---------------------------------------------------------------------


class CodecError(HModelError):
    """A value could not be turned into bytes, or bytes into a value."""


class EncodeError(CodecError):
    """A value cannot be encoded: wrong type, out of range, too long."""


class DecodeError(CodecError):
    """Stored bytes cannot be decoded: corrupt, truncated or of another type."""


class RowKeyError(CodecError):
    """A rowkey could not be composed or parsed (K1-K11)."""


class KeyEncodeError(RowKeyError, EncodeError):
    """A key component value is missing, of the wrong type, out of range or too long."""


class KeyDecodeError(RowKeyError, DecodeError):
    """A rowkey's bytes do not parse under the key declaration (truncated, bad salt bucket...)."""


# --- user input to repositories -------------------------------------------------------------


class ValidationError(HModelError):
    """A model instance or a call's arguments are invalid.

    Wrong field type, unknown field, missing required field or key field.
    """


class CellTooLargeError(ValidationError):
    """A cell value is larger than its field's ``max_bytes`` (F11); nothing was written.

    ``table``, ``row``, ``column`` and ``field`` name the cell; ``value`` is its size in
    bytes, and ``limit`` the limit it broke.
    """

    def __init__(self, message: str, *, limit: int, **context: Any) -> None:
        self.limit = limit
        super().__init__(message, **context)


class QueryError(ValidationError):
    """A query is invalid: unknown field in a condition, bounds on a non-key field, ..."""


class CycleError(ValidationError):
    """A taxonomy link (R11) would make a node its own ancestor; nothing was written.

    ``row`` is the parent's rowkey and ``value`` the child's rowkey: the child is the
    parent itself or one of its ancestors.
    """


class TokenError(ValidationError):
    """A resume token is malformed, was tampered with, or belongs to another query."""


class NotFoundError(HModelError):
    """A row asked for with ``required=True`` does not exist."""


class ConflictError(HModelError):
    """An optimistic-locking check failed: the stored version is not the one that was read.

    A save or delete that raises it has had no effect: read the row again and retry.
    """


class RowExistsError(ConflictError):
    """An insert of a new locked model (version 0) found the row already there."""


class UniqueViolationError(ConflictError):
    """A unique index (I1) already holds the value for another row; nothing was written.

    Also raised while another write claims the value and has not finished (within the
    index's ``grace``): the value is taken, or about to be.
    """


class LeaseExpiredError(ConflictError):
    """A write stalled past its lease before its data write, and was abandoned (I1).

    A secondary index's protocol lets readers repair, and other writers take over, what
    a write left unfinished for longer than the index's ``grace``; a write that finds,
    just before its data write, that more than half the grace has passed since it began
    gives up instead of racing them. Nothing of its data was written (as for every
    :class:`ConflictError`): read the row and retry.
    """


class ClaimLostError(HModelError):
    """A save's data row **was written**, but a unique claim it held was taken over (I1).

    A claim is a lease: a writer that stalls for longer than the index's ``grace``
    between its pre-write check and its data write landing may find, afterwards, that a
    writer of another row took the value over, presumed dead. Two rows may then hold the
    value until one of them changes: ``verify`` reports it as a duplicate. Not a
    :class:`ConflictError`: the write happened. Read the row, then change the value of
    one of the two rows. Only a model without a version field gets it: for a versioned
    model the takeover fences the stalled write's row first, and that write then fails
    with :class:`UniqueViolationError`, having written nothing.
    """


# --- backend --------------------------------------------------------------------------------


class BackendError(HModelError):
    """The storage backend (in-memory engine or HBase over Thrift) refused or failed a request.

    The original exception, when there is one, is kept as ``__cause__``.
    """


class TableNotFoundError(BackendError):
    """The table does not exist (HBase ``TableNotFoundException``)."""


class TableDisabledError(BackendError):
    """The table is disabled: reads and writes are refused (HBase ``TableNotEnabledException``)."""


class TableExistsError(BackendError):
    """The table already exists (HBase ``TableExistsException`` / Thrift ``AlreadyExists``)."""


class ColumnFamilyNotFoundError(BackendError):
    """A column names a family the table does not have (HBase ``NoSuchColumnFamilyException``)."""


class IllegalArgumentError(BackendError):
    """The server rejected the arguments of a request (Thrift ``IllegalArgument``)."""


class CounterError(IllegalArgumentError):
    """An increment hit a cell that is not an 8-byte long (F10), or the counter overflowed."""


class FilterError(IllegalArgumentError):
    """A filter string does not parse, or names a filter the engine does not support (I4)."""


class UnsupportedOperationError(BackendError):
    """The backend cannot perform this operation (e.g. check-and-delete over Thrift1)."""


class ConnectionLostError(BackendError):
    """The connection to the HBase Thrift server failed or was dropped."""


class OutcomeUnknownError(ConnectionLostError):
    """A request that is not idempotent may or may not have been applied.

    The connection dropped after the request left (an increment, an append, a conditional
    write), so it was not retried. Read the row to find out before doing it again.
    """


class AuthenticationError(BackendError):
    """The server, or a gateway in front of it, refused the client's credentials.

    Over SASL (Kerberos GSSAPI or PLAIN), raised when a connection is opened: no ticket, an
    expired ticket, a service principal the KDC or the server does not know, a wrong
    password, or a quality of protection the two sides do not share; the message names the
    server and the client principal and quotes the GSSAPI error or the server's refusal (a
    ``gssapi`` error is kept as ``__cause__``, never raised). Over HTTP: a ``401``, ``403``
    or ``407`` answer (the message names the URL and the status). Not retried: a new
    connection with the same credentials fails the same way.

    Attributes:
        host: The server's ``host:port`` (SASL), or ``None``.
        principal: The client principal (or user name) that tried, or ``None`` when it
            could not be known (no credential cache, or HTTP).
    """

    def __init__(
        self, message: str, *, host: str | None = None, principal: str | None = None
    ) -> None:
        self.host = host
        self.principal = principal
        super().__init__(message)


class TLSError(BackendError):
    """A TLS connection could not be set up, so nothing was sent.

    The server's certificate is not trusted (no CA given trusts it), does not name the host
    connected to, or has expired; the server refused the client's certificate; or the
    server does not speak TLS at that address. The message names the address and the
    reason. Not retried: the same handshake would fail the same way.
    """


class HTTPStatusError(BackendError):
    """An HTTP server answered a Thrift call with a status that is not an answer.

    A wrong path behind a gateway (``404``), a redirect to a login page, a page that is
    not Thrift. ``401``/``403``/``407`` are :class:`AuthenticationError`; a ``5xx`` is a
    failed connection, retried as such (:class:`ConnectionLostError` when it may not be).

    Attributes:
        status: The HTTP status code.
        url: The URL the call was posted to (without credentials).
    """

    def __init__(self, message: str, *, status: int, url: str, **context: Any) -> None:
        self.status = status
        self.url = url
        super().__init__(message, **context)


class ServerStartError(BackendError):
    """A real HBase the test kit starts (:mod:`hmodel.testing.hbase_process`) did not come up.

    The message quotes the tail of the failing process's log (or of Maven's output when the
    jars could not be resolved); the log directory is kept for a look.
    """


class ReadInterruptedError(ConnectionLostError):
    """The connection dropped during a read that cannot be sent again as it was.

    A scanner fetch (``scannerGetList``) moves the server's scanner, so it is never sent
    twice; when the scan cannot be reopened past its last row either, this error says a
    *read* was interrupted: nothing was written, and the rows already returned are valid.
    It is not the "outcome unknown" (:class:`OutcomeUnknownError`) of a lost write.
    """


# --- operator tools (hmodel check, hmodel spread) ------------------------------------------


class OperationsError(HModelError):
    """An operator tool (``hmodel check``, ``hmodel spread``) was given input it cannot use."""


class InputError(OperationsError):
    """A module, model or target named on the command line cannot be found or imported."""


class CheckConfigError(OperationsError):
    """The advisor's settings are invalid: a bad number, an unknown code, a reasonless ignore."""


class SampleError(OperationsError):
    """A key sample cannot be read: a missing file, a bad line, a value of the wrong type."""


class MigrationRefusedError(OperationsError):
    """A migration would drop data (a family holding cells) and was not told it may."""


# --- patterns -------------------------------------------------------------------------------


class IdExhaustedError(HModelError):
    """A counter-issued id allocator (K9) has issued every id its width can hold."""


# --- warnings -------------------------------------------------------------------------------


class HModelWarning(UserWarning):
    """Root of every warning hmodel emits; filter them with ``warnings.filterwarnings``."""


class MonotonicKeyWarning(HModelWarning):
    """A model's rowkey leads with a monotonic value, so writes hit one region (K8)."""


class CellSizeWarning(HModelWarning):
    """A cell value is larger than its field's ``warn_bytes`` (F11); it was still written."""


def error_type(error: BaseException) -> str:
    """An exception's class, fully qualified: OpenTelemetry's ``error.type`` of it.

    >>> error_type(NotFoundError("no such row")), error_type(OSError())
    ('hmodel.errors.NotFoundError', 'OSError')
    """
    kind = type(error)
    if kind.__module__ == "builtins":
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"
