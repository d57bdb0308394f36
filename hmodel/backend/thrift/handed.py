"""Calls of the Thrift1 backend through a team's existing happybase connection or pool."""

from __future__ import annotations

import socket
from typing import Any

import happybase
from happybase.connection import THRIFT_PROTOCOLS, THRIFT_TRANSPORTS

from hmodel.backend.connection import dropped
from hmodel.errors import IllegalArgumentError

__all__ = ["HappybaseConnections"]


def _socket_of(connection: Any) -> Any:
    """The socket under a happybase connection's thriftpy2 transport (``None``: not open)."""
    # thriftpy2's (Cython) buffered or framed transport, over a TSocket, over the socket.
    layer = connection.transport
    for _ in range(3):
        if layer is None or isinstance(layer, socket.socket):
            return layer
        layer = getattr(layer, "sock", None) or getattr(layer, "_trans", None)
    return None


class _Lent:
    """One place in the backend's pool, calling through the happybase connection(s).

    Over a ``ConnectionPool`` each call takes a connection from it for the call's duration
    (``pool.connection()``, which replaces a connection whose call failed); over one
    ``Connection`` the call uses it. Either way a connection whose socket the server
    closed while idle (see :func:`~hmodel.backend.connection.dropped`) is reopened before
    the call is sent.
    """

    __slots__ = ("_source",)

    def __init__(self, source: HappybaseConnections) -> None:
        self._source = source

    def call(self, method: str, args: tuple[Any, ...], request: bytes | None) -> Any:
        pool = self._source.pool
        if pool is None:
            connection = self._source.connection
            _ready(connection)
            return getattr(connection.client, method)(*args)
        with pool.connection() as connection:
            _ready(connection)
            return getattr(connection.client, method)(*args)

    def stale(self) -> bool:
        return False  # each call checks the happybase connection it uses (_ready)

    def close(self) -> None:
        """A place freed: a single connection whose call failed is reopened when next used.

        A pool's connections are the pool's: it replaced a failed one itself.
        """
        connection = self._source.connection
        if self._source.pool is None and connection is not None:
            self._source.broken = True


def _ready(connection: Any) -> None:
    """Open ``connection`` if it is closed, reopen it if the server closed it while idle."""
    sock = _socket_of(connection)
    if sock is not None and not dropped(sock):
        return
    connection.close()
    connection.open()


class HappybaseConnections:
    """Where a Thrift1 backend made by ``ThriftBackend.from_happybase`` gets its connections.

    Calls go through happybase's own thriftpy2 client (field-by-field encoding), not
    hmodel's wire: :attr:`codec` is ``None``.

    Args:
        source: A ``happybase.Connection`` (the backend's pool then holds one place: a
            happybase connection serves one thread at a time) or a
            ``happybase.ConnectionPool`` (as many places as the pool's size).

    Raises:
        IllegalArgumentError: ``source`` is neither.

    Attributes:
        pool: The ``ConnectionPool``, or ``None``.
        connection: The ``Connection`` (for a pool: one of its connections, for its
            settings), never ``None`` once made.
        size: How many calls may run at once.
        host, port, transport, protocol, table_prefix, table_prefix_separator: The
            happybase connection's settings, in the backend's terms.
    """

    codec = None

    def __init__(self, source: Any) -> None:
        self.pool: Any = None
        if isinstance(source, happybase.ConnectionPool):
            self.pool = source
            with source.connection() as connection:
                self.connection: Any = connection
            queue = getattr(source, "_queue", None)
            self.size = max(1, int(getattr(queue, "maxsize", 1) or 1))
        elif isinstance(source, happybase.Connection):
            self.connection = source
            self.size = 1
        else:
            raise IllegalArgumentError(
                "from_happybase takes a happybase.Connection or happybase.ConnectionPool",
                value=source,
            )
        self.broken = False
        connection = self.connection
        self.host: str = connection.host
        self.port: int = connection.port
        self.transport = next(
            (k for k, v in THRIFT_TRANSPORTS.items() if v is connection._transport_class),
            "buffered",
        )
        self.protocol = next(
            (k for k, v in THRIFT_PROTOCOLS.items() if v is connection._protocol_class), "binary"
        )
        prefix = connection.table_prefix
        self.table_prefix: str | None = prefix.decode() if prefix is not None else None
        self.table_prefix_separator: str = connection.table_prefix_separator.decode()

    def open(self) -> _Lent:
        """A place for one call at a time (opens nothing: happybase connects when used)."""
        if self.broken:  # the last call on the single connection failed mid-way
            self.broken = False
            self.connection.close()
        return _Lent(self)
