"""The Thrift backend: HBase's Thrift1 API through happybase (the only importer of happybase)."""

from hmodel.backend.thrift.aio import AsyncThriftBackend
from hmodel.backend.thrift.backend import ThriftBackend
from hmodel.backend.thrift.channel import Retry

__all__ = ["AsyncThriftBackend", "Retry", "ThriftBackend"]
