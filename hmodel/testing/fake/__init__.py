"""The fake HBase servers, Thrift1 (``Hbase.thrift``) and Thrift2, over the memory engine.

The Thrift1 side lives in the ``thrift1_*`` modules, the Thrift2 side in ``thrift2_*``;
neither imports the other. What both share (sockets, threads, bounds) is in ``serving``;
``server`` puts the two side by side over one engine (:class:`FakeHBaseServer`).
"""

from hmodel.testing.fake.server import FakeHBaseServer
from hmodel.testing.fake.thrift2_handler import Thrift2Handler
from hmodel.testing.fake.thrift2_server import FakeThrift2Server

__all__ = ["FakeHBaseServer", "FakeThrift2Server", "Thrift2Handler"]
