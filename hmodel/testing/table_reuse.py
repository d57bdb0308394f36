"""Tables kept on a real HBase between tests: reused when unchanged, emptied in the background."""

from __future__ import annotations

import contextlib
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from hmodel.backend.base import Backend, Scan
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import HModelError, TableNotFoundError
from hmodel.schema.table import Table

__all__ = [
    "ALTER_RPCS",
    "READ_RPCS",
    "ReusingThrift2Backend",
    "ReusingThriftBackend",
    "Slot",
    "TablePool",
]

#: The Thrift1 and Thrift2 calls that leave a table as it was. Any other call naming a
#: table (a put, a delete, an increment, a conditional write, an admin change) makes the
#: pool empty it before another test gets it.
READ_RPCS = frozenset(
    {
        # Thrift1 (happybase's Hbase service)
        "get",
        "getVer",
        "getVerTs",
        "getRow",
        "getRowTs",
        "getRowWithColumns",
        "getRowWithColumnsTs",
        "getRows",
        "getRowsTs",
        "getRowsWithColumns",
        "getRowsWithColumnsTs",
        "getRowOrBefore",
        "scannerOpen",
        "scannerOpenTs",
        "scannerOpenWithStop",
        "scannerOpenWithStopTs",
        "scannerOpenWithPrefix",
        "scannerOpenWithScan",
        "scannerGet",
        "scannerGetList",
        "scannerClose",
        "getTableNames",
        "getColumnDescriptors",
        "getTableRegions",
        "getRegionInfo",
        "isTableEnabled",
        # Thrift2 (THBaseService)
        "getMultiple",
        "exists",
        "existsAll",
        "openScanner",
        "getScannerRows",
        "getScannerResults",
        "closeScanner",
        "getTableDescriptor",
        "getTableDescriptors",
        "getTableDescriptorsByPattern",
        "getTableNamesByPattern",
        "tableExists",
        "isTableDisabled",
        "isTableAvailable",
        "getAllRegionLocations",
        "getRegionLocation",
    }
)

#: The calls that change a table itself rather than its rows: such a table is dropped at
#: the test's end instead of parked (its descriptor or state may no longer be the one it
#: was created with).
ALTER_RPCS = frozenset(
    {
        "createTable",
        "deleteTable",
        "truncateTable",
        "enableTable",
        "disableTable",
        "addColumnFamily",
        "modifyColumnFamily",
        "deleteColumnFamily",
        "modifyTable",
        "compact",
        "majorCompact",
    }
)

#: Seconds each kind of background job is expected to take before any was measured (a
#: 2-core standalone HBase 2.6: create 0.6 s, truncate 0.9 s, drop 0.45 s).
_DEFAULT_SECONDS = {"create": 0.6, "empty": 0.9, "drop": 0.45}


class _Parked:
    """A table of a slot that no test holds: ready, or a background job's subject.

    ``table`` is its descriptor, or ``None`` while it is being dropped; ``job`` is the
    emptying, creation or drop (``kind``) in progress or done, or ``None``.
    """

    __slots__ = ("job", "kind", "started", "table")

    def __init__(self, table: Table | None, job: Future[None] | None, kind: str) -> None:
        self.table = table
        self.job = job
        self.kind = kind
        self.started = time.monotonic()

    def busy(self) -> bool:
        return self.job is not None and not self.job.done()


class Slot:
    """One copy of the session's tables: a table prefix of its own on the cluster.

    Attributes:
        prefix: The table prefix of this copy (``HMODEL_TEST_PREFIX``, then ``-1``,
            ``-2``, ... for the further copies).
        raw: The backend the pool works through on this copy's tables (same prefix).
        warm: A backend on the server the tests use (``raw`` itself by default), which
            reads each emptied or created table once.
        parked: The tables of this copy no test holds, by name (hidden from tests).
        last_used: When a test last took this copy (the pool's own tick).
    """

    def __init__(self, prefix: str, raw: Backend, warm: Backend | None = None) -> None:
        self.prefix = prefix
        self.raw = raw
        self.warm = raw if warm is None else warm
        self.parked: dict[str, _Parked] = {}
        self.last_used = 0


class TablePool:
    """The tables one real-HBase target keeps between the tests of a session.

    Creating, emptying and dropping a table on a real HBase each cost master procedures
    (about 0.6 s, 0.9 s and 0.45 s on a 2-core standalone 2.6), so the test kit does not
    drop a test's tables at its end: it *parks* them, and a test that creates a table of
    the same name and descriptor (families, options, split points) gets a parked copy.
    A parked table is handed over only as a fresh one would be: no rows and no delete
    markers (deleting the rows would not do: HBase's markers would hide a later test's
    puts at older timestamps until a major compaction). A table the test wrote (any call
    but a read, :data:`READ_RPCS`), or one a one-row scan finds not empty, is emptied with
    ``truncateTable`` (splits preserved) when ``raw`` speaks Thrift2, else by drop and
    create; that work runs **in the background**, on worker threads, while the next
    tests run.

    The pool keeps up to ``copies`` copies of each table, each copy under a table prefix
    of its own (a :class:`Slot`): a test takes one slot, and its backend's
    ``table_prefix`` becomes that slot's prefix the first time it names a table (or reads
    ``table_prefix``). The slot is chosen for that first table: one where it is parked
    and ready, else the one that costs the least wait (an emptying or a creation about to
    finish, or a create now), least recently used first. When a test takes a table and no
    other slot has it ready, the pool creates another copy in the background (a *spare*),
    so while one copy is being emptied the next test works on another, and a table gets
    as many copies as its tests need to never wait. Parked tables beyond ``max_parked``
    are dropped, the longest parked first: each open region costs the server heap.

    A parked table is invisible to tests (``list_tables`` and ``table_exists`` leave it
    out); a parked table a test touches other than by creating it (a read, a write, a
    drop) is dropped first, so the test sees what it would see on a fresh cluster: no
    such table. A table the test altered (families, enabled state, truncation,
    :data:`ALTER_RPCS`) is dropped at its end instead of parked, and so is any table of
    the slot the pool did not create (tables left by an earlier run are dropped when a
    test takes the slot). A background job that fails (its error is kept in
    ``failures``) costs only time: its table is dropped and created for the next test.

    Args:
        open_raw: Opens a plain backend on the cluster with the table prefix it is given;
            the pool works through one per slot, from worker threads too (a
            :class:`~hmodel.backend.thrift2.Thrift2Backend` or
            :class:`~hmodel.backend.thrift.ThriftBackend`: both are thread-safe).
        prefix: The table prefix of the first slot; slot ``i`` (from 1) uses
            ``f"{prefix}-{i}"``, which no backend with ``prefix`` lists.
        open_warm: Opens a backend on the server the tests use, when it is not the one
            ``open_raw`` reaches (Thrift1 tests, a Thrift2 ``raw``): each emptied or
            created table is read once through it, so that server's HBase client finds
            the new regions before a test calls (else the first call pays its retry
            pause, about 0.1 s).
        copies: How many slots (>= 1).
        workers: Background threads emptying, creating and dropping tables (>= 1).
        max_parked: How many tables the slots may hold in all (>= 0).

    Attributes:
        slots: The copies.
        slot: The slot the current test took (``None`` until it names a table).
        live: The tables the current test created, by name.
        counts: ``created`` (while a test waited), ``spares`` (created in the
            background), ``reused``, ``truncated``, ``recreated`` (emptied by drop and
            create), ``dropped``, ``waits`` (a test waited for a background job) and
            ``failed`` (background jobs).
        waited: Seconds the tests spent waiting for background jobs in all.
        failures: What each failed background job raised (its table was then dropped
            and made again for the test that wanted it).
    """

    def __init__(
        self,
        open_raw: Callable[[str], Backend],
        prefix: str,
        *,
        open_warm: Callable[[str], Backend] | None = None,
        copies: int = 5,
        workers: int = 4,
        max_parked: int = 64,
    ) -> None:
        if copies < 1 or workers < 1 or max_parked < 0:
            raise ValueError("a TablePool needs copies >= 1, workers >= 1, max_parked >= 0")
        prefixes = [prefix] + [f"{prefix}-{i}" for i in range(1, copies)]
        self.slots = [
            Slot(p, open_raw(p), None if open_warm is None else open_warm(p)) for p in prefixes
        ]
        self.slot: Slot | None = None
        self.live: dict[str, Table] = {}
        self.dirty: set[str] = set()
        self.altered: set[str] = set()
        self.counts: Counter[str] = Counter()
        self.waited = 0.0
        self.failures: list[str] = []
        self._mirror: Slot | None = None
        self.max_parked = max_parked
        self._tick = 0
        self._lock = threading.Lock()
        self._seconds = dict(_DEFAULT_SECONDS)
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix="hmodel-table-pool")
        #: What :meth:`for_test` opens without arguments (set by :meth:`thrift2`).
        self._serves: tuple[Callable[..., Backend], str, int, dict[str, Any]] | None = None

    # --- for an application's own fixtures ---------------------------------------------

    @classmethod
    def thrift2(
        cls,
        host: str,
        port: int,
        *,
        prefix: str,
        copies: int = 5,
        workers: int = 4,
        max_parked: int = 64,
        timeout_ms: int = 120_000,
        **options: Any,
    ) -> TablePool:
        """A pool of a real HBase's tables, reached through its Thrift2 server.

        What the kit's ``hbase2`` target uses, for an application's own fixtures (see
        ``docs/testing.md``): tables are emptied with ``truncateTable``. Its own
        backends wait ``timeout_ms`` for a call (a truncation on a loaded machine);
        ``options`` are :class:`~hmodel.backend.thrift2.Thrift2Backend`'s (``tls=``,
        ``http=``...), for them and for :meth:`for_test`'s backends.
        """

        def open_raw(table_prefix: str) -> Backend:
            return Thrift2Backend(
                host, port, table_prefix=table_prefix, timeout_ms=timeout_ms, **options
            )

        pool = cls(open_raw, prefix, copies=copies, workers=workers, max_parked=max_parked)
        pool._serves = (ReusingThrift2Backend, host, port, options)
        return pool

    @contextlib.contextmanager
    def for_test(
        self, backend: Callable[..., Backend] | None = None, *args: Any, **kwargs: Any
    ) -> Iterator[Backend]:
        """One test's backend: its tables taken from the pool, parked again at its end.

        The test sees what it would see on a fresh cluster: a table it creates has no
        rows and no delete markers, and no table an earlier test made is visible unless
        the test creates it. Without arguments, a backend of the server the pool was
        made for (:meth:`thrift2`); else ``backend(self, *args, **kwargs)``, a
        :class:`ReusingThrift2Backend` or :class:`ReusingThriftBackend` (the
        Thrift1 server of the same cluster).

        Raises:
            ValueError: No backend is given and the pool was not made by :meth:`thrift2`.
        """
        if backend is None:
            if self._serves is None:
                raise ValueError(
                    "name the backend: TablePool.for_test(ReusingThrift2Backend, host, port)"
                )
            backend, host, port, options = self._serves
            args, kwargs = (host, port), {**options, **kwargs}
        made = backend(self, *args, **kwargs)
        self.begin()
        try:
            yield made
        finally:
            try:
                self.end()
            finally:
                made.close()

    def __enter__(self) -> TablePool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- the test's life --------------------------------------------------------------

    def begin(self) -> None:
        """Start a test: it holds no copy and no table yet.

        Parked tables beyond ``max_parked`` are dropped now, in the background.
        """
        self._evict()
        self.slot = None
        self._mirror = None
        self.live.clear()
        self.dirty.clear()
        self.altered.clear()

    def end(self) -> None:
        """End a test: park the tables it created unaltered, drop every other one.

        The parked tables the test wrote are emptied in the background; the rest of its
        copy's tables (altered, or created behind the pool's back) are dropped there.
        """
        slot, self.slot = self.slot, None
        try:
            if slot is not None:
                self._park(slot)
        finally:
            self.live.clear()
            self.dirty.clear()
            self.altered.clear()

    def _park(self, slot: Slot) -> None:
        tables = set(slot.raw.list_tables())
        for name in sorted(tables):
            if name in slot.parked:
                continue
            table = self.live.get(name)
            if table is not None and name not in self.altered:
                self._submit(slot, name, table, "empty", dirty=name in self.dirty)
            else:
                self._submit(slot, name, None, "drop")

        for name, parked in list(slot.parked.items()):
            if name not in tables and not parked.busy():  # dropped behind the pool's back
                del slot.parked[name]

    def drain(self) -> None:
        """Wait until no background job runs (their failures are kept for the next use)."""
        for slot in self.slots:
            for parked in list(slot.parked.values()):
                if parked.job is not None:
                    parked.job.exception()

    def close(self) -> None:
        """Drop every table the pool holds, wait for the workers, close the backends.

        A table that cannot be dropped now is left for the next run's pool to drop (it
        drops every table of its prefixes it did not make); a ``RuntimeWarning`` then
        lists what failed.
        """
        before = len(self.failures)
        try:
            self.end()
            for slot in self.slots:
                for name in list(slot.parked):
                    if self._quietly(self._settle, slot, name) is not None:
                        self._submit(slot, name, None, "drop")
            for slot in self.slots:
                for name in list(slot.parked):
                    self._quietly(self._settle, slot, name)
            if len(self.failures) > before:
                warnings.warn(
                    "the test kit could not drop all of its tables at the session's end (the "
                    f"next run drops what is left): {self.failures[before:][:3]}",
                    RuntimeWarning,
                    stacklevel=2,
                )
        finally:
            self._executor.shutdown(wait=True)
            for slot in self.slots:
                slot.raw.close()
                if slot.warm is not slot.raw:
                    slot.warm.close()

    def _quietly(self, work: Callable[..., _Parked | None], *args: Any) -> _Parked | None:
        """``work(*args)``; an error of hmodel's is kept in ``failures`` instead of raised."""
        try:
            return work(*args)
        except HModelError as error:
            self.failures.append(repr(error))
            return None

    # --- what a test's backend tells the pool ----------------------------------------

    def bind(self, name: str | None = None, table: Table | None = None) -> str:
        """The prefix of the current test's copy, chosen now if it has none yet.

        Args:
            name: The first table the test names (``None``: none in particular).
            table: Its declaration when the test is creating it.

        Returns:
            The table prefix the test's backend must use from now on.
        """
        if self.slot is None:
            slot = min(self.slots, key=lambda s: (self._cost(s, name, table), s.last_used))
            self._tick += 1
            slot.last_used = self._tick
            self.slot = slot
            for stray in slot.raw.list_tables():  # left by an earlier run, or behind our back
                if stray not in slot.parked:
                    self._submit(slot, stray, None, "drop")
        return self.slot.prefix

    def _cost(self, slot: Slot, name: str | None, table: Table | None) -> float:
        """Seconds the test would wait if it took ``slot`` for ``name`` (a guess)."""
        parked = slot.parked.get(name) if name is not None else None
        if table is None:  # a touch: a parked copy would be dropped first
            return 0.0 if parked is None else self._left(parked) + self._seconds["drop"]
        if parked is None:
            return self._seconds["create"]
        if parked.table == table:
            return self._left(parked)
        return self._left(parked) + self._seconds["drop"] + self._seconds["create"]

    def _left(self, parked: _Parked) -> float:
        if not parked.busy():
            return 0.0
        return max(0.05, self._seconds[parked.kind] - (time.monotonic() - parked.started))

    def hidden(self, name: str) -> bool:
        """Whether ``name`` is a parked table of the test's copy (the test cannot see it)."""
        return self.slot is not None and name in self.slot.parked

    def claim(self, name: str) -> None:
        """The test touches ``name`` other than by creating it: a parked table goes first."""
        slot = self.slot
        if slot is not None and name in slot.parked:
            if self._settle(slot, name) is not None:
                slot.raw.delete_table(name)
                self._count("dropped")
            slot.parked.pop(name, None)

    def wrote(self, name: str) -> None:
        """A call that is not a read went to ``name``: it is emptied before it is reused."""
        self.dirty.add(name)

    def alter(self, name: str) -> None:
        """``name`` was altered (or disabled, truncated, dropped): dropped at the test's end."""
        self.altered.add(name)

    def forget(self, name: str) -> None:
        """The test dropped ``name`` itself."""
        self.live.pop(name, None)

    def create(self, table: Table) -> None:
        """Create ``table`` in the test's copy, or hand over a parked copy of it, empty.

        Waits for the parked table's emptying when it is still running.

        Raises:
            TableExistsError: The test already created it.
        """
        name = table.full_name
        slot = self.slot
        if slot is None:
            self.bind(name, table)
            slot = self.slot
            assert slot is not None
        parked = self._settle(slot, name)
        if parked is not None and parked.table != table:
            slot.raw.delete_table(name)
            self._count("dropped")
            parked = None
        if parked is None:
            slot.raw.create_table(table)
            self._count("created")
        else:
            self._count("reused")
        self.dirty.discard(name)
        self.altered.discard(name)
        self.live[name] = table
        self._spare(slot, table)

    def _spare(self, slot: Slot, table: Table) -> None:
        """Start another copy of ``table`` in the background unless one is ready elsewhere.

        ``table`` was just taken in ``slot``, and will be emptied after the test: the
        next test creating it then finds this copy ready instead of waiting. So a table
        gets as many copies as its tests need to never wait (up to one per slot); copies
        whose emptying is still running do not count. The test's spares go to one slot
        (the first one chosen) while it has room, so the next test finds them together.
        """
        name = table.full_name
        free: list[Slot] = []
        for other in self.slots:
            if other is slot:
                continue
            parked = other.parked.get(name)
            if parked is None:
                free.append(other)
            elif parked.table == table and not parked.busy():
                return
        if not free:
            return
        mirror = self._mirror
        if mirror is None or mirror not in free:
            mirror = self._mirror = min(free, key=lambda s: s.last_used)
        self._submit(mirror, name, table, "create")

    def _evict(self) -> None:
        """Drop the longest-parked tables beyond ``max_parked`` (in the background)."""
        held = [
            (parked.started, slot, name)
            for slot in self.slots
            for name, parked in slot.parked.items()
            if parked.table is not None and not parked.busy()
        ]
        excess = (
            sum(1 for slot in self.slots for p in slot.parked.values() if p.table is not None)
            - self.max_parked
        )
        for _, slot, name in sorted(held, key=lambda item: item[0])[: max(0, excess)]:
            self._submit(slot, name, None, "drop")

    # --- background work --------------------------------------------------------------

    def _settle(self, slot: Slot, name: str) -> _Parked | None:
        """Take ``name`` out of ``slot``'s parked tables once its job is over.

        Returns:
            The parked table, ready; ``None`` when there was none, it was dropped, or its
            job failed (the table is then dropped, if it is still there).
        """
        parked = slot.parked.pop(name, None)
        if parked is None:
            return None
        if parked.job is not None:
            if not parked.job.done():
                start = time.monotonic()
                parked.job.exception()
                self.waited += time.monotonic() - start
                self._count("waits")
            error = parked.job.exception()
            if error is not None:
                self._count("failed")
                self.failures.append(f"{parked.kind} {slot.prefix}/{name}: {error!r}")
                try:
                    slot.raw.delete_table(name)
                except TableNotFoundError:
                    pass
                else:
                    self._count("dropped")
                return None
        return parked if parked.table is not None else None

    def _submit(
        self, slot: Slot, name: str, table: Table | None, kind: str, *, dirty: bool = True
    ) -> None:
        work = {"drop": self._drop, "create": self._create, "empty": self._empty}[kind]
        job = self._executor.submit(self._timed, kind, work, slot, name, table, dirty)
        slot.parked[name] = _Parked(table, job, kind)

    def _timed(self, kind: str, work: Callable[..., bool], *args: Any) -> None:
        start = time.monotonic()
        if work(*args):
            with self._lock:
                self._seconds[kind] = 0.7 * self._seconds[kind] + 0.3 * (time.monotonic() - start)

    def _drop(self, slot: Slot, name: str, table: Table | None, dirty: bool) -> bool:
        try:
            slot.raw.delete_table(name)
        except TableNotFoundError:
            return False
        self._count("dropped")
        return True

    def _create(self, slot: Slot, name: str, table: Table, dirty: bool) -> bool:
        slot.raw.create_table(table)
        self._warm(slot, table)
        self._count("spares")
        return True

    def _empty(self, slot: Slot, name: str, table: Table, dirty: bool) -> bool:
        raw = slot.raw
        if not dirty and not list(raw.scan(name, Scan(limit=1))):  # read to the end: closed
            return False
        if isinstance(raw, Thrift2Backend):
            raw.truncate_table(name, preserve_splits=True)
            self._count("truncated")
        else:
            raw.delete_table(name)
            raw.create_table(table)
            self._count("recreated")
        self._warm(slot, table)
        return True

    def _warm(self, slot: Slot, table: Table) -> None:
        """Read one row of each region through the tests' server, as a test would first.

        A Thrift server's HBase client still holds the locations of the regions a
        truncation or a drop removed: the first call to the new regions fails over to a
        fresh lookup after the client's retry pause (about 0.1 s). Paying it here keeps it
        out of the next test.
        """
        rows = sorted({b"\x00", *table.splits})
        slot.warm.get(table.full_name, rows)

    def _count(self, what: str) -> None:
        with self._lock:
            self.counts[what] += 1


class _Reusing(Backend):
    """What both reusing backends add: the pool's copy, told of every call first.

    Every call naming a table goes through ``_server_name`` (the copy is taken, a parked
    table touched is dropped) and ``_rpc`` (a call that is not a read marks the table
    written; an admin change marks it altered).
    """

    pool: TablePool
    _bound: bool
    _binding: threading.Lock

    def _use(self, name: object, table: Table | None = None) -> None:
        if self._bound:
            return
        with self._binding:  # a test's threads may all make its first call at once
            if not self._bound:
                self._set_prefix(self.pool.bind(name if type(name) is str else None, table))
                self._bound = True

    def _set_prefix(self, prefix: str) -> None:
        raise NotImplementedError

    def _server_name(self, name: str) -> Any:
        self._use(name)
        if type(name) is str:
            self.pool.claim(name)
        return super()._server_name(name)  # type: ignore[misc]

    def _rpc(self, method: str, *args: Any, table: str | None = None, **kwargs: Any) -> Any:
        if type(table) is str and method not in READ_RPCS:
            self.pool.wrote(table)
            if method in ALTER_RPCS:
                self.pool.alter(table)
        return super()._rpc(method, *args, table=table, **kwargs)  # type: ignore[misc]

    def create_table(self, table: Table) -> None:
        """Create ``table``, or take over a parked copy (see :class:`TablePool`).

        The backend then knows the table's families, as after its own create, so its
        first write costs no extra round trip to look them up.
        """
        if not isinstance(table, Table):
            super().create_table(table)  # raises the backend's error
            return
        self._use(table.full_name, table)
        self.pool.create(table)
        self._remember_families(table)

    def _remember_families(self, table: Table) -> None:
        """Cache ``table``'s family names as the backend's own ``create_table`` does."""

    def delete_table(self, name: str) -> None:
        """Drop ``name`` (a parked table counts as absent)."""
        super().delete_table(name)  # type: ignore[safe-super]
        self.pool.forget(name)

    def table_exists(self, name: str) -> bool:
        """Whether ``name`` exists in the test's copy and is not parked."""
        self._use(None)
        if type(name) is str and self.pool.hidden(name):
            return False
        return bool(super().table_exists(name))  # type: ignore[safe-super]

    def list_tables(self) -> list[str]:
        """The tables of the test's copy, parked ones left out."""
        self._use(None)
        names: Iterable[str] = super().list_tables()  # type: ignore[safe-super]
        return [name for name in names if not self.pool.hidden(name)]


class ReusingThriftBackend(_Reusing, ThriftBackend):
    """A :class:`ThriftBackend` whose tables come from a :class:`TablePool`.

    Its ``table_prefix`` is the prefix of the pool's copy the test takes (read it, rather
    than the prefix it was made with, to reach the test's tables with another client).

    Args:
        pool: The target's pool.
        *args: :class:`ThriftBackend`'s arguments.
        **kwargs: :class:`ThriftBackend`'s keyword arguments.
    """

    def __init__(self, pool: TablePool, *args: Any, **kwargs: Any) -> None:
        self.pool = pool
        self._bound = False
        self._binding = threading.Lock()
        super().__init__(*args, **kwargs)

    @property
    def table_prefix(self) -> str | None:
        """The prefix of the test's copy of the tables (taken now if not yet)."""
        self._use(None)
        return self._table_prefix

    @table_prefix.setter
    def table_prefix(self, prefix: str | None) -> None:
        ThriftBackend.table_prefix.fset(self, prefix)  # type: ignore[attr-defined]

    def _set_prefix(self, prefix: str) -> None:
        ThriftBackend.table_prefix.fset(self, prefix)  # type: ignore[attr-defined]

    def _remember_families(self, table: Table) -> None:
        names = tuple(family.name_bytes for family in table.families)
        self._families[self._data_name(table.full_name)] = names


class ReusingThrift2Backend(_Reusing, Thrift2Backend):
    """A :class:`Thrift2Backend` whose tables come from a :class:`TablePool`.

    Its ``table_prefix`` is the prefix of the pool's copy the test takes (read it, rather
    than the prefix it was made with, to reach the test's tables with another client).

    Args:
        pool: The target's pool.
        *args: :class:`Thrift2Backend`'s arguments.
        **kwargs: :class:`Thrift2Backend`'s keyword arguments.
    """

    def __init__(self, pool: TablePool, *args: Any, **kwargs: Any) -> None:
        self.pool = pool
        self._bound = False
        self._binding = threading.Lock()
        super().__init__(*args, **kwargs)

    @property
    def table_prefix(self) -> str | None:
        """The prefix of the test's copy of the tables (taken now if not yet)."""
        self._use(None)
        return self._table_prefix

    @table_prefix.setter
    def table_prefix(self, prefix: str | None) -> None:
        Thrift2Backend.table_prefix.fset(self, prefix)  # type: ignore[attr-defined]

    def _set_prefix(self, prefix: str) -> None:
        Thrift2Backend.table_prefix.fset(self, prefix)  # type: ignore[attr-defined]

    def _remember_families(self, table: Table) -> None:
        names = tuple(family.name_bytes for family in table.families)
        self._families[self._server_name(table.full_name)] = names
