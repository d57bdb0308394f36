"""Counter cells (F10): 8-byte big-endian signed longs, as HBase's ``Bytes.toLong``."""

from __future__ import annotations

from hmodel.backend.argument import LONG_MAX
from hmodel.errors import CounterError

__all__ = ["LONG_MAX", "LONG_MIN", "add_to_counter", "decode_counter", "encode_counter"]

LONG_MIN = -(2**63)


def encode_counter(value: int) -> bytes:
    r"""Return ``value`` as 8 big-endian two's-complement bytes.

    >>> encode_counter(1)
    b'\x00\x00\x00\x00\x00\x00\x00\x01'
    """
    return value.to_bytes(8, "big", signed=True)


def decode_counter(raw: bytes) -> int:
    """Return the signed long stored in the 8 bytes ``raw``.

    Raises:
        CounterError: ``raw`` is not 8 bytes long; the message says how wide it is, as
            HBase's "Field is not a long, it's N bytes wide".
    """
    if len(raw) != 8:
        raise CounterError(f"Field is not a long, it's {len(raw)} bytes wide", value=raw)
    return int.from_bytes(raw, "big", signed=True)


def add_to_counter(current: bytes | None, amount: int) -> int:
    """Return ``current + amount``, a missing cell (``None``) counting as 0.

    Raises:
        CounterError: ``current`` is not 8 bytes, or the sum leaves the signed 64-bit
            range (HBase would wrap around silently; the engine refuses instead).
    """
    total = (0 if current is None else decode_counter(current)) + amount
    if not LONG_MIN <= total <= LONG_MAX:
        raise CounterError("counter overflows a signed 64-bit long", value=total)
    return total
