"""FakeThrift2Server: HBase 2.2's Thrift2 gateway (``THBaseService``) over the memory engine."""

from __future__ import annotations

import ssl
from typing import TYPE_CHECKING

from hmodel.backend.memory import MemoryBackend
from hmodel.testing.fake.http_server import HTTPServing
from hmodel.testing.fake.thrift1_server import FakeHBaseServer, Protocol, Transport
from hmodel.testing.fake.thrift2_handler import Thrift2Handler
from hmodel.testing.fake.thrift2_processor import Thrift2Processor

if TYPE_CHECKING:
    from hmodel.testing.fake.sasl import SaslAcceptor

__all__ = ["FakeThrift2Server"]


class FakeThrift2Server(FakeHBaseServer):
    """A Thrift2 server (``hbase thrift2``) in a thread: same sockets, other service.

    Any Thrift2 client (hmodel's :class:`~hmodel.backend.thrift2.Thrift2Backend`, or code
    generated from HBase's ``hbase.thrift``) can test against it. Usually started for you
    by ``FakeHBaseServer(thrift2_port=...)`` over the same engine as the Thrift1 port.

    Args:
        backend: The engine; a fresh :class:`MemoryBackend` if ``None``.
        host: Interface to listen on (loopback by default).
        port: TCP port; ``0`` picks a free one.
        transport: ``"buffered"`` (HBase's default) or ``"framed"``.
        protocol: ``"binary"`` (HBase's default) or ``"compact"``.
        sasl: Require SASL of every client (see ``FakeHBaseServer``); ``None``: no.
        tls: A server-side ``ssl.SSLContext`` (TLS, or HTTPS with ``http``); ``None``: none.
        http: Serve Thrift over HTTP, as ``hbase thrift2`` does with
            ``hbase.regionserver.thrift.http=true`` (see ``FakeHBaseServer``).
    """

    def __init__(
        self,
        backend: MemoryBackend | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        transport: Transport = "buffered",
        protocol: Protocol = "binary",
        tls: ssl.SSLContext | None = None,
        http: bool | HTTPServing = False,
        sasl: SaslAcceptor | None = None,
    ) -> None:
        super().__init__(
            backend,
            host=host,
            port=port,
            transport=transport,
            protocol=protocol,
            tls=tls,
            http=http,
            sasl=sasl,
        )
        self._handler = Thrift2Handler(self._backend, server_host=host, server_port=port)  # type: ignore[assignment]
        self._processor = Thrift2Processor(self._handler)  # type: ignore[assignment]

    @property
    def handler(self) -> Thrift2Handler:  # type: ignore[override]
        """The ``THBaseService`` handler (its ``scanners`` are the open scanners)."""
        return self._handler  # type: ignore[return-value]

    def __repr__(self) -> str:
        return "<FakeThrift2Server" + super().__repr__().removeprefix("<FakeHBaseServer")
