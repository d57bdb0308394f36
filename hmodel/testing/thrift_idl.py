"""Moved to :mod:`hmodel.testing.fake.thrift1_idl`; re-exported here for old imports."""

from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT, LATEST_TIMESTAMP, method_name

__all__ = ["HBASE_THRIFT", "LATEST_TIMESTAMP", "method_name"]
