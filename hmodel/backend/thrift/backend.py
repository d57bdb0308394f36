"""The Thrift backend: the bytes-level Backend protocol over HBase's Thrift1 API."""

from __future__ import annotations

import random
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hmodel.backend.argument import (
    MAX_ROW_LENGTH,
    require_amount,
    require_before,
    require_row,
)
from hmodel.backend.base import (
    Backend,
    Cell,
    Increment,
    Mutation,
    Put,
    Region,
    RowBatch,
    RowResult,
    Scan,
    family_of,
)
from hmodel.backend.endpoint import Endpoint, HTTPOption, TLSOption
from hmodel.backend.family_read import family_read
from hmodel.backend.op import Call, Op, rpc, run
from hmodel.backend.sasl import Sasl
from hmodel.backend.template import I64, STRING
from hmodel.backend.thrift.admin import Admin, admin_backend
from hmodel.backend.thrift.argument import (
    read_columns,
    require_bytes,
    require_cell_column,
    require_each,
)
from hmodel.backend.thrift.batch import (
    Thrift1RowBatch,
    plan_batches,
    row_batches,
    ttl_attribute,
)
from hmodel.backend.thrift.channel import Channel, Retry
from hmodel.backend.thrift.descriptor import (
    ddl_hint,
    family_names,
    from_descriptor,
    to_descriptor,
    uncarried_options,
)
from hmodel.backend.thrift.error import server_error
from hmodel.backend.thrift.handed import HappybaseConnections
from hmodel.backend.thrift.idl import Mutation as TMutation
from hmodel.backend.thrift.idl import TAppend, TIncrement
from hmodel.backend.thrift.request import mutate_rows_ts
from hmodel.backend.thrift.result import (
    cell,
    in_column_order,
    kept_rows,
    row_result,
    row_results,
)
from hmodel.backend.thrift.scanner import ScannerIterator, close_scanner
from hmodel.backend.thrift_base import ThriftBackendBase
from hmodel.errors import (
    BackendError,
    ColumnFamilyNotFoundError,
    HModelError,
    IllegalArgumentError,
    TableNotFoundError,
    UnsupportedOperationError,
)
from hmodel.schema.family import Family
from hmodel.schema.table import Table

__all__ = ["ThriftBackend"]


#: A read's columns as sent, the columns it keeps (``None``: all it gets) and whether
#: :attr:`ThriftBackend.family_reads` was on when it was worked out.
_ReadList = tuple[list[bytes], frozenset[bytes] | None, bool]

#: The read list of "every column".
_ALL: _ReadList = ([], None, False)


class _FamiliesNeeded(Exception):  # noqa: N818 -- a signal, not an error
    """``plan_batches`` asked for the table's families before they were read."""


def _families_not_read() -> tuple[bytes, ...]:
    raise _FamiliesNeeded


class _Unset:
    """The type of :data:`_UNSET`: an option not given (``None`` means no prefix)."""


_UNSET = _Unset()


class ThriftBackend(ThriftBackendBase):
    """The :class:`~hmodel.backend.base.Backend` protocol over HBase's Thrift1 server.

    Speaks the ``Hbase`` service of the IDL happybase ships: a pool
    (:class:`~hmodel.backend.thrift.channel.Channel`) holds up to ``pool_size`` thriftpy2
    clients of it and each request borrows one for exactly one RPC, so the backend may be
    shared by many threads. (happybase's ``Table`` does not expose the RPCs the protocol
    needs: ``checkAndPut``, ``incrementRows``, ``append``, ``getVerTs``,
    ``getRowsWithColumnsTs`` with no columns.) The connections are plain sockets by
    default; ``tls`` and ``http`` choose TLS, Thrift over HTTP or HTTPS (HBase's
    ``hbase.regionserver.thrift.http`` mode, and gateways in front of it), also written as
    a URL with :meth:`from_url`. Every protocol call is one RPC (:attr:`round_trips`
    counts them; over HTTP one ``POST``), except:

    * :meth:`scan`: ``scannerOpenWithScan``, one ``scannerGetList`` per ``batch_size``
      rows, and ``scannerClose``;
    * :meth:`mutate`: one ``mutateRows``/``mutateRowsTs`` per distinct ``(timestamp,
      ttl)`` pair, plus one ``getColumnDescriptors`` the first time a table sees a
      whole-row delete or a multi-call mutate (the families are cached per table);
    * :meth:`delete_table` (``isTableEnabled``, ``disableTable``, ``deleteTable``);
    * retries after a dropped connection (see ``docs/thrift.md``).

    Args:
        host: The HBase Thrift1 server's host.
        port: Its port (HBase's default is 9090).
        timeout_ms: Connect and socket timeout in milliseconds; ``None``: wait forever.
        transport: ``"buffered"`` (the server's default ``-threadpool`` mode) or
            ``"framed"`` (``-hsha``, ``-nonblocking``, ``-threadedselector``); over HTTP
            only ``"buffered"``.
        protocol: ``"binary"`` or ``"compact"`` (the server's ``-compact`` flag); over
            HTTP only ``"binary"``.
        tls: TLS for the connection (:class:`~hmodel.backend.endpoint.TLS` settings, an
            ``ssl.SSLContext``, or ``True``: verify against the system's CAs); ``None``:
            none. With ``http`` this is HTTPS; over a socket, Thrift inside TLS, which a
            TLS proxy in front of the server serves (HBase's own TLS is HTTP only).
        http: Thrift over HTTP (:class:`~hmodel.backend.endpoint.HTTP` settings, a URL
            path, or ``True`` for path ``/``): the server runs with
            ``hbase.regionserver.thrift.http=true``, or a gateway stands in front of it;
            ``None``: a plain Thrift socket.
        table_prefix: Prepended, with ``table_prefix_separator``, to every table name
            (inside its namespace: ``ns:t`` becomes ``ns:prefix_t``); :meth:`list_tables`
            strips it and hides tables without it.
        table_prefix_separator: Between prefix and name.
        pool_size: Connections in the pool (>= 1).
        retries: How many times a request whose connection dropped may be sent again.
        retry_backoff_ms: Pause before the first retry, doubled for each further one
            (at most 5 s).
        autoconnect: Connect now, failing now if the server is unreachable.
        lenient_ddl: Let :meth:`create_table` create what Thrift1 can carry and warn about
            the rest, instead of refusing.
        admin: Where :meth:`create_table` sends a table Thrift1's ``createTable`` cannot
            carry (split points, MIN_VERSIONS, ...): a Thrift2 server, as ``"host:port"``,
            as its port on ``host`` (HBase runs ``hbase thrift2`` beside ``hbase thrift``),
            or as a :class:`~hmodel.backend.base.Backend` with the same table prefix
            (typically a :class:`~hmodel.backend.thrift2.Thrift2Backend`). The table is
            then created whole, options and split points included, by Thrift2's
            ``createTable``. ``None`` (the default): no such route.
        sleep: Called with the pause in seconds between retries (inject in tests).
        retry_jitter: Returns a float from 0 to 1 that spreads each retry pause between
            half and all of the backoff (default ``random.random``; inject a constant or
            a seeded ``random.Random(seed).random`` in tests).
        sasl: Authenticate every connection with SASL, as a secured HBase Thrift server
            (``hbase.thrift.security.qop`` set) requires:
            :class:`~hmodel.backend.sasl.Kerberos` (GSSAPI) or
            :class:`~hmodel.backend.sasl.Plain`; buffered transport only. ``None`` (the
            default): no authentication.
        family_reads: Send a read of ``family:qualifier`` columns (:meth:`get`,
            :meth:`scan` without a filter) as a read of their families and keep the
            columns asked for (:mod:`hmodel.backend.family_read`): HBase reads a family
            without seeking from column to column, so the server spends about half the
            time per row (``docs/thrift.md``). The results are the same; the family's
            other cells cross the wire and are dropped. ``False``: name the columns, for
            families holding many cells the reads do not want. Readable and settable
            as the attribute of the same name; a one-row reader :meth:`prepare_get`
            made earlier keeps the setting it was made with (the same results).

    Raises:
        ConnectionLostError: ``autoconnect`` and the server cannot be reached.
        TLSError: ``autoconnect`` and the TLS handshake failed (an untrusted certificate).
        AuthenticationError: ``autoconnect`` over HTTP and the credentials were refused.
        IllegalArgumentError: An option out of range, or a combination the server cannot
            serve (``transport="framed"`` or ``protocol="compact"`` with ``http``), naming
            the option.
    """

    channel_class = Channel
    scanner_class = ScannerIterator
    display_name = "ThriftBackend"
    protocols = ("Thrift1", "Thrift2")

    #: No check-and-delete: Thrift1 has no such RPC.
    capabilities: frozenset[str] = frozenset()

    #: The Thrift1 RPCs behind each protocol method (``docs/thrift.md`` details them).
    rpc_names: Mapping[str, str] = {
        "create_table": "createTable",
        "delete_table": "isTableEnabled + disableTable + deleteTable",
        "table_exists": "getTableNames",
        "list_tables": "getTableNames",
        "describe_families": "getColumnDescriptors",
        "regions": "getTableRegions",
        "get": "getRowsWithColumns(Ts)",
        "get_versions": "getVer(Ts)",
        "scan": "scannerOpenWithScan + scannerGetList + scannerClose",
        "mutate": "mutateRows(Ts)",
        "increment": "atomicIncrement",
        "increment_many": "incrementRows",
        "check_and_put": "checkAndPut",
        "append": "append",
    }

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
        lenient_ddl: bool = False,
        admin: Admin | None = None,
        sleep: Callable[[float], None] = time.sleep,
        retry_jitter: Callable[[], float] = random.random,
        sasl: Sasl | None = None,
        family_reads: bool = True,
    ) -> None:
        self.lenient_ddl = lenient_ddl
        self.family_reads = family_reads
        self._admin_option = admin
        self._admin: Backend | None = None
        self._owns_admin = admin is not None and not isinstance(admin, Backend)
        self._families: dict[bytes, tuple[bytes, ...]] = {}
        self._read_lists: dict[int, tuple[tuple[bytes, ...], _ReadList]] = {}
        super().__init__(
            host,
            port,
            timeout_ms=timeout_ms,
            transport=transport,
            protocol=protocol,
            tls=tls,
            http=http,
            table_prefix=table_prefix,
            table_prefix_separator=table_prefix_separator,
            pool_size=pool_size,
            retries=retries,
            retry_backoff_ms=retry_backoff_ms,
            autoconnect=autoconnect,
            sleep=sleep,
            retry_jitter=retry_jitter,
            sasl=sasl,
        )

    def _before_connect(self, endpoint: Endpoint) -> None:
        """Resolve ``admin=`` (a bad one fails before any connection is opened)."""
        if self._admin_option is not None:
            self._admin = admin_backend(
                self._admin_option,
                endpoint=endpoint,
                table_prefix=self._table_prefix,
                table_prefix_separator=self._table_prefix_separator,
            )

    #: The happybase connection(s) of :meth:`from_happybase`; ``None``: hmodel's own.
    _handed: HappybaseConnections | None = None

    def _connector(self) -> HappybaseConnections | None:
        return self._handed

    @classmethod
    def from_happybase(
        cls,
        source: Any,
        *,
        table_prefix: str | _Unset | None = _UNSET,
        table_prefix_separator: str | None = None,
        retries: int = 3,
        retry_backoff_ms: int = 50,
        lenient_ddl: bool = False,
        admin: Admin | None = None,
        sleep: Callable[[float], None] = time.sleep,
        retry_jitter: Callable[[], float] = random.random,
        family_reads: bool = True,
    ) -> ThriftBackend:
        """A backend calling through an existing ``happybase.Connection`` or ``ConnectionPool``.

        For a team moving from happybase: models and repositories run over the
        connections its code already opens, with the same results as the default
        backend. Calls then go through happybase's thriftpy2 client (its transport and
        protocol, encoded field by field), not hmodel's wire, so they cost more client
        CPU (``docs/thrift.md``); the rest is the same: retries with backoff, the
        sent/not-sent classification of a dropped call, :attr:`round_trips`, errors
        translated. A connection the server closed while idle is reopened before a call
        is sent on it.

        A ``Connection`` serves one call at a time (happybase's connections are not
        thread-safe: concurrent calls wait for it); a ``ConnectionPool`` as many as its
        size, each call taking one of its connections for the call's duration (the pool
        replaces one whose call failed). :meth:`close` leaves the happybase
        connections open: they are the caller's.

        Args:
            source: The ``happybase.Connection`` or ``happybase.ConnectionPool``.
            table_prefix: Prepended to every table name (default: the happybase
                connection's ``table_prefix``, so both name the same tables).
            table_prefix_separator: Between prefix and name (default: the happybase
                connection's).
            retries: As for the constructor.
            retry_backoff_ms: As for the constructor.
            lenient_ddl: As for the constructor.
            admin: As for the constructor.
            sleep: As for the constructor.
            retry_jitter: As for the constructor.
            family_reads: As for the constructor.

        Raises:
            IllegalArgumentError: ``source`` is neither a happybase ``Connection`` nor a
                ``ConnectionPool``, or an option is out of range.
        """
        handed = HappybaseConnections(source)
        backend = cls.__new__(cls)
        backend._handed = handed
        backend.__init__(  # type: ignore[misc]  # the constructor, on the handed connections
            handed.host,
            handed.port,
            transport=handed.transport,
            protocol=handed.protocol,
            table_prefix=handed.table_prefix if isinstance(table_prefix, _Unset) else table_prefix,
            table_prefix_separator=(
                handed.table_prefix_separator
                if table_prefix_separator is None
                else table_prefix_separator
            ),
            pool_size=handed.size,
            retries=retries,
            retry_backoff_ms=retry_backoff_ms,
            autoconnect=False,
            lenient_ddl=lenient_ddl,
            admin=admin,
            sleep=sleep,
            retry_jitter=retry_jitter,
            family_reads=family_reads,
        )
        return backend

    def _names_changed(self) -> None:
        if self._admin is not None and self._owns_admin:
            self._admin.table_prefix = self._table_prefix  # type: ignore[attr-defined]
            self._admin.table_prefix_separator = (  # type: ignore[attr-defined]
                self._table_prefix_separator
            )

    # --- plumbing -------------------------------------------------------------------

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
        return server_error(
            exc,
            method=method,
            table=table,
            server_table=None if server_table is None else server_table.decode(),
            row=row,
            column=column,
            filter_given=filter_given,
        )

    def _close_scanner_quietly(self, scanner: int) -> None:
        close_scanner(self._rpc, scanner, table=None)  # never raises

    def _table_families(self, name: str) -> Op[tuple[bytes, ...]]:
        """The family names of ``name``, from the cache or one ``getColumnDescriptors``."""
        server_name = self._data_name(name)
        families = self._families.get(server_name)
        if families is None:
            descriptors = yield rpc(
                "getColumnDescriptors", server_name, retry=Retry.IDEMPOTENT, table=name
            )
            families = self._families[server_name] = family_names(descriptors.values())
        return families

    def _require_families(self, table: str, mutations: Sequence[Mutation]) -> Op[None]:
        """Raise unless every family ``mutations`` name is one of the table's.

        Checked against the cached families; a family not among them has the cache read
        again once (it may have been added since) before the call is refused.

        Raises:
            ColumnFamilyNotFoundError: A mutation names a family the table lacks.
        """
        columns = {m.column for m in mutations}  # a batch names few: split each once
        columns.discard(None)
        named = {family_of(column) for column in columns if column is not None}
        known = set((yield from self._table_families(table)))
        if named <= known:
            return
        self._families.pop(self._data_name(table), None)
        known = set((yield from self._table_families(table)))
        for mutation in mutations:
            column = mutation.column
            if column is not None and family_of(column) not in known:
                raise ColumnFamilyNotFoundError(
                    "the table has no such column family; nothing was applied",
                    table=table,
                    row=mutation.row,
                    column=column,
                )

    # --- admin ----------------------------------------------------------------------

    def create_table(self, table: Table) -> None:
        """Create ``table`` with ``createTable``: one ``ColumnDescriptor`` per family.

        Thrift1 carries VERSIONS, TTL, COMPRESSION, IN_MEMORY, BLOOMFILTER and BLOCKCACHE.
        Anything else set away from HBase's default (split points, MIN_VERSIONS,
        KEEP_DELETED_CELLS, DATA_BLOCK_ENCODING, BLOCKSIZE, REPLICATION_SCOPE, table
        options) cannot be sent over Thrift1. With ``admin=`` (a Thrift2 server), such a
        table is created whole by the admin's ``createTable`` instead (one Thrift2 RPC).
        Without it, the table is refused with :class:`UnsupportedOperationError` naming
        each option and the ways out (``admin=``, ``lenient_ddl=True``, the HBase shell
        statement), unless the backend was made with ``lenient_ddl=True``: then the
        table is created without them and a ``UserWarning`` lists what was left out, once
        the table was created (a table that exists raises
        :class:`~hmodel.errors.TableExistsError` and is not warned about, so a
        ``create_table(exist_ok=True)`` at every start warns only the first time).
        Never retried once sent.

        Raises:
            TableExistsError: The table exists.
            UnsupportedOperationError: Options Thrift1 cannot carry, with no ``admin=``
                and not lenient.
        """
        left_out = uncarried_options(table)
        server_name = self._data_name(table.full_name)
        if left_out and self._admin is not None:
            self._families.pop(server_name, None)
            self._admin.create_table(table)
            self._families[server_name] = tuple(f.name_bytes for f in table.families)
            return
        if left_out:
            listed = ", ".join(left_out)
            if not self.lenient_ddl:
                raise UnsupportedOperationError(
                    f"HBase's Thrift1 createTable cannot carry {listed}. Ways out: "
                    "admin='host:port' of a Thrift2 server (hbase thrift2) creates the table "
                    "whole through it; lenient_ddl=True creates it without them, with a "
                    f"warning; or {ddl_hint(table, self._server_name(table.full_name))}",
                    table=table.full_name,
                )
        self._families.pop(server_name, None)
        self._rpc(
            "createTable",
            server_name,
            [to_descriptor(family) for family in table.families],
            retry=Retry.UNSENT,
            table=table.full_name,
        )
        self._families[server_name] = tuple(f.name_bytes for f in table.families)
        if left_out:  # only once the table was created: an existing one is not warned about
            warnings.warn(
                f"table {table.full_name!r} created over Thrift1 WITHOUT "
                f"{', '.join(left_out)} (lenient_ddl=True); set them with the HBase shell",
                UserWarning,
                stacklevel=2,
            )

    def delete_table(self, name: str) -> None:
        """Disable ``name`` if enabled, then delete it (up to three RPCs).

        Raises:
            TableNotFoundError: No such table.
        """
        server_name = self._data_name(name)
        self._families.pop(server_name, None)
        if self._rpc("isTableEnabled", server_name, retry=Retry.IDEMPOTENT, table=name):
            self._rpc("disableTable", server_name, retry=Retry.UNSENT, table=name)
        self._rpc("deleteTable", server_name, retry=Retry.UNSENT, table=name)

    def table_exists(self, name: str) -> bool:
        """Whether ``name`` exists: one ``getTableNames`` (Thrift1 has no ``tableExists``)."""
        server_name = self._data_name(name)
        names = self._rpc("getTableNames", retry=Retry.IDEMPOTENT, table=name)
        return server_name in names

    def list_tables(self) -> list[str]:
        """Names of this prefix's tables (prefix stripped), sorted: one ``getTableNames``."""
        names = self._rpc("getTableNames", retry=Retry.IDEMPOTENT)
        visible = (self._visible_name(raw.decode("utf-8", "replace")) for raw in names)
        return sorted(name for name in visible if name is not None)

    def describe_families(self, name: str) -> dict[str, Family]:
        """The families of ``name`` as ``getColumnDescriptors`` reports them.

        Visible over Thrift1: VERSIONS, TTL, COMPRESSION, IN_MEMORY, BLOOMFILTER and
        BLOCKCACHE; the other options of the returned families are HBase's defaults.
        Refreshes the family cache :meth:`mutate` uses for whole-row deletes.

        Raises:
            TableNotFoundError: No such table.
            UnsupportedOperationError: A family has a ``ROWPREFIX_FIXED_LENGTH`` bloom
                filter (Thrift1 does not report its prefix length).
        """
        server_name = self._data_name(name)
        descriptors = self._rpc(
            "getColumnDescriptors", server_name, retry=Retry.IDEMPOTENT, table=name
        )
        self._families[server_name] = family_names(descriptors.values())
        families = [from_descriptor(d, table=name) for d in descriptors.values()]
        families.sort(key=lambda f: f.name_bytes)
        return {f.name: f for f in families}

    def regions(self, name: str) -> list[Region]:
        """The regions of ``name`` from ``getTableRegions``, in key order.

        Raises:
            TableNotFoundError: No such table (HBase answers an empty list for one).
        """
        infos = self._rpc(
            "getTableRegions", self._data_name(name), retry=Retry.IDEMPOTENT, table=name
        )
        if not infos:
            raise TableNotFoundError("no regions: the table does not exist", table=name)
        regions = [Region(start=i.startKey or b"", end=i.endKey or b"") for i in infos]
        return sorted(regions, key=lambda r: r.start)

    # --- reads ----------------------------------------------------------------------

    def _read_columns(self, columns: Sequence[bytes], table: str) -> _ReadList:
        """The checked column list a read sends, and the columns it keeps.

        With :attr:`family_reads`, single columns are sent as their families and the
        second item is the set of columns to keep (:func:`family_read`); otherwise the
        columns go as they are (:func:`read_columns`) and it is ``None``. A tuple of
        exact ``bytes`` (a repository's column list, the same tuple on every read) is
        checked and ordered once and remembered by identity (at most 64, each kept alive
        with its list, per setting of :attr:`family_reads`); the list is only ever sent,
        never changed.
        """
        widen = bool(self.family_reads)
        known = self._read_lists.get(id(columns))
        if known is not None and known[0] is columns and known[1][2] == widen:
            return known[1]
        checked = require_each("columns", columns, table=table)
        widened = family_read(checked) if widen else None
        wanted: _ReadList = (
            (read_columns(checked), None, widen)
            if widened is None
            else (widened.families, widened.keep, widen)
        )
        if (
            type(columns) is tuple
            and len(self._read_lists) < 64
            and all(type(column) is bytes for column in columns)
        ):
            self._read_lists[id(columns)] = (columns, wanted)
        return wanted

    def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        """Read rows with one ``getRowsWithColumns`` (``getRowsWithColumnsTs`` with ``before``).

        The column list is always sent, empty for "all columns": some HBase versions apply
        the timestamp of ``getRowsWithColumnsTs`` only when a list is present (happybase's
        ``Table.rows`` works around that by listing the families; an empty list is enough
        and costs no extra RPC). No RPC for an empty ``rows``.
        """
        return run(self.get_op(table, rows, columns=columns, before=before), self._rpc)

    def get_op(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> Op[list[RowResult]]:
        """The operation of :meth:`get` (sans-I/O: yields its calls)."""
        keys = list(rows)
        for key in keys:
            if type(key) is not bytes or not 0 < len(key) <= MAX_ROW_LENGTH:
                require_row(key, table=table, argument="rows")  # raises, or a bytes subclass
        wanted, keep, _ = _ALL if columns == () else self._read_columns(columns, table)
        if before is not None:
            require_before(before, table=table)
        if not keys:
            return []
        server_name = self._data_name(table)
        if before is None:
            results = yield rpc(
                "getRowsWithColumns",
                server_name,
                keys,
                wanted,
                {},
                retry=Retry.IDEMPOTENT,
                table=table,
            )
        else:
            results = yield rpc(
                "getRowsWithColumnsTs",
                server_name,
                keys,
                wanted,
                before,
                {},
                retry=Retry.IDEMPOTENT,
                table=table,
            )
        return row_results(results, keep)

    def prepare_get(
        self, table: str, columns: Sequence[bytes] = ()
    ) -> Callable[[bytes], RowResult | None] | None:
        """A reader of one row of ``table`` by rowkey: :meth:`get` of ``[row]``, prepared.

        The ``getRowsWithColumns`` message is encoded once (a
        :class:`~hmodel.backend.template.MessageTemplate` with the rowkey as its hole),
        so a read joins bytes and sends them: the same bytes, the same result and the
        same errors as ``get(table, [row], columns=columns)``, at a fraction of the
        client's work. ``None`` when a subclass overrides :meth:`get` (its reads must
        go through it).

        Also ``None`` for a column that is not ``family:qualifier`` bytes: each ``get``
        raises that, as it does on the general path.
        """
        if type(self).get is not ThriftBackend.get:
            return None
        try:
            wanted, keep, _ = _ALL if columns == () else self._read_columns(columns, table)
        except IllegalArgumentError:
            return None  # each get raises it, as the general path does
        server_name = self._data_name(table)
        send = self._prepared(
            "getRowsWithColumns",
            lambda row: (server_name, [row], wanted, {}),
            STRING,
            retry=Retry.IDEMPOTENT,
            table=table,
        )

        row_of = row_result if keep is None else kept_rows(keep)

        def get_row(row: bytes) -> RowResult | None:
            if type(row) is not bytes or not 0 < len(row) <= MAX_ROW_LENGTH:
                require_row(row, table=table, argument="rows")  # raises, or a bytes subclass
            for tresult in send(row):
                result = row_of(tresult)
                if result is not None:
                    return result
            return None

        return get_row

    def get_versions(
        self,
        table: str,
        row: bytes,
        column: bytes,
        *,
        max_versions: int,
        before: int | None = None,
    ) -> list[Cell]:
        """Read versions newest first with one ``getVer`` (``getVerTs`` with ``before``)."""
        return run(
            self.get_versions_op(table, row, column, max_versions=max_versions, before=before),
            self._rpc,
        )

    def get_versions_op(
        self,
        table: str,
        row: bytes,
        column: bytes,
        *,
        max_versions: int,
        before: int | None = None,
    ) -> Op[list[Cell]]:
        """The operation of :meth:`get_versions` (sans-I/O: yields its calls)."""
        require_row(row, table=table)
        require_before(before, table=table, row=row)
        require_cell_column(column, table=table, row=row, what="get_versions")
        if isinstance(max_versions, bool) or not isinstance(max_versions, int) or max_versions < 1:
            raise IllegalArgumentError(
                "max_versions must be an integer >= 1", table=table, row=row, value=max_versions
            )
        server_name = self._data_name(table)
        if before is None:
            cells = yield rpc(
                "getVer", server_name, row, column, max_versions, {},
                retry=Retry.IDEMPOTENT, table=table, row=row, column=column,
            )  # fmt: skip
        else:
            cells = yield rpc(
                "getVerTs", server_name, row, column, before, max_versions, {},
                retry=Retry.IDEMPOTENT, table=table, row=row, column=column,
            )  # fmt: skip
        return [cell(c) for c in cells]

    def scan(self, table: str, scan: Scan) -> ScannerIterator:
        """Iterate ``scan`` through a server scanner (see :class:`ScannerIterator`).

        The scanner is opened now with ``scannerOpenWithScan`` (``startRow``/``stopRow``,
        ``columns``, ``filterString``, ``timestamp=before``, ``caching=batch_size``,
        ``reversed``); ``limit`` is applied by the client, which fetches no more rows
        than it needs. The range is the protocol's ``[start, stop)``: rows at or past
        ``stop`` are dropped (HBase's Thrift1 server reads the row itself when ``startRow``
        equals ``stopRow``). The returned iterator is also a context manager.

        Raises:
            TableNotFoundError: No such table.
            FilterError: The server could not parse ``scan.filter``.
            UnsupportedOperationError: A reversed scan whose filter leaves a scanned family
                to be loaded on demand (HBase's ``DoNotRetryIOException``).
            ReadInterruptedError: While iterating: the connection dropped during fetches
                more times in a row than ``retries`` allows (nothing was written).
        """
        scanner: ScannerIterator = self._open_scanner(table, scan, self.scan_table(table, scan))
        return scanner

    def scan_table(self, table: str, scan: Scan) -> bytes:
        """Check a scan's arguments (nothing is sent); the table name to send.

        Raises:
            IllegalArgumentError: ``scan`` is no :class:`Scan`, or holds a malformed bound,
                column or ``before``.
        """
        if not isinstance(scan, Scan):
            raise IllegalArgumentError("expected a Scan", table=table, value=scan)
        require_bytes("start", scan.start, table=table)
        require_bytes("stop", scan.stop, table=table)
        require_each("columns", scan.columns, table=table)
        require_before(scan.before, table=table)
        return self._data_name(table)

    # --- writes ---------------------------------------------------------------------

    def mutate(self, table: str, mutations: Sequence[Mutation]) -> None:
        """Apply puts and deletes: one ``mutateRows``/``mutateRowsTs`` per ``(timestamp, ttl)``.

        A put's ``ttl`` travels as the ``"_ttl"`` attribute (8-byte big-endian ms, what
        HBase's ``Mutation.setTTL`` sets). A whole-row delete travels as family deletes of
        every family of the table, in the same call. The server applies a call's puts,
        then its deletes, each row on its own, so a call with an unknown family could land
        in part: when the mutations need more than one call, or one call of several rows
        or of puts and deletes, their families are checked against the table's (cached,
        one ``getColumnDescriptors`` per table) families first, so an unknown family fails
        the whole call before anything is sent. Puts and deletes are retried after a
        dropped connection (see ``docs/thrift.md``).

        Raises:
            TableNotFoundError: No such table.
            ColumnFamilyNotFoundError: A column names an unknown family.
            IllegalArgumentError: A put names a bare family or has a negative ttl.
        """
        run(self.mutate_op(table, mutations), self._rpc)

    def mutate_op(self, table: str, mutations: Sequence[Mutation]) -> Op[None]:
        """The operation of :meth:`mutate` (sans-I/O: yields its calls)."""
        if not mutations:
            return
        try:
            batches = plan_batches(mutations, _families_not_read)
        except _FamiliesNeeded:  # a whole-row delete: sent as a delete of every family
            families = yield from self._table_families(table)
            batches = plan_batches(mutations, lambda: families)
        if len(batches) > 1 or len(batches[0].rows) > 1 or batches[0].has_puts_and_deletes:
            yield from self._require_families(table, mutations)
        server_name = self._data_name(table)
        for batch in batches:
            if batch.timestamp is None:
                yield rpc(
                    "mutateRows", server_name, batch.row_batches(), batch.attributes,
                    retry=Retry.IDEMPOTENT, table=table,
                )  # fmt: skip
            else:
                yield rpc(
                    "mutateRowsTs", server_name, batch.row_batches(), batch.timestamp,
                    batch.attributes, retry=Retry.IDEMPOTENT, table=table,
                )  # fmt: skip

    def row_batch(
        self, table: str, timestamp: int, ttl: int | None, families: frozenset[bytes]
    ) -> Thrift1RowBatch:
        """A batch kept as Thrift1 ``Mutation`` structs (see :meth:`write_rows`); no I/O."""
        return Thrift1RowBatch(timestamp, ttl, families)

    def write_rows(self, table: str, batch: RowBatch) -> None:
        """Write ``batch`` with one ``mutateRowsTs``: as ``mutate(table, batch.mutations())``.

        The same call with the same structs, and the families checked in the same cases,
        from the cache: when the table's cached families hold all of ``batch.families``,
        nothing is split or compared per cell (a family not among them takes
        ``mutate``'s check, which reads the families again and words the error).

        On the binary wire, with the families cached, the messages are sent here
        directly: the same calls :meth:`write_rows_op` yields, without an operation.
        """
        if type(batch) is Thrift1RowBatch and self.binary_requests:
            server_name = self._data_name(table)
            if self._families_cached(server_name, batch):
                for rows, attributes in batch.calls():
                    call = self._mutate_rows_call(table, server_name, batch, rows, attributes)
                    self._rpc(*call.args, **call.kwargs)
                return
        run(self.write_rows_op(table, batch), self._rpc)

    def write_row(
        self,
        table: str,
        row: bytes,
        cells: list[tuple[bytes, bytes | None]],
        timestamp: int,
        families: frozenset[bytes],
    ) -> bool:
        """Write one row's cells with no TTL directly; ``False``: nothing done, use a batch.

        :meth:`write_rows` of a one-row batch (:meth:`row_batch` of ``timestamp``, no ttl,
        ``families``; ``add_row(row, cells)``), without the batch: the same
        ``mutateRowsTs`` message, written from the cells, and the same retries. A value
        ``None`` deletes its column. ``False`` when the batch must be built: the compact
        protocol, a subclass overriding :meth:`write_rows`, no cell, or puts and deletes
        together (which ``mutate`` checks the families for) in a table whose families
        are not cached or lack one of ``families``.
        """
        if not cells or not self.binary_requests or type(self).write_rows is not _WRITE_ROWS:
            return False
        server_name = self._data_name(table)
        puts = deletes = False
        for _, value in cells:
            if value is None:
                deletes = True
            else:
                puts = True
        if puts and deletes:
            known = self._families.get(server_name)
            if known is None or not families.issubset(known):
                return False
        request = mutate_rows_ts(server_name, {row: cells}, timestamp, _NO_ATTRIBUTES)
        self._rpc(
            "mutateRowsTs", server_name, None, timestamp, _NO_ATTRIBUTES,
            retry=Retry.IDEMPOTENT, table=table, request=request,
        )  # fmt: skip
        return True

    def write_rows_op(self, table: str, batch: RowBatch) -> Op[None]:
        """The operation of :meth:`write_rows` (sans-I/O: yields its calls)."""
        if not isinstance(batch, Thrift1RowBatch):
            yield from self.mutate_op(table, batch.mutations())
            return
        calls = batch.calls()
        if not calls:
            return
        server_name = self._data_name(table)
        if not self._families_cached(server_name, batch):
            yield from self._require_families(table, batch.mutations())
        for rows, attributes in calls:
            yield self._mutate_rows_call(table, server_name, batch, rows, attributes)

    def _families_cached(self, server_name: bytes, batch: Thrift1RowBatch) -> bool:
        """Whether ``batch`` needs no family check: none asked, or all in the cache."""
        if not batch.checks_families:
            return True
        known = self._families.get(server_name)
        return known is not None and batch.families.issubset(known)

    def _mutate_rows_call(
        self,
        table: str,
        server_name: bytes,
        batch: Thrift1RowBatch,
        rows: Any,
        attributes: Any,
    ) -> Call:
        """The ``mutateRowsTs`` request of one of ``batch``'s calls (see :meth:`write_rows_op`)."""
        if self.binary_requests:  # the whole message, written from the cells
            request = mutate_rows_ts(server_name, rows, batch.timestamp, attributes)
            return rpc(
                "mutateRowsTs", server_name, None, batch.timestamp, attributes,
                retry=Retry.IDEMPOTENT, table=table, request=request,
            )  # fmt: skip
        return rpc(
            "mutateRowsTs", server_name, row_batches(rows), batch.timestamp, attributes,
            retry=Retry.IDEMPOTENT, table=table,
        )  # fmt: skip

    def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """Add ``amount`` with ``atomicIncrement`` and return the new value; never retried.

        Raises:
            CounterError: The cell is not an 8-byte long.
            ConnectionLostError: The connection dropped; whether it was applied is unknown.
        """
        return run(self.increment_op(table, row, column, amount), self._rpc)

    def increment_op(self, table: str, row: bytes, column: bytes, amount: int = 1) -> Op[int]:
        """The operation of :meth:`increment` (sans-I/O: yields its calls)."""
        require_row(row, table=table)
        require_cell_column(column, table=table, row=row, what="an increment")
        require_amount(amount, table=table, row=row)
        value: int = yield rpc(
            "atomicIncrement", self._data_name(table), row, column, amount,
            retry=Retry.UNSENT, table=table, row=row, column=column,
        )  # fmt: skip
        return value

    def prepare_increment(self, table: str, column: bytes) -> Callable[[bytes, int], int] | None:
        """An incrementer of one counter column of ``table``: :meth:`increment`, prepared.

        ``increment_row(row, amount)`` sends the same ``atomicIncrement`` bytes as
        ``increment(table, row, column, amount)`` (a
        :class:`~hmodel.backend.template.MessageTemplate` with the rowkey and the amount
        as its holes), with the same result and errors; never retried once sent. ``None``
        when a subclass overrides :meth:`increment`, or for a column that is not
        ``family:qualifier`` (each ``increment`` raises that, as on the general path).
        """
        if type(self).increment is not ThriftBackend.increment:
            return None
        try:
            require_cell_column(column, table=table, row=None, what="an increment")
        except HModelError:
            return None
        server_name = self._data_name(table)
        send = self._prepared(
            "atomicIncrement",
            lambda row, amount: (server_name, row, column, amount),
            STRING,
            I64,
            retry=Retry.UNSENT,
            table=table,
        )

        def increment_row(row: bytes, amount: int) -> int:
            require_row(row, table=table)
            require_amount(amount, table=table, row=row)
            value: int = send(row, amount, row=row, column=column)
            return value

        return increment_row

    def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """Apply the increments with one ``incrementRows``; never retried.

        Each increment is atomic on its own. The families are checked first against the
        table's (cached) families, so an unknown family applies nothing; if one fails on
        the server (a cell that is not a long), the ones before it in the list have been
        applied, as on HBase, whose ``incrementRows`` applies them one by one.
        """
        run(self.increment_many_op(table, increments), self._rpc)

    def increment_many_op(self, table: str, increments: Sequence[Increment]) -> Op[None]:
        """The operation of :meth:`increment_many` (sans-I/O: yields its calls)."""
        if not increments:
            return
        server_name = self._data_name(table)
        structs = []
        for inc in increments:
            if not isinstance(inc, Increment):
                raise IllegalArgumentError("expected an Increment", table=table, value=inc)
            require_row(inc.row, table=table)
            require_amount(inc.amount, table=table, row=inc.row)
            require_cell_column(inc.column, table=table, row=inc.row, what="an increment")
            structs.append(
                TIncrement(table=server_name, row=inc.row, column=inc.column, ammount=inc.amount)
            )
        known = set((yield from self._table_families(table)))
        for inc in increments:
            if family_of(inc.column) not in known:
                raise ColumnFamilyNotFoundError(
                    "the table has no such column family; nothing was applied",
                    table=table,
                    row=inc.row,
                    column=inc.column,
                )
        yield rpc("incrementRows", structs, retry=Retry.UNSENT, table=table)

    def check_and_put(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> bool:
        """Apply ``put`` if ``column`` holds ``expected``, with one ``checkAndPut``.

        ``expected=None`` leaves the IDL's ``value`` unset, which HBase reads as "the cell
        must be absent". Thrift1 stamps the put with the server's time, so a put with an
        explicit timestamp is refused; a ttl travels as the ``"_ttl"`` attribute. Never
        retried.

        Raises:
            IllegalArgumentError: ``put`` is on another row, or a column is a bare family.
            UnsupportedOperationError: ``put.timestamp`` is set.
        """
        return run(self.check_and_put_op(table, row, column, expected, put), self._rpc)

    def check_and_put_op(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> Op[bool]:
        """The operation of :meth:`check_and_put` (sans-I/O: yields its calls)."""
        require_row(row, table=table)
        require_cell_column(column, table=table, row=row, what="check_and_put")
        if not isinstance(put, Put):
            raise IllegalArgumentError("check_and_put takes a Put", table=table, row=row, value=put)
        if expected is not None:
            require_bytes("expected", expected, table=table, row=row)
        require_bytes("value", put.value, table=table, row=row)
        require_cell_column(put.column, table=table, row=row, what="check_and_put's put")
        if put.row != row:
            raise IllegalArgumentError(
                "check_and_put's put must be on the checked row", table=table, row=row,
                value=put.row,
            )  # fmt: skip
        if put.timestamp is not None:
            raise UnsupportedOperationError(
                "HBase's Thrift1 checkAndPut cannot carry a timestamp (the server stamps "
                "the put with its current time)",
                table=table,
                row=row,
                value=put.timestamp,
            )
        attributes = {} if put.ttl is None else ttl_attribute(put.ttl)
        mput = TMutation(isDelete=False, column=put.column, value=put.value)
        applied: bool = yield rpc(
            "checkAndPut", self._data_name(table), row, column, expected, mput, attributes,
            retry=Retry.UNSENT, table=table, row=row, column=column,
        )  # fmt: skip
        return applied

    def append(self, table: str, row: bytes, values: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
        """Append with one ``append`` RPC and return the new values; never retried.

        The server answers the new cells in column order without their names, so they are
        matched to the columns sorted the same way. No RPC for empty ``values``.
        """
        return run(self.append_op(table, row, values), self._rpc)

    def append_op(
        self, table: str, row: bytes, values: Mapping[bytes, bytes]
    ) -> Op[dict[bytes, bytes]]:
        """The operation of :meth:`append` (sans-I/O: yields its calls)."""
        require_row(row, table=table)
        if not isinstance(values, Mapping):
            raise IllegalArgumentError(
                "values must be a mapping of column to bytes", table=table, row=row, value=values
            )
        if not values:
            return {}
        for column, value in values.items():
            require_cell_column(column, table=table, row=row, what="an append")
            require_bytes("value", value, table=table, row=row)
        columns = list(values)
        tappend = TAppend(
            table=self._data_name(table),
            row=row,
            columns=columns,
            values=[values[c] for c in columns],
        )
        cells = yield rpc("append", tappend, retry=Retry.UNSENT, table=table, row=row)
        ordered = in_column_order(columns)
        if len(cells) != len(ordered):
            raise BackendError(
                f"append answered {len(cells)} cells for {len(ordered)} columns",
                table=table,
                row=row,
            )
        new_values = {c: cell(t).value for c, t in zip(ordered, cells, strict=True)}
        return {c: new_values[c] for c in columns}

    def close(self) -> None:
        """Close every pooled connection; the backend is unusable afterwards."""
        super().close()
        if self._admin is not None and self._owns_admin:
            self._admin.close()


#: The write of row batches :meth:`ThriftBackend.write_row` stands for.
_WRITE_ROWS = ThriftBackend.write_rows

#: The attributes of a call with no TTL (never changed).
_NO_ATTRIBUTES: dict[bytes, bytes] = {}
