"""Moved to :mod:`hmodel.testing.fake.thrift1_error`; re-exported here for old imports."""

from hmodel.testing.fake.thrift1_error import internal_error, thrift_error

__all__ = ["internal_error", "thrift_error"]
