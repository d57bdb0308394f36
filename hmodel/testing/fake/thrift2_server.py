"""FakeThrift2Server: HBase 2's Thrift2 gateway (``THBaseService``) over the memory engine."""

from __future__ import annotations

import ssl
from typing import TYPE_CHECKING

from hmodel.backend.memory import MemoryBackend
from hmodel.clock import Clock
from hmodel.testing.fake.framing import DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_MESSAGE_BYTES
from hmodel.testing.fake.http_server import HTTPServing
from hmodel.testing.fake.serving import (
    DEFAULT_MAX_QUEUED,
    DEFAULT_MAX_WORKERS,
    DEFAULT_READ_TIMEOUT_MS,
    FakeThriftServer,
    Protocol,
    Transport,
    check_count,
)
from hmodel.testing.fake.thrift2_handler import Thrift2Handler
from hmodel.testing.fake.thrift2_processor import Thrift2Processor
from hmodel.testing.fake.thrift2_scanner import DEFAULT_SCANNER_LEASE_MS

if TYPE_CHECKING:
    from hmodel.testing.fake.sasl import SaslAcceptor

__all__ = ["FakeThrift2Server"]


class FakeThrift2Server(FakeThriftServer):
    """A Thrift2 server (``hbase thrift2``) in threads: same sockets and bounds, other service.

    Any Thrift2 client (hmodel's :class:`~hmodel.backend.thrift2.Thrift2Backend`, or code
    generated from HBase's ``hbase.thrift``) can test against it. Usually started for you
    by ``FakeHBaseServer(thrift2_port=...)`` over the same engine as the Thrift1 port.
    Connections are served within the bounds of HBase's own Thrift server (see
    :class:`~hmodel.testing.fake.serving.FakeThriftServer`).

    Args:
        backend: The engine; a fresh :class:`MemoryBackend` if ``None``.
        host: Interface to listen on (loopback by default).
        port: TCP port; ``0`` picks a free one.
        transport: ``"buffered"`` (HBase's default) or ``"framed"``.
        protocol: ``"binary"`` (HBase's default) or ``"compact"``.
        read_timeout_ms: A connection idle this long is closed; ``0``: never (HBase's
            ``hbase.thrift.server.socket.read.timeout``, 60 s).
        max_workers: Connections served at once (``hbase.thrift.maxWorkerThreads``, 1000).
        max_queued: Connections waiting for a worker (``hbase.thrift.maxQueuedRequests``,
            1000); one more is closed at once.
        max_frame_bytes: The longest frame, framed transport (2 MiB, as HBase's
            ``hbase.regionserver.thrift.framed.max_frame_size_in_mb``).
        max_message_bytes: The longest string or binary a request may declare (100 MiB,
            libthrift's max message size).
        sasl: Require SASL of every client (a
            :class:`~hmodel.testing.fake.sasl.SaslAcceptor`), as HBase with
            ``hbase.thrift.security.qop``; buffered transport over a socket only.
            ``None``: no.
        tls: A server-side ``ssl.SSLContext`` (TLS, or HTTPS with ``http``); ``None``: none.
        http: Serve Thrift over HTTP (``True``, or
            :class:`~hmodel.testing.fake.http_server.HTTPServing` settings), as HBase does
            with ``hbase.regionserver.thrift.http=true``; binary protocol, unframed.
        min_latency_ms: Hold each call this long before serving it (``0``: not at all);
            see :class:`~hmodel.testing.fake.serving.FakeThriftServer`.
        scanner_lease_ms: A scanner no call has used for this long expires and its id
            answers ``TIllegalArgument("Invalid scanner Id")``, as HBase 2's Thrift2
            handler expires scanners after ``hbase.client.scanner.timeout.period`` (60 s
            by default) without access. Expired scanners are closed within a second,
            without any call.
        clock: The time scanner leases are measured with, in epoch milliseconds; the
            engine's clock if ``None`` (a ``ManualClock`` in tests).

    Raises:
        ValidationError: A bad ``host`` or ``port``, an unknown ``transport`` or
            ``protocol``, a bound out of range, a bad ``scanner_lease_ms``, ``tls`` or
            ``http`` that cannot be served (see ``FakeThriftServer``), or ``sasl`` with the
            framed transport or HTTP.
    """

    service = "Thrift2"

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
    ) -> None:
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
        )
        check_count("scanner_lease_ms", scanner_lease_ms, 1)
        self._handler = Thrift2Handler(
            self._backend,
            server_host=host,
            server_port=port,
            scanner_lease_ms=scanner_lease_ms,
            clock=clock,
        )
        self._processor = Thrift2Processor(self._handler)

    @property
    def handler(self) -> Thrift2Handler:
        """The ``THBaseService`` handler (its ``scanners`` are the open scanners)."""
        return self._handler

    def _bound(self, port: int) -> None:
        self._handler.server_port = port

    def _sweep(self) -> None:
        self._handler.scanners.expire()

    def _close_scanners(self) -> None:
        self._handler.scanners.close_all()
