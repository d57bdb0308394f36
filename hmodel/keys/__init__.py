"""Order-preserving rowkey codecs: components and composite keys (K1-K11, R1, I5)."""

from hmodel.keys.component import Component, DerivedComponent, Order, ValueComponent
from hmodel.keys.composite import Key
from hmodel.keys.derived import Const, Hashed, Salt
from hmodel.keys.integer import Int
from hmodel.keys.java import HexHashed, JavaInt, PaddedInt
from hmodel.keys.modifier import Descending, Nullable, Reversed
from hmodel.keys.phoenix import PhoenixDate, PhoenixSalt, PhoenixTimestamp, phoenix_key
from hmodel.keys.range import KeyRange
from hmodel.keys.string import Bytes, Str
from hmodel.keys.timestamp import ReverseTimestamp, Timestamp

__all__ = [
    "Bytes",
    "Component",
    "Const",
    "DerivedComponent",
    "Descending",
    "Hashed",
    "HexHashed",
    "Int",
    "JavaInt",
    "Key",
    "KeyRange",
    "Nullable",
    "Order",
    "PaddedInt",
    "PhoenixDate",
    "PhoenixSalt",
    "PhoenixTimestamp",
    "ReverseTimestamp",
    "Reversed",
    "Salt",
    "Str",
    "Timestamp",
    "ValueComponent",
    "phoenix_key",
]
