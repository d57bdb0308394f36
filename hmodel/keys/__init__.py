"""Order-preserving rowkey codecs: components and composite keys (K1-K11, R1, I5)."""

from hmodel.keys.component import Component, DerivedComponent, Order, ValueComponent
from hmodel.keys.composite import Key
from hmodel.keys.derived import Const, Hashed, Salt
from hmodel.keys.integer import Int
from hmodel.keys.modifier import Descending, Nullable, Reversed
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
    "Int",
    "Key",
    "KeyRange",
    "Nullable",
    "Order",
    "ReverseTimestamp",
    "Reversed",
    "Salt",
    "Str",
    "Timestamp",
    "ValueComponent",
]
