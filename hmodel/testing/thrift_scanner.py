"""Moved to :mod:`hmodel.testing.fake.thrift1_scanner`; re-exported here for old imports."""

from hmodel.testing.fake.thrift1_scanner import (
    DEFAULT_SCANNER_LEASE_MS,
    RowChunk,
    Scanner,
    ScannerRegistry,
)

__all__ = ["DEFAULT_SCANNER_LEASE_MS", "RowChunk", "Scanner", "ScannerRegistry"]
