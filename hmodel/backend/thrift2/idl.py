"""HBase's Thrift2 types and service, loaded with thriftpy2 from hmodel's own IDL file."""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

import thriftpy2

__all__ = [
    "HBASE2",
    "LATEST_TIMESTAMP",
    "TTL_ATTRIBUTE",
    "TAppend",
    "TColumn",
    "TColumnFamilyDescriptor",
    "TColumnIncrement",
    "TColumnValue",
    "TDelete",
    "TDeleteType",
    "TGet",
    "TIOError",
    "TIllegalArgument",
    "TIncrement",
    "TMutation",
    "TPut",
    "TResult",
    "TRowMutations",
    "TScan",
    "TTableDescriptor",
    "TTableName",
    "TTimeRange",
]

#: The generated module: structs, enums, exceptions and the ``THBaseService`` service.
#: Loaded once under one module name, so the client and the fake server share its classes.
HBASE2: ModuleType = thriftpy2.load(
    os.path.join(os.path.dirname(__file__), "hbase2.thrift"), module_name="hbase2_thrift"
)

#: HBase's ``HConstants.LATEST_TIMESTAMP`` (``Long.MAX_VALUE``): "no timestamp given".
LATEST_TIMESTAMP = 2**63 - 1

#: The operation attribute HBase's ``Mutation.setTTL`` sets: the TTL in milliseconds as an
#: 8-byte big-endian signed long.
TTL_ATTRIBUTE = b"_ttl"

TAppend: Any = HBASE2.TAppend
TColumn: Any = HBASE2.TColumn
TColumnFamilyDescriptor: Any = HBASE2.TColumnFamilyDescriptor
TColumnIncrement: Any = HBASE2.TColumnIncrement
TColumnValue: Any = HBASE2.TColumnValue
TDelete: Any = HBASE2.TDelete
TDeleteType: Any = HBASE2.TDeleteType
TGet: Any = HBASE2.TGet
TIOError: Any = HBASE2.TIOError
TIllegalArgument: Any = HBASE2.TIllegalArgument
TIncrement: Any = HBASE2.TIncrement
TMutation: Any = HBASE2.TMutation
TPut: Any = HBASE2.TPut
TResult: Any = HBASE2.TResult
TRowMutations: Any = HBASE2.TRowMutations
TScan: Any = HBASE2.TScan
TTableDescriptor: Any = HBASE2.TTableDescriptor
TTableName: Any = HBASE2.TTableName
TTimeRange: Any = HBASE2.TTimeRange
