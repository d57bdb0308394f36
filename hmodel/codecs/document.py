"""Document cell codecs: a tree of dicts and lists as compact JSON or MessagePack."""

from __future__ import annotations

import json
from typing import Any

import msgpack

from hmodel.codecs.codec import Codec
from hmodel.errors import DeclarationError

__all__ = ["Json", "MsgPack"]

_JSON_LEAVES: tuple[type, ...] = (str, int, float, type(None))  # bool is an int
_MSGPACK_LEAVES: tuple[type, ...] = (str, int, float, type(None), bytes, bytearray, memoryview)
_MSGPACK_KEYS: tuple[type, ...] = (str, int, float, type(None), bytes)


def _unsupported(value: object, leaves: tuple[type, ...], keys: tuple[type, ...]) -> str | None:
    """Return why ``value`` would not round-trip, naming where in it, or ``None`` if it would.

    Only ``dict`` (with keys of a type in ``keys``), ``list`` and instances of ``leaves``
    are allowed: a tuple would come back as a list and a set not at all, so both are
    reported instead of being silently converted, as are cycles.
    """
    found = _find(value, leaves, keys, set())
    if found is None:
        return None
    problem, reversed_path = found
    return "$" + "".join(f"[{step!r}]" for step in reversed(reversed_path)) + " " + problem


def _find(
    value: object, leaves: tuple[type, ...], keys: tuple[type, ...], open_containers: set[int]
) -> tuple[str, list[object]] | None:
    """Return the first problem under ``value`` and its path from ``value``, last step first.

    ``open_containers`` holds the ids of the containers being walked, to report cycles.
    The path is only built on the way back from a problem, so valid values cost no strings.
    """
    if isinstance(value, (dict, list)):
        if id(value) in open_containers:
            return "contains itself", []
        open_containers.add(id(value))
        try:
            is_dict = isinstance(value, dict)
            for step, item in value.items() if isinstance(value, dict) else enumerate(value):
                if is_dict and not isinstance(step, keys):
                    return f"has a key {step!r} of type {type(step).__name__}", []
                found = _find(item, leaves, keys, open_containers)
                if found is not None:
                    found[1].append(step)
                    return found
        finally:
            open_containers.discard(id(value))
        return None
    if isinstance(value, leaves):
        return None
    return f"has type {type(value).__name__}", []


def _article(name: str) -> str:
    """``a list``, ``an int``: a type name for a message."""
    return f"an {name}" if name[:1] in "aeiou" else f"a {name}"


def _reject_constant(name: str) -> float:
    """Refuse JSON's non-standard ``NaN``, ``Infinity`` and ``-Infinity`` while parsing."""
    raise ValueError(f"{name} is not valid JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build an object while parsing, refusing duplicate keys (one would be lost)."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {key!r}")
        seen.add(key)
    return dict(pairs)


_TOPS: dict[str, type] = {"object": dict, "array": list}


class Json(Codec[Any]):
    r"""A JSON value as compact UTF-8 JSON text with sorted keys.

    The text has no spaces (``{"a":1,"b":[true,null]}``), keys in sorted order and non-ASCII
    characters as UTF-8, so equal values always encode to equal bytes. Values are trees of
    ``dict`` (``str`` keys only), ``list``, ``str``, ``int``, ``float``, ``bool`` and
    ``None``; a tuple, a non-``str`` key, NaN or an infinity would not come back as it went
    in and is refused. Decoding is strict too: invalid UTF-8, ``NaN`` literals and
    duplicate keys are refused.

    ``top`` fixes what the whole document is: ``"object"`` (a ``dict``) or ``"array"`` (a
    ``list``); a value or a stored document of the other kind is refused both ways, so a
    ``dict[str, Any]`` field never reads back a list. The default codec of a ``dict`` or
    ``list`` annotation sets it; ``None`` takes any JSON value.

    Args:
        top: ``"object"``, ``"array"`` or ``None``.

    Raises:
        DeclarationError: ``top`` is something else.

    Example:
        >>> Json().encode({"b": [1, 2.5], "a": "é"})
        b'{"a":"\xc3\xa9","b":[1,2.5]}'
        >>> Json(top="object").decode(b"[1]")
        Traceback (most recent call last):
        ...
        hmodel.errors.DecodeError: json codec cannot decode these bytes: expected a JSON ...
    """

    name = "json"
    python_type = (dict, list)

    def __init__(self, top: str | None = None) -> None:
        if top is not None and top not in _TOPS:
            raise DeclarationError('Json top must be "object", "array" or None', value=top)
        self.top = top

    def _options(self) -> dict[str, Any]:
        return {} if self.top is None else {"top": self.top}

    def _top_problem(self, value: object) -> str | None:
        """Why ``value`` is not the document kind ``top`` asks for, or ``None``."""
        if self.top is None:
            return None
        kind = _TOPS[self.top]
        if isinstance(value, kind):
            return None
        return (
            f"expected a JSON {self.top} ({kind.__name__}) at the top, "
            f"got {_article(type(value).__name__)}"
        )

    def encode(self, value: Any) -> bytes:
        """Return ``value`` as compact, key-sorted UTF-8 JSON.

        Raises:
            EncodeError: ``value`` holds something other than the JSON types listed above,
                a non-finite float, a lone surrogate, a cycle, is nested too deeply, or is
                not the document kind ``top`` asks for.
        """
        top = self._top_problem(value)
        if top:
            raise self._encode_error(top, value)
        try:
            problem = _unsupported(value, _JSON_LEAVES, (str,))
            if problem:
                raise self._encode_error(f"not a JSON value: {problem}", value)
            text = json.dumps(
                value, ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":")
            )
            return text.encode("utf-8")
        except (ValueError, TypeError, RecursionError) as error:
            raise self._encode_error(str(error), value) from None

    def decode(self, data: bytes) -> Any:
        """Return the value of the UTF-8 JSON text ``data``.

        Raises:
            DecodeError: ``data`` is not valid UTF-8 or not valid, strict JSON, or not the
                document kind ``top`` asks for.
        """
        raw = self._bytes(data)
        try:
            value = json.loads(
                raw.decode("utf-8"), parse_constant=_reject_constant, object_pairs_hook=_unique_keys
            )
        except (ValueError, RecursionError) as error:
            raise self._decode_error(str(error), raw) from None
        top = self._top_problem(value)
        if top:
            raise self._decode_error(top, raw)
        return value


class MsgPack(Codec[Any]):
    r"""A value as MessagePack bytes: smaller and faster than JSON, and it carries ``bytes``.

    Encoded with ``use_bin_type=True`` (``str`` as msgpack str, ``bytes`` as bin), decoded
    with ``raw=False`` and ``strict_map_key=False``. Values are trees of ``dict`` (keys
    ``str``, ``bytes``, ``int``, ``float``, ``bool`` or ``None``), ``list``, ``str``,
    ``bytes``, ``int`` (-2**63 to 2**64 - 1, inclusive), ``float``, ``bool`` and ``None``;
    tuples and other types are refused rather than converted. ``bytearray`` and
    ``memoryview`` are accepted and come back as ``bytes``. Extension types written by
    other programs decode as :class:`msgpack.ExtType`.

    Example:
        >>> MsgPack().encode({"id": 7, "tags": ["a"]})
        b'\x82\xa2id\x07\xa4tags\x91\xa1a'
    """

    name = "msgpack"
    python_type = (dict, list)

    def encode(self, value: Any) -> bytes:
        """Return ``value`` as MessagePack bytes.

        Raises:
            EncodeError: ``value`` holds an unsupported type, an ``int`` out of range, a lone
                surrogate, a cycle, or is nested too deeply.
        """
        try:
            problem = _unsupported(value, _MSGPACK_LEAVES, _MSGPACK_KEYS)
            if problem:
                raise self._encode_error(f"not a MessagePack value: {problem}", value)
            return msgpack.packb(value, use_bin_type=True)
        except (ValueError, TypeError, OverflowError, RecursionError) as error:
            raise self._encode_error(str(error) or type(error).__name__, value) from None

    def decode(self, data: bytes) -> Any:
        """Return the value of the MessagePack bytes ``data`` (exactly one object).

        Raises:
            DecodeError: ``data`` is truncated, malformed, has trailing bytes, holds invalid
                UTF-8 in a str, or a map key that cannot be a dict key.
        """
        raw = self._bytes(data)
        try:
            return msgpack.unpackb(raw, raw=False, strict_map_key=False)
        except (ValueError, TypeError, msgpack.UnpackException) as error:
            raise self._decode_error(str(error) or type(error).__name__, raw) from None
