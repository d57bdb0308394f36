"""Argument checks every backend makes before it acts on a request."""

from __future__ import annotations

from hmodel.errors import IllegalArgumentError

__all__ = ["require_bytes"]


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
