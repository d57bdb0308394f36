"""Moved to :mod:`hmodel.testing.fake`; re-exported here for old imports."""

from hmodel.testing.fake.server import FakeHBaseServer
from hmodel.testing.fake.serving import Protocol, Transport
from hmodel.testing.fake.thrift1_processor import CallHook, Drop

__all__ = ["CallHook", "Drop", "FakeHBaseServer", "Protocol", "Transport"]
