"""The asyncio Thrift1 backend: the AsyncBackend protocol over HBase's Thrift1 API."""

from __future__ import annotations

from typing import Any

from hmodel.backend.aio_pool import AsyncPooledChannel
from hmodel.backend.aio_thrift import AsyncScannerEdge, AsyncThriftBase
from hmodel.backend.thrift.backend import ThriftBackend
from hmodel.backend.thrift.channel import ENCODING_ERRORS
from hmodel.backend.thrift.error import SERVER_ERRORS, TRANSPORT_ERRORS
from hmodel.backend.thrift.idl import Hbase
from hmodel.backend.thrift.scanner import ScannerCore

__all__ = ["AsyncThriftBackend"]


class AsyncChannel(AsyncPooledChannel):
    """Calls to a Thrift1 server from any event loop, at most ``pool_size`` connections per loop."""

    service: Any = Hbase
    decode_response = False  # strings stay bytes, as happybase keeps them
    server_errors = SERVER_ERRORS
    transport_errors = TRANSPORT_ERRORS
    encoding_errors = ENCODING_ERRORS
    backend = "Thrift"


class AsyncThriftScanner(AsyncScannerEdge, ScannerCore):
    """A Thrift1 scanner's rows as an async iterator (the scanner core's requests, awaited).

    ``scannerOpenWithScan`` is sent by ``start``; rows are fetched as they are asked for.
    """


class AsyncThriftBackend(AsyncThriftBase):
    """The :class:`~hmodel.backend.aio.AsyncBackend` protocol over a Thrift1 server.

    Every call is the synchronous :class:`~hmodel.backend.thrift.ThriftBackend`'s own
    operation (the same arguments checked, the same requests, the same error
    translation), sent over hmodel's asyncio Thrift wire through a pool of at most
    ``pool_size`` connections, with the same retry rules. Round trips, capabilities and
    RPC names are the synchronous backend's. HBase's Thrift1 API has no
    ``checkAndMutate`` (nor ``checkAndDelete``): those calls raise
    :class:`~hmodel.errors.UnsupportedOperationError`, as the synchronous backend's do.

    A socket, TLS, HTTP or HTTPS (SASL not yet); table administration through a
    :class:`~hmodel.backend.thrift.ThriftBackend`. Arguments as
    :class:`~hmodel.backend.thrift2.AsyncThrift2Backend`'s.
    """

    sync_backend = ThriftBackend
    channel = AsyncChannel
    scanner = AsyncThriftScanner
