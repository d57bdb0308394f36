"""A pool of Thrift1 connections that sends one RPC at a time, with bounded retries."""

from __future__ import annotations

import struct
from typing import Any

from thriftpy2.thrift import TDecodeException

from hmodel.backend.pool import PooledChannel
from hmodel.backend.retry import MAX_BACKOFF_MS, Retry
from hmodel.backend.thrift.error import SERVER_ERRORS, TRANSPORT_ERRORS
from hmodel.backend.thrift.idl import Hbase

__all__ = ["ENCODING_ERRORS", "MAX_BACKOFF_MS", "Channel", "Retry"]

#: What thriftpy2 raises for an argument it cannot encode (a str for an i64, 2**64...):
#: its C protocol raises ``TDecodeException`` (sic), the Python one the others.
ENCODING_ERRORS: tuple[type[BaseException], ...] = (
    TDecodeException,
    TypeError,
    ValueError,
    OverflowError,
    struct.error,
)


class Channel(PooledChannel):
    """Thread-safe access to an HBase Thrift1 server through a pool of connections.

    Each RPC borrows one pooled connection for exactly the duration of the call, so any
    number of threads (and any number of open scanners) share ``pool_size`` connections.
    Connections are opened when first needed, the most recently used idle one is lent
    first, and a connection that fails is closed and replaced by a new one when next
    needed. Each connection is a thriftpy2 client of the ``Hbase`` service happybase
    ships (the IDL happybase loads), strings kept as bytes as happybase keeps them, over
    the endpoint's socket, TLS, HTTP or HTTPS transport (see
    :class:`~hmodel.backend.pool.PooledChannel` for the arguments).
    """

    service: Any = Hbase
    decode_response = False
    server_errors = SERVER_ERRORS
    transport_errors = TRANSPORT_ERRORS
    encoding_errors = ENCODING_ERRORS
    backend = "Thrift"
    track_lent = True  # close() closes every connection, lent ones too
    count_interrupted = True
