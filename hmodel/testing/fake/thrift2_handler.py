"""The ``THBaseService`` handler: HBase 2.2's Thrift2 API over one memory engine."""

from __future__ import annotations

from hmodel.backend.memory import MemoryBackend
from hmodel.clock import Clock
from hmodel.testing.fake.thrift2_admin import AdminHandler
from hmodel.testing.fake.thrift2_read import ReadHandler
from hmodel.testing.fake.thrift2_scanner import (
    DEFAULT_SCANNER_LEASE_MS,
    ScannerHandler,
    Thrift2Scanners,
)
from hmodel.testing.fake.thrift2_write import WriteHandler

__all__ = ["Thrift2Handler"]


class Thrift2Handler(AdminHandler, ReadHandler, WriteHandler, ScannerHandler):
    """Serves every call of hmodel's Thrift2 IDL from ``backend``, one concern per base class.

    Args:
        backend: The engine (shared with the Thrift1 handler when both ports are served).
        server_host: The host reported in region locations.
        server_port: The port reported in region locations.
        scanner_lease_ms: A scanner unused for this long expires (see
            :class:`~hmodel.testing.fake.thrift2_scanner.Thrift2Scanners`).
        clock: The time scanner leases are measured with; the engine's clock if ``None``.
    """

    def __init__(
        self,
        backend: MemoryBackend,
        *,
        server_host: str = "127.0.0.1",
        server_port: int = 0,
        scanner_lease_ms: int = DEFAULT_SCANNER_LEASE_MS,
        clock: Clock | None = None,
    ) -> None:
        self.backend = backend
        self.server_host = server_host
        self.server_port = server_port
        self.scanners = Thrift2Scanners(
            lease_ms=scanner_lease_ms, clock=clock if clock is not None else backend.clock
        )
