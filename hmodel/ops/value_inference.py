"""Guessing a column's cell codec from sampled values for ``hmodel inspect``: propose, verify."""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator, Sequence
from typing import Any

import attrs

import hmodel.codecs as codecs_package
from hmodel.codecs import Codec
from hmodel.errors import HModelError

__all__ = ["ValueGuess", "infer_value"]

#: Codecs of numbers, booleans and decimals written as text, if this hmodel has them,
#: with their annotation (tried on UTF-8 cells before plain text).
TEXT_CODECS = (
    ("IntText", "int"),
    ("DecimalText", "Decimal"),
    ("FloatText", "float"),
    ('FloatText(style="java"', "float"),
    ("BoolText", "bool"),
)
#: A Java long this large in magnitude is more likely the bits of a double (2**53).
EXACT_LONG = 1 << 53
#: A scale beyond this makes a Java BigDecimal reading implausible.
MAX_SCALE = 38


@attrs.frozen
class ValueGuess:
    """A codec that round-trips every sampled value of one column.

    Attributes:
        codec: The codec expression, e.g. ``Long()``, in the names ``hmodel.codecs``
            exports.
        annotation: The field's Python annotation, as module text.
        note: Why, and what is uncertain (a comment for the module), or ``""``.
    """

    codec: str
    annotation: str
    note: str = ""

    @property
    def name(self) -> str:
        """The codec's class name (what to import)."""
        return self.codec.partition("(")[0]


def _codec(source: str) -> Codec[Any] | None:
    name = source.partition("(")[0]
    factory = getattr(codecs_package, name, None)
    if factory is None:
        return None
    try:
        codec: Codec[Any] = eval(source, {"__builtins__": {}}, {name: factory})
    except (TypeError, HModelError):
        return None
    return codec


def _round_trips(source: str, values: Sequence[bytes]) -> bool:
    codec = _codec(source)
    if codec is None:
        return False
    for value in values:
        try:
            if codec.encode(codec.decode(value)) != value:
                return False
        except (HModelError, ValueError, TypeError, OverflowError):
            return False
    return True


def _utf8(values: Sequence[bytes]) -> list[str] | None:
    texts = []
    for value in values:
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if any(ord(c) < 0x20 and c not in "\t\n\r" for c in text):
            return None
        texts.append(text)
    return texts


def _msgpack(values: Sequence[bytes]) -> str | None:
    """``dict[Any, Any]`` or ``list[Any]`` when every value is a MessagePack map or array."""
    if all(v and (0x80 <= v[0] <= 0x8F or v[0] in (0xDE, 0xDF)) for v in values):
        return "dict[Any, Any]"
    if all(v and (0x90 <= v[0] <= 0x9F or v[0] in (0xDC, 0xDD)) for v in values):
        return "list[Any]"
    return None


def _phoenix(values: Sequence[bytes]) -> Iterator[tuple[str, str, str]]:
    """Phoenix's cell encodings of one width (sign-flipped numbers, 01/00 booleans).

    Any bytes of the width read both as Java's and as Phoenix's integers: Phoenix's is
    proposed only where its readings are the smaller numbers.
    """
    lengths = {len(v) for v in values}
    if lengths == {1}:
        yield "PhoenixBool()", "bool", "Phoenix BOOLEAN (01/00)"
    if lengths in ({4}, {8}):
        size = lengths.pop()
        java = sum(abs(int.from_bytes(v, "big", signed=True)) for v in values)
        flipped = sum(abs(int.from_bytes(v, "big") - (1 << (8 * size - 1))) for v in values)
        if flipped > java:
            return
        kind = "BIGINT" if size == 8 else "INTEGER"
        yield f"PhoenixInt(size={size})", "int", f"Phoenix {kind}: the sign bit flipped"
        if size == 8:
            yield "PhoenixDouble()", "float", "Phoenix DOUBLE; uncertain: BIGINT fits too"


def _proposals(values: Sequence[bytes], *, phoenix: bool) -> Iterator[tuple[str, str, str]]:
    """``(codec, annotation, note)`` proposals, most specific first."""
    lengths = {len(v) for v in values}
    if phoenix:
        yield from _phoenix(values)
    texts = _utf8(values)
    if lengths == {1} and all(v in (b"\x00", b"\xff") for v in values):
        yield "Bool()", "bool", "one byte 00/ff: Bytes.toBytes(boolean)"
    if texts is not None and all(texts):
        stripped = [t.lstrip() for t in texts]
        if all(t.startswith("{") for t in stripped):
            yield "Json()", "dict[str, Any]", "JSON objects"
        if all(t.startswith("[") for t in stripped):
            yield "Json()", "list[Any]", "JSON arrays"
        for name, annotation in TEXT_CODECS:
            codec = f"{name})" if "(" in name else f"{name}()"
            yield codec, annotation, "numbers or booleans written as text"
        jsonish = all(t.startswith(("{", "[")) for t in stripped)
        yield (
            "Utf8()",
            "str",
            "JSON in another spacing or key order: kept as text" if jsonish else "",
        )
    msgpack = _msgpack(values) if texts is None else None
    if msgpack and len(lengths) > 1:
        yield "MsgPack()", msgpack, "MessagePack documents"
    if lengths == {8}:
        longs = [struct.unpack(">q", v)[0] for v in values]
        doubles = [struct.unpack(">d", v)[0] for v in values]
        plausible = all(math.isfinite(d) and (d == 0 or 1e-12 < abs(d) < 1e18) for d in doubles)
        if all(abs(n) < EXACT_LONG for n in longs) or not plausible:
            note = "8 bytes: Java longs (Bytes.toBytes(long))"
            if plausible:
                note += "; uncertain: they also read as doubles"
            yield "Long()", "int", note
        yield "Float64()", "float", "8 bytes that read as doubles (Bytes.toBytes(double))"
    if lengths == {4}:
        yield "Int32()", "int", "4 bytes: Java ints (Bytes.toBytes(int))"
    if min(lengths, default=0) >= 5 and texts is None:
        scales = [struct.unpack(">i", v[:4])[0] for v in values]
        if all(0 <= s <= MAX_SCALE for s in scales):
            yield "DecimalCodec()", "Decimal", "Java BigDecimal (4-byte scale, unscaled bytes)"
    if msgpack:
        yield "MsgPack()", msgpack, "MessagePack documents"
    note = "opaque bytes (no codec round-trips every value"
    note += "; an Avro record needs its schema: Avro(...)" if texts is None else ""
    yield "Raw()", "bytes", note + ")"


def infer_value(values: Sequence[bytes], *, phoenix: bool = False) -> ValueGuess:
    """The most specific codec that decodes and re-encodes every sampled value exactly.

    With ``phoenix`` (the key is a Phoenix row key) Phoenix's own cell encodings are
    tried first. ``Raw()`` fits any bytes, so a guess is always found.
    """
    for codec, annotation, note in _proposals(values, phoenix=phoenix):
        if _round_trips(codec, values):
            return ValueGuess(codec, annotation, note)
    return ValueGuess("Raw()", "bytes", "opaque bytes")  # pragma: no cover -- Raw fits all
