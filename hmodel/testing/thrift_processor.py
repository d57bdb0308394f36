"""Moved to :mod:`hmodel.testing.fake.thrift1_processor`; re-exported here for old imports."""

from hmodel.testing.fake.thrift1_processor import (
    CallHook,
    Drop,
    DroppedConnectionError,
    HBaseProcessor,
)

__all__ = ["CallHook", "Drop", "DroppedConnectionError", "HBaseProcessor"]
