"""FakeHBaseServer: HBase's Thrift1 gateway, and its Thrift2 one beside it, over one engine."""

from __future__ import annotations

import ssl
from typing import TYPE_CHECKING, TypeVar

from hmodel.backend.memory import MemoryBackend
from hmodel.clock import Clock
from hmodel.testing.fake.framing import DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_MESSAGE_BYTES
from hmodel.testing.fake.http_server import HTTPServing
from hmodel.testing.fake.serving import (
    DEFAULT_MAX_QUEUED,
    DEFAULT_MAX_WORKERS,
    DEFAULT_READ_TIMEOUT_MS,
    Protocol,
    Transport,
    check_count,
    check_port,
)
from hmodel.testing.fake.thrift1_processor import CallHook
from hmodel.testing.fake.thrift1_scanner import DEFAULT_SCANNER_LEASE_MS
from hmodel.testing.fake.thrift1_server import FakeThrift1Server
from hmodel.testing.fake.thrift2_scanner import (
    DEFAULT_SCANNER_LEASE_MS as DEFAULT_THRIFT2_SCANNER_LEASE_MS,
)
from hmodel.testing.fake.thrift2_server import FakeThrift2Server

if TYPE_CHECKING:
    from hmodel.testing.fake.sasl import SaslAcceptor

__all__ = ["FakeHBaseServer"]

_Server = TypeVar("_Server", bound="FakeHBaseServer")


class FakeHBaseServer(FakeThrift1Server):
    """An HBase Thrift1 server (the ``Hbase`` service happybase speaks) over a memory engine.

    Unmodified happybase programs run against it: point ``happybase.Connection`` at
    :attr:`host` and :attr:`port` with the same ``transport`` and ``protocol``. Scanners
    are shared by all connections, as in HBase. A request that cannot even be decoded
    drops only that client's connection; an error inside a call is answered with the
    Thrift error HBase would send and the connection goes on. See ``docs/testing.md`` for
    exactly what is served.

    Connections are served as HBase's own Thrift server serves them, within the same
    bounds and with the same defaults: a worker thread per connection, at most
    ``max_workers`` at once and ``max_queued`` more waiting; a connection idle for
    ``read_timeout_ms`` is closed; a request declaring a string, binary or container
    over ``max_message_bytes`` (or a frame over ``max_frame_bytes``) is refused before
    those bytes are received; scanners unused for their lease are closed within a second
    (see :class:`~hmodel.testing.fake.serving.FakeThriftServer`).

    With ``thrift2_port`` it also serves HBase 2's Thrift2 API (a
    :class:`~hmodel.testing.fake.FakeThrift2Server`) over the same engine, with the same
    transport, protocol, TLS, HTTP and bounds, as a real HBase runs ``hbase thrift`` and
    ``hbase thrift2`` side by side.

    Args:
        backend: The engine holding the tables; a fresh :class:`MemoryBackend` if ``None``.
        host: Interface to listen on; loopback by default. ``"0.0.0.0"`` exposes the fake
            to the network: it has no authentication.
        port: TCP port; ``0`` picks a free one (read it back from :attr:`port`).
        transport: ``"buffered"`` (HBase's default) or ``"framed"``.
        protocol: ``"binary"`` (HBase's default) or ``"compact"``.
        read_timeout_ms: A connection whose next bytes take this long to come is closed;
            ``0``: never. HBase's ``hbase.thrift.server.socket.read.timeout``, 60 s.
        max_workers: Connections served at once: ``hbase.thrift.maxWorkerThreads``, 1000.
        max_queued: Connections accepted beyond those, waiting unanswered for a worker:
            ``hbase.thrift.maxQueuedRequests``, 1000; one more is closed at once.
        max_frame_bytes: Framed transport: the longest frame taken, 2 MiB, as HBase's
            ``hbase.regionserver.thrift.framed.max_frame_size_in_mb``.
        max_message_bytes: The longest string or binary a request may declare (and the
            most a container's elements may need): 100 MiB, libthrift's max message size.
        sasl: Require SASL authentication (Kerberos GSSAPI or PLAIN) of every client,
            on both ports, as HBase does with ``hbase.thrift.security.qop`` set (see
            :class:`~hmodel.testing.fake.sasl.SaslAcceptor`); buffered transport over a
            socket only, as in HBase (over HTTP HBase uses SPNEGO instead). ``None`` (the
            default): no authentication.
        tls: A server-side ``ssl.SSLContext`` (its certificate loaded): every connection
            of both ports is wrapped in TLS, the handshake done in its worker thread. Over
            a socket this is what a TLS proxy in front of HBase serves (HBase's own TLS is
            HTTP only); with ``http`` it is HTTPS. ``None``: no TLS.
        http: Serve Thrift over HTTP instead of a socket, on both ports, as HBase does
            with ``hbase.regionserver.thrift.http=true``: ``True`` (any path, no
            credentials, as HBase), or
            :class:`~hmodel.testing.fake.http_server.HTTPServing` settings (a gateway's
            path and basic credentials). Binary protocol, no framing; same bounds.
        min_latency_ms: Hold each call this long before serving it (``0``: not at all);
            see :class:`~hmodel.testing.fake.serving.FakeThriftServer`.
        scanner_lease_ms: A Thrift1 scanner no call has used for this long expires and its
            id answers ``IllegalArgument("scanner ID is invalid")``, as HBase 2's Thrift1
            server drops scanners unused for twice ``hbase.client.scanner.timeout.period``
            (120 s by default).
        clock: The time scanner leases are measured with, in epoch milliseconds; the
            engine's clock if ``None`` (a ``ManualClock`` lets tests expire scanners
            without sleeping).
        hook: Asked with each Thrift1 method name before the call runs; returning
            :attr:`~hmodel.testing.fake.thrift1_processor.Drop.BEFORE` or
            :attr:`~hmodel.testing.fake.thrift1_processor.Drop.AFTER` drops that client's connection
            there (see :data:`~hmodel.testing.fake.thrift1_processor.CallHook`). For tests of
            clients on a failing network; ``None`` serves every call.
        thrift2_port: Also serve HBase 2's Thrift2 API (``THBaseService``) over the same
            engine on this port (``0``: a free one, read back from :attr:`thrift2_port`);
            ``None`` (the default): Thrift1 only.
        thrift2_scanner_lease_ms: The same for Thrift2 scanners, whose ids then answer
            ``TIllegalArgument("Invalid scanner Id")``: HBase 2's Thrift2 server expires
            them after ``hbase.client.scanner.timeout.period`` itself (60 s by default).

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
            ``transport`` or ``protocol``, a bound out of range, a bad scanner lease,
            ``tls`` that is not an ``ssl.SSLContext``, ``http`` with the framed transport
            or the compact protocol, or ``sasl`` with the framed transport or HTTP.
    """

    def __init__(
        self,
        backend: MemoryBackend | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        transport: Transport = "buffered",
        protocol: Protocol = "binary",
        read_timeout_ms: int = DEFAULT_READ_TIMEOUT_MS,
        max_workers: int = DEFAULT_MAX_WORKERS,
        max_queued: int = DEFAULT_MAX_QUEUED,
        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        sasl: SaslAcceptor | None = None,
        tls: ssl.SSLContext | None = None,
        http: bool | HTTPServing = False,
        min_latency_ms: int = 0,
        scanner_lease_ms: int = DEFAULT_SCANNER_LEASE_MS,
        clock: Clock | None = None,
        hook: CallHook | None = None,
        thrift2_port: int | None = None,
        thrift2_scanner_lease_ms: int = DEFAULT_THRIFT2_SCANNER_LEASE_MS,
    ) -> None:
        check_port("thrift2_port", thrift2_port, optional=True)
        check_count("thrift2_scanner_lease_ms", thrift2_scanner_lease_ms, 1)
        super().__init__(
            backend,
            host=host,
            port=port,
            transport=transport,
            protocol=protocol,
            read_timeout_ms=read_timeout_ms,
            max_workers=max_workers,
            max_queued=max_queued,
            max_frame_bytes=max_frame_bytes,
            max_message_bytes=max_message_bytes,
            sasl=sasl,
            tls=tls,
            http=http,
            min_latency_ms=min_latency_ms,
            scanner_lease_ms=scanner_lease_ms,
            clock=clock,
            hook=hook,
        )
        self._thrift2_port = thrift2_port
        self._thrift2_scanner_lease_ms = thrift2_scanner_lease_ms
        self._clock = clock
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
            self._thrift2 = FakeThrift2Server(
                self._backend,
                port=self._thrift2_port,
                scanner_lease_ms=self._thrift2_scanner_lease_ms,
                clock=self._clock,
                **self.serving_options,
            )
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
