"""The fake HBase servers' Thrift2 side: ``THBaseService`` over the memory engine."""

from hmodel.testing.fake.thrift2_handler import Thrift2Handler
from hmodel.testing.fake.thrift2_server import FakeThrift2Server

__all__ = ["FakeThrift2Server", "Thrift2Handler"]
