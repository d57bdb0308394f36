"""Moved to :mod:`hmodel.testing.fake.thrift1_server`; re-exported here for old imports."""

from hmodel.testing.fake.thrift1_server import CallHook, Drop, FakeHBaseServer, Protocol, Transport

__all__ = ["CallHook", "Drop", "FakeHBaseServer", "Protocol", "Transport"]
