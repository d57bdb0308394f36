"""Moved to :mod:`hmodel.testing.fake.thrift1_handler`; re-exported here for old imports."""

from hmodel.testing.fake.thrift1_handler import HBaseHandler

__all__ = ["HBaseHandler"]
