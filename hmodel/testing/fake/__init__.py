"""The fake HBase servers, Thrift1 (``Hbase.thrift``) and Thrift2, over the memory engine.

The Thrift1 side lives in the ``thrift1_*`` modules, the Thrift2 side in ``thrift2_*``.
"""

from hmodel.testing.fake.thrift1_server import FakeHBaseServer
from hmodel.testing.fake.thrift2_handler import Thrift2Handler
from hmodel.testing.fake.thrift2_server import FakeThrift2Server

__all__ = ["FakeHBaseServer", "FakeThrift2Server", "Thrift2Handler"]
