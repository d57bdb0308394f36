"""The replies HBase 2.2's Thrift2 server sends for failures, built from hmodel errors."""

from __future__ import annotations

from typing import Any

from thriftpy2.thrift import TApplicationException

from hmodel.backend.java_error import DO_NOT_RETRY, java_name_of
from hmodel.backend.thrift2.idl import TIllegalArgument, TIOError
from hmodel.errors import (
    CounterError,
    DeclarationError,
    FilterError,
    HModelError,
    IllegalArgumentError,
    TableNotFoundError,
    ValidationError,
)
from hmodel.testing.fake.java_text import server_text

__all__ = [
    "BATCH_CALLS",
    "failed_actions",
    "internal_error",
    "invalid_scanner",
    "io_error",
    "reply_for",
]

#: Calls HBase runs as a batch of actions: their errors read "Failed N action(s): ...".
BATCH_CALLS = frozenset(
    {"putMultiple", "getMultiple", "deleteMultiple", "mutateRow", "checkAndDelete", "existsAll"}
)

#: Calls whose first argument is a table name as bytes (the data calls).
DATA_CALLS = frozenset(
    {
        "get",
        "getMultiple",
        "put",
        "putMultiple",
        "deleteSingle",
        "deleteMultiple",
        "checkAndPut",
        "checkAndDelete",
        "checkAndMutate",
        "increment",
        "append",
        "mutateRow",
        "openScanner",
        "getScannerRows",
        "exists",
        "existsAll",
        "getScannerResults",
    }
)


def internal_error(api: str) -> TApplicationException:
    """What Java Thrift answers for a runtime exception the call does not declare."""
    return TApplicationException(
        TApplicationException.INTERNAL_ERROR, f"Internal error processing {api}"
    )


def invalid_scanner() -> Any:
    """HBase's answer for a closed or unknown scanner id."""
    return TIllegalArgument(message="Invalid scanner Id")


def io_error(java_name: str, message: str, *, api: str, actions: int = 1) -> Any:
    """A ``TIOError`` whose message starts with the Java class, as HBase's does.

    The batch calls wrap it as ``Failed N action(s): ...: N time(s), ...`` (``actions``:
    how many of the batch's actions failed).
    """
    text = f"{java_name}: {message}"
    if api in BATCH_CALLS:
        count = "action" if actions == 1 else "actions"
        times = "time" if actions == 1 else "times"
        text = (
            f"Failed {actions} {count}: {text}: {actions} {times}, servers with issues: localhost"
        )
    return TIOError(message=text)


def failed_actions(failed: list[HModelError], *, api: str) -> Any:
    """The ``TIOError`` of a batch call some of whose actions failed: the first cause."""
    first = failed[0]
    return io_error(java_name_of(first), server_text(first), api=api, actions=len(failed))


def reply_for(exc: HModelError, *, api: str, table: bytes | None) -> Exception:
    """The Thrift2 exception HBase 2.2 answers with for ``exc`` raised during ``api``.

    * a bad argument or a filter the parser refuses: ``TApplicationException``
      (``Internal error processing <api>``), as Java answers an undeclared runtime
      ``IllegalArgumentException``;
    * a missing table in a data call: ``TIOError`` whose message is the table's name;
    * everything else: ``TIOError`` starting with the Java class
      (:data:`hmodel.backend.java_error.JAVA_EXCEPTIONS`), wrapped as a failed
      action for the batch calls.
    """
    if isinstance(exc, FilterError) or (
        isinstance(exc, (IllegalArgumentError, ValidationError))
        and not isinstance(exc, CounterError)
    ):
        return internal_error(api)
    if isinstance(exc, TableNotFoundError) and api in DATA_CALLS and table is not None:
        return TIOError(message=table.decode("utf-8", "replace"))  # type: ignore[no-any-return]
    if isinstance(exc, DeclarationError):
        return io_error(DO_NOT_RETRY, str(exc), api=api)  # type: ignore[no-any-return]
    return io_error(java_name_of(exc), server_text(exc), api=api)  # type: ignore[no-any-return]
