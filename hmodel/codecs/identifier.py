"""The UUID cell codec: the 16 raw bytes of the UUID."""

from __future__ import annotations

import uuid

from hmodel.codecs.codec import Codec

__all__ = ["UUIDCodec"]


class UUIDCodec(Codec[uuid.UUID]):
    """A :class:`~uuid.UUID` as its 16 bytes in big-endian (RFC 4122 network) order.

    The same bytes as HBase's ``Bytes.toBytes(uuid.getMostSignificantBits())`` followed by
    the least significant bits, and half the size of the 36-character text form.

    Example:
        >>> UUIDCodec().encode(uuid.UUID(int=1)).hex()
        '00000000000000000000000000000001'
    """

    name = "uuid"
    ordered = True  # 16 big-endian bytes sort like UUID.int
    python_type = uuid.UUID

    def encode(self, value: uuid.UUID) -> bytes:
        """Return the 16 bytes of ``value``.

        Raises:
            EncodeError: ``value`` is not a ``UUID`` (its text form is refused, not parsed).
        """
        if not isinstance(value, uuid.UUID):
            raise self._wrong_type(value)
        return value.bytes

    def decode(self, data: bytes) -> uuid.UUID:
        """Return the UUID whose 16 bytes are ``data``.

        Raises:
            DecodeError: ``data`` is not exactly 16 bytes long.
        """
        return uuid.UUID(bytes=self._exact_length(data, 16))
