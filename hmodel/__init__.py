"""hmodel: declare HBase schema-design patterns once, get them right on any backend."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from hmodel.backend.memory import AsyncMemoryBackend, MemoryBackend
    from hmodel.backend.thrift import AsyncThriftBackend, ThriftBackend
    from hmodel.backend.thrift2 import AsyncThrift2Backend, Thrift2Backend

#: The backends, importable from here (``from hmodel import Thrift2Backend``) and loaded
#: when first named: ``import hmodel`` does not load Thrift (or happybase) for a program
#: that uses the in-memory engine only.
_BACKENDS = {
    "MemoryBackend": "hmodel.backend.memory",
    "AsyncMemoryBackend": "hmodel.backend.memory",
    "ThriftBackend": "hmodel.backend.thrift",
    "AsyncThriftBackend": "hmodel.backend.thrift",
    "Thrift2Backend": "hmodel.backend.thrift2",
    "AsyncThrift2Backend": "hmodel.backend.thrift2",
}


def __getattr__(name: str) -> Any:
    module = _BACKENDS.get(name)
    if module is None:
        raise AttributeError(f"module 'hmodel' has no attribute {name!r}")
    import importlib

    found = getattr(importlib.import_module(module), name)
    globals()[name] = found
    return found


__all__ = [
    "AsyncMemoryBackend",
    "AsyncThrift2Backend",
    "AsyncThriftBackend",
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
    "MemoryBackend",
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
    "Thrift2Backend",
    "ThriftBackend",
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
