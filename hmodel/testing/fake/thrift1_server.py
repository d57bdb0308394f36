"""FakeThrift1Server: HBase's Thrift1 gateway (the ``Hbase`` service) over the memory engine."""

from __future__ import annotations

from hmodel.backend.memory import MemoryBackend
from hmodel.clock import Clock
from hmodel.errors import ValidationError
from hmodel.testing.fake.serving import FakeThriftServer, Protocol, Transport
from hmodel.testing.fake.thrift1_handler import HBaseHandler
from hmodel.testing.fake.thrift1_processor import CallHook, Drop, HBaseProcessor
from hmodel.testing.fake.thrift1_scanner import DEFAULT_SCANNER_LEASE_MS

__all__ = ["CallHook", "Drop", "FakeThrift1Server", "Protocol", "Transport"]


class FakeThrift1Server(FakeThriftServer):
    """An HBase Thrift1 server (the ``Hbase`` service happybase speaks) over a memory engine.

    Unmodified happybase programs run against it: point ``happybase.Connection`` at
    :attr:`host` and :attr:`port` with the same ``transport`` and ``protocol``. Each client
    connection is served by its own thread; scanners are shared by all connections, as in
    HBase. A request that cannot even be decoded drops only that client's connection; an
    error inside a call is answered with the Thrift error HBase would send and the
    connection goes on. See ``docs/testing.md`` for exactly what is served.
    :class:`~hmodel.testing.fake.FakeHBaseServer` adds the Thrift2 port beside it.

    Args:
        backend: The engine holding the tables; a fresh :class:`MemoryBackend` if ``None``.
        host: Interface to listen on; loopback by default. ``"0.0.0.0"`` exposes the fake
            to the network: it has no authentication.
        port: TCP port; ``0`` picks a free one (read it back from :attr:`port`).
        transport: ``"buffered"`` (HBase's default) or ``"framed"``.
        protocol: ``"binary"`` (HBase's default) or ``"compact"``.
        scanner_lease_ms: A scanner no call has used for this long expires and its id
            answers ``IllegalArgument("scanner ID is invalid")``, as HBase 2.2's Thrift1
            server drops scanners unused for twice ``hbase.client.scanner.timeout.period``
            (120 s by default). Clients that vanish leak nothing for longer.
        clock: The time scanner leases are measured with, in epoch milliseconds; the
            engine's clock if ``None`` (a ``ManualClock`` lets tests expire scanners
            without sleeping).
        hook: Asked with each Thrift method name before the call runs; returning
            :attr:`Drop.BEFORE` or :attr:`Drop.AFTER` drops that client's connection
            there (see :data:`~hmodel.testing.fake.thrift1_processor.CallHook`). For tests of
            clients on a failing network; ``None`` serves every call.

    Raises:
        ValidationError: A bad ``host`` or ``port``, an unknown ``transport`` or
            ``protocol``, or a bad ``scanner_lease_ms``.
    """

    service = "Thrift1"

    def __init__(
        self,
        backend: MemoryBackend | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        transport: Transport = "buffered",
        protocol: Protocol = "binary",
        scanner_lease_ms: int = DEFAULT_SCANNER_LEASE_MS,
        clock: Clock | None = None,
        hook: CallHook | None = None,
    ) -> None:
        super().__init__(backend, host=host, port=port, transport=transport, protocol=protocol)
        if (
            isinstance(scanner_lease_ms, bool)
            or not isinstance(scanner_lease_ms, int)
            or scanner_lease_ms < 1
        ):
            raise ValidationError(
                "scanner_lease_ms must be an int >= 1",
                field="scanner_lease_ms",
                value=scanner_lease_ms,
            )
        self._handler = HBaseHandler(
            self._backend,
            server_host=host,
            server_port=port,
            scanner_lease_ms=scanner_lease_ms,
            clock=clock,
        )
        self._processor = HBaseProcessor(self._handler, hook=hook)

    @property
    def handler(self) -> HBaseHandler:
        """The ``Hbase`` service handler (its :attr:`~HBaseHandler.scanners` are open scans)."""
        return self._handler

    def _bound(self, port: int) -> None:
        self._handler.server_port = port

    def _close_scanners(self) -> None:
        self._handler.scanners.close_all()
