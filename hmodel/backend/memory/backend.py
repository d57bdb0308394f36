"""The in-memory HBase engine: :class:`MemoryBackend`, the Backend protocol without a server."""

from __future__ import annotations

import functools
import threading
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping, Sequence

from hmodel.backend.base import (
    Backend,
    Cell,
    Delete,
    Increment,
    Put,
    Region,
    RowResult,
    Scan,
)
from hmodel.backend.memory.argument import (
    MAX_ROW_LENGTH,
    require_bytes,
    require_cell_name,
    require_int,
    require_row,
    require_sequence,
    require_table_name,
    selection_of,
)
from hmodel.backend.memory.counter import LONG_MAX, LONG_MIN, add_to_counter, encode_counter
from hmodel.backend.memory.filter import FilterProgram, compile_filter
from hmodel.backend.memory.mutation import (
    EngineMutation,
    apply_delete,
    apply_put,
    apply_puts,
    plan_delete,
    plan_mutations,
    plan_put,
    resolve_latest,
    round_trip_groups,
)
from hmodel.backend.memory.rows import Names
from hmodel.backend.memory.scanner import (
    Fetch,
    RowVersions,
    T,
    fetch_latest,
    fetch_versions,
    scan_rows,
)
from hmodel.backend.memory.selection import EVERYTHING, Selection
from hmodel.backend.memory.store import (
    RawCell,
    StoredRow,
    new_row_result,
    set_cells,
    set_row,
)
from hmodel.backend.memory.table import MemoryTable
from hmodel.backend.memory.version import Stored, as_cell, make_cell, make_version, ttl_of
from hmodel.clock import Clock, system_clock
from hmodel.errors import (
    ConnectionLostError,
    IllegalArgumentError,
    TableDisabledError,
    TableExistsError,
    TableNotFoundError,
    UnsupportedOperationError,
)
from hmodel.schema.family import Family
from hmodel.schema.table import Table

__all__ = ["MemoryBackend"]


def _on_demand_families(
    table: MemoryTable, selection: Selection, program: FilterProgram, *, reverse: bool
) -> list[bytes]:
    """The scanned families HBase's region server loads on demand under ``program``.

    Those the filter does not need to decide on a row (``SingleColumnValueFilter(...,
    filterIfMissing=true)`` over more than one family): a forward scan joins them to the
    rows it keeps; ``ReversedRegionScannerImpl`` cannot, and refuses the scan.

    Raises:
        UnsupportedOperationError: ``reverse`` and some scanned family would be loaded
            on demand.
    """
    if selection.everything:
        scanned: set[bytes] = set(table.families)
    else:
        scanned = set(selection.families) | {name.partition(b":")[0] for name in selection.names}
    lazy = program.on_demand(scanned)
    if lazy and reverse:
        raise UnsupportedOperationError(
            "Reverse scan with loading CFs on demand is not supported",
            table=table.name,
            column=lazy[0],
        )
    return lazy


def _expected_matches(current: Stored | None, expected: bytes | None) -> bool:
    """Compare a cell with ``expected`` as HBase's ``HRegion.checkAndMutate`` does.

    A ``None`` or empty ``expected`` matches a missing cell and a cell holding ``b""`` alike.
    """
    if not expected:
        return current is None or current.value == b""
    return current is not None and current.value == expected


def _checked_stamp(current: Stored | None, now: int) -> int:
    """The stamp of a conditional write's puts sent without a timestamp.

    ``max(now, timestamp of the checked cell)``: HBase's ``checkAndMutate`` stamps them
    so (HBASE-14054), so a put that passed its check is never hidden behind the cell it
    checked, even one stamped in the future. Deletes without a timestamp take ``now``.
    """
    return now if current is None else max(now, current.timestamp)


def _without_families(stored: StoredRow, families: set[bytes]) -> StoredRow:
    """A copy of ``stored`` without the versions and markers of ``families``."""
    names: list[bytes] = []
    kept = StoredRow()
    for name, entry in zip(stored.names, stored, strict=True):
        if name.partition(b":")[0] not in families:
            names.append(name)
            kept.append(entry)
    kept.names = tuple(names)
    kept.irregular = sum(0 if type(entry) is Cell else 1 for entry in kept)
    if stored.markers is not None:
        kept.markers = stored.markers.without(lambda family, _stamp: family in families)
    return kept


def _next_timestamp(current: Stored | None, now: int) -> int:
    """Return the timestamp of a cell rewritten by an increment or append.

    That is ``now``, but always newer than the version it replaces: HBase's
    ``max(now, current + 1)``.
    """
    return now if current is None else max(now, current.timestamp + 1)


class MemoryBackend(Backend):
    """An in-process engine that behaves like one HBase server (see ``docs/engine.md``).

    Rows are kept in unsigned byte order, every cell is versioned by timestamp, deletes are
    delete markers, TTLs are judged by ``clock`` at read time, counters are 8-byte
    big-endian longs, and the errors are the server's. Each table has its own lock, held
    for the whole of a call: a call is atomic on its table, which is at least HBase's
    row atomicity. The engine is safe to share between threads.

    :attr:`round_trips` counts the requests a network backend would make: 1 per protocol
    call, 1 per distinct ``(timestamp, ttl)`` pair in :meth:`mutate` (0 for an empty one),
    and for a scan 1 to open it plus 1 per batch fetched (see :meth:`scan`). The engine's
    test helpers :meth:`raw` and :meth:`region_of` cost nothing.

    Args:
        clock: The time in epoch milliseconds, for cells and markers written without a
            timestamp and for TTLs; pass a :class:`~hmodel.clock.ManualClock` in tests.

    Example:
        >>> from hmodel.schema import Family, Table
        >>> backend = MemoryBackend()
        >>> backend.create_table(Table("user", [Family("i")]))
        >>> backend.mutate("user", [Put(b"u1", b"i:n", b"ann", timestamp=5)])
        >>> backend.get("user", [b"u1"])[0].cells[b"i:n"]
        Cell(value=b'ann', timestamp=5)
    """

    capabilities: frozenset[str] = frozenset({"check_and_delete", "check_and_mutate"})

    def __init__(self, *, clock: Clock = system_clock) -> None:
        self.clock = clock
        self.round_trips = 0
        self._tables: dict[str, MemoryTable] = {}
        self._lock = threading.RLock()
        self._closed = False

    # --- plumbing -------------------------------------------------------------------

    def _charge(self, count: int = 1) -> None:
        """Count ``count`` round trips; a closed backend refuses every request."""
        with self._lock:
            if self._closed:
                raise ConnectionLostError("the MemoryBackend is closed")
            self.round_trips += count

    def _table(self, name: object, *, enabled: bool = True) -> MemoryTable:
        """The table called ``name``; unless ``enabled=False``, it must be enabled."""
        checked = name if type(name) is str else require_table_name(name)
        table = self._tables.get(checked)  # one dict look-up: atomic, no lock needed
        if table is None:
            raise TableNotFoundError("no such table", table=checked)
        if enabled and not table.enabled:
            raise TableDisabledError("the table is disabled", table=checked)
        return table

    # --- admin ----------------------------------------------------------------------

    def create_table(self, table: Table) -> None:
        """Create ``table`` (families, options and split points as declared).

        Raises:
            IllegalArgumentError: ``table`` is not a :class:`~hmodel.schema.Table`.
            TableExistsError: A table of that name exists.
        """
        self._charge()
        if not isinstance(table, Table):
            raise IllegalArgumentError("expected a Table declaration", field="table", value=table)
        with self._lock:
            if table.full_name in self._tables:
                raise TableExistsError("the table already exists", table=table.full_name)
            self._tables[table.full_name] = MemoryTable(table)

    def delete_table(self, name: str) -> None:
        """Delete the table ``name`` and its rows, enabled or not.

        Raises:
            TableNotFoundError: No such table.
        """
        self._charge()
        checked = require_table_name(name)
        with self._lock:
            if self._tables.pop(checked, None) is None:
                raise TableNotFoundError("no such table", table=checked)

    def table_exists(self, name: str) -> bool:
        """Whether a table called ``name`` exists (enabled or not)."""
        self._charge()
        checked = require_table_name(name)
        with self._lock:
            return checked in self._tables

    def list_tables(self) -> list[str]:
        """Names of all tables, sorted; outside ``default`` as ``namespace:name``."""
        self._charge()
        with self._lock:
            return sorted(self._tables)

    def describe_families(self, name: str) -> dict[str, Family]:
        """The families of table ``name`` exactly as declared, by name.

        Raises:
            TableNotFoundError: No such table.
        """
        self._charge()
        table = self._table(name, enabled=False)
        return {family.name: family for family in table.declaration.families}

    def regions(self, name: str) -> list[Region]:
        """The regions cut by the table's split points, in key order.

        ``n`` split points give ``n + 1`` regions; the first starts at ``b""``, the last
        ends at ``b""`` (the end of the table). Regions never split or merge at runtime.

        Raises:
            TableNotFoundError: No such table.
        """
        self._charge()
        return self._table(name, enabled=False).regions()

    def region_of(self, name: str, row: bytes) -> Region:
        """The region of table ``name`` that holds ``row`` (``start <= row < end``); free.

        Raises:
            TableNotFoundError: No such table.
            IllegalArgumentError: ``row`` is not a rowkey.
        """
        table = self._table(name, enabled=False)
        return table.region_of(require_row(row, table=table.name))

    def disable_table(self, name: str) -> None:
        """Disable table ``name`` until :meth:`enable_table`; reads and writes are refused.

        They raise :class:`~hmodel.errors.TableDisabledError`, as HBase raises
        ``TableNotEnabledException``. Disabling a disabled table does nothing.

        Raises:
            TableNotFoundError: No such table.
        """
        self._set_enabled(name, False)

    def enable_table(self, name: str) -> None:
        """Enable table ``name`` again; enabling an enabled table does nothing.

        Raises:
            TableNotFoundError: No such table.
        """
        self._set_enabled(name, True)

    def _set_enabled(self, name: str, enabled: bool) -> None:
        self._charge()
        table = self._table(name, enabled=False)
        with table.lock:
            table.enabled = enabled

    def is_table_enabled(self, name: str) -> bool:
        """Whether table ``name`` is enabled.

        Raises:
            TableNotFoundError: No such table.
        """
        self._charge()
        return self._table(name, enabled=False).enabled

    def describe_table(self, name: str) -> Table:
        """The declaration of table ``name`` as stored (after any alteration).

        Raises:
            TableNotFoundError: No such table.
        """
        self._charge()
        return self._table(name, enabled=False).declaration

    def alter_table(self, name: str, declaration: Table) -> None:
        """Make table ``name`` the table ``declaration`` describes, keeping its rows (F5).

        Families and table options are replaced by the declaration's; the cells and
        delete markers of families it drops are deleted; a family it adds starts empty.
        The name and split points stay the stored ones (regions are fixed at creation).
        New VERSIONS and TTL limits apply to reads at once.

        Raises:
            TableNotFoundError: No such table.
            IllegalArgumentError: ``declaration`` is not a :class:`~hmodel.schema.Table`.
        """
        self._charge()
        if not isinstance(declaration, Table):
            raise IllegalArgumentError("expected a Table declaration", value=declaration)
        table = self._table(name, enabled=False)
        with table.lock:
            old = table.declaration
            kept = Table(
                old.name,
                declaration.families,
                namespace=old.namespace,
                splits=old.split_policy,
                read_only=declaration.read_only,
                durability=declaration.durability,
                max_filesize=declaration.max_filesize,
                memstore_flushsize=declaration.memstore_flushsize,
                allow_many_families=declaration.allow_many_families,
            )
            dropped = set(table.families) - {f.name_bytes for f in kept.families}
            table.redeclare(kept)
            if dropped:
                table.rewrite(lambda stored: _without_families(stored, dropped))

    def truncate_table(self, name: str, *, preserve_splits: bool = True) -> None:
        """Drop every row of table ``name``; it comes back enabled (HBase's ``truncate``).

        With ``preserve_splits=False`` the table keeps a single region.

        Raises:
            TableNotFoundError: No such table.
        """
        self._charge()
        table = self._table(name, enabled=False)
        with table.lock:
            table.rows.clear()
            if not preserve_splits:
                table.redeclare(table.declaration.without_splits())
            table.enabled = True

    def major_compact(self, name: str) -> None:
        """Major-compact table ``name`` now, as HBase's ``major_compact`` does.

        Expired cells are purged (``MIN_VERSIONS`` of them survive the family TTL). In
        families without ``KEEP_DELETED_CELLS`` the delete markers are purged together with
        the cells they mask, so a put arriving afterwards with an old timestamp is visible
        again; with it, markers and deleted cells stay. Compactions never happen otherwise.

        Raises:
            TableNotFoundError: No such table.
            TableDisabledError: The table is disabled.
        """
        self._charge()
        table = self._table(name)
        with table.lock:
            table.compact(self.clock())

    def raw(self, name: str, row: bytes) -> list[RawCell]:
        """Every stored version and delete marker of ``row``, as a RAW scan shows them; free.

        Expired and deleted cells are included until :meth:`major_compact`; versions
        beyond ``VERSIONS`` are not (they are discarded on write, as at a flush).

        Raises:
            TableNotFoundError: No such table.
        """
        table = self._table(name, enabled=False)
        checked = require_row(row, table=table.name)
        with table.lock:
            stored = table.row(checked)
            return [] if stored is None else stored.raw(table.orders)

    # --- reads ----------------------------------------------------------------------

    def _before(self, table: MemoryTable, before: object) -> int | None:
        if before is None:
            return None
        return require_int("before", before, table=table.name, minimum=0, maximum=LONG_MAX)

    def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        """Read the newest visible cell of each selected column of ``rows``; one round trip.

        Returns one :class:`RowResult` per requested row with a visible cell, in the order
        requested (duplicates repeat); rows without any are left out.

        Raises:
            TableNotFoundError: No such table.
            TableDisabledError: The table is disabled.
            ColumnFamilyNotFoundError: ``columns`` names an unknown family.
            IllegalArgumentError: A row or column is not bytes, or a row is empty.
        """
        if not rows and isinstance(rows, (list, tuple)):
            return []  # nothing to do: no round trip (the protocol's rule for empty calls)
        lock = self._lock
        lock.acquire()  # _charge(), inlined on this hot path (acquire/release: no `with`)
        try:
            if self._closed:
                raise ConnectionLostError("the MemoryBackend is closed")
            self.round_trips += 1
        finally:
            lock.release()
        stored = self._tables.get(table) if type(table) is str else None
        if stored is None or not stored.enabled:
            stored = self._table(table)
        if type(rows) is list:
            keys = rows
            for row in rows:
                if type(row) is not bytes or not 0 < len(row) <= MAX_ROW_LENGTH:
                    keys = [require_row(key, table=stored.name, argument="rows") for key in rows]
                    break
        else:
            keys = [
                require_row(row, table=stored.name, argument="rows")
                for row in require_sequence("rows", rows, table=stored.name)
            ]
        selection = (
            EVERYTHING if type(columns) is tuple and not columns else selection_of(stored, columns)
        )
        checked_before = None if before is None else self._before(stored, before)
        results = []
        plain = stored.timeless and checked_before is None and selection is EVERYTHING
        lock = stored.lock
        lock.acquire()
        try:
            # The clock is read only if a row needs it (TTLs): see MemoryTable.latest_of.
            now: int | None = None if plain else self.clock()
            # RowIndex.get, inlined: a row of objects is one hash probe in ``objects``; a
            # one-cell row is found by two bisections, beside its names.
            index = stored.rows
            objects = index.objects.get
            for row in keys:
                data = objects(row)
                names: Names = None  # read only for a one-cell row
                if data is None:
                    chunk = bisect_right(index.firsts, row) - 1
                    if chunk < 0:
                        continue
                    chunk_keys = index.keys[chunk]
                    at = bisect_left(chunk_keys, row)
                    if at == len(chunk_keys) or chunk_keys[at] != row:
                        continue
                    shared = index.names[chunk]
                    names = shared if type(shared) is not list else shared[at]  # type: ignore[assignment]
                    data = make_cell(index.values[chunk][at], index.stamps[chunk][at])  # type: ignore[arg-type]
                if plain and type(data) is tuple:
                    # A plain row of several columns, its names last: nothing can hide a
                    # cell, every Cell is the newest. zip stops at the names' end (and its
                    # strict= would cost 0.3 us a call).
                    cells: dict[bytes, Cell] = dict(zip(data[-1], data))  # noqa: B905
                elif plain and type(data) is Cell:
                    # A plain one-column row: its names are its chunk's (often uniform).
                    cells = {names[0]: data}  # type: ignore[index]
                else:
                    if now is None:
                        now = self.clock()
                    cells = stored.latest_of(
                        names,
                        data,
                        selection,
                        before=checked_before,
                        now=now,
                    )
                if cells:
                    result = new_row_result(RowResult)  # row_result(), inlined
                    set_row(result, row)
                    set_cells(result, cells)
                    results.append(result)
        finally:
            lock.release()
        return results

    def get_versions(
        self,
        table: str,
        row: bytes,
        column: bytes,
        *,
        max_versions: int,
        before: int | None = None,
    ) -> list[Cell]:
        """Read up to ``max_versions`` visible versions of one cell, newest first.

        Raises:
            TableNotFoundError: No such table.
            TableDisabledError: The table is disabled.
            ColumnFamilyNotFoundError: ``column`` names an unknown family.
            IllegalArgumentError: Bad row or column, a bare family, ``max_versions < 1``.
        """
        self._charge()
        stored = self._table(table)
        checked_row = require_row(row, table=stored.name)
        name = require_cell_name(stored, column, row=checked_row)
        limit = require_int("max_versions", max_versions, table=stored.name, minimum=1)
        checked_before = self._before(stored, before)
        with stored.lock:
            history = stored.row_versions(
                checked_row, name, before=checked_before, now=self.clock()
            )
        return [as_cell(version) for version in history[:limit]]

    def get_history(
        self,
        table: str,
        row: bytes,
        columns: Sequence[bytes] = (),
        *,
        max_versions: int,
        before: int | None = None,
    ) -> list[tuple[bytes, list[Cell]]]:
        """Up to ``max_versions`` visible versions of each selected column of one row.

        Newest first, in column order: one read, as a multi-version HBase ``Get`` sees it.

        Unlike :meth:`get_versions` per column, a column read with its whole family (or
        with no columns named) goes through HBase's wildcard column tracker, which shows
        fewer expired versions under ``MIN_VERSIONS`` than a column asked for by name
        (see :mod:`hmodel.backend.memory.version`). For the fake servers' multi-version
        reads.

        Raises:
            TableNotFoundError: No such table.
            TableDisabledError: The table is disabled.
            ColumnFamilyNotFoundError: ``columns`` names an unknown family.
            IllegalArgumentError: Bad row or columns, ``max_versions < 1``.
        """
        self._charge()
        stored = self._table(table)
        checked_row = require_row(row, table=stored.name)
        selection = selection_of(stored, columns)
        limit = require_int("max_versions", max_versions, table=stored.name, minimum=1)
        checked_before = self._before(stored, before)
        with stored.lock:
            found = stored.row(checked_row)
            history = (
                []
                if found is None
                else stored.history_of(found, selection, before=checked_before, now=self.clock())
            )
        return [(name, cells[:limit]) for name, cells in history]

    def scan(self, table: str, scan: Scan) -> Iterator[RowResult]:
        """Iterate the rows of ``scan``: the newest visible cell of each selected column.

        The arguments, the table and the filter are checked here, when the scanner is
        opened (1 round trip). Rows are then fetched lazily, ``batch_size`` per round trip
        (fewer when the ``limit`` is closer); a fetch that returns fewer rows than it asked
        for ends the scan, so ``n`` rows cost ``1 + n // batch_size + 1`` round trips
        without a limit, and a limit of ``n`` reached exactly costs ``1 + ceil(n /
        batch_size)``. Each fetch sees the table as it is then (writes between fetches are
        seen if they land ahead of the scan); concurrent writes never break a scan.
        A filter (I4) sees each row's selected visible columns with all their visible
        versions; the scan returns the newest version of what it keeps.

        Raises:
            TableNotFoundError: No such table (also from a fetch, if deleted meanwhile).
            TableDisabledError: The table is disabled (also from a fetch).
            ColumnFamilyNotFoundError: ``scan.columns`` names an unknown family.
            FilterError: The filter does not parse or is not supported.
            IllegalArgumentError: ``scan`` is not a :class:`Scan` or has a bad field.
            UnsupportedOperationError: A reversed scan whose filter leaves a scanned family
                to be loaded on demand (``SingleColumnValueFilter(..., filterIfMissing=
                true)`` over more than one family): HBase refuses it ("Reverse scan with
                loading CFs on demand is not supported"). Scan only the filtered column's
                family, or set ``filterIfMissing`` false.
        """
        return self._scan(table, scan, max_versions=1, fetch=fetch_latest)

    def scan_versions(
        self, table: str, scan: Scan, *, max_versions: int, minimum: int = 0
    ) -> Iterator[RowVersions]:
        """:meth:`scan` returning up to ``max_versions`` versions of each column.

        Each row as ``(row, [(b"f:q", [Cell, ...]), ...])``: columns in column order,
        versions newest first, none older than ``minimum`` (the inclusive lower bound of
        the time range; ``scan.before`` the exclusive upper one). A filter sees every
        visible version in the range and keeps at most ``max_versions`` of those it
        includes per column, as HBase's multi-version ``Scan`` and ``Get`` do; a column
        read with its whole family goes through the wildcard column tracker (see
        :meth:`get_history`). For the fake Thrift2 server's ``maxVersions``.

        Raises:
            IllegalArgumentError: ``max_versions < 1`` or a bad ``minimum`` (and the
                errors of :meth:`scan`).
        """
        checked = require_int("minimum", minimum, table=str(table), minimum=0, maximum=LONG_MAX)
        fetch = functools.partial(fetch_versions, versions=max_versions, minimum=checked)
        return self._scan(table, scan, max_versions=max_versions, fetch=fetch)

    def _scan(self, table: str, scan: Scan, *, max_versions: int, fetch: Fetch[T]) -> Iterator[T]:
        """Check a scan and start its filter (one round trip); its rows, lazily."""
        if isinstance(scan, Scan) and scan.limit == 0:
            return iter(())  # nothing to do: no round trip
        self._charge()
        stored = self._table(table)
        if not isinstance(scan, Scan):
            raise IllegalArgumentError("expected a Scan", table=stored.name, value=scan)
        require_bytes("start", scan.start, table=stored.name)
        require_bytes("stop", scan.stop, table=stored.name)
        require_int("max_versions", max_versions, table=stored.name, minimum=1)
        selection = selection_of(stored, scan.columns)
        self._before(stored, scan.before)
        run = None
        if scan.filter is not None:
            if not isinstance(scan.filter, (str, bytes)):
                raise IllegalArgumentError(
                    "a filter is a str or bytes",
                    table=stored.name,
                    field="filter",
                    value=scan.filter,
                )
            program = compile_filter(scan.filter)
            lazy = _on_demand_families(stored, selection, program, reverse=scan.reverse)
            run = program.start(max_versions=max_versions, reverse=scan.reverse, on_demand=lazy)
        name = stored.name
        return scan_rows(
            lambda: self._table(name),
            scan,
            selection,
            run,
            clock=self.clock,
            charge=self._charge,
            fetch=fetch,
        )

    # --- writes ---------------------------------------------------------------------

    def mutate(self, table: str, mutations: Sequence[EngineMutation]) -> None:
        """Apply puts and deletes; every mutation is checked before any is applied.

        The whole call is atomic on the table (more than HBase's per-row atomicity). All
        puts are applied before all deletes, as the Thrift1 server does, and the ones
        without a timestamp share one "now" (so a put and a delete of the same cell
        without timestamps in one call leave the cell deleted). The engine also takes
        single-version deletes (:class:`VersionDelete`, not in the ``Backend``
        protocol); one without a timestamp masks the newest version visible before the
        call's puts.

        Raises:
            TableNotFoundError: No such table.
            TableDisabledError: The table is disabled.
            ColumnFamilyNotFoundError: A column names an unknown family; nothing is applied.
            IllegalArgumentError: A malformed mutation; nothing is applied.
        """
        name = require_table_name(table)
        given = require_sequence("mutations", mutations, table=name)
        if not given:
            return  # nothing to do: no round trip
        stored = self._tables.get(name)
        if self._closed or stored is None or not stored.enabled:
            self._charge(round_trip_groups(given))  # raises if closed
            stored = self._table(name)  # raises if missing or disabled
            charged = True
        else:
            charged = False
        groups: set[tuple[int | None, int | None]] = set()
        try:
            puts, deletes = plan_mutations(stored, given, groups)
        except BaseException:
            if not charged:  # a refused call still costs its round trips
                self._charge(round_trip_groups(given))
            raise
        if not charged:
            self._charge(len(groups))
        with stored.lock:
            now = self.clock()
            if deletes:
                deletes = resolve_latest(stored, deletes, now=now)
            apply_puts(stored, puts, now=now)
            for delete in deletes:
                apply_delete(stored, delete, now=now)

    def _increment(self, table: MemoryTable, row: bytes, name: bytes, amount: int) -> int:
        """Add ``amount`` to one counter; the caller holds the lock."""
        now = self.clock()
        current = table.latest(row, name, now=now)
        total = add_to_counter(None if current is None else current.value, amount)
        ttl = None if current is None else ttl_of(current)
        version = make_version(_next_timestamp(current, now), encode_counter(total), ttl)
        table.put(row, name, version)
        return total

    def _check_increment(
        self, table: MemoryTable, row: object, column: object, amount: object
    ) -> tuple[bytes, bytes, int]:
        checked_row = require_row(row, table=table.name)
        key = require_cell_name(table, column, row=checked_row)
        checked_amount = require_int(
            "amount", amount, table=table.name, row=checked_row, minimum=LONG_MIN, maximum=LONG_MAX
        )
        return checked_row, key, checked_amount

    def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """Atomically add ``amount`` to the counter ``row``/``column``; return the new value.

        A missing (or deleted, or expired) cell counts as 0. The new value is stored as an
        8-byte big-endian signed long with timestamp ``max(now, old timestamp + 1)``,
        keeping the old cell's per-cell TTL, as HBase does (F10).

        Raises:
            CounterError: The cell is not 8 bytes wide, or the sum overflows 64 bits.
            TableNotFoundError: No such table.
            ColumnFamilyNotFoundError: ``column`` names an unknown family.
            IllegalArgumentError: Bad row, column or amount.
        """
        self._charge()
        stored = self._table(table)
        checked_row, key, checked_amount = self._check_increment(stored, row, column, amount)
        with stored.lock:
            return self._increment(stored, checked_row, key, checked_amount)

    def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """Apply several increments in one round trip, in order, each atomic on its own.

        Every increment is checked first; if one then fails (a cell that is not a long),
        the ones before it stay applied, as in an HBase batch.

        Raises:
            CounterError: A cell is not 8 bytes wide, or a sum overflows.
            TableNotFoundError: No such table.
            ColumnFamilyNotFoundError: A column names an unknown family; nothing is applied.
        """
        if isinstance(increments, (list, tuple)) and not increments:
            return  # nothing to do: no round trip
        self._charge()
        stored = self._table(table)
        checked = []
        for increment in require_sequence("increments", increments, table=stored.name):
            if not isinstance(increment, Increment):
                raise IllegalArgumentError(
                    "expected an Increment", table=stored.name, value=increment
                )
            checked.append(
                self._check_increment(stored, increment.row, increment.column, increment.amount)
            )
        with stored.lock:
            for row, key, amount in checked:
                self._increment(stored, row, key, amount)

    def _check_expected(
        self, table: MemoryTable, row: object, column: object, expected: object
    ) -> tuple[bytes, bytes]:
        checked_row = require_row(row, table=table.name)
        key = require_cell_name(table, column, row=checked_row)
        if expected is not None:
            require_bytes("expected", expected, table=table.name, row=checked_row)
        return checked_row, key

    def check_and_put(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> bool:
        """Atomically apply ``put`` if the newest visible value of ``column`` is ``expected``.

        As in HBase, ``expected`` ``None`` (or ``b""``) matches a missing cell and a cell
        holding ``b""``. A put without a timestamp is stamped ``max(now, timestamp of the
        checked cell)``, as HBase does (HBASE-14054).

        Raises:
            IllegalArgumentError: ``put`` is on another row, or a malformed argument.
            ColumnFamilyNotFoundError: ``column`` or the put names an unknown family.
        """
        self._charge()
        stored = self._table(table)
        checked_row, key = self._check_expected(stored, row, column, expected)
        planned = plan_put(stored, put, row=checked_row)
        with stored.lock:
            now = self.clock()
            current = stored.latest(checked_row, key, now=now)
            if not _expected_matches(current, expected):
                return False
            apply_put(stored, planned, now=_checked_stamp(current, now))
            return True

    def check_and_delete(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, delete: Delete
    ) -> bool:
        """Atomically apply ``delete`` if the newest visible value of ``column`` is ``expected``.

        ``expected`` is compared as in :meth:`check_and_put`.

        Raises:
            IllegalArgumentError: ``delete`` is on another row, or a malformed argument.
            ColumnFamilyNotFoundError: ``column`` or the delete names an unknown family.
        """
        self._charge()
        stored = self._table(table)
        checked_row, key = self._check_expected(stored, row, column, expected)
        planned = plan_delete(stored, delete, row=checked_row)
        with stored.lock:
            now = self.clock()
            if not _expected_matches(stored.latest(checked_row, key, now=now), expected):
                return False
            apply_delete(stored, planned, now=now)
            return True

    def check_and_mutate(
        self,
        table: str,
        row: bytes,
        column: bytes,
        expected: bytes | None,
        mutations: Sequence[EngineMutation],
    ) -> bool:
        """Atomically apply ``mutations`` if the newest visible ``column`` is ``expected``.

        ``expected`` is compared as in :meth:`check_and_put`. Every mutation is checked
        before anything is applied; puts and deletes without a timestamp share one "now",
        except that puts are stamped no older than the checked cell (``max(now, its
        timestamp)``, HBASE-14054). One round trip, whatever the mutations' timestamps.
        Single-version deletes (:class:`VersionDelete`) are taken as in :meth:`mutate`.

        Raises:
            IllegalArgumentError: A mutation is on another row, none is given, or a
                malformed argument.
            ColumnFamilyNotFoundError: ``column`` or a mutation names an unknown family.
        """
        name = require_table_name(table)
        given = require_sequence("mutations", mutations, table=name)
        self._charge()
        stored = self._table(name)
        checked_row, key = self._check_expected(stored, row, column, expected)
        if not given:
            raise IllegalArgumentError(
                "check_and_mutate needs at least one mutation", table=name, row=checked_row
            )
        puts, deletes = plan_mutations(stored, given)
        for planned_row in [p[0] for p in puts] + [d.row for d in deletes]:
            if planned_row != checked_row:
                raise IllegalArgumentError(
                    "check_and_mutate's mutations must be on the checked row",
                    table=name,
                    row=checked_row,
                    value=planned_row,
                )
        with stored.lock:
            now = self.clock()
            current = stored.latest(checked_row, key, now=now)
            if not _expected_matches(current, expected):
                return False
            put_now = _checked_stamp(current, now)
            deletes = resolve_latest(stored, deletes, now=now)
            for put in puts:
                apply_put(stored, put, now=put_now)
            for delete in deletes:
                apply_delete(stored, delete, now=now)
            return True

    def append(self, table: str, row: bytes, values: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
        """Atomically append ``values`` to cells of ``row``; return the new values by column.

        A missing cell counts as ``b""``. The new cells get timestamp ``max(now, old + 1)``
        and keep the old cell's per-cell TTL, as in HBase.

        Raises:
            TableNotFoundError: No such table.
            ColumnFamilyNotFoundError: A column names an unknown family; nothing is applied.
            IllegalArgumentError: A malformed row, column or value; nothing is applied.
        """
        if isinstance(values, Mapping) and not values:
            require_row(row, table=table)
            return {}  # nothing to do: no round trip
        self._charge()
        stored = self._table(table)
        checked_row = require_row(row, table=stored.name)
        if not isinstance(values, Mapping):
            raise IllegalArgumentError(
                "values must be a mapping of column to bytes", table=stored.name, value=values
            )
        planned = [
            (
                column,
                require_cell_name(stored, column, row=checked_row),
                require_bytes("value", value, table=stored.name, row=checked_row),
            )
            for column, value in values.items()
        ]
        appended: dict[bytes, bytes] = {}
        with stored.lock:
            now = self.clock()
            for column, key, suffix in planned:
                current = stored.latest(checked_row, key, now=now)
                value = (b"" if current is None else current.value) + suffix
                ttl = None if current is None else ttl_of(current)
                version = make_version(_next_timestamp(current, now), value, ttl)
                stored.put(checked_row, key, version)
                appended[column] = value
        return appended

    def close(self) -> None:
        """Refuse every later request with :class:`ConnectionLostError`; the data is dropped."""
        with self._lock:
            self._closed = True
            self._tables.clear()
