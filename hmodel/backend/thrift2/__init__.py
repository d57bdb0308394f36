"""The Thrift2 backend: HBase 2's ``THBaseService`` API through thriftpy2 (no happybase)."""

from hmodel.backend.thrift2.aio import AsyncThrift2Backend
from hmodel.backend.thrift2.backend import RegionLocation, Thrift2Backend
from hmodel.backend.thrift2.channel import Retry

__all__ = ["AsyncThrift2Backend", "RegionLocation", "Retry", "Thrift2Backend"]
