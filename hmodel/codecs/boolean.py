"""The boolean cell codec, in the byte layout of HBase's ``Bytes.toBytes(boolean)``."""

from __future__ import annotations

from hmodel.codecs.codec import Codec

__all__ = ["Bool"]

_TRUE, _FALSE = b"\xff", b"\x00"


class Bool(Codec[bool]):
    r"""A ``bool`` as one byte: ``0xff`` for ``True``, ``0x00`` for ``False``.

    These are the bytes of HBase's ``Bytes.toBytes(boolean)`` (``(byte) -1`` and ``0``).
    Decoding follows ``Bytes.toBoolean``: the cell must be exactly one byte, and any
    non-zero byte reads as ``True``, so a ``0x01`` written by Phoenix or by hand decodes
    too. Only real ``bool`` values are encoded; ``0`` and ``1`` are refused.

    Example:
        >>> Bool().encode(True)
        b'\xff'
        >>> Bool().decode(b"\x01")
        True
    """

    name = "bool"
    ordered = True  # 0x00 (False) sorts before 0xff (True)
    python_type = bool

    def encode(self, value: bool) -> bytes:
        r"""Return ``b"\xff"`` for ``True`` and ``b"\x00"`` for ``False``.

        Raises:
            EncodeError: ``value`` is not a ``bool``.
        """
        if not isinstance(value, bool):
            raise self._wrong_type(value)
        return _TRUE if value else _FALSE

    def decode(self, data: bytes) -> bool:
        r"""Return ``False`` for ``b"\x00"`` and ``True`` for any other single byte.

        Raises:
            DecodeError: ``data`` is not exactly one byte long.
        """
        return self._exact_length(data, 1) != _FALSE
