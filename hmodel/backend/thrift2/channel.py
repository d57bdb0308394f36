"""A pool of Thrift2 connections that sends one call at a time, with bounded retries."""

from __future__ import annotations

import struct
from typing import Any

from thriftpy2.thrift import TDecodeException

from hmodel.backend.pool import PooledChannel
from hmodel.backend.retry import MAX_BACKOFF_MS, Retry
from hmodel.backend.thrift2.error import SERVER_ERRORS, TRANSPORT_ERRORS
from hmodel.backend.thrift2.idl import HBASE2

__all__ = ["ENCODING_ERRORS", "MAX_BACKOFF_MS", "Channel", "Retry"]

#: What thriftpy2 raises for an argument it cannot encode (a str for an i64, 2**64...).
ENCODING_ERRORS: tuple[type[BaseException], ...] = (
    TDecodeException,
    TypeError,
    ValueError,
    OverflowError,
    struct.error,
)


class Channel(PooledChannel):
    """Thread-safe calls to a Thrift2 server over at most ``pool_size`` connections.

    Each call borrows one idle connection (or opens one) for exactly the duration of the
    call, so any number of threads and open scanners share the pool. The most recently
    used idle connection is lent first; when ``pool_size`` are lent, a call waits for one
    to come back. A connection whose call failed at the transport level is closed, never
    reused, and its place freed. Each connection is a ``THBaseService`` client over the
    endpoint's socket, TLS, HTTP or HTTPS transport (see
    :class:`~hmodel.backend.pool.PooledChannel` for the arguments).
    """

    service: Any = HBASE2.THBaseService
    decode_response = True
    server_errors = SERVER_ERRORS
    transport_errors = TRANSPORT_ERRORS
    encoding_errors = ENCODING_ERRORS
    backend = "Thrift2"
    track_lent = False  # close() closes the idle connections, a lent one when it is back
    count_interrupted = False
