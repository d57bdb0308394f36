"""What the agreement state machines share: the rows, columns and values they draw, and outcomes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from hmodel.backend.base import Delete, Mutation, Put, RowResult

#: Rowkeys around the unsigned-order corners: 0x00 and 0xff bytes, prefixes of each other.
ROWS = [b"\x00", b"\x00\xff", b"a", b"a\x00", b"ab", b"b", b"\xff", b"\xff\x00", b"\xff\xff"]
#: Cell columns of the table, the empty qualifier and a 0xff qualifier included.
COLUMNS = [b"a:x", b"a:y", b"a:", b"b:x", b"b:\xff"]
#: A column of a family the table lacks, and a bare family where a cell column is required.
UNKNOWN_FAMILY = b"z:x"
BARE_FAMILY = b"a"
#: Columns that make a call fail. A call gets at most one fault: which of two faults a
#: backend reports first is not part of the protocol.
FAULTY = frozenset({UNKNOWN_FAMILY, BARE_FAMILY})


def long_bytes(value: int) -> bytes:
    """``value`` as HBase stores a counter: 8 bytes, big-endian, signed."""
    return value.to_bytes(8, "big", signed=True)


#: Values: empty, short, binary, and 8-byte longs (counters, one at the top of the range).
VALUES = [b"", b"v", b"w", b"\x00\xff", long_bytes(1), long_bytes(-1), long_bytes(2**63 - 1)]


def faults(columns: Iterable[bytes | None]) -> int:
    """How many of ``columns`` make a write fail (a bare family is fine in a delete)."""
    return sum(column in FAULTY for column in columns)


def batch_faults(batch: Iterable[Mutation]) -> int:
    """How many mutations of ``batch`` make it fail (a bare family is fine in a delete)."""
    listed = list(batch)
    return faults(m.column for m in listed if isinstance(m, Put)) + sum(
        m.column == UNKNOWN_FAMILY for m in listed if isinstance(m, Delete)
    )


def quoted(text: bytes) -> bytes:
    """A filter-language string literal: in single quotes, a quote inside doubled."""
    return b"'" + text.replace(b"'", b"''") + b"'"


#: What a call came to: ``("ok", result in order)`` or ``("raised", exception type name)``.
Outcome = tuple[str, Any]


def ordered(result: Any) -> Any:
    """``result`` with every mapping as a list of its items, so column order counts too."""
    if isinstance(result, RowResult):
        return (result.row, list(result.cells.items()))
    if isinstance(result, dict):
        return list(result.items())
    if isinstance(result, list):
        return [ordered(item) for item in result]
    return result


def outcome(call: Callable[[], Any]) -> Outcome:
    """Run ``call``: ``("ok", result in order)`` or ``("raised", exception type name)``."""
    try:
        return ("ok", ordered(call()))
    except Exception as exc:  # any exception, typed or not, is an outcome to compare
        return ("raised", type(exc).__name__)
