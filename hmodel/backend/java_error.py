"""HBase's Java exception names and the hmodel errors they mean: one table for all Thrift sides.

The Thrift1 and Thrift2 clients translate a server message by the Java class it starts
with; the fake servers name the Java class HBase would answer an hmodel error with. All
of them read the table below. Pure: no Thrift imports, so every backend may use it.
"""

from __future__ import annotations

import re

from hmodel.errors import (
    BackendError,
    ColumnFamilyNotFoundError,
    CounterError,
    DeclarationError,
    HModelError,
    IllegalArgumentError,
    TableDisabledError,
    TableExistsError,
    TableNotFoundError,
    UnsupportedOperationError,
    ValidationError,
)

__all__ = [
    "DO_NOT_RETRY",
    "ILLEGAL_ARGUMENT",
    "IO_EXCEPTION",
    "JAVA_EXCEPTIONS",
    "RETRIES_EXHAUSTED",
    "THRIFT1_JAVA_EXCEPTIONS",
    "headline",
    "java_class",
    "java_name_of",
    "leading_class",
    "simple_name",
    "strip_batch_prefix",
]

#: ``DoNotRetryIOException``: HBase's class for a failure a retry cannot fix.
DO_NOT_RETRY = "org.apache.hadoop.hbase.DoNotRetryIOException"
#: ``IllegalArgumentException``: a runtime bad argument.
ILLEGAL_ARGUMENT = "java.lang.IllegalArgumentException"
#: ``IOException``: the generic failure, named when nothing more specific applies.
IO_EXCEPTION = "java.io.IOException"
#: A batch of actions that failed in the HBase client inside the Thrift server.
RETRIES_EXHAUSTED = "org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException"

#: The Java exceptions HBase answers with and the hmodel error each one means, most
#: specific hmodel class first. The clients translate by the class name at the start of a
#: message; the fake servers name the first entry whose hmodel class matches their error.
#: ``DoNotRetryIOException`` appears three times: a counter cell that is not a long, an
#: operation the server does not support, and (Thrift2) a malformed request.
JAVA_EXCEPTIONS: tuple[tuple[str, type[HModelError]], ...] = (
    ("org.apache.hadoop.hbase.TableNotFoundException", TableNotFoundError),
    ("org.apache.hadoop.hbase.TableNotEnabledException", TableDisabledError),
    ("org.apache.hadoop.hbase.TableExistsException", TableExistsError),
    ("org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException", ColumnFamilyNotFoundError),
    (DO_NOT_RETRY, CounterError),
    (DO_NOT_RETRY, UnsupportedOperationError),
    (DO_NOT_RETRY, IllegalArgumentError),
    ("org.apache.hadoop.hbase.InvalidFamilyOperationException", IllegalArgumentError),
    (ILLEGAL_ARGUMENT, IllegalArgumentError),
    (IO_EXCEPTION, BackendError),
)

#: The names HBase's Thrift1 handler answers with: the specific entries of
#: :data:`JAVA_EXCEPTIONS`, then every bad argument (declarations and validation included)
#: as ``java.lang.IllegalArgumentException``.
THRIFT1_JAVA_EXCEPTIONS: tuple[tuple[str, type[HModelError]], ...] = (
    *(
        (java_name, kind)
        for java_name, kind in JAVA_EXCEPTIONS
        if kind not in (IllegalArgumentError, BackendError)
    ),
    (ILLEGAL_ARGUMENT, IllegalArgumentError),
    (ILLEGAL_ARGUMENT, DeclarationError),
    (ILLEGAL_ARGUMENT, ValidationError),
)

# "Failed 2 actions: <class>: ..." (the batch calls), then the Java class and its message.
_BATCH_PREFIX = re.compile(r"^Failed \d+ actions?: ")
_QUALIFIED_CLASS = re.compile(r"^((?:[a-z_$][\w$]*\.)+[A-Z][\w$]*)(?::|$)")

# A Java exception class at the start of a message: ``org.apache...TableNotFoundException``
# (qualified or not) followed by ``:``, a blank or the end. HBase's messages are the class,
# its message, then the stack trace; names found further on (a frame such as
# ``HBaseAdmin.checkTableExists``) never decide the kind.
_LEADING_CLASS = re.compile(
    r"\s*(?:[A-Za-z_$][\w$]*\.)*(?P<name>[A-Za-z_$][\w$]*(?:Exception|Error))(?=[:\s]|$):?\s*"
)


def simple_name(java_name: str) -> str:
    """The class name without its package.

    >>> simple_name("org.apache.hadoop.hbase.TableNotFoundException")
    'TableNotFoundException'
    """
    return java_name.rsplit(".", 1)[-1]


def java_name_of(
    exc: HModelError,
    table: tuple[tuple[str, type[HModelError]], ...] = JAVA_EXCEPTIONS,
) -> str:
    """The Java exception class HBase would answer ``exc`` with (``java.io.IOException``).

    Args:
        exc: The hmodel error.
        table: The names to choose from, first match wins: :data:`JAVA_EXCEPTIONS`
            (Thrift2) or :data:`THRIFT1_JAVA_EXCEPTIONS`.
    """
    for java_name, kind in table:
        if isinstance(exc, kind):
            return java_name
    return IO_EXCEPTION


def java_class(message: str) -> str | None:
    """The qualified Java class name a server message starts with (after a batch prefix).

    >>> java_class("Failed 1 action: org.apache.hadoop.hbase.DoNotRetryIOException: x")
    'org.apache.hadoop.hbase.DoNotRetryIOException'
    >>> java_class("t1") is None
    True
    """
    match = _QUALIFIED_CLASS.match(_BATCH_PREFIX.sub("", message.strip(), count=1))
    return match.group(1) if match else None


def strip_batch_prefix(message: str) -> str:
    """The message without the ``Failed N action(s):`` prefix of the batch calls."""
    return _BATCH_PREFIX.sub("", message.strip(), count=1)


def leading_class(line: str) -> tuple[str | None, str]:
    """The simple name of the Java class starting ``line`` (or ``None``) and the text after it.

    >>> leading_class("java.io.IOException: boom")
    ('IOException', 'boom')
    """
    match = _LEADING_CLASS.match(line)
    if match is None:
        return None, line
    return match.group("name"), line[match.end() :]


def headline(message: str) -> str:
    """The first line of a (possibly multi-line Java stack trace) message, shortened."""
    stripped = message.strip()
    line = stripped.splitlines()[0] if stripped else message
    return line if len(line) <= 300 else line[:297] + "..."
