"""Counter-issued numeric ids for long names: name -> fixed-width id and back (K9, F10)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Generic, TypeVar

from hmodel.backend.base import Backend, Delete, Put, RowResult, Scan
from hmodel.backend.op import Call, CloseScan, Op, OpenScan, ScanNext, run
from hmodel.clock import WriteStamps, stamps_for, system_clock
from hmodel.codecs import Long
from hmodel.errors import (
    ConflictError,
    ConnectionLostError,
    DeclarationError,
    DecodeError,
    IdExhaustedError,
    ValidationError,
)
from hmodel.keys import Const, Int, Key, Str
from hmodel.repository import Store
from hmodel.schema import Family, Table

__all__ = ["IdAllocator", "id_table"]

K = TypeVar("K")
V = TypeVar("V")
B = TypeVar("B")

_LONG = Long()
_WIDTHS = (1, 2, 4, 8)
_LONG_MAX = (1 << 63) - 1


def id_table(name: str = "hmodel_ids", *, family: str = "i") -> Table:
    """Return a table declaration fit for :class:`IdAllocator`: one family keeping 1 version.

    Args:
        name: The table name (``namespace:name`` allowed).
        family: The family the allocator writes to.
    """
    return Table(name, [Family(family, versions=1)])


class _Lru(Generic[K, V]):
    """A thread-safe least-recently-used map of at most ``size`` entries (0: stores nothing)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        if not self.size:
            return None
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        if not self.size:
            return
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


class IdAllocatorCore(Generic[B]):
    """The state, byte layout and sans-I/O operations of both id allocator edges (K9).

    Not used directly: :class:`IdAllocator` (synchronous) and
    :class:`hmodel.aio.AsyncIdAllocator` (asyncio) are its facades and take its
    arguments (see :class:`IdAllocator`). Each I/O method is an operation
    (:mod:`hmodel.backend.op`) yielding the backend calls it needs, run by either edge's
    driver: the allocation protocol is written once. ``backend`` is a
    :class:`~hmodel.backend.base.Backend` or an :class:`~hmodel.backend.aio.AsyncBackend`;
    the core only names its methods in the requests its operations yield.
    """

    def __init__(
        self,
        backend: B,
        table: Table,
        *,
        kind: str,
        width: int = 4,
        family: str = "i",
        cache_size: int = 0,
        stamps: WriteStamps | None = None,
    ) -> None:
        if not isinstance(table, Table):
            raise DeclarationError("table must be a hmodel.schema.Table", value=table)
        if isinstance(width, bool) or width not in _WIDTHS:
            raise DeclarationError(
                "an id is 1, 2, 4 or 8 bytes wide", table=table.full_name, value=width
            )
        if not isinstance(kind, str) or not kind:
            raise DeclarationError("kind must be a non-empty str", table=table.full_name)
        if family not in [f.name for f in table.families]:
            raise DeclarationError(
                f"family {family!r} is not in table {table.full_name!r}",
                table=table.full_name,
                value=family,
            )
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise DeclarationError("cache_size must be an int >= 0", value=cache_size)
        self.backend: B = backend
        self.table = table
        self.kind = kind
        self.width = width
        self.max_id = min((1 << (8 * width)) - 1, _LONG_MAX)
        self.stamps = stamps_for(system_clock) if stamps is None else stamps
        prefix = family.encode() + b":"
        self._id_column = prefix + b"i"
        self._name_column = prefix + b"n"
        self._counter_column = prefix + b"c"
        self._id_key = Int("id", size=width, signed=False)
        self._forward = Key(Const(b"n", name="forward"), Str("kind"), Str("name"))
        self._reverse = Key(Const(b"i", name="reverse"), Str("kind"), self._id_key)
        self._counter_row = Key(Const(b"c", name="counter"), Str("kind")).encode({"kind": kind})
        self._ids: _Lru[str, int] = _Lru(cache_size)
        self._names: _Lru[int, str] = _Lru(cache_size)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.table.full_name!r}, kind={self.kind!r}, "
            f"width={self.width})"
        )

    # --- layout -------------------------------------------------------------------------

    def id_component(self, name: str) -> Int:
        """A key component holding these ids: ``Int(name, size=width, signed=False)``."""
        return Int(name, size=self.width, signed=False)

    def encode(self, ident: int) -> bytes:
        """Return ``ident`` as ``width`` big-endian bytes (as stored and as keyed).

        Raises:
            ValidationError: ``ident`` is not an int in ``1 .. max_id``.
        """
        return self._id_key.encode(self._check_id(ident))

    def decode(self, data: bytes) -> int:
        """Return the id held in ``width`` big-endian bytes.

        Raises:
            DecodeError: ``data`` is not ``width`` bytes long.
        """
        if len(data) != self.width:
            raise DecodeError(
                f"an id is {self.width} bytes, not {len(data)}",
                table=self.table.full_name,
                field=self.kind,
                value=data,
            )
        return int.from_bytes(data, "big")

    def forward_row(self, name: str) -> bytes:
        """The rowkey of ``name``'s forward (name -> id) row."""
        return self._forward.encode({"kind": self.kind, "name": self._check_name(name)})

    def reverse_row(self, ident: int) -> bytes:
        """The rowkey of ``ident``'s reverse (id -> name) row."""
        return self._reverse.encode({"kind": self.kind, "id": self._check_id(ident)})

    # --- operations (sans-I/O: see hmodel.backend.op) -----------------------------------

    def _lookup_many_op(self, names: Iterable[str]) -> Op[dict[str, int]]:
        """The operation of ``lookup_many``: one get of the uncached forward rows."""
        wanted = list(dict.fromkeys(self._check_name(n) for n in _many(names, "names")))
        found: dict[str, int] = {}
        missing: list[str] = []
        for name in wanted:
            cached = self._ids.get(name)
            if cached is None:
                missing.append(name)
            else:
                found[name] = cached
        found.update((yield from self._read_forward_op(missing)))
        return {n: found[n] for n in wanted if n in found}

    def _names_of_op(self, idents: Iterable[int]) -> Op[dict[int, str]]:
        """The operation of ``names_of``: one get of the uncached reverse rows."""
        wanted = list(dict.fromkeys(self._check_id(i) for i in _many(idents, "ids")))
        found: dict[int, str] = {}
        missing: list[int] = []
        for ident in wanted:
            cached = self._names.get(ident)
            if cached is None:
                missing.append(ident)
            else:
                found[ident] = cached
        if missing:
            rows = {self.reverse_row(i): i for i in missing}
            results: list[RowResult] = yield Call(
                "get", (self.table.full_name, list(rows)), {"columns": [self._name_column]}
            )
            for result in results:
                data = result.value(self._name_column)
                if data is not None:
                    ident = rows[result.row]
                    found[ident] = data.decode("utf-8")
                    self._names.put(ident, found[ident])
        return {i: found[i] for i in wanted if i in found}

    def _orphans_op(self) -> Op[list[int]]:
        """The operation of ``orphans``: a scan of the kind's reverse rows, then one get."""
        (prefix,) = self._reverse.ranges({"kind": self.kind})
        rows: dict[int, str] = {}
        scan = Scan(start=prefix.start, stop=prefix.stop, columns=[self._name_column])
        handle = yield OpenScan(self.table.full_name, scan)
        while True:
            batch: list[RowResult] = yield ScanNext(handle, scan.batch_size)
            if not batch:
                break
            for result in batch:
                data = result.value(self._name_column)
                if data is not None:
                    rows[self._reverse.decode(result.row)["id"]] = data.decode("utf-8")
        yield CloseScan(handle)
        names = list(dict.fromkeys(rows.values()))
        forward = yield from self._read_forward_op(names, cache=False)
        return [i for i, name in rows.items() if forward.get(name) != i]

    def _ids_for_op(self, names: Iterable[str]) -> Op[dict[str, int]]:
        """The operation of ``ids_for``: a lookup, then one allocation of the new names."""
        wanted = list(dict.fromkeys(_many(names, "names")))
        found = yield from self._lookup_many_op(wanted)
        new = [n for n in wanted if n not in found]
        if new:
            found.update((yield from self._allocate_op(new)))
        return {n: found[n] for n in wanted}

    def _allocate_op(self, names: Sequence[str]) -> Op[dict[str, int]]:
        table = self.table.full_name
        last: int = yield Call(
            "increment", (table, self._counter_row, self._counter_column, len(names))
        )
        first = last - len(names) + 1
        if last > self.max_id:
            raise IdExhaustedError(
                f"kind {self.kind!r} has used every id of {self.width} bytes "
                f"(counter at {last}, max_id {self.max_id})",
                table=table,
                row=self._counter_row,
                value=last,
            )
        issued = dict(zip(names, range(first, last + 1), strict=True))
        stamp = self.stamps.next(rows=[self.reverse_row(i) for i in issued.values()])
        reverse = [
            Put(self.reverse_row(i), self._name_column, n.encode("utf-8"), stamp)
            for n, i in issued.items()
        ]
        yield Call("mutate", (table, reverse))
        result: dict[str, int] = {}
        lost: list[str] = []
        for name, ident in issued.items():
            row = self.forward_row(name)
            # No timestamp: Thrift1's checkAndPut cannot carry one, and a forward row is
            # never deleted, so its timestamp orders nothing.
            put = Put(row, self._id_column, self.encode(ident))
            try:
                won: bool = yield Call("check_and_put", (table, row, self._id_column, None, put))
            except ConnectionLostError:
                # The write may or may not have happened: the forward row says which.
                settled = (yield from self._read_forward_op([name], cache=False)).get(name)
                if settled is None:
                    raise
                won = settled == ident
            if won:
                result[name] = ident
                self._remember(name, ident)
            else:
                lost.append(name)
        if lost:
            winners = yield from self._read_forward_op(lost)
            vanished = next((n for n in lost if n not in winners), None)
            if vanished is not None:  # only if someone deletes forward rows behind our back
                raise ConflictError(
                    f"the id of {vanished!r} was taken by another writer, then deleted",
                    table=table,
                    row=self.forward_row(vanished),
                )
            result.update(winners)
            stamp = self.stamps.next(rows=[self.reverse_row(issued[n]) for n in lost])
            deletes = [Delete(self.reverse_row(issued[n]), None, stamp) for n in lost]
            yield Call("mutate", (table, deletes))
        return result

    def _read_forward_op(self, names: Sequence[str], *, cache: bool = True) -> Op[dict[str, int]]:
        if not names:
            return {}
        rows = {self.forward_row(n): n for n in names}
        results: list[RowResult] = yield Call(
            "get", (self.table.full_name, list(rows)), {"columns": [self._id_column]}
        )
        found: dict[str, int] = {}
        for result in results:
            data = result.value(self._id_column)
            if data is not None:
                name = rows[result.row]
                found[name] = self.decode(data)
                if cache:
                    self._remember(name, found[name])
        return found

    # --- helpers ------------------------------------------------------------------------

    def _remember(self, name: str, ident: int) -> None:
        self._ids.put(name, ident)
        self._names.put(ident, name)

    def _check_name(self, name: object) -> str:
        if not isinstance(name, str) or not name:
            raise ValidationError(
                "a name is a non-empty str", table=self.table.full_name, field=self.kind, value=name
            )
        return name

    def _check_id(self, ident: object) -> int:
        if isinstance(ident, bool) or not isinstance(ident, int) or not 1 <= ident <= self.max_id:
            raise ValidationError(
                f"an id is an int in 1..{self.max_id}",
                table=self.table.full_name,
                field=self.kind,
                value=ident,
            )
        return ident


class IdAllocator(IdAllocatorCore[Backend]):
    r"""Issue a fixed-width numeric id per name from a server-side counter (K9, F10).

    The ``LOG_TYPES`` lookup table of the HBase reference guide ("Variable Length or Fixed
    Length Rowkeys?") and OpenTSDB's ``tsdb-uid``: long,
    variable-length names (host names, event types, metric names) are replaced in other
    tables' rowkeys by a short number, issued once per name and never changed. Several
    *kinds* of names (``"host"``, ``"event"``) share one table, each with its own counter
    and its own id space.

    **Byte layout** (``w`` = ``width``; all rows in ``table``'s family ``f``):

    =====================  ========================================  =============================
    row                    key (see :mod:`hmodel.keys`)              column = value
    =====================  ========================================  =============================
    counter of a kind      ``Key(Const(b"c"), Str("kind"))``         ``f:c`` = 8-byte long (F10)
    name -> id (forward)   ``Key(Const(b"n"), Str("kind"),``         ``f:i`` = id, ``w`` bytes
                           ``Str("name"))``                          big-endian unsigned
    id -> name (reverse)   ``Key(Const(b"i"), Str("kind"),``         ``f:n`` = name, UTF-8
                           ``Int("id", size=w, signed=False))``
    =====================  ========================================  =============================

    ``Str`` is UTF-8 with ``00`` escaped as ``00 FF`` and terminated by ``00 00``, so
    kinds and names may hold any text, including NUL. Ids are ``1 ..
    min(2**(8*w) - 1, 2**63 - 1)``; 0 is never issued. Use ``Int(field, size=w,
    signed=False)`` (:meth:`id_component`) for the id in the data table's key: its bytes
    are the id's, and keys sort by id.

    **Allocation and atomicity.** A new name costs: one atomic server-side increment of
    the kind's counter (the id), one put of the reverse row, then one conditional write
    of the forward row (``check_and_put`` expecting the cell absent). The conditional
    write decides: when two processes ask for the same new name at once, exactly one
    forward row is written, and the loser reads the winner's id and returns it, so every
    caller of :meth:`id_for` gets the same id for a name, forever. The loser then deletes
    its own reverse row.

    **Gaps.** Ids are unique but not dense. An id is *burned* (never used, never issued
    again) when its allocator loses a race, or dies or loses its connection between the
    increment and the conditional write; a process dying between the reverse put and the
    conditional write also leaves that burned id's reverse row behind (an *orphan*:
    :meth:`name_of` answers for an id no data row holds; :meth:`orphans` finds them).
    The write order guarantees the converse: every id a forward row holds has its reverse
    row, so :meth:`name_of` never fails for an id :meth:`id_for` returned.

    **Caching.** A mapping never changes once written, so with ``cache_size > 0`` an LRU
    cache of that many names (and as many ids) serves repeated lookups with no round
    trip. Names are never renamed or deleted by this class.

    The reverse puts and deletes carry stamps from ``stamps``; the conditional write
    takes the server's time (HBase's Thrift1 ``checkAndPut`` cannot carry a timestamp;
    a forward row is never deleted, so its timestamp orders nothing). Thread-safe;
    several allocators (in several processes) may share a table and a kind.
    :class:`hmodel.aio.AsyncIdAllocator` is its asyncio edge: the same operations, awaited.

    Args:
        backend: The backend holding ``table``, or a :class:`~hmodel.repository.Store`
            (its backend and write stamps).
        table: The lookup table (:func:`id_table`); it must have ``family``.
        kind: What the names are (``"host"``); each kind has its own counter.
        width: Bytes of an id: 1, 2, 4 or 8.
        family: The family of every cell written.
        cache_size: Names (and ids) kept in an LRU cache; 0: no cache.
        stamps: Timestamps of the writes; default: the store's, or the process's stamps
            for the system clock (``stamps_for(system_clock)``).

    Raises:
        DeclarationError: An invalid ``width``, ``cache_size``, ``kind``, or a ``family``
            the table does not have.

    Example:
        >>> from hmodel.backend.memory import MemoryBackend
        >>> backend = MemoryBackend()
        >>> hosts = IdAllocator(backend, id_table("log_types"), kind="host", width=4)
        >>> hosts.create_table()
        >>> hosts.id_for("myserver1.mycompany.com"), hosts.id_for("db7.mycompany.com")
        (1, 2)
        >>> hosts.id_for("myserver1.mycompany.com")
        1
        >>> hosts.name_of(2), hosts.lookup("unknown")
        ('db7.mycompany.com', None)
        >>> hosts.encode(2)
        b'\x00\x00\x00\x02'
    """

    def __init__(
        self,
        backend: Backend | Store,
        table: Table,
        *,
        kind: str,
        width: int = 4,
        family: str = "i",
        cache_size: int = 0,
        stamps: WriteStamps | None = None,
    ) -> None:
        if isinstance(backend, Store):
            stamps = backend.stamps if stamps is None else stamps
            backend = backend.backend
        super().__init__(
            backend,
            table,
            kind=kind,
            width=width,
            family=family,
            cache_size=cache_size,
            stamps=stamps,
        )

    def create_table(self, *, exist_ok: bool = True) -> None:
        """Create the lookup table; an existing one is left alone unless ``exist_ok=False``.

        Raises:
            TableExistsError: The table exists and ``exist_ok`` is false.
        """
        if exist_ok and self.backend.table_exists(self.table.full_name):
            return
        self.backend.create_table(self.table)

    # --- reads --------------------------------------------------------------------------

    def lookup(self, name: str) -> int | None:
        """Return the id of ``name``, or ``None`` if it has none; never allocates.

        One round trip (a get), none on a cache hit.
        """
        return self.lookup_many([name]).get(name)

    def lookup_many(self, names: Iterable[str]) -> dict[str, int]:
        """Return the ids of the names that have one; never allocates.

        One round trip (one get of every forward row not in the cache), none if all are
        cached. Names without an id are left out.
        """
        return run(self._lookup_many_op(names), self.backend)

    def name_of(self, ident: int) -> str | None:
        """Return the name whose id is ``ident``, or ``None``. One get, none on a cache hit.

        A burned id whose allocator died after writing the reverse row still answers
        with the name it was meant for (see the class docstring, "Gaps").
        """
        return self.names_of([ident]).get(ident)

    def names_of(self, idents: Iterable[int]) -> dict[int, str]:
        """Return the names of the given ids that have one, in one round trip (a get).

        Raises:
            ValidationError: An id is not an int in ``1 .. max_id``.
        """
        return run(self._names_of_op(idents), self.backend)

    def orphans(self) -> list[int]:
        """Return the ids whose reverse row exists but whose name maps to another id or none.

        These are burned ids whose allocator died between the reverse put and the
        conditional write (or before deleting its reverse row after losing a race).
        Scans every reverse row of the kind, then reads their forward rows in one get.
        """
        return run(self._orphans_op(), self.backend)

    # --- allocation ---------------------------------------------------------------------

    def id_for(self, name: str) -> int:
        """Return the id of ``name``, allocating one if it has none (see the class docstring).

        Round trips: none on a cache hit; one get when the name has an id; a get, an
        increment, a put and a conditional write for a new name (plus a get and a delete
        when another process won the race for it).

        Raises:
            IdExhaustedError: The kind's counter passed ``max_id``.
            ValidationError: ``name`` is not a non-empty str.
        """
        return self.ids_for([name])[name]

    def ids_for(self, names: Iterable[str]) -> dict[str, int]:
        """Return the id of every name, allocating ids for new ones, in bounded round trips.

        One get of every uncached forward row; then, for the ``k`` new names, **one**
        increment of the counter by ``k`` (ids ``value - k + 1 .. value``), one mutate
        of their ``k`` reverse rows and one conditional write per name; if some were lost
        to other processes, one get of the winners' ids and one mutate deleting the
        losers' reverse rows.

        Raises:
            IdExhaustedError: The counter passed ``max_id`` (the ids of this call are
                burned; earlier ids stay valid).
            ValidationError: A name is not a non-empty str.
        """
        return run(self._ids_for_op(names), self.backend)


def _many(items: Iterable[K] | Mapping[K, object], what: str) -> list[K]:
    if isinstance(items, str | bytes):
        raise ValidationError(f"{what} must be a collection, not one str", value=items)
    return list(items)
