"""The Thrift1 ``Hbase`` service handler: every call of HBase's IDL, served by the memory engine."""

from __future__ import annotations

from hmodel.backend.memory import MemoryBackend
from hmodel.clock import Clock
from hmodel.testing.fake.thrift1_admin import AdminCalls
from hmodel.testing.fake.thrift1_read import ReadCalls
from hmodel.testing.fake.thrift1_region import RegionCalls
from hmodel.testing.fake.thrift1_scanner import DEFAULT_SCANNER_LEASE_MS, ScannerRegistry
from hmodel.testing.fake.thrift1_scanner_calls import ScannerCalls
from hmodel.testing.fake.thrift1_write import WriteCalls

__all__ = ["HBaseHandler", "Thrift1Handler"]


class HBaseHandler(AdminCalls, ReadCalls, WriteCalls, ScannerCalls, RegionCalls):
    """Serves every call of HBase's Thrift1 ``Hbase`` service from a :class:`MemoryBackend`.

    Methods are the IDL's calls in snake case (``getRowsTs`` -> :meth:`get_rows_ts`), take
    the IDL's arguments in order and follow ``ThriftHBaseServiceHandler`` (HBase 2.x):

    * ``*Ts`` reads use ``setTimeRange(0, ts)``: only cells with a timestamp **strictly
      less** than ``ts``; ``*Ts`` deletes delete versions ``<= ts``; ``*Ts`` puts write
      at ``ts``. ``Long.MAX_VALUE`` (``LATEST_TIMESTAMP``) means no timestamp.
    * ``mutateRow(Ts)`` applies the row's deletes, then its put (two engine calls);
      ``mutateRows(Ts)`` applies all puts, then all deletes, in one engine call whose
      per-row part is atomic.
    * The ``_ttl`` attribute (8-byte big-endian long, ms; ``Mutation.setTTL``) is honoured
      on puts; other attributes are accepted and ignored.
    * Errors are :mod:`hmodel.errors` exceptions; the processor turns them into the
      ``IOError`` / ``IllegalArgument`` / ``AlreadyExists`` replies HBase sends.

    Args:
        backend: The engine that stores the data.
        server_host: Host name reported as ``serverName`` in region infos.
        server_port: Port reported in region infos.
        scanner_lease_ms: A scanner unused for this long expires (see
            :class:`~hmodel.testing.fake.thrift1_scanner.ScannerRegistry`).
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
        self.scanners = ScannerRegistry(
            lease_ms=scanner_lease_ms, clock=clock if clock is not None else backend.clock
        )
        self.server_host = server_host
        self.server_port = server_port


#: The handler under the name the Thrift2 side's ``Thrift2Handler`` mirrors.
Thrift1Handler = HBaseHandler
