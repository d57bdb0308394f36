"""What the Thrift1 and Thrift2 backends share: options, the pooled channel, names, plumbing."""

from __future__ import annotations

import random
import struct
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

from thriftpy2.thrift import TApplicationException

from hmodel.backend.base import Backend, Scan
from hmodel.backend.endpoint import Endpoint, HTTPOption, TLSOption, as_http, as_tls
from hmodel.backend.family_read import FamilyRead, family_read
from hmodel.backend.pool import PooledChannel
from hmodel.backend.retry import Retry
from hmodel.backend.sasl import Sasl
from hmodel.backend.template import MessageTemplate
from hmodel.backend.thrift_scanner import ScannerEdge
from hmodel.errors import (
    BackendError,
    IllegalArgumentError,
    TableNotFoundError,
    UnsupportedOperationError,
)

__all__ = ["NAMES_KEPT", "ThriftBackendBase"]

#: At most this many table names are remembered with their server names.
NAMES_KEPT = 1024

_B = TypeVar("_B", bound="ThriftBackendBase")


class ThriftBackendBase(Backend):
    """What :class:`~hmodel.backend.thrift.ThriftBackend` and its Thrift2 twin share.

    :class:`~hmodel.backend.thrift2.Thrift2Backend` and the Thrift1 backend differ in the
    calls they send, not in the rest, which is written once here: the
    :class:`~hmodel.backend.endpoint.Endpoint` built from the constructor's options (or
    :meth:`from_url`), the pooled channel (:attr:`channel_class`) and its round trips,
    table names mapped to server names (table prefix and separator, inside the
    namespace) and back, every call sent through :meth:`_rpc` with the server's errors
    translated (:meth:`server_error`), the close of a scanner the garbage collector drops
    during a call deferred to the next call, and scanners opened (:attr:`scanner_class`).
    A subclass names its classes and writes the calls of its protocol; its docstring
    documents the constructor's arguments.

    Raises:
        ConnectionLostError: ``autoconnect`` and the server cannot be reached.
        TLSError: ``autoconnect`` and the TLS handshake failed.
        AuthenticationError: ``autoconnect`` over HTTP and the credentials were refused.
        IllegalArgumentError: An option out of range, naming it.
    """

    #: The pooled channel of the protocol (its service, errors and pool policy).
    channel_class: ClassVar[type[PooledChannel]]
    #: The synchronous scanner of the protocol.
    scanner_class: ClassVar[type[ScannerEdge]]
    #: Reads of single columns as reads of their families (each backend's constructor
    #: sets it; see :mod:`hmodel.backend.family_read`).
    family_reads: bool
    #: The class name ``repr`` shows (the public class's, also for a subclass of it).
    display_name: ClassVar[str]
    #: The protocol the backend speaks, and the other one, for a wrong port's message.
    protocols: ClassVar[tuple[str, str]]

    def __init__(
        self,
        host: str = "localhost",
        port: int = 9090,
        *,
        timeout_ms: int | None = 10_000,
        transport: str = "buffered",
        protocol: str = "binary",
        tls: TLSOption = None,
        http: HTTPOption = None,
        table_prefix: str | None = None,
        table_prefix_separator: str = "_",
        pool_size: int = 4,
        retries: int = 3,
        retry_backoff_ms: int = 50,
        autoconnect: bool = True,
        sleep: Callable[[float], None] = time.sleep,
        retry_jitter: Callable[[], float] = random.random,
        sasl: Sasl | None = None,
    ) -> None:
        if table_prefix is not None and (not isinstance(table_prefix, str) or not table_prefix):
            raise IllegalArgumentError("table_prefix must be a non-empty str", value=table_prefix)
        if not isinstance(table_prefix_separator, str) or ":" in table_prefix_separator:
            raise IllegalArgumentError(
                "table_prefix_separator must be a str without ':'", value=table_prefix_separator
            )
        endpoint = Endpoint(
            host,
            port,
            timeout_ms=timeout_ms,
            transport=transport,
            protocol=protocol,
            tls=as_tls(tls),
            http=as_http(http),
            sasl=sasl,
        )
        self._data_names: dict[str, bytes] = {}
        self._table_prefix = table_prefix
        self._table_prefix_separator = table_prefix_separator
        self._deferred_closes: list[int] = []
        self._lock = threading.Lock()
        #: Calls sent to the server so far; each attempt of a retried call counts.
        self.round_trips = 0
        self._before_connect(endpoint)
        self._channel = self.channel_class(
            endpoint,
            pool_size=pool_size,
            retries=retries,
            retry_backoff_ms=retry_backoff_ms,
            sleep=sleep,
            count=self._count_round_trip,
            autoconnect=autoconnect,
            connector=self._connector(),
        )
        self._channel.jitter = retry_jitter
        codec = self._channel.codec
        #: Whether the calls travel as binary-protocol messages, so an operation may hand
        #: its call over written already (``request=``) instead of as structs; set by the
        #: asyncio backend on the backend whose operations it awaits, for its own channel.
        self.binary_requests = codec is not None and not codec.compact

    def _before_connect(self, endpoint: Endpoint) -> None:
        """Called by the constructor once the options are checked, before connecting."""

    def _connector(self) -> Any:
        """Where the channel's connections come from; ``None``: connections of its own."""
        return None

    def _count_round_trip(self) -> None:
        with self._lock:
            self.round_trips += 1

    @classmethod
    def from_url(
        cls: type[_B],
        url: str,
        *,
        tls: TLSOption = None,
        headers: Mapping[str, str] | None = None,
        **options: Any,
    ) -> _B:
        """A backend for the server a URL names.

        ``thrift://host:9090`` is a plain socket, ``thrift+tls://host:9090`` a socket in TLS
        (a TLS proxy in front of the server), ``http://host:9090/`` and
        ``https://host:9090/`` Thrift over HTTP(S) (``hbase.regionserver.thrift.http``),
        whose path is posted to; ``https://user:password@gateway:8443/gateway/default/hbase``
        adds HTTP basic authentication, as a gateway such as Apache Knox asks for. A URL
        without a port means 9090 for ``thrift`` and 80/443 for ``http``/``https``.

        Args:
            url: The URL.
            tls: The TLS settings of a ``thrift+tls`` or ``https`` URL (default:
                verification against the system's CAs).
            headers: Extra HTTP headers (``http``/``https`` URLs only).
            **options: The constructor's other keyword arguments (``table_prefix``,
                ``pool_size``, ``timeout_ms``...).

        Raises:
            IllegalArgumentError: An unknown scheme, no host, a bad port, or options the
                scheme cannot use; naming them.
        """
        endpoint = Endpoint.from_url(url, tls=tls, headers=headers)
        return cls(endpoint.host, endpoint.port, tls=endpoint.tls, http=endpoint.http, **options)

    def __enter__(self: _B) -> _B:
        return self

    def __repr__(self) -> str:
        prefix = f", table_prefix={self.table_prefix!r}" if self.table_prefix else ""
        if self._channel.endpoint.scheme != "thrift":
            return f"{self.display_name}.from_url({self.url!r}{prefix})"
        return f"{self.display_name}({self.host!r}, {self.port}{prefix})"

    @property
    def url(self) -> str:
        """Where calls go: ``thrift://``, ``thrift+tls://``, ``http://`` or ``https://``."""
        return self._channel.endpoint.url

    @property
    def endpoint(self) -> Endpoint:
        """Where and how this backend connects (address, framing, TLS, HTTP, SASL).

        For another client of the same server, e.g. the asyncio backend:
        ``AsyncThrift2Backend.from_endpoint(backend.endpoint)``.
        """
        return self._channel.endpoint

    @property
    def table_prefix(self) -> str | None:
        """Prepended, with :attr:`table_prefix_separator`, to every table name."""
        return self._table_prefix

    @table_prefix.setter
    def table_prefix(self, prefix: str | None) -> None:
        self._table_prefix = prefix
        self._data_names.clear()
        self._names_changed()

    @property
    def table_prefix_separator(self) -> str:
        """Between the table prefix and the name."""
        return self._table_prefix_separator

    @table_prefix_separator.setter
    def table_prefix_separator(self, separator: str) -> None:
        self._table_prefix_separator = separator
        self._data_names.clear()
        self._names_changed()

    def _names_changed(self) -> None:
        """Called after the table prefix or its separator changed."""

    @property
    def host(self) -> str:
        """The Thrift server's host."""
        return self._channel.host

    @property
    def port(self) -> int:
        """The Thrift server's port."""
        return self._channel.port

    # --- plumbing -------------------------------------------------------------------

    def _rpc(
        self,
        method: str,
        *args: Any,
        retry: Retry,
        table: str | None = None,
        row: bytes | None = None,
        column: bytes | None = None,
        filter_given: bool = False,
        request: bytes | None = None,
    ) -> Any:
        """Send one call; translate the server's errors with the call's context.

        ``request``: the call's message written already, for a channel on the binary
        wire (see :meth:`PooledChannel.call <hmodel.backend.pool.PooledChannel.call>`).
        """
        if self._deferred_closes:
            self._close_deferred()
        try:
            return self._channel.call(
                method, *args, retry=retry, table=table, row=row, request=request
            )
        except self._channel.server_errors as exc:
            raise self.server_error(
                exc, method=method, table=table, row=row, column=column, filter_given=filter_given
            ) from exc

    def _prepared(
        self,
        method: str,
        arguments: Callable[..., tuple[Any, ...]],
        *kinds: str,
        retry: Retry,
        table: str,
    ) -> Callable[..., Any]:
        """A sender of ``method(*arguments(*values))`` for a prepared call: its raw result.

        ``send(*values, row=None, column=None)`` sends the call through :meth:`_rpc`
        (retries, error translation with ``table``, ``row`` and ``column``), its message
        filled in from a template of ``kinds`` holes (:meth:`_template`) where there is
        one and the values fit it, else encoded from ``arguments(*values)``.
        """
        template = self._template(method, arguments, *kinds)
        call = self._rpc
        if template is None:

            def encoded(*values: Any, row: bytes | None = None, column: bytes | None = None) -> Any:
                return call(
                    method, *arguments(*values), retry=retry, table=table, row=row, column=column
                )

            return encoded
        fill = template.fill

        def filled(*values: Any, row: bytes | None = None, column: bytes | None = None) -> Any:
            try:
                request = fill(*values)
            except (TypeError, struct.error):  # not the holes' types (a subclass): encoded
                return call(
                    method, *arguments(*values), retry=retry, table=table, row=row, column=column
                )
            # On the wire with a template, the channel sends the request, not arguments.
            return call(method, retry=retry, table=table, row=row, column=column, request=request)

        return filled

    def _template(
        self, method: str, arguments: Callable[..., tuple[Any, ...]], *kinds: str
    ) -> MessageTemplate | None:
        """A template of ``method``'s message on this backend's wire, or ``None``.

        See :meth:`MessageTemplate.build <hmodel.backend.template.MessageTemplate.build>`.
        ``None`` off the wire (thriftpy2's client: SASL, a socket wrapper) and on the
        compact protocol: each call is then encoded from its arguments.
        """
        codec = self._channel.codec
        return None if codec is None else MessageTemplate.build(codec, method, arguments, *kinds)

    def server_error(
        self,
        exc: BaseException,
        *,
        method: str,
        table: str | None,
        row: bytes | None,
        column: bytes | None,
        filter_given: bool,
    ) -> BackendError:
        """The typed error of a server's answer ``exc`` to a call (both edges' translation).

        A data call's missing table is said with both its names, the server's (table
        prefix and namespace applied) and the declared one, and what creates it.
        """
        error = self._translate(
            exc,
            method=method,
            table=table,
            server_table=self._data_name(table) if isinstance(table, str) and table else None,
            row=row,
            column=column,
            filter_given=filter_given,
        )
        if (
            isinstance(exc, TApplicationException)
            and exc.type == TApplicationException.UNKNOWN_METHOD
        ):
            mine, other = self.protocols
            said = exc.message
            if isinstance(said, bytes):
                said = said.decode("utf-8", "replace")
            return UnsupportedOperationError(
                f"{method}: the server at {self.url} does not know this call, so it is not "
                f"an HBase {mine} server: is it the {other} one? {self.display_name} speaks "
                f"{mine} (HBase starts Thrift1 with `hbase thrift start`, Thrift2 with "
                "`hbase thrift2 start`, both on port 9090 by default: a cluster running both "
                f"gives them two ports) (the server said: {said})",
                table=table,
                row=row,
            )
        data_call = "Table" not in method  # deleteTable, getTableRegions...: admin calls
        if type(error) is TableNotFoundError and data_call and isinstance(table, str) and table:
            server = self._server_name(table)
            named = f"{server!r}" if server == table else f"{server!r} (declared as {table!r})"
            error = TableNotFoundError(
                f"{method}: the server has no table {named}; create it with "
                "create_table() / Store.create_tables(), or hmodel migrate MODULE --apply",
                table=table,
                row=row,
                column=column,
            )
        return error

    def _translate(
        self,
        exc: BaseException,
        *,
        method: str,
        table: str | None,
        server_table: bytes | None,
        row: bytes | None,
        column: bytes | None,
        filter_given: bool,
    ) -> BackendError:
        """The protocol's error translation; ``server_table`` is the name sent, prefixed."""
        raise NotImplementedError

    def _close_deferred(self) -> None:
        """Close the scanners the garbage collector dropped while a call was running."""
        if not self._deferred_closes or self._channel.busy_here():
            return
        with self._lock:
            scanners, self._deferred_closes = self._deferred_closes, []
        for scanner in scanners:
            # Never raises: the server expires abandoned scanners anyway.
            self._close_scanner_quietly(scanner)

    def _close_scanner_quietly(self, scanner: int) -> None:
        """Close a scanner no iterator holds any more; never raises."""
        raise NotImplementedError

    def _defer_close(self, scanner: int) -> None:
        with self._lock:
            self._deferred_closes.append(scanner)

    def _server_name(self, name: str) -> str:
        """The table name sent to the server: ``[namespace:]prefix<sep>name``.

        Raises:
            IllegalArgumentError: ``name`` is not a non-empty ``str``.
        """
        if not isinstance(name, str) or not name:
            raise IllegalArgumentError("a table name is a non-empty str", value=name)
        if self._table_prefix is None:
            return name
        namespace, colon, table = name.rpartition(":")
        return f"{namespace}{colon}{self._table_prefix}{self._table_prefix_separator}{table}"

    def server_table_name(self, table: str) -> str:
        """The name sent to the server: ``[namespace:]prefix<sep>table`` with a prefix."""
        return self._server_name(table)

    def _data_name(self, name: str) -> bytes:
        """The ``table`` argument of the data calls: the server name as UTF-8 bytes.

        Remembered per name (a ``str``: its hash is cached, so the lookup is cheap), at
        most :data:`NAMES_KEPT` of them.
        """
        if type(name) is str:
            known = self._data_names.get(name)
            if known is not None:
                return known
        data_name = self._server_name(name).encode()
        if type(name) is str and len(self._data_names) < NAMES_KEPT:
            self._data_names[name] = data_name
        return data_name

    def _visible_name(self, server_name: str) -> str | None:
        """The caller's name of a server table, or ``None`` if it lacks this prefix."""
        if self._table_prefix is None:
            return server_name
        namespace, colon, table = server_name.rpartition(":")
        head = self._table_prefix + self._table_prefix_separator
        if not table.startswith(head) or len(table) == len(head):
            return None
        return f"{namespace}{colon}{table[len(head) :]}"

    def _open_scanner(self, table: str, scan: Scan, server_table: bytes) -> Any:
        """A scanner of the protocol over ``scan``, opened now (see :attr:`scanner_class`)."""
        return self.scanner_class(
            rpc=self._rpc,
            table=table,
            server_table=server_table,
            scan=scan,
            retries=self._channel.retries,
            busy_here=self._channel.busy_here,
            defer_close=self._defer_close,
            read=self.scan_read(table, scan),
        )

    def scan_read(self, table: str, scan: Scan) -> FamilyRead | None:
        """The families ``scan`` sends instead of its columns; ``None``: as named.

        With :attr:`family_reads`, a scan of single columns and no filter of its own
        reads their families (:func:`~hmodel.backend.family_read.family_read`):
        Thrift1's scanner keeps the columns in the client, Thrift2's sends
        :func:`~hmodel.backend.family_read.exact_filter`. A scan with a filter names its
        columns: its filter then sees only their cells, as HBase applies it after the
        column selection. Both edges' scanners take it.
        """
        if scan.filter is not None or not scan.columns or not self.family_reads:
            return None
        return family_read(list(scan.columns))

    def close(self) -> None:
        """Close every pooled connection; the backend is unusable afterwards."""
        self._close_deferred()
        self._channel.close()
