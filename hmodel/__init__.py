"""hmodel: declare HBase schema-design patterns once, get them right on any backend."""

from hmodel.errors import HModelError
from hmodel.keys import (
    Bytes,
    Const,
    Descending,
    Hashed,
    HexHashed,
    Int,
    JavaInt,
    Key,
    PaddedInt,
    Reversed,
    ReverseTimestamp,
    Salt,
    Str,
    Timestamp,
)
from hmodel.model import counter, extra_field, field, map_field, model, version_field
from hmodel.repository import Page, Query, Repository, Store, UnitOfWork, where
from hmodel.schema import Family, Table

__all__ = [
    "Bytes",
    "Const",
    "Descending",
    "Family",
    "HModelError",
    "Hashed",
    "HexHashed",
    "Int",
    "JavaInt",
    "Key",
    "PaddedInt",
    "Page",
    "Query",
    "Repository",
    "ReverseTimestamp",
    "Reversed",
    "Salt",
    "Store",
    "Str",
    "Table",
    "Timestamp",
    "UnitOfWork",
    "counter",
    "extra_field",
    "field",
    "map_field",
    "model",
    "version_field",
    "where",
]
__version__ = "0.1.0.dev0"
