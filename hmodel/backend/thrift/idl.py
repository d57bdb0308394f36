"""HBase's Thrift1 IDL types, as happybase loads them from its bundled ``Hbase.thrift``."""

from __future__ import annotations

import importlib
from typing import Any

import happybase  # noqa: F401 -- imported for its side effect: it loads the IDL

__all__ = [
    "AlreadyExists",
    "BatchMutation",
    "ColumnDescriptor",
    "Hbase",
    "IllegalArgument",
    "Mutation",
    "TAppend",
    "TIncrement",
    "TScan",
    "ThriftIOError",
]

# Importing happybase runs ``thriftpy2.load(".../Hbase.thrift", "Hbase_thrift")``, which
# registers the generated module under that name; reuse it rather than loading a second
# copy of the IDL (two copies would make two unrelated ``IOError`` classes).
_hbase: Any = importlib.import_module("Hbase_thrift")

AlreadyExists: Any = _hbase.AlreadyExists
BatchMutation: Any = _hbase.BatchMutation
ColumnDescriptor: Any = _hbase.ColumnDescriptor
#: The ``Hbase`` service (the RPCs a client calls).
Hbase: Any = _hbase.Hbase
IllegalArgument: Any = _hbase.IllegalArgument
#: The IDL's ``IOError`` (renamed so it does not shadow the builtin).
ThriftIOError: Any = _hbase.IOError
Mutation: Any = _hbase.Mutation
TAppend: Any = _hbase.TAppend
TIncrement: Any = _hbase.TIncrement
TScan: Any = _hbase.TScan
