"""FakeHBaseServer: HBase's Thrift1 gateway, and its Thrift2 one beside it, over one engine."""

from __future__ import annotations

from typing import Any, TypeVar

from hmodel.backend.memory import MemoryBackend
from hmodel.clock import Clock
from hmodel.testing.fake.serving import Protocol, Transport, check_port
from hmodel.testing.fake.thrift1_processor import CallHook
from hmodel.testing.fake.thrift1_scanner import DEFAULT_SCANNER_LEASE_MS
from hmodel.testing.fake.thrift1_server import FakeThrift1Server
from hmodel.testing.fake.thrift2_server import FakeThrift2Server

__all__ = ["FakeHBaseServer"]

_Server = TypeVar("_Server", bound="FakeHBaseServer")


class FakeHBaseServer(FakeThrift1Server):
    """An HBase Thrift1 server (the ``Hbase`` service happybase speaks) over a memory engine.

    Unmodified happybase programs run against it: point ``happybase.Connection`` at
    :attr:`host` and :attr:`port` with the same ``transport`` and ``protocol``. Each client
    connection is served by its own thread; scanners are shared by all connections, as in
    HBase. A request that cannot even be decoded drops only that client's connection; an
    error inside a call is answered with the Thrift error HBase would send and the
    connection goes on. See ``docs/testing.md`` for exactly what is served.

    With ``thrift2_port`` it also serves HBase 2's Thrift2 API (a
    :class:`~hmodel.testing.fake.FakeThrift2Server`) over the same engine, as a real HBase
    runs ``hbase thrift`` and ``hbase thrift2`` side by side.

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
        thrift2_port: Also serve HBase 2's Thrift2 API (``THBaseService``) over the same
            engine on this port (``0``: a free one, read back from :attr:`thrift2_port`),
            as a real HBase runs ``hbase thrift`` and ``hbase thrift2`` side by side;
            ``None`` (the default): Thrift1 only. Same transport and protocol.

    Example:
        >>> import happybase
        >>> with FakeHBaseServer() as server:
        ...     connection = happybase.Connection(server.host, server.port)
        ...     connection.create_table("t", {"f": {}})
        ...     connection.table("t").put(b"r", {b"f:q": b"v"})
        ...     connection.table("t").row(b"r")
        ...     connection.close()
        {b'f:q': b'v'}

    Raises:
        ValidationError: A bad ``host``, ``port`` or ``thrift2_port``, an unknown
            ``transport`` or ``protocol``, or a bad ``scanner_lease_ms``.
    """

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
        thrift2_port: int | None = None,
    ) -> None:
        check_port("thrift2_port", thrift2_port, optional=True)
        super().__init__(
            backend,
            host=host,
            port=port,
            transport=transport,
            protocol=protocol,
            scanner_lease_ms=scanner_lease_ms,
            clock=clock,
            hook=hook,
        )
        self._thrift2_port = thrift2_port
        self._thrift2: FakeThrift2Server | None = None

    @property
    def thrift2_port(self) -> int | None:
        """The Thrift2 port (the one bound once started), or ``None`` without Thrift2."""
        return self._thrift2.port if self._thrift2 is not None else self._thrift2_port

    @property
    def thrift2_server(self) -> FakeThrift2Server | None:
        """The running Thrift2 side, or ``None``; for inspection."""
        return self._thrift2

    def start(self: _Server) -> _Server:
        """Bind, listen and serve in daemon threads, both ports; returns ``self``.

        Raises:
            BackendError: An address cannot be bound (the OS error is the cause); nothing
                is left listening.
            UnsupportedOperationError: The server was started before (it starts once).
        """
        super().start()
        if self._thrift2_port is not None:
            options: dict[str, Any] = self.serving_options
            self._thrift2 = FakeThrift2Server(self._backend, port=self._thrift2_port, **options)
            try:
                self._thrift2.start()
            except BaseException:
                self.stop()
                raise
        return self

    def stop(self) -> None:
        """Stop serving both ports: listening sockets, client connections, scanners.

        Returns once every thread of both servers has ended. Calling it again (or before
        :meth:`start`) does nothing.
        """
        if self._thrift2 is not None:
            self._thrift2.stop()
        super().stop()
