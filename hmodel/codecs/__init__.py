"""Cell value codecs: one Python value <-> the bytes of one HBase cell (F10, F11, R4)."""

from hmodel.codecs.avro import Avro, VersionedAvro
from hmodel.codecs.boolean import Bool
from hmodel.codecs.codec import Codec
from hmodel.codecs.date import Date, DateTime
from hmodel.codecs.default import codec_for_type
from hmodel.codecs.document import Json, MsgPack
from hmodel.codecs.identifier import UUIDCodec
from hmodel.codecs.number import DecimalCodec, Float64, Int32, Long
from hmodel.codecs.ordered import OrderedLong
from hmodel.codecs.phoenix import (
    PhoenixBool,
    PhoenixDate,
    PhoenixDouble,
    PhoenixInt,
    PhoenixTimestamp,
)
from hmodel.codecs.protobuf import Protobuf
from hmodel.codecs.raw import Raw
from hmodel.codecs.text import Utf8
from hmodel.codecs.textual import BoolText, DecimalText, FloatText, IntText

__all__ = [
    "Avro",
    "Bool",
    "BoolText",
    "Codec",
    "Date",
    "DateTime",
    "DecimalCodec",
    "DecimalText",
    "Float64",
    "FloatText",
    "Int32",
    "IntText",
    "Json",
    "Long",
    "MsgPack",
    "OrderedLong",
    "PhoenixBool",
    "PhoenixDate",
    "PhoenixDouble",
    "PhoenixInt",
    "PhoenixTimestamp",
    "Protobuf",
    "Raw",
    "UUIDCodec",
    "Utf8",
    "VersionedAvro",
    "codec_for_type",
]
