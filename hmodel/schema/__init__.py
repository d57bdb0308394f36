"""Table and column-family declarations: pure data, split points and DDL text."""

from hmodel.schema.family import FOREVER, BloomFilter, Compression, DataBlockEncoding, Family
from hmodel.schema.table import Durability, SplitPolicy, Table

__all__ = [
    "FOREVER",
    "BloomFilter",
    "Compression",
    "DataBlockEncoding",
    "Durability",
    "Family",
    "SplitPolicy",
    "Table",
]
