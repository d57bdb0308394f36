"""The Thrift2 backend: the bytes-level Backend protocol over HBase 2's Thrift2 API."""

from __future__ import annotations

import contextlib
import operator
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hmodel.backend.argument import (
    MAX_ROW_LENGTH,
    require_amount,
    require_before,
    require_bytes,
    require_row,
)
from hmodel.backend.base import (
    Cell,
    Delete,
    Increment,
    Mutation,
    Put,
    RowBatch,
    RowResult,
    Scan,
    family_of,
    wire_cell,
)
from hmodel.backend.endpoint import HTTPOption, TLSOption
from hmodel.backend.op import Call, Op, rpc, run
from hmodel.backend.sasl import Sasl
from hmodel.backend.template import I64, STRING, ListTemplate
from hmodel.backend.thrift2.admin import RegionLocation, Thrift2Admin
from hmodel.backend.thrift2.channel import Channel, Retry
from hmodel.backend.thrift2.descriptor import table_name as tname
from hmodel.backend.thrift2.error import SERVER_ERRORS, server_error
from hmodel.backend.thrift2.idl import (
    HBASE2,
    TAppend,
    TColumn,
    TColumnIncrement,
    TColumnValue,
    TGet,
    TIncrement,
    TRowMutations,
    TTimeRange,
)
from hmodel.backend.thrift2.mutation import (
    Thrift2RowBatch,
    check_mutation,
    check_mutations,
    require_cell_column,
    row_result,
    row_results,
    tcolumns,
    to_tdeletes,
    to_tmutations,
    to_tputs,
)
from hmodel.backend.thrift2.request import delete_multiple, mutate_row, put_multiple
from hmodel.backend.thrift2.scanner import ScannerIterator
from hmodel.backend.wire import WireCodec
from hmodel.errors import (
    BackendError,
    ColumnFamilyNotFoundError,
    CounterError,
    HModelError,
    IllegalArgumentError,
    UnsupportedOperationError,
)

__all__ = ["RegionLocation", "Thrift2Backend"]

#: The ``column`` of a mutation or an increment.
_column_of = operator.attrgetter("column")


def _tincrement(row: bytes, family: bytes, qualifier: bytes, amount: int) -> Any:
    """The ``TIncrement`` of one counter that answers its new value."""
    return TIncrement(
        row=row,
        columns=[TColumnIncrement(family=family, qualifier=qualifier, amount=amount)],
        returnResults=True,
    )


def _time_range(before: int | None) -> Any:
    return None if before is None else TTimeRange(minStamp=0, maxStamp=before)


class Thrift2Backend(Thrift2Admin):
    """The :class:`~hmodel.backend.base.Backend` protocol over HBase 2's Thrift2 server.

    Speaks ``THBaseService`` (``hbase thrift2``, default port 9092) with thriftpy2 and
    hmodel's own IDL file. Unlike Thrift1 it carries the whole schema (split points,
    every family and table option), per-cell timestamps in one call, time ranges, and
    atomic row operations (``mutateRow``, ``checkAndMutate``). The connections are plain
    sockets by default; ``tls`` and ``http`` choose TLS, Thrift over HTTP or HTTPS
    (``hbase.regionserver.thrift.http``, which ``hbase thrift2`` serves as ``hbase
    thrift`` does, and gateways in front of it), also written as a URL with
    :meth:`from_url`. Every protocol call is one call to the server (:attr:`round_trips`
    counts them; over HTTP one ``POST``), except:

    * :meth:`scan`: ``openScanner``, one ``getScannerRows`` per ``batch_size`` rows
      (the first one at once), and ``closeScanner``;
    * :meth:`mutate` of several rows: ``putMultiple`` and/or ``deleteMultiple``, plus one
      ``getTableDescriptor`` the first time (the families are checked first and cached
      per table, so an unknown family applies nothing);
    * :meth:`increment_many`: one ``increment`` per row (Thrift2 has no multi-row
      increment), plus the family check above when there are several rows;
    * :meth:`delete_table` and :meth:`truncate_table` (``isTableEnabled``,
      ``disableTable``, then the call); retries after a dropped connection.

    Args:
        host: The Thrift2 server's host.
        port: Its port (HBase's default for ``hbase thrift2`` is 9090 too; 9092 when both
            gateways run on one host, as in hmodel's fake server).
        timeout_ms: Connect and socket timeout in milliseconds; ``None``: wait forever.
        transport: ``"buffered"`` (HBase's default) or ``"framed"``; over HTTP only
            ``"buffered"``.
        protocol: ``"binary"`` (HBase's default) or ``"compact"``; over HTTP only
            ``"binary"``.
        tls: TLS for the connection (:class:`~hmodel.backend.endpoint.TLS` settings, an
            ``ssl.SSLContext``, or ``True``: verify against the system's CAs); ``None``:
            none. With ``http`` this is HTTPS; over a socket, Thrift inside TLS, which a
            TLS proxy in front of the server serves (HBase's own TLS is HTTP only).
        http: Thrift over HTTP (:class:`~hmodel.backend.endpoint.HTTP` settings, a URL
            path, or ``True`` for path ``/``); ``None``: a plain Thrift socket.
        table_prefix: Prepended, with ``table_prefix_separator``, to every table name
            (inside its namespace); :meth:`list_tables` strips it and hides other tables.
        table_prefix_separator: Between prefix and name.
        pool_size: Most connections open at once (>= 1).
        retries: How many times a call whose connection failed may be sent again.
        retry_backoff_ms: Pause before the first retry, doubled for each further one.
        autoconnect: Connect now, failing now if the server is unreachable.
        sleep: Called with the pause in seconds between retries (inject in tests).
        retry_jitter: Returns a float from 0 to 1 that spreads each retry pause between
            half and all of the backoff (default ``random.random``; inject a constant or
            a seeded ``random.Random(seed).random`` in tests).
        sasl: Authenticate every connection with SASL, as a secured HBase Thrift server
            (``hbase.thrift.security.qop`` set) requires:
            :class:`~hmodel.backend.sasl.Kerberos` (GSSAPI) or
            :class:`~hmodel.backend.sasl.Plain`; buffered transport only. ``None`` (the
            default): no authentication.
        family_reads: Send a :meth:`scan` of ``family:qualifier`` columns without a
            filter as a scan of their families with a filter passing exactly those
            columns (:func:`~hmodel.backend.family_read.exact_filter`): HBase reads a
            family without seeking from column to column (``docs/thrift.md``). The
            server still drops the other cells, so the results and the replies are
            the same. ``False``: name the columns. :meth:`get` names them either way:
            HBase parses a get's filter once per ``TGet``, which cost more than the
            seeks it saves. Readable and settable as the attribute of the same name.

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
    display_name = "Thrift2Backend"
    protocols = ("Thrift2", "Thrift1")

    capabilities: frozenset[str] = frozenset({"check_and_delete", "check_and_mutate"})

    #: The Thrift2 RPCs behind each protocol method (``docs/thrift.md`` details them).
    rpc_names: Mapping[str, str] = {
        "create_table": "createTable",
        "delete_table": "disableTable + deleteTable",
        "table_exists": "tableExists",
        "list_tables": "getTableNamesByPattern",
        "describe_families": "getTableDescriptor",
        "regions": "getAllRegionLocations",
        "get": "getMultiple",
        "get_versions": "get",
        "scan": "openScanner + getScannerRows + closeScanner",
        "mutate": "mutateRow (one row) / putMultiple + deleteMultiple",
        "increment": "increment",
        "increment_many": "increment (one per row)",
        "check_and_put": "checkAndPut",
        "check_and_delete": "checkAndDelete",
        "check_and_mutate": "checkAndMutate (checkAndPut / checkAndDelete when one kind)",
        "append": "append",
    }

    def mutate_round_trips(self, mutations: Sequence[Mutation]) -> int:
        """One ``mutateRow`` for one row; else a ``putMultiple`` and/or a ``deleteMultiple``."""
        if not mutations:
            return 0
        if len({m.row for m in mutations}) == 1:
            return 1
        return int(any(isinstance(m, Put) for m in mutations)) + int(
            any(isinstance(m, Delete) for m in mutations)
        )

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
        family_reads: bool = True,
    ) -> None:
        self.family_reads = family_reads
        self._families: dict[str, tuple[bytes, ...]] = {}
        #: ``getMultiple`` templates by (server table name, columns); see _gets_template.
        self._get_templates: dict[tuple[bytes, tuple[bytes, ...]], ListTemplate | None] = {}
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
            server_table=server_table,
            row=row,
            column=column,
            filter_given=filter_given,
        )

    def _close_scanner_quietly(self, scanner: int) -> None:
        with contextlib.suppress(BackendError, *SERVER_ERRORS):
            self._channel.call("closeScanner", scanner, retry=Retry.UNSENT)

    def _table_families(self, name: str) -> Op[tuple[bytes, ...]]:
        """The family names of ``name``, from the cache or one ``getTableDescriptor``."""
        server_name = self._server_name(name)
        families = self._families.get(server_name)
        if families is None:
            descriptor = yield rpc(
                "getTableDescriptor", tname(server_name), retry=Retry.IDEMPOTENT, table=name
            )
            families = tuple(bytes(c.name) for c in descriptor.columns or [])
            self._families[server_name] = families
        return families

    def _check_families(self, name: str, items: Sequence[Mutation | Increment]) -> Op[None]:
        """Refuse, before anything is sent, an item whose column's family the table lacks.

        The families come from the cache; a family missing there is looked up once more
        on the server (another client may have added it) before the call is refused.
        ``items`` are mutations or increments: their ``row`` and ``column`` (``None``: a
        whole row). Their distinct columns are checked first (a batch names few); only
        when one is unknown are they gone through one by one, for the first offender.
        """
        cached = self._server_name(name) in self._families
        known = set((yield from self._table_families(name)))
        named = set(map(_column_of, items))
        named.discard(None)
        if all(family_of(column) in known for column in named):
            return
        unknown = [
            (item.row, item.column)
            for item in items
            if item.column is not None and family_of(item.column) not in known
        ]
        if unknown and cached:
            self._families.pop(self._server_name(name), None)
            known = set((yield from self._table_families(name)))
            unknown = [(r, c) for r, c in unknown if c is not None and family_of(c) not in known]
        if unknown:
            row, column = unknown[0]
            raise ColumnFamilyNotFoundError(
                "the table has no such column family; nothing was applied",
                table=name,
                row=row,
                column=column,
            )

    # --- reads ----------------------------------------------------------------------

    def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        """Read rows with one ``getMultiple``: a ``TGet`` per row, results in order.

        ``before`` travels as the time range ``[0, before)``. No call for empty ``rows``.
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
        plain = True  # every key exactly bytes (a template takes nothing else)
        for key in keys:
            if type(key) is not bytes or not 0 < len(key) <= MAX_ROW_LENGTH:
                require_row(key, table=table, argument="rows")  # raises, or a bytes subclass
                plain = False
        wanted = [require_bytes("columns", c, table=table) for c in columns]
        checked_before = require_before(before, table=table)
        if not keys:
            return []
        name = self._data_name(table)
        request = None
        if self.binary_requests and checked_before is None and plain:
            template = self._gets_template(name, tuple(wanted))
            if template is not None:
                request = template.fill(keys)  # the message from the rows: no TGet per row
        if request is not None:
            results = yield rpc(
                "getMultiple", name, None, retry=Retry.IDEMPOTENT, table=table, request=request
            )
        else:
            tcols = tcolumns(wanted)
            trange = _time_range(checked_before)
            # TGet(row, columns, timestamp, timeRange, maxVersions): positional, as it is
            # one struct per row asked for.
            tgets = [TGet(key, tcols, None, trange, 1) for key in keys]
            results = yield rpc("getMultiple", name, tgets, retry=Retry.IDEMPOTENT, table=table)
        return row_results(results)

    def _gets_template(self, name: bytes, columns: tuple[bytes, ...]) -> ListTemplate | None:
        """The ``getMultiple`` message of ``name``'s rows with these columns, as a template.

        Built once per table and column list (:class:`~hmodel.backend.template.ListTemplate`:
        a ``TGet`` per row, as :meth:`get_op` builds them without ``before``), and kept for
        at most 256 column lists; ``None`` when the message cannot be templated.
        """
        key = (name, columns)
        if key in self._get_templates:
            return self._get_templates[key]
        tcols = tcolumns(list(columns))
        template = ListTemplate.build(
            WireCodec(self.channel_class.service, protocol="binary", decode_response=False),
            "getMultiple",
            lambda rows: (name, [TGet(row, tcols, None, None, 1) for row in rows]),
        )
        if len(self._get_templates) >= 256:
            self._get_templates.clear()
        self._get_templates[key] = template
        return template

    def prepare_get(
        self, table: str, columns: Sequence[bytes] = ()
    ) -> Callable[[bytes], RowResult | None] | None:
        """A reader of one row of ``table`` by rowkey: :meth:`get` of ``[row]``, prepared.

        The ``getMultiple`` message of one ``TGet`` is encoded once (a
        :class:`~hmodel.backend.template.MessageTemplate` with the rowkey as its hole),
        so a read joins bytes and sends them: the same bytes, the same result and the
        same errors as ``get(table, [row], columns=columns)``. ``None`` when a subclass
        overrides :meth:`get` (its reads must go through it), or for a column that is not
        bytes (each ``get`` raises that, as on the general path).
        """
        if type(self).get is not Thrift2Backend.get:
            return None
        try:
            tcols = tcolumns([require_bytes("columns", c, table=table) for c in columns])
        except IllegalArgumentError:
            return None
        trange = _time_range(None)
        server_name = self._data_name(table)
        send = self._prepared(
            "getMultiple",
            lambda row: (server_name, [TGet(row, tcols, None, trange, 1)]),
            STRING,
            retry=Retry.IDEMPOTENT,
            table=table,
        )

        def get_row(row: bytes) -> RowResult | None:
            if type(row) is not bytes or not 0 < len(row) <= MAX_ROW_LENGTH:
                require_row(row, table=table, argument="rows")  # raises, or a bytes subclass
            for tresult in send(row):
                if tresult is not None:
                    result = row_result(tresult)
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
        """Read versions newest first with one ``get`` (``maxVersions``, ``timeRange``)."""
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
        checked_before = require_before(before, table=table, row=row)
        family, qualifier = require_cell_column(column, table=table, row=row, what="get_versions")
        if isinstance(max_versions, bool) or not isinstance(max_versions, int) or max_versions < 1:
            raise IllegalArgumentError(
                "max_versions must be an integer >= 1", table=table, row=row, value=max_versions
            )
        tget = TGet(
            row=row,
            columns=[TColumn(family=family, qualifier=qualifier)],
            timeRange=_time_range(checked_before),
            maxVersions=min(max_versions, 2**31 - 1),
        )
        result = yield rpc(
            "get", self._data_name(table), tget,
            retry=Retry.IDEMPOTENT, table=table, row=row, column=column,
        )  # fmt: skip
        return [
            wire_cell(v)
            for v in result.columnValues or []
            if v.family == family and v.qualifier == qualifier
        ][:max_versions]

    def scan(self, table: str, scan: Scan) -> ScannerIterator:
        """Iterate ``scan`` through a Thrift2 scanner (see :class:`ScannerIterator`).

        ``openScanner`` carries the bounds, ``columns``, ``filterString``, the time range
        ``[0, before)``, ``caching=batch_size``, ``reversed`` and ``limit``; the first
        ``getScannerRows`` is sent at once, so a missing table or a bad filter fails here.
        No call for ``limit=0``.

        Raises:
            TableNotFoundError: No such table.
            FilterError: The server could not parse ``scan.filter``.
        """
        scanner: ScannerIterator = self._open_scanner(table, scan, self.scan_table(table, scan))
        return scanner

    def scan_table(self, table: str, scan: Scan) -> bytes:
        """Check a scan's arguments (nothing is sent); the table name to send.

        Raises:
            IllegalArgumentError: ``scan`` is no :class:`Scan`, or holds a malformed bound,
                column or filter.
        """
        if not isinstance(scan, Scan):
            raise IllegalArgumentError("expected a Scan", table=table, value=scan)
        require_bytes("start", scan.start, table=table)
        require_bytes("stop", scan.stop, table=table)
        for column in scan.columns:
            require_bytes("columns", column, table=table)
        require_before(scan.before, table=table)
        if scan.filter is not None and not isinstance(scan.filter, (str, bytes)):
            raise IllegalArgumentError("a filter is a str or bytes", table=table, value=scan.filter)
        return self._data_name(table)

    # --- writes ---------------------------------------------------------------------

    def mutate(self, table: str, mutations: Sequence[Mutation]) -> None:
        """Apply puts and deletes: ``mutateRow`` for one row, else the multi calls.

        All mutations of one row travel in one ``mutateRow``: atomic, one call, each
        cell with its own timestamp and ttl. Several rows travel in one ``putMultiple``
        and/or one ``deleteMultiple`` (puts first); their families are checked first
        against the table's (one ``getTableDescriptor`` the first time, then cached), since
        HBase applies the other actions of a batch with a bad one: so an unknown family
        applies nothing. A ttl travels as the
        ``"_ttl"`` attribute (8-byte big-endian ms). Retried after a dropped connection
        (rewriting the same cells at the same timestamps is harmless; cells without a
        timestamp may land twice, at two server times).

        Raises:
            TableNotFoundError: No such table.
            ColumnFamilyNotFoundError: A column names an unknown family.
            IllegalArgumentError: A malformed mutation; nothing is sent.
        """
        run(self.mutate_op(table, mutations), self._rpc)

    def mutate_op(self, table: str, mutations: Sequence[Mutation]) -> Op[None]:
        """The operation of :meth:`mutate` (sans-I/O: yields its calls)."""
        if isinstance(mutations, (str, bytes)) or not isinstance(mutations, Sequence):
            raise IllegalArgumentError("mutations must be a sequence", table=table)
        checked = check_mutations(mutations, table=table)
        if not checked:
            return
        name = self._data_name(table)
        first_row = checked[0].row
        if all(m.row == first_row for m in checked):
            row = checked[0].row
            yield rpc(
                "mutateRow", name, TRowMutations(row=row, mutations=to_tmutations(checked)),
                retry=Retry.IDEMPOTENT, table=table, row=row,
            )  # fmt: skip
            return
        puts = [m for m in checked if isinstance(m, Put)]
        deletes = [m for m in checked if isinstance(m, Delete)]
        # A real HBase applies the good actions of a failing batch: check families first.
        yield from self._check_families(table, checked)
        if puts:
            yield rpc("putMultiple", name, to_tputs(puts), retry=Retry.IDEMPOTENT, table=table)
        if deletes:
            yield rpc(
                "deleteMultiple", name, to_tdeletes(deletes), retry=Retry.IDEMPOTENT, table=table
            )

    def row_batch(
        self, table: str, timestamp: int, ttl: int | None, families: frozenset[bytes]
    ) -> Thrift2RowBatch:
        """A batch kept as Thrift2 structs (see :meth:`write_rows`); no I/O."""
        return Thrift2RowBatch(timestamp, ttl, families)

    def write_rows(self, table: str, batch: RowBatch) -> None:
        """Write ``batch``: as ``mutate(table, batch.mutations())``, the same calls and structs.

        ``mutateRow`` for one row, else ``putMultiple`` and/or ``deleteMultiple``, with the
        families checked first from the cache: when the table's cached families hold all
        of ``batch.families``, nothing is compared per cell (otherwise ``mutate``'s check
        runs, which reads the families again and words the error).

        One row on the binary wire is sent here directly: the call :meth:`write_rows_op`
        yields, without an operation.
        """
        if type(batch) is Thrift2RowBatch and self.binary_requests and batch.row_count == 1:
            call = self._mutate_row_call(table, self._data_name(table), batch)
            self._rpc(*call.args, **call.kwargs)
            return
        run(self.write_rows_op(table, batch), self._rpc)

    def _mutate_row_call(self, table: str, name: bytes, batch: Thrift2RowBatch) -> Call:
        """The ``mutateRow`` request of a one-row ``batch`` (see :meth:`write_rows_op`)."""
        row = batch.only_row()
        if self.binary_requests:  # the whole message, written from the cells
            request = mutate_row(
                name,
                row,
                batch.puts.get(row, ()),
                batch.deletes.get(row, ()),
                batch.timestamp,
                batch.attributes,
            )
            return rpc(
                "mutateRow", name, None,
                retry=Retry.IDEMPOTENT, table=table, row=row, request=request,
            )  # fmt: skip
        return rpc(
            "mutateRow", name, TRowMutations(row=row, mutations=batch.tmutations()),
            retry=Retry.IDEMPOTENT, table=table, row=row,
        )  # fmt: skip

    def write_rows_op(self, table: str, batch: RowBatch) -> Op[None]:
        """The operation of :meth:`write_rows` (sans-I/O: yields its calls)."""
        if not isinstance(batch, Thrift2RowBatch):
            yield from self.mutate_op(table, batch.mutations())
            return
        rows = batch.row_count
        if not rows:
            return
        name = self._data_name(table)
        binary = self.binary_requests  # the whole messages written from the cells
        timestamp = batch.timestamp
        if rows == 1:
            yield self._mutate_row_call(table, name, batch)
            return
        known = self._families.get(self._server_name(table))
        if known is None or not batch.families.issubset(known):
            yield from self._check_families(table, batch.mutations())
        if batch.puts:
            if binary:
                request = put_multiple(name, batch.puts, timestamp, batch.attributes)
                yield rpc(
                    "putMultiple", name, None,
                    retry=Retry.IDEMPOTENT, table=table, request=request,
                )  # fmt: skip
            else:
                yield rpc("putMultiple", name, batch.tputs(), retry=Retry.IDEMPOTENT, table=table)
        if batch.deletes:
            if binary:
                request = delete_multiple(name, batch.deletes, timestamp)
                yield rpc(
                    "deleteMultiple", name, None,
                    retry=Retry.IDEMPOTENT, table=table, request=request,
                )  # fmt: skip
            else:
                yield rpc(
                    "deleteMultiple", name, batch.tdeletes(), retry=Retry.IDEMPOTENT, table=table
                )

    def _increment_result(self, result: Any, *, table: str, row: bytes) -> dict[bytes, int]:
        values: dict[bytes, int] = {}
        for value in result.columnValues or []:
            raw = value.value or b""
            if len(raw) != 8:
                raise BackendError(
                    f"increment answered a {len(raw)}-byte counter", table=table, row=row
                )
            values[value.family + b":" + value.qualifier] = int.from_bytes(raw, "big", signed=True)
        return values

    def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """Add ``amount`` with one ``increment`` and return the new value; never retried.

        Raises:
            CounterError: The cell is not an 8-byte long.
            ConnectionLostError: The connection dropped; whether it was applied is unknown.
        """
        return run(self.increment_op(table, row, column, amount), self._rpc)

    def increment_op(self, table: str, row: bytes, column: bytes, amount: int = 1) -> Op[int]:
        """The operation of :meth:`increment` (sans-I/O: yields its calls)."""
        require_row(row, table=table)
        family, qualifier = require_cell_column(column, table=table, row=row, what="an increment")
        require_amount(amount, table=table, row=row)
        result = yield rpc(
            "increment", self._data_name(table), _tincrement(row, family, qualifier, amount),
            retry=Retry.UNSENT, table=table, row=row, column=column,
        )  # fmt: skip
        return self._increment_value(result, table=table, row=row, column=column)

    def _increment_value(self, result: Any, *, table: str, row: bytes, column: bytes) -> int:
        """The new value of ``column`` in an ``increment``'s answer ``result``."""
        values = self._increment_result(result, table=table, row=row)
        if column not in values:
            raise BackendError("increment answered no value", table=table, row=row, column=column)
        return values[column]

    def prepare_increment(self, table: str, column: bytes) -> Callable[[bytes, int], int] | None:
        """:meth:`increment`, prepared, with Thrift2's ``increment`` call.

        As :meth:`ThriftBackend.prepare_increment
        <hmodel.backend.thrift.ThriftBackend.prepare_increment>`.
        """
        if type(self).increment is not Thrift2Backend.increment:
            return None
        try:
            family, qualifier = require_cell_column(
                column, table=table, row=None, what="an increment"
            )
        except HModelError:
            return None
        server_name = self._data_name(table)
        send = self._prepared(
            "increment",
            lambda row, amount: (server_name, _tincrement(row, family, qualifier, amount)),
            STRING,
            I64,
            retry=Retry.UNSENT,
            table=table,
        )

        def increment_row(row: bytes, amount: int) -> int:
            require_row(row, table=table)
            require_amount(amount, table=table, row=row)
            result = send(row, amount, row=row, column=column)
            return self._increment_value(result, table=table, row=row, column=column)

        return increment_row

    def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """Apply the increments in order: one ``increment`` per run of one row's increments.

        Thrift2 has no multi-row increment. Increments of one row that follow each other
        in the list travel in one ``TIncrement`` (a column named twice starts another),
        which HBase applies all or nothing. When a cell of a run is not a long, HBase
        applies none of the run, and the run is sent again one increment per call, so
        that, as the protocol promises, the increments before the bad one are applied
        (this re-sending follows an answered refusal, never a dropped call). With several
        calls the families are checked first, so an unknown family applies nothing.
        Dropped calls are never retried.

        Raises:
            CounterError: A cell is not an 8-byte long.
            ColumnFamilyNotFoundError: A column names an unknown family.
        """
        run(self.increment_many_op(table, increments), self._rpc)

    def increment_many_op(self, table: str, increments: Sequence[Increment]) -> Op[None]:
        """The operation of :meth:`increment_many` (sans-I/O: yields its calls)."""
        if isinstance(increments, (str, bytes)) or not isinstance(increments, Sequence):
            raise IllegalArgumentError("increments must be a sequence", table=table)
        if not increments:
            return
        calls: list[tuple[bytes, list[Any], set[bytes]]] = []
        for inc in increments:
            if not isinstance(inc, Increment):
                raise IllegalArgumentError("expected an Increment", table=table, value=inc)
            require_row(inc.row, table=table)
            family, qualifier = require_cell_column(
                inc.column, table=table, row=inc.row, what="an increment"
            )
            require_amount(inc.amount, table=table, row=inc.row)
            last = calls[-1] if calls else None
            if last is None or last[0] != inc.row or inc.column in last[2]:
                calls.append((inc.row, [], set()))
            index = len(calls) - 1
            calls[index][1].append(
                TColumnIncrement(family=family, qualifier=qualifier, amount=inc.amount)
            )
            calls[index][2].add(inc.column)
        if len(calls) > 1:
            yield from self._check_families(table, increments)
        name = self._data_name(table)
        for row, tcols, _columns in calls:
            try:
                yield from self._increment_quietly(name, table, row, tcols)
            except CounterError:
                if len(tcols) == 1:
                    raise
                # HBase refused the whole run and applied none of it: send its increments
                # one by one, so those before the bad cell are applied, as the protocol says.
                for tcol in tcols:
                    yield from self._increment_quietly(name, table, row, [tcol])

    def _increment_quietly(self, name: bytes, table: str, row: bytes, tcols: list[Any]) -> Op[None]:
        yield rpc(
            "increment", name, TIncrement(row=row, columns=tcols, returnResults=False),
            retry=Retry.UNSENT, table=table, row=row,
        )  # fmt: skip

    def _check_row(
        self, table: str, row: object, column: object, expected: object, what: str
    ) -> tuple[bytes, bytes, bytes, bytes | None]:
        checked_row = require_row(row, table=table)
        family, qualifier = require_cell_column(column, table=table, row=checked_row, what=what)
        if expected is not None:
            require_bytes("expected", expected, table=table, row=checked_row)
        value = expected or None  # b"" and None both mean "absent or empty" (HBase)
        return checked_row, family, qualifier, value  # type: ignore[return-value]

    def check_and_put(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> bool:
        """Apply ``put`` if ``column`` holds ``expected``, with one ``checkAndPut``.

        ``expected`` ``None`` (or ``b""``) leaves the value unset, which HBase reads as
        "absent or empty". The put keeps its timestamp and ttl. Never retried.

        Raises:
            IllegalArgumentError: ``put`` is on another row, or a malformed argument.
        """
        return run(self.check_and_put_op(table, row, column, expected, put), self._rpc)

    def check_and_put_op(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> Op[bool]:
        """The operation of :meth:`check_and_put` (sans-I/O: yields its calls)."""
        checked_row, family, qualifier, value = self._check_row(
            table, row, column, expected, "check_and_put"
        )
        if not isinstance(put, Put):
            raise IllegalArgumentError("check_and_put takes a Put", table=table, row=row, value=put)
        check_mutation(put, table=table, index=0)
        if put.row != checked_row:
            raise IllegalArgumentError(
                "check_and_put's put must be on the checked row", table=table, row=row,
                value=put.row,
            )  # fmt: skip
        applied: bool = yield rpc(
            "checkAndPut", self._data_name(table), checked_row, family, qualifier, value,
            to_tputs([put])[0], retry=Retry.UNSENT, table=table, row=checked_row, column=column,
        )  # fmt: skip
        return applied

    def check_and_delete(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, delete: Delete
    ) -> bool:
        """Apply ``delete`` if ``column`` holds ``expected``, with one ``checkAndDelete``.

        ``expected`` is compared as in :meth:`check_and_put`. Never retried.

        Raises:
            IllegalArgumentError: ``delete`` is on another row, or a malformed argument.
        """
        return run(self.check_and_delete_op(table, row, column, expected, delete), self._rpc)

    def check_and_delete_op(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, delete: Delete
    ) -> Op[bool]:
        """The operation of :meth:`check_and_delete` (sans-I/O: yields its calls)."""
        checked_row, family, qualifier, value = self._check_row(
            table, row, column, expected, "check_and_delete"
        )
        if not isinstance(delete, Delete):
            raise IllegalArgumentError(
                "check_and_delete takes a Delete", table=table, row=row, value=delete
            )
        check_mutation(delete, table=table, index=0)
        if delete.row != checked_row:
            raise IllegalArgumentError(
                "check_and_delete's delete must be on the checked row", table=table, row=row,
                value=delete.row,
            )  # fmt: skip
        applied: bool = yield rpc(
            "checkAndDelete", self._data_name(table), checked_row, family, qualifier, value,
            to_tdeletes([delete])[0], retry=Retry.UNSENT, table=table, row=checked_row,
            column=column,
        )  # fmt: skip
        return applied

    def check_and_mutate(
        self,
        table: str,
        row: bytes,
        column: bytes,
        expected: bytes | None,
        mutations: Sequence[Mutation],
    ) -> bool:
        """Apply a whole row's puts and deletes if ``column`` holds ``expected``; one call.

        With a value, one ``checkAndMutate`` (``EQUAL``) carrying a ``TRowMutations``:
        every mutation with its own timestamp and ttl, applied atomically with the check.
        HBase 2.2's ``checkAndMutate`` refuses an unset value, so ``expected`` ``None``
        (or ``b""``: absent or empty) travels as one ``checkAndPut`` when the mutations
        are puts sharing one ttl, or one ``checkAndDelete`` when they are deletes of one
        kind (columns, or families, or the whole row); other mixes are refused. Never
        retried.

        Raises:
            UnsupportedOperationError: ``expected`` is ``None`` and the mutations mix puts
                and deletes (or ttls, or delete kinds): no single Thrift2 call can check
                for an absent cell and apply them atomically.
            IllegalArgumentError: A mutation is on another row, none is given, or a
                malformed argument; nothing is sent.
            ColumnFamilyNotFoundError: A column names an unknown family.
        """
        return run(self.check_and_mutate_op(table, row, column, expected, mutations), self._rpc)

    def check_and_mutate_op(
        self,
        table: str,
        row: bytes,
        column: bytes,
        expected: bytes | None,
        mutations: Sequence[Mutation],
    ) -> Op[bool]:
        """The operation of :meth:`check_and_mutate` (sans-I/O: yields its calls)."""
        checked_row, family, qualifier, value = self._check_row(
            table, row, column, expected, "check_and_mutate"
        )
        if isinstance(mutations, (str, bytes)) or not isinstance(mutations, Sequence):
            raise IllegalArgumentError("mutations must be a sequence", table=table)
        checked = [check_mutation(m, table=table, index=i) for i, m in enumerate(mutations)]
        if not checked:
            raise IllegalArgumentError(
                "check_and_mutate needs at least one mutation", table=table, row=checked_row
            )
        for mutation in checked:
            if mutation.row != checked_row:
                raise IllegalArgumentError(
                    "check_and_mutate's mutations must be on the checked row",
                    table=table,
                    row=checked_row,
                    value=mutation.row,
                )
        name = self._data_name(table)
        if value is None:
            puts = [m for m in checked if isinstance(m, Put)]
            deletes = [m for m in checked if isinstance(m, Delete)]
            tputs = to_tputs(puts)
            tdeletes = to_tdeletes(deletes)
            if not deletes and len(tputs) == 1:
                method, payload = "checkAndPut", tputs[0]
            elif not puts and len(tdeletes) == 1:
                method, payload = "checkAndDelete", tdeletes[0]
            else:
                raise UnsupportedOperationError(
                    "HBase 2.2's Thrift2 checkAndMutate cannot check for an absent cell "
                    "(it refuses an unset value); with expected=None the mutations must be "
                    "puts sharing one ttl, or deletes of one kind",
                    table=table,
                    row=checked_row,
                )
            applied: bool = yield rpc(
                method, name, checked_row, family, qualifier, None, payload,
                retry=Retry.UNSENT, table=table, row=checked_row, column=column,
            )  # fmt: skip
            return applied
        applied = yield rpc(
            "checkAndMutate", name, checked_row, family, qualifier,
            HBASE2.TCompareOperator.EQUAL, value,
            TRowMutations(row=checked_row, mutations=to_tmutations(checked)),
            retry=Retry.UNSENT, table=table, row=checked_row, column=column,
        )  # fmt: skip
        return applied

    def append(self, table: str, row: bytes, values: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
        """Append with one ``append`` and return the new values by column; never retried.

        No call for empty ``values``.
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
        tvalues = []
        for column, value in values.items():
            family, qualifier = require_cell_column(column, table=table, row=row, what="an append")
            require_bytes("value", value, table=table, row=row)
            tvalues.append(TColumnValue(family=family, qualifier=qualifier, value=value))
        result = yield rpc(
            "append", self._data_name(table), TAppend(row=row, columns=tvalues, returnResults=True),
            retry=Retry.UNSENT, table=table, row=row,
        )  # fmt: skip
        answered = {
            v.family + b":" + v.qualifier: v.value or b"" for v in result.columnValues or []
        }
        missing = [c for c in values if c not in answered]
        if missing:
            raise BackendError(
                "append answered no value for a column", table=table, row=row, column=missing[0]
            )
        return {c: answered[c] for c in values}
