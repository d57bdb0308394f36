"""Protocol Buffers message cell codecs for object BLOBs written by other services (R4)."""

from __future__ import annotations

from typing import Any

from hmodel.codecs.codec import Codec
from hmodel.errors import DeclarationError

__all__ = ["Protobuf"]


def _message_base() -> type:
    """``google.protobuf.message.Message``, or a declaration error saying what to install."""
    try:
        from google.protobuf.message import Message
    except ImportError as error:
        raise DeclarationError(
            "the Protobuf codec needs the 'protobuf' package: pip install 'hmodel[protobuf]'"
        ) from error
    base: type = Message
    return base


class Protobuf(Codec[Any]):
    """A protobuf message of one generated class as its binary wire form.

    Encodes with ``SerializeToString(deterministic=True)`` (map entries in key order, so
    equal messages give equal bytes) and decodes with the class's ``FromString``. Fields
    the class does not know are kept by protobuf and written back, so a cell another
    service wrote with a newer schema survives a read and a save. Bytes that do not
    parse as the message are refused with :class:`~hmodel.errors.DecodeError`. A value of
    another message class is refused, even a compatible one.

    Byte for byte: protobuf's own serializer writes fields in field-number order, so a
    cell written by another serializer in another order decodes to an equal message but
    may re-encode to different bytes.

    Args:
        message: The generated message class (``order_pb2.Order``).

    Raises:
        DeclarationError: ``protobuf`` is not installed, or ``message`` is not a message
            class.
    """

    name = "protobuf"

    def __init__(self, message: type) -> None:
        base = _message_base()
        if not isinstance(message, type) or not issubclass(message, base) or message is base:
            raise DeclarationError("Protobuf needs a generated message class", value=message)
        self.message: Any = message
        self.python_type = message

    def _options(self) -> dict[str, Any]:
        return {"message": self.message.DESCRIPTOR.full_name}

    def encode(self, value: Any) -> bytes:
        """Return the deterministic wire bytes of ``value``.

        Raises:
            EncodeError: Not an instance of the message class, or a required field unset
                (proto2).
        """
        if type(value) is not self.message:
            raise self._wrong_type(value)
        from google.protobuf.message import EncodeError as WireEncodeError

        try:
            data: bytes = value.SerializeToString(deterministic=True)
        except WireEncodeError as error:
            raise self._encode_error(str(error), value) from None
        return data

    def decode(self, data: bytes) -> Any:
        """Return the message parsed from ``data``.

        Raises:
            DecodeError: The bytes are not a valid encoding of the message.
        """
        from google.protobuf.message import DecodeError as WireDecodeError

        raw = self._bytes(data)
        try:
            return self.message.FromString(raw)
        except WireDecodeError as error:
            raise self._decode_error(str(error) or "not a valid message", raw) from None
