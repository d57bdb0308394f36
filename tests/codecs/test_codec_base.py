"""The Codec base: equality by class and options, repr, names, and custom codecs."""

from __future__ import annotations

from typing import Any

import pytest

from hmodel.codecs import (
    Avro,
    Bool,
    Codec,
    Date,
    DateTime,
    DecimalCodec,
    Float64,
    Int32,
    Json,
    Long,
    MsgPack,
    Raw,
    Utf8,
    UUIDCodec,
)
from hmodel.errors import CodecError, DecodeError, EncodeError

STATELESS: list[type[Codec[Any]]] = [
    Utf8,
    Raw,
    Long,
    Int32,
    Float64,
    Bool,
    DecimalCodec,
    DateTime,
    Date,
    UUIDCodec,
    Json,
    MsgPack,
]


@pytest.mark.parametrize("codec_class", STATELESS)
def test_codecs_of_one_class_without_options_are_equal_and_hash_alike(
    codec_class: type[Codec[Any]],
) -> None:
    assert codec_class() == codec_class()
    assert hash(codec_class()) == hash(codec_class())
    assert eval(repr(codec_class()), {codec_class.__name__: codec_class}) == codec_class()


def test_codecs_of_different_classes_differ() -> None:
    assert Long() != Int32()
    assert Long() != "long"
    assert len({Long(), Long(), Int32(), DateTime(), DateTime(unit="ms")}) == 4


def test_every_codec_has_a_distinct_short_name() -> None:
    names = [codec_class().name for codec_class in STATELESS]
    names.append(Avro({"type": "record", "name": "R", "fields": []}).name)
    assert len(set(names)) == len(names)


def test_codec_errors_are_codec_errors() -> None:
    assert issubclass(EncodeError, CodecError)
    assert issubclass(DecodeError, CodecError)


class Celsius(Codec[float]):
    """A custom codec written against the base: tenths of a degree in 2 bytes."""

    name = "celsius"
    python_type = float

    def encode(self, value: float) -> bytes:
        tenths = round(value * 10)
        if not -32768 <= tenths <= 32767:
            raise self._encode_error("out of range", value)
        return tenths.to_bytes(2, "big", signed=True)

    def decode(self, data: bytes) -> float:
        return int.from_bytes(self._exact_length(data, 2), "big", signed=True) / 10


def test_a_custom_codec_gets_named_errors_from_the_base_helpers() -> None:
    assert Celsius().decode(Celsius().encode(-12.5)) == -12.5
    with pytest.raises(DecodeError, match=r"celsius codec .* exactly 2 bytes"):
        Celsius().decode(b"\x00")
    with pytest.raises(EncodeError, match=r"celsius codec .* out of range"):
        Celsius().encode(1e6)


def test_the_base_class_cannot_be_instantiated() -> None:
    with pytest.raises(TypeError):
        Codec()  # type: ignore[abstract]
