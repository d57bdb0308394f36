"""FakeThrift2Server: HBase 2.2's Thrift2 gateway (``THBaseService``) over the memory engine."""

from __future__ import annotations

from hmodel.backend.memory import MemoryBackend
from hmodel.testing.fake.serving import FakeThriftServer, Protocol, Transport
from hmodel.testing.fake.thrift2_handler import Thrift2Handler
from hmodel.testing.fake.thrift2_processor import Thrift2Processor

__all__ = ["FakeThrift2Server"]


class FakeThrift2Server(FakeThriftServer):
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

    Raises:
        ValidationError: A bad ``host`` or ``port``, an unknown ``transport`` or ``protocol``.
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
    ) -> None:
        super().__init__(backend, host=host, port=port, transport=transport, protocol=protocol)
        self._handler = Thrift2Handler(self._backend, server_host=host, server_port=port)
        self._processor = Thrift2Processor(self._handler)

    @property
    def handler(self) -> Thrift2Handler:
        """The ``THBaseService`` handler (its ``scanners`` are the open scanners)."""
        return self._handler

    def _bound(self, port: int) -> None:
        self._handler.server_port = port

    def _close_scanners(self) -> None:
        self._handler.scanners.close_all()
