"""Argument checks every backend makes before it acts on a request."""

from __future__ import annotations

from hmodel.errors import IllegalArgumentError

__all__ = [
    "LONG_MAX",
    "MAX_ROW_LENGTH",
    "require_amount",
    "require_before",
    "require_bytes",
    "require_int",
    "require_row",
    "require_timestamp",
]

#: HBase's longest rowkey: ``Short.MAX_VALUE`` bytes.
MAX_ROW_LENGTH = 32_767

#: Java's ``Long.MAX_VALUE``; as a timestamp it is HBase's ``LATEST_TIMESTAMP`` ("now").
LONG_MAX = 2**63 - 1


def require_bytes(
    argument: str, value: object, *, table: str | None, row: bytes | None = None
) -> bytes:
    """Return ``value`` if it is ``bytes`` (not ``bytearray``, not ``str``).

    The protocol speaks bytes only; a ``str`` would otherwise be encoded silently (thriftpy2
    sends it as UTF-8) or compared wrongly (the engine sorts bytes).

    Raises:
        IllegalArgumentError: It is not, naming ``argument``.
    """
    if not isinstance(value, bytes):
        raise IllegalArgumentError(
            f"{argument} must be bytes, not {type(value).__name__}",
            table=table,
            row=row,
            field=argument,
            value=value,
        )
    return value


def require_row(value: object, *, table: str | None, argument: str = "row") -> bytes:
    """Return ``value`` if it is a rowkey: bytes, 1 to 32767 of them (HBase's limits).

    Raises:
        IllegalArgumentError: Not bytes, empty, or too long.
    """
    row = require_bytes(argument, value, table=table)
    if not row or len(row) > MAX_ROW_LENGTH:
        raise IllegalArgumentError(
            f"a rowkey is 1 to {MAX_ROW_LENGTH} bytes long, got {len(row)}",
            table=table,
            field=argument,
            value=row,
        )
    return row


def require_amount(value: object, *, table: str | None, row: bytes | None = None) -> int:
    """Return ``value`` if it is an increment's amount: an ``int`` of the signed 64-bit range.

    An exact ``int`` in range is taken without more checks (every increment's path).

    Raises:
        IllegalArgumentError: Wrong type or out of range, naming ``amount``.
    """
    if type(value) is int and -LONG_MAX - 1 <= value <= LONG_MAX:
        return value
    return require_int(
        "amount", value, table=table, row=row, minimum=-LONG_MAX - 1, maximum=LONG_MAX
    )


def require_int(
    argument: str,
    value: object,
    *,
    table: str | None,
    row: bytes | None = None,
    minimum: int | None = None,
    maximum: int | None = None,
) -> int:
    """Return ``value`` if it is an ``int`` (not a ``bool``) within ``[minimum, maximum]``.

    Raises:
        IllegalArgumentError: Wrong type or out of range, naming ``argument``.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalArgumentError(
            f"{argument} must be an int", table=table, row=row, field=argument, value=value
        )
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise IllegalArgumentError(
            f"{argument} must be within [{minimum}, {maximum}]",
            table=table,
            row=row,
            field=argument,
            value=value,
        )
    return value


def require_timestamp(
    argument: str, value: object, *, table: str | None, row: bytes | None = None
) -> int | None:
    """Return ``value`` if it is ``None`` or a timestamp HBase accepts: ``0 <= ts < 2**63 - 1``.

    ``Long.MAX_VALUE`` itself is HBase's ``LATEST_TIMESTAMP`` ("now"), so it is refused.
    """
    if value is None:
        return None
    return require_int(argument, value, table=table, row=row, minimum=0, maximum=LONG_MAX - 1)


def require_before(before: object, *, table: str | None, row: bytes | None = None) -> int | None:
    """Return ``before`` if it is ``None`` or an exclusive upper bound of cell timestamps.

    ``0 <= before <= Long.MAX_VALUE``: a read of the cells stamped before it (``None``: no
    bound).
    """
    if before is None:
        return None
    return require_int("before", before, table=table, row=row, minimum=0, maximum=LONG_MAX)
