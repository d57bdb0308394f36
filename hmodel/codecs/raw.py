"""The identity cell codec: the value is the cell's bytes."""

from __future__ import annotations

from hmodel.codecs.codec import Codec

__all__ = ["Raw"]


class Raw(Codec[bytes]):
    r"""``bytes`` stored as they are.

    ``bytearray`` and ``memoryview`` values are accepted and copied; ``decode`` always
    returns ``bytes``. Any byte string, including the empty one, is a valid cell.

    Example:
        >>> Raw().encode(bytearray(b"\x00\xff"))
        b'\x00\xff'
    """

    name = "raw"
    ordered = True  # bytes are compared as themselves
    python_type = bytes

    def encode(self, value: bytes | bytearray | memoryview) -> bytes:
        """Return ``value`` as ``bytes``.

        Raises:
            EncodeError: ``value`` is not bytes-like (a ``str`` is refused, not encoded).
        """
        if isinstance(value, bytes):
            return value
        if isinstance(value, (bytearray, memoryview)):
            return bytes(value)
        raise self._wrong_type(value)

    def decode(self, data: bytes) -> bytes:
        """Return ``data`` itself (copied to ``bytes`` if it is another bytes-like object)."""
        return self._bytes(data)
