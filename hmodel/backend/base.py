"""The Backend protocol: what hmodel asks of a store, in bytes only."""

from __future__ import annotations

import abc
import operator
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any, cast

import attrs

from hmodel.errors import IllegalArgumentError, UnsupportedOperationError
from hmodel.schema.family import Family
from hmodel.schema.table import Table

__all__ = [
    "Backend",
    "Cell",
    "Delete",
    "Increment",
    "ListCells",
    "Mutation",
    "Put",
    "Region",
    "RowBatch",
    "RowResult",
    "Scan",
    "WireCells",
    "column_order",
    "family_of",
    "in_column_order",
    "newest_timestamp",
    "prefix_stop",
    "split_column",
    "wire_cell",
]


def split_column(column: bytes) -> tuple[bytes, bytes | None]:
    """Split ``b"f:q"`` into ``(b"f", b"q")``; a bare family ``b"f"`` gives ``(b"f", None)``.

    ``b"f:"`` is the column with the empty qualifier, as in HBase: ``(b"f", b"")``.
    Only the first colon separates; qualifiers may contain colons.
    """
    family, sep, qualifier = column.partition(b":")
    return (family, qualifier) if sep else (family, None)


def family_of(column: bytes) -> bytes:
    """Return the family part of ``b"f:q"`` (or of a bare ``b"f"``)."""
    return column.partition(b":")[0]


def prefix_stop(prefix: bytes) -> bytes:
    r"""Return the smallest row greater than every row that starts with ``prefix``.

    That is the exclusive stop row of a prefix scan: increment the last byte that is not
    ``0xff`` and drop what follows. A prefix of only ``0xff`` bytes (or an empty prefix)
    has no such row; ``b""`` is returned, meaning "to the end of the table".

    >>> prefix_stop(b"ab")
    b'ac'
    >>> prefix_stop(b"a\xff")
    b'b'
    >>> prefix_stop(b"\xff")
    b''
    """
    trimmed = prefix.rstrip(b"\xff")
    if not trimmed:
        return b""
    return trimmed[:-1] + bytes([trimmed[-1] + 1])


def _column_tuple(columns: Iterable[bytes]) -> tuple[bytes, ...]:
    """``Scan.columns`` converter (a bare ``tuple`` converter leaves mypy a generic type)."""
    return tuple(columns)


@attrs.frozen(weakref_slot=False)
class Cell:
    """One version of one cell: its value and its timestamp in epoch milliseconds.

    No weak references (8 bytes less per cell: the in-memory engine keeps millions).
    """

    value: bytes
    timestamp: int


# ``Cell`` is an attrs frozen slotted class with neither converters nor validators:
# allocating one and setting its slots makes the same object as its ``__init__`` (which
# goes through a frozen ``__setattr__`` detour) in about half the time.
_new = object.__new__
_set_value = Cell.__dict__["value"].__set__
_set_timestamp = Cell.__dict__["timestamp"].__set__


def column_order(column: bytes) -> tuple[bytes, bytes]:
    """Sort key of ``b"f:q"``: family, then qualifier, each as unsigned bytes.

    Not the same as sorting the joined bytes: ``b"a-:q"`` sorts before ``b"a:q"`` as bytes
    (``-`` < ``:``) but after it by family (``b"a"`` < ``b"a-"``), which is HBase's order.
    """
    family, _, qualifier = column.partition(b":")
    return family, qualifier


def in_column_order(columns: Collection[bytes]) -> list[bytes]:
    """The names ``columns`` (``b"f:q"``, a collection) sorted by :func:`column_order`.

    Sorting the joined bytes gives the same order when every column has the same family
    (they then differ only after the common ``b"f:"``), so the names are sorted as bytes
    first, without a key function. Sorted so, every name between two that start with
    ``b"f:"`` starts with it too: when the first and the last share their family, all do.
    Otherwise (or when the first has no colon) they are sorted by :func:`column_order`.
    """
    names = sorted(columns)
    if len(names) > 1:
        first = names[0]
        colon = first.find(b":")
        if colon < 0 or not names[-1].startswith(first[: colon + 1]):
            return sorted(columns, key=column_order)  # stable from the given order
    return names


class WireCells(Mapping[bytes, "Cell"]):
    """A row's cells kept as the wire delivered them; each :class:`Cell` is made when read.

    A backend whose protocol hands over cell objects of its own (Thrift1's ``TCell``:
    ``value`` and ``timestamp`` attributes, ``value`` possibly ``None`` for empty) may
    return them in a :class:`RowResult` through this mapping rather than build a ``Cell``
    for every cell of every row read: code that reads every field of a row once (the
    mapper) then builds none. It is a read-only ``Mapping[bytes, Cell]`` like any other:
    reading a column makes its ``Cell`` (``value`` ``b""`` for an empty one), iteration
    is in column order, and it compares equal to a ``dict`` of the same cells.

    Attributes:
        wire: Column ``b"f:q"`` to the protocol's cell object, in any order. Read-only
            by convention, for code that knows the protocol's cells.
    """

    __slots__ = ("_order", "wire")

    def __init__(self, wire: Mapping[bytes, object]) -> None:
        self.wire = wire
        self._order: list[bytes] | None = None

    def __getitem__(self, column: bytes) -> Cell:
        found: object = self.wire[column]
        return wire_cell(found)

    def get(self, column: bytes, default: object = None) -> Cell | None:  # type: ignore[override]
        """The :class:`Cell` of ``column``, or ``default``."""
        found = self.wire.get(column)
        return default if found is None else wire_cell(found)  # type: ignore[return-value]

    def __contains__(self, column: object) -> bool:
        return column in self.wire

    def __len__(self) -> int:
        return len(self.wire)

    def __iter__(self) -> Iterator[bytes]:
        order = self._order
        if order is None:
            order = self._order = in_column_order(self.wire)
        return iter(order)

    def __repr__(self) -> str:
        return repr(dict(self.items()))

    def newest(self, skip: frozenset[bytes] = frozenset()) -> int:
        """The greatest timestamp of the cells whose columns are not in ``skip`` (0: none)."""
        newest = 0
        wire: Mapping[bytes, Any] = self.wire
        for column, cell in wire.items():
            if cell.timestamp > newest and column not in skip:
                newest = cell.timestamp
        return newest


_wire_slot: Any = WireCells.__dict__["wire"]


class ListCells(WireCells):
    """A row's cells as the protocol listed them, mapped by column only when asked.

    For a protocol that hands a row over as a list of cell structs each naming its
    column (Thrift2's ``TColumnValue``: ``family``, ``qualifier``, ``value``,
    ``timestamp``), newest version first within a column, columns in HBase's order
    (family, then qualifier, as unsigned bytes). A :class:`WireCells` in every way;
    :attr:`wire` (column ``b"f:q"`` to the newest cell of that column) is built on its
    first read, so a reader that walks :attr:`listed` in column order (the mapper's
    generated reader) never builds it.

    Attributes:
        listed: The protocol's cell structs, in the order received.
    """

    __slots__ = ("listed",)

    def __init__(self, listed: Sequence[Any]) -> None:
        self.listed = listed
        self._order = None

    @property  # a slot on WireCells, computed here
    def wire(self) -> Mapping[bytes, object]:  # type: ignore[override]
        """Column ``b"f:q"`` to its newest cell struct (built once, on the first read)."""
        try:
            found: Mapping[bytes, object] = _wire_slot.__get__(self)
        except AttributeError:
            # From the oldest up, so that the first (newest) cell of a column is kept.
            found = {v.family + b":" + v.qualifier: v for v in reversed(self.listed)}
            _wire_slot.__set__(self, found)
        return found

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and copied) as the list it stands for; the mapping is built again."""
        return (ListCells, (list(self.listed),))


def newest_timestamp(
    cells: Mapping[bytes, Cell], skip: frozenset[bytes] = frozenset(), *, at_least: int = 0
) -> int:
    """The greatest timestamp among ``cells`` outside the columns ``skip`` (0: none).

    Reads :class:`WireCells` without making a ``Cell``; for other mappings, the usual case
    (no skipped column present) takes one pass in C. With ``at_least``, 0 also when that
    timestamp is below ``at_least``: then one pass in C over every cell's timestamp
    usually tells (the greatest of all is below it), before any column is looked at.
    """
    wire = cells.wire if type(cells) is WireCells or type(cells) is ListCells else None
    if at_least:
        every = (wire if wire is not None else cells).values()
        if max(map(_timestamp_of, every), default=0) < at_least:
            return 0
    if wire is not None:
        return cast(WireCells, cells).newest(skip)
    for column in skip:
        if column in cells:
            return max(
                (cell.timestamp for name, cell in cells.items() if name not in skip), default=0
            )
    return max(map(_timestamp_of, cells.values()), default=0)


_timestamp_of = operator.attrgetter("timestamp")


def wire_cell(found: Any) -> Cell:
    """The :class:`Cell` of a protocol's cell struct (``value`` and ``timestamp``).

    A missing value (``None``: Thrift leaves an empty one unset) reads as ``b""``. Built
    through the slots: the same object as ``Cell(...)`` in about half the time.
    """
    made = _new(Cell)
    _set_value(made, found.value or b"")
    _set_timestamp(made, found.timestamp)
    return made


@attrs.frozen
class RowResult:
    """One row as read: its key and, per column ``b"f:q"``, the latest visible cell.

    ``cells`` iterates in column order (family, then qualifier, as unsigned bytes).
    """

    row: bytes
    cells: Mapping[bytes, Cell]

    def value(self, column: bytes) -> bytes | None:
        """Return the value of ``column``, or ``None`` if the row has no such cell."""
        cell = self.cells.get(column)
        return None if cell is None else cell.value


@attrs.frozen
class Put:
    """Write ``value`` into ``row``/``column``.

    Args:
        row: The rowkey.
        column: ``b"family:qualifier"`` (a family alone is rejected).
        value: The cell value.
        timestamp: The cell timestamp in epoch ms; ``None`` lets the server stamp it with
            its current time.
        ttl: Per-cell TTL in **milliseconds** (F8); the cell expires at
            ``timestamp + ttl`` and never outlives its family's TTL. ``None``: family TTL only.
    """

    row: bytes
    column: bytes
    value: bytes
    timestamp: int | None = None
    ttl: int | None = None


@attrs.frozen
class Delete:
    """Delete cells of ``row``, as HBase deletes do (delete markers).

    Args:
        row: The rowkey.
        column: ``b"f:q"`` deletes every version of that column with a timestamp
            ``<= timestamp`` (HBase ``Delete.addColumns``); a bare family ``b"f"`` does the
            same for the whole family (``Delete.addFamily``); ``None`` for the whole row.
        timestamp: Upper bound (inclusive) of the versions deleted; ``None`` means "now",
            i.e. every version stored so far.
    """

    row: bytes
    column: bytes | None = None
    timestamp: int | None = None


#: One mutation of a row, as `Backend.mutate` takes them: a `Put` or a `Delete`.
Mutation = Put | Delete


class RowBatch:
    """Whole rows of one write, all at one timestamp and ttl, as checked bytes (a fast path).

    What a repository's compiled writer hands a backend that offers it: per row,
    ``(column, value)`` pairs, ``value`` ``None`` for a delete of every version of the
    column up to the batch's timestamp (as ``Delete(row, column, timestamp)``). The caller
    vouches for the bytes: rows of 1 to 32,767 bytes, columns ``b"family:qualifier"`` with
    a non-empty family among :attr:`families`, values of exact type ``bytes``: no cell is
    checked again.

    The fast path is optional, beyond the :class:`Backend` protocol (a wrapper or a
    user's backend without it takes ``mutate``): a backend offers it with two methods,
    ``row_batch(table, timestamp, ttl, families)``, which returns its own subclass
    (building its protocol's structures as rows are added; no I/O), and
    ``write_rows(table, batch)`` (awaitable on an asyncio backend), which lands the batch
    exactly as ``mutate(table, batch.mutations())`` would: the same RPCs with the same
    bytes, the same atomicity and errors. This class is the generic form, a list of rows.

    Args:
        timestamp: Every cell's timestamp in epoch ms (>= 0).
        ttl: Every put's TTL in ms (F8); ``None``: the family's only.
        families: Every family the columns use (a backend that finds them all among the
            table's cached families checks no cell's; a superset only costs that check).
    """

    __slots__ = ("_rows", "families", "timestamp", "ttl")

    def __init__(self, timestamp: int, ttl: int | None, families: frozenset[bytes]) -> None:
        self.timestamp = timestamp
        self.ttl = ttl
        self.families = families
        self._rows: list[tuple[bytes, list[tuple[bytes, bytes | None]]]] = []

    def add_row(self, row: bytes, cells: list[tuple[bytes, bytes | None]]) -> None:
        """Add a row's cells, in the order they are to be applied (a row may come again)."""
        self._rows.append((row, cells))

    def mutations(self) -> list[Mutation]:
        """The batch as the protocol's mutations: a ``Put`` or ``Delete`` per cell, in order."""
        timestamp, ttl = self.timestamp, self.ttl
        return [
            Delete(row, column, timestamp)
            if value is None
            else Put(row, column, value, timestamp, ttl)
            for row, cells in self._rows
            for column, value in cells
        ]


@attrs.frozen
class Increment:
    """Add ``amount`` to the 8-byte big-endian counter at ``row``/``column`` (F10)."""

    row: bytes
    column: bytes
    amount: int = 1


@attrs.frozen
class Region:
    """A region of a table: rows ``>= start`` and ``< end`` (``b""`` end = end of table)."""

    start: bytes
    end: bytes


@attrs.frozen
class Scan:
    """What a scan reads. Bounds are always given in forward (unsigned byte) order.

    Args:
        start: First row, **inclusive**. ``b""``: from the start of the table.
        stop: Row to stop at, **exclusive**. ``b""``: to the end of the table.
        columns: Columns ``b"f:q"`` or whole families ``b"f"`` to return; empty: all.
        filter: A filter in the HBase filter language (I4), e.g.
            ``"SingleColumnValueFilter('i', 'n', =, 'binary:bob', true, true)"``. As
            ``bytes`` it may carry arbitrary bytes inside quoted literals (HBase parses filter
            strings as bytes); a ``str`` is encoded as UTF-8.
        before: Only cells with a timestamp **strictly less** than this (the Thrift1
            ``timestamp`` argument, ``setTimeRange(0, before)``); ``None``: all.
        reverse: Return rows from the highest to the lowest; the range is still
            ``start`` (inclusive) to ``stop`` (exclusive).
        limit: At most this many rows; ``None``: no limit.
        batch_size: Rows fetched per round trip (HBase scanner caching), >= 1: by the
            first round trip, and by every one when ``max_batch_size`` is ``None``.
        max_batch_size: Adaptive caching: each round trip after the first fetches twice
            the rows of the one before, up to this many (>= ``batch_size``). For a read
            that wants its first rows soon and may go on to read many, such as a paged
            read that keeps its scanners open: ``batch_size=200, max_batch_size=1000``
            reads 5,000 rows in 7 fetches, where 200 a fetch would take 25. ``None``:
            every round trip fetches ``batch_size`` rows.

    Scans return the latest visible version of each column (Thrift1 scans cannot return
    more); use :meth:`Backend.get_versions` for history.
    """

    start: bytes = b""
    stop: bytes = b""
    columns: tuple[bytes, ...] = attrs.field(default=(), converter=_column_tuple)
    filter: str | bytes | None = None
    before: int | None = None
    reverse: bool = False
    limit: int | None = None
    batch_size: int = 1000
    max_batch_size: int | None = None

    def __attrs_post_init__(self) -> None:
        for name in ("batch_size", "limit", "before", "max_batch_size"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise IllegalArgumentError(f"{name} must be an int", field=name, value=value)
        if not isinstance(self.reverse, bool):
            raise IllegalArgumentError(
                "reverse must be a bool", field="reverse", value=self.reverse
            )
        if self.batch_size < 1:
            raise IllegalArgumentError("batch_size must be >= 1", value=self.batch_size)
        if self.limit is not None and self.limit < 0:
            raise IllegalArgumentError("limit must be >= 0", value=self.limit)
        if self.max_batch_size is not None and self.max_batch_size < self.batch_size:
            raise IllegalArgumentError(
                "max_batch_size must be >= batch_size", value=self.max_batch_size
            )

    def next_batch_size(self, size: int) -> int:
        """The rows the round trip after one that fetched ``size`` rows asks for."""
        if self.max_batch_size is None:
            return self.batch_size
        return min(2 * size, self.max_batch_size)

    @classmethod
    def prefix(cls, prefix: bytes, **options: object) -> Scan:
        """A scan of exactly the rows that start with ``prefix`` (other options as given)."""
        return cls(start=prefix, stop=prefix_stop(prefix), **options)  # type: ignore[arg-type]

    def contains(self, row: bytes) -> bool:
        """Whether ``row`` lies inside ``[start, stop)``."""
        return row >= self.start and (not self.stop or row < self.stop)


class Backend(abc.ABC):
    """A store that behaves like HBase, spoken to in bytes.

    Every method but :meth:`scan` is **one round trip** to the store (retries of idempotent
    requests after a dropped connection aside). A scan is one round trip to open it plus
    one per ``batch_size`` rows. Columns are ``b"family:qualifier"``; rows, qualifiers and
    values are arbitrary bytes; timestamps are epoch milliseconds.

    A call with nothing to do (no rows, no mutations, no increments, no values, a scan
    with ``limit=0``) makes no round trip: it checks its arguments' types and returns,
    without noticing a missing table or family.

    Implementations: :class:`hmodel.backend.memory.MemoryBackend` (in-process engine),
    :class:`hmodel.backend.thrift.ThriftBackend` (HBase's Thrift1 server via happybase) and
    :class:`hmodel.backend.thrift2.Thrift2Backend` (HBase 2's Thrift2 server). The round
    trips stated here are Thrift1's (the engine counts them so); Thrift2's differ where
    its API does (see ``docs/thrift.md``).
    Errors are :class:`~hmodel.errors.BackendError` subclasses, with the original as cause.
    """

    #: Optional capabilities beyond the protocol's core, e.g. ``{"check_and_delete"}``.
    capabilities: frozenset[str] = frozenset()

    #: The wire RPC(s) each protocol method sends, for explanations, e.g.
    #: ``{"mutate": "mutateRowsTs"}``; a method not named is its own name.
    rpc_names: Mapping[str, str] = {}

    #: Round trips made so far: one per protocol call, one per scan batch (and scan open).
    #: Incremented by the implementations; read it before and after a call to see its cost.
    round_trips: int = 0

    # --- admin ----------------------------------------------------------------------

    @abc.abstractmethod
    def create_table(self, table: Table) -> None:
        """Create ``table`` with its families, their options and its split points.

        Raises:
            TableExistsError: A table of that name exists.
        """

    @abc.abstractmethod
    def delete_table(self, name: str) -> None:
        """Disable (if enabled) and delete the table ``name`` (``namespace:name`` allowed).

        Raises:
            TableNotFoundError: No such table.
        """

    @abc.abstractmethod
    def table_exists(self, name: str) -> bool:
        """Whether a table called ``name`` exists."""

    @abc.abstractmethod
    def list_tables(self) -> list[str]:
        """Names of all tables, sorted."""

    @abc.abstractmethod
    def describe_families(self, name: str) -> dict[str, Family]:
        """The families of table ``name`` with the options the store reports.

        A backend reports what it can see: over Thrift1 only VERSIONS, TTL, COMPRESSION,
        IN_MEMORY, BLOOMFILTER and BLOCKCACHE are visible, the rest are defaults.
        """

    @abc.abstractmethod
    def regions(self, name: str) -> list[Region]:
        """The table's regions in key order; they cover the whole key space."""

    # --- reads ----------------------------------------------------------------------

    @abc.abstractmethod
    def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        """Read the latest visible version of each column of several rows, in one round trip.

        Args:
            table: Table name.
            rows: Rowkeys; duplicates are allowed.
            columns: ``b"f:q"`` columns or ``b"f"`` families; empty: all columns.
            before: Only cells with timestamp strictly less than this.

        Returns:
            One :class:`RowResult` per requested row that has at least one visible cell,
            in the order requested. Missing rows are left out.
        """

    @abc.abstractmethod
    def get_versions(
        self,
        table: str,
        row: bytes,
        column: bytes,
        *,
        max_versions: int,
        before: int | None = None,
    ) -> list[Cell]:
        """Read up to ``max_versions`` visible versions of one column, newest first.

        Args:
            table: Table name.
            row: The rowkey.
            column: ``b"f:q"``.
            max_versions: At most this many versions (>= 1); the family's ``VERSIONS``
                caps what is kept anyway.
            before: Only versions with timestamp strictly less than this.
        """

    @abc.abstractmethod
    def scan(self, table: str, scan: Scan) -> Iterator[RowResult]:
        """Iterate the rows of ``scan``'s range in key order (or reverse order).

        The range is ``[start, stop)`` in both directions on every backend, so
        ``start == stop`` selects no row. Rows with no visible cell after column selection
        and filtering are not returned. Closing the iterator (or exhausting it) releases
        the server-side scanner.

        Raises:
            TableNotFoundError: No such table.
            ColumnFamilyNotFoundError: ``scan.columns`` names an unknown family.
            FilterError: The filter does not parse or is not supported.
            UnsupportedOperationError: ``scan.reverse`` with a filter that leaves a scanned
                family to be loaded on demand (``SingleColumnValueFilter(...,
                filterIfMissing=true)`` over several families): HBase refuses it.
        """

    # --- writes ---------------------------------------------------------------------

    @abc.abstractmethod
    def mutate(self, table: str, mutations: Sequence[Mutation]) -> None:
        """Apply puts and deletes to any rows of ``table``.

        Mutations of one row are applied atomically (HBase row atomicity); there is no
        atomicity across rows. Within one call, all puts are applied before all deletes,
        as HBase's Thrift1 server does. Puts and deletes without a timestamp take the
        server's current time. One round trip per distinct ``(timestamp, ttl)`` pair
        among the mutations (Thrift1 ``mutateRowsTs`` carries one timestamp and one set of
        attributes per call); mutations sharing them travel together. Over Thrift2: one
        round trip for one row (``mutateRow``), two for several rows mixing puts and
        deletes.

        Raises:
            TableNotFoundError: No such table.
            ColumnFamilyNotFoundError: A column names an unknown family; nothing of the
                call is applied.
        """

    @abc.abstractmethod
    def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """Atomically add ``amount`` to a counter cell and return its new value (F10).

        A missing cell counts as 0. Never retried blindly.

        Raises:
            CounterError: The cell holds a value that is not 8 bytes long.
        """

    @abc.abstractmethod
    def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """Apply several increments in one round trip; each is atomic on its own.

        If one fails (a cell that is not a long), the ones before it in the list stay
        applied. Over Thrift2, which has no multi-row increment: one round trip per run of
        one row's increments.
        """

    @abc.abstractmethod
    def check_and_put(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> bool:
        """Atomically apply ``put`` if ``column`` of ``row`` currently holds ``expected``.

        ``expected=None`` requires the cell to be absent. ``put`` must be on the same row;
        it may write another column. A put without a timestamp is stamped ``max(now,
        timestamp of the checked cell)`` (HBase's ``checkAndMutate``, HBASE-14054), so it
        is never hidden behind the cell it checked. Returns whether the put was applied.
        """

    @abc.abstractmethod
    def append(self, table: str, row: bytes, values: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
        """Atomically append bytes to cells of one row; return the new values. Never retried."""

    def check_and_delete(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, delete: Delete
    ) -> bool:
        """Atomically apply ``delete`` if ``column`` of ``row`` holds ``expected``.

        Optional: only backends with ``"check_and_delete"`` in :attr:`capabilities`.

        Raises:
            UnsupportedOperationError: Always, unless the backend supports it
                (HBase's Thrift1 API has no checkAndDelete).
        """
        raise UnsupportedOperationError(
            f"{type(self).__name__} cannot check-and-delete", table=table, row=row
        )

    def server_table_name(self, table: str) -> str:
        """The name the server knows ``table`` by: the name itself here.

        A Thrift backend with a ``table_prefix`` (and a namespace) sends another name;
        traces and messages show that one (``db.collection.name``).
        """
        return table

    def mutate_round_trips(self, mutations: Sequence[Mutation]) -> int:
        """How many requests :meth:`mutate` of ``mutations`` costs on this backend.

        One per distinct ``(timestamp, ttl)`` pair (deletes carry no TTL), as Thrift1's
        ``mutateRowsTs`` carries one timestamp and one attribute map per call; the memory
        engine counts the same. Zero for no mutations.
        """
        return len({(m.timestamp, m.ttl if isinstance(m, Put) else None) for m in mutations})

    def check_and_mutate(
        self,
        table: str,
        row: bytes,
        column: bytes,
        expected: bytes | None,
        mutations: Sequence[Mutation],
    ) -> bool:
        """Atomically apply a whole row's puts and deletes if one cell holds ``expected``.

        The check and every mutation are one atomic row operation (HBase's
        ``checkAndMutate`` with ``RowMutations``): a reader sees the row either before all
        of them or after all of them, never in between. ``expected`` ``None`` (or ``b""``)
        matches a missing cell and a cell holding ``b""``, as in HBase. Each mutation
        keeps its own timestamp; those without one take the server's current time, the
        same for the whole call (so a server-stamped delete masks the call's puts at that
        time, whatever their order), except that such puts are stamped no older than the
        checked cell (``max(now, its timestamp)``, HBASE-14054: a delete then masks them
        only if the checked cell is not in the future). Every mutation must be on
        ``row``. One round trip; never retried (the outcome of a dropped call is unknown).

        Optional: only backends with ``"check_and_mutate"`` in :attr:`capabilities` (the
        memory engine, HBase's Thrift2 API). HBase's Thrift1 API has no such call.

        Returns:
            Whether the check passed and the mutations were applied.

        Raises:
            UnsupportedOperationError: The backend has no atomic check-and-mutate.
            IllegalArgumentError: A mutation is on another row, or a malformed argument;
                nothing is applied.
            ColumnFamilyNotFoundError: A column names an unknown family; nothing is applied.
        """
        raise UnsupportedOperationError(
            f"{type(self).__name__} cannot check-and-mutate (HBase's Thrift1 API has no "
            "checkAndMutate; use HBase's Thrift2 API)",
            table=table,
            row=row,
        )

    def close(self) -> None:  # noqa: B027 -- optional hook, most backends hold nothing
        """Release connections and other resources; the backend is unusable afterwards."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
