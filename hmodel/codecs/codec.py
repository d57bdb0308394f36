"""The :class:`Codec` base: a symmetric ``encode``/``decode`` pair between a value and a cell."""

from __future__ import annotations

import abc
import json
from typing import Any, Generic, TypeVar

from hmodel.errors import DecodeError, EncodeError

__all__ = ["Codec"]

T = TypeVar("T")


class Codec(abc.ABC, Generic[T]):
    """Turns one Python value into the bytes of one HBase cell, and back.

    A codec is a small immutable object. ``decode(encode(v))`` gives back a value equal to
    ``v`` for every value ``encode`` accepts; anything ``encode`` cannot represent exactly is
    refused with :class:`~hmodel.errors.EncodeError` rather than truncated or coerced, and
    bytes that are not a valid encoding are refused with :class:`~hmodel.errors.DecodeError`.
    Both errors name the codec in their message and carry the offending value (or bytes) as
    ``value``; the mapping layer adds the column and field.

    Cell codecs are *not* order-preserving in general (a negative :class:`~hmodel.codecs.Long`
    sorts after a positive one as bytes); rowkey components use :mod:`hmodel.keys` instead.

    Two codecs are equal when they are of the same class with the same options, so
    ``codec_for_type(int) == Long()``.

    Attributes:
        name: A short name used in error messages and docs, e.g. ``"long"``.
        python_type: The Python type (or types) ``decode`` returns and ``encode`` accepts.
        ordered: Whether encoded bytes compare (unsigned, as HBase's binary comparator
            does) in the same order as the values, so server-side ``<``/``>`` conditions
            mean what they say. False unless a codec guarantees it.
    """

    name: str
    python_type: type | tuple[type, ...]
    ordered: bool = False

    @abc.abstractmethod
    def encode(self, value: T) -> bytes:
        """Return the cell bytes for ``value``.

        Raises:
            EncodeError: ``value`` is of the wrong type or cannot be represented exactly.
        """

    @abc.abstractmethod
    def decode(self, data: bytes) -> T:
        """Return the value stored in the cell bytes ``data``.

        Raises:
            DecodeError: ``data`` is not a valid encoding (wrong length, corrupt, ...).
        """

    def _options(self) -> dict[str, Any]:
        """Return the options that distinguish this codec from others of its class."""
        return {}

    def _encode_error(self, problem: str, value: object) -> EncodeError:
        """Build the error for a value this codec refuses to encode."""
        return EncodeError(f"{self.name} codec cannot encode this value: {problem}", value=value)

    def _decode_error(self, problem: str, data: object) -> DecodeError:
        """Build the error for bytes this codec cannot decode."""
        return DecodeError(f"{self.name} codec cannot decode these bytes: {problem}", value=data)

    def _wrong_type(self, value: object) -> EncodeError:
        """Build the error for a value whose Python type this codec does not accept."""
        expected = self.python_type if isinstance(self.python_type, tuple) else (self.python_type,)
        names = " or ".join(kind.__name__ for kind in expected)
        return self._encode_error(f"expected {names}, got {type(value).__name__}", value)

    def _bytes(self, data: object) -> bytes:
        """Return ``data`` as ``bytes``, refusing anything that is not bytes-like."""
        if isinstance(data, bytes):
            return data
        if isinstance(data, (bytearray, memoryview)):
            return bytes(data)
        raise self._decode_error(f"expected bytes, got {type(data).__name__}", data)

    def _exact_length(self, data: object, size: int) -> bytes:
        """Return ``data`` as ``bytes`` after checking it is exactly ``size`` bytes long."""
        raw = self._bytes(data)
        if len(raw) != size:
            raise self._decode_error(f"expected exactly {size} bytes, got {len(raw)}", raw)
        return raw

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Codec) or type(other) is not type(self):
            return NotImplemented
        return self._options() == other._options()

    def __hash__(self) -> int:
        return hash((type(self), json.dumps(self._options(), sort_keys=True, default=repr)))

    def __repr__(self) -> str:
        options = ", ".join(f"{key}={value!r}" for key, value in self._options().items())
        return f"{type(self).__name__}({options})"
