"""The string cell codec: UTF-8, as HBase's ``Bytes.toBytes(String)``."""

from __future__ import annotations

from hmodel.codecs.codec import Codec

__all__ = ["Utf8"]


class Utf8(Codec[str]):
    r"""A ``str`` as its UTF-8 bytes, with no length prefix or terminator.

    The bytes of HBase's ``Bytes.toBytes(String)``; the empty string is the empty cell.
    Strings holding lone surrogates (``"\ud800"``) have no UTF-8 form and are refused
    rather than replaced; bytes that are not valid UTF-8 are refused on decode.

    Example:
        >>> Utf8().encode("héllo")
        b'h\xc3\xa9llo'
    """

    name = "utf8"
    ordered = True  # UTF-8 byte order is code point order
    python_type = str

    def encode(self, value: str) -> bytes:
        """Return the UTF-8 bytes of ``value``.

        Raises:
            EncodeError: ``value`` is not a ``str`` or holds a lone surrogate.
        """
        if type(value) is not str and not isinstance(value, str):
            raise self._wrong_type(value)
        try:
            return value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise self._encode_error(f"no UTF-8 form ({error.reason})", value) from None

    def decode(self, data: bytes) -> str:
        """Return the string whose UTF-8 bytes are ``data``.

        Raises:
            DecodeError: ``data`` is not valid UTF-8.
        """
        raw = data if type(data) is bytes else self._bytes(data)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise self._decode_error(f"invalid UTF-8 at byte {error.start}", raw) from None
