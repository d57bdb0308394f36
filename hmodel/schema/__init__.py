"""Table and column-family declarations: pure data, split points and DDL text."""

from hmodel.schema.ddl import alter_statements, binary_literal, create_statement, splits_file
from hmodel.schema.family import (
    FOREVER,
    BloomFilter,
    Compression,
    DataBlockEncoding,
    Family,
    SchemaWarning,
)
from hmodel.schema.split import (
    MAX_REGIONS,
    ExplicitSplits,
    HexSplits,
    KeyRangeSplits,
    NumRegions,
    SaltSplits,
    SplitAlgorithm,
    SplitPolicy,
    UniformSplits,
    regions_for,
)
from hmodel.schema.table import Durability, Table

__all__ = [
    "FOREVER",
    "MAX_REGIONS",
    "BloomFilter",
    "Compression",
    "DataBlockEncoding",
    "Durability",
    "ExplicitSplits",
    "Family",
    "HexSplits",
    "KeyRangeSplits",
    "NumRegions",
    "SaltSplits",
    "SchemaWarning",
    "SplitAlgorithm",
    "SplitPolicy",
    "Table",
    "UniformSplits",
    "alter_statements",
    "binary_literal",
    "create_statement",
    "regions_for",
    "splits_file",
]
