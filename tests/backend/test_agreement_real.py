"""Property: the memory engine and a real HBase, over Thrift1 and over Thrift2, agree."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterator
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from hmodel.backend.base import (
    Backend,
    Cell,
    Delete,
    Increment,
    Mutation,
    Put,
    Scan,
    family_of,
    prefix_stop,
)
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.clock import ManualClock, system_clock
from hmodel.schema import Family, Table
from hmodel.testing.kit import REAL_TARGETS, TARGETS_VARIABLE, real_prefix, target_params
from tests.backend.agreement_common import (
    BARE_FAMILY,
    COLUMNS,
    FAULTY,
    ROWS,
    UNKNOWN_FAMILY,
    VALUES,
    Outcome,
    faults,
    outcome,
    quoted,
)

#: The session's table on the real server; each example writes rows of its own prefix.
TABLE = "agreement_real"
#: ``a`` keeps 3 versions, ``b`` HBase's default of 1, ``c`` 2 versions for an hour (F8)
#: but always its newest (MIN_VERSIONS 1), ``d`` 3 versions and its deleted cells (F9).
FAMILIES = [
    Family("a", versions=3),
    Family("b"),
    Family("c", versions=2, ttl=3600, min_versions=1),
    Family("d", versions=3, keep_deleted_cells=True),
]
#: The same families as Thrift1's ``createTable`` can make them, without MIN_VERSIONS and
#: KEEP_DELETED_CELLS: for a real Thrift1 server without a Thrift2 one beside it.
THRIFT1_FAMILIES = [
    attrs.evolve(family, min_versions=0, keep_deleted_cells=False) for family in FAMILIES
]
#: The cell columns: those of the engine-vs-fake machine and one of each family c and d.
CELLS = [*COLUMNS, b"c:x", b"d:x"]

#: ``HMODEL_AGREEMENT_EXAMPLES=5000``: run that many examples per real target (a long run).
EXAMPLES_VARIABLE = "HMODEL_AGREEMENT_EXAMPLES"
#: Examples and steps per real target in an ordinary run (CI): 40-60 s each on 2 cores.
CI_EXAMPLES = 200
STEPS = 30

#: How far before the example's start "past" timestamps lie: 10 minutes, inside the TTL
#: family's hour, so past cells live there while "epoch" ones (0 to 60 ms) have expired.
PAST = 600_000
#: How far after the example's start "future" timestamps lie: a day.
FUTURE = 86_400_000
#: A per-cell TTL no example outlives (about 4 months), next to short ones of 1 to 30 ms.
LONG_TTL = 10**10


@attrs.frozen
class Stamp:
    """An explicit timestamp, placed relative to the example's start so that TTLs are decided.

    ``era`` is ``epoch`` (``offset`` ms after 1970: expired under any TTL), ``past``
    (:data:`PAST` before the start), ``future`` (:data:`FUTURE` after it) or ``now`` (the
    time of the call; for ``before`` only, writes say ``None``).
    """

    era: str
    offset: int = 0


NOW = Stamp("now")
ERAS = ("epoch", "past", "future")
#: One letter per era in the filter templates' stamp tokens.
ERA_LETTERS = {"epoch": b"e", "past": b"p", "future": b"f"}
LETTER_ERAS = {letter: era for era, letter in ERA_LETTERS.items()}

stamps = st.builds(Stamp, st.sampled_from(ERAS), st.integers(min_value=0, max_value=20))
#: Write timestamps: explicit in one of the eras, or none (the call's "now").
write_stamps = st.none() | stamps
befores = st.none() | st.just(NOW) | stamps
#: Per-cell TTLs (ms): none, short (expired at once unless the cell is in the future) or long.
ttls = st.none() | st.integers(min_value=1, max_value=30) | st.just(LONG_TTL)


@attrs.frozen
class LogicalPut:
    """A put of the machine, before its row gets the example's prefix and its stamp a value."""

    row: bytes
    column: bytes
    value: bytes
    timestamp: Stamp | None = None
    ttl: int | None = None


@attrs.frozen
class LogicalDelete:
    """A delete of the machine (column, family or row), before rendering."""

    row: bytes
    column: bytes | None = None
    timestamp: Stamp | None = None


LogicalMutation = LogicalPut | LogicalDelete


def _decided(put: LogicalPut) -> LogicalPut:
    """``put`` with a TTL whose expiry no example can see happen (a short one from now: long)."""
    if put.timestamp is None and put.ttl is not None and put.ttl < LONG_TTL:
        return attrs.evolve(put, ttl=LONG_TTL)
    return put


rows = st.sampled_from(ROWS)
cell_columns = st.sampled_from(CELLS)
write_columns = st.one_of(
    cell_columns, cell_columns, cell_columns, st.sampled_from([UNKNOWN_FAMILY, BARE_FAMILY])
)
read_columns = st.sampled_from([*CELLS, b"a", b"b", b"c", b"d", UNKNOWN_FAMILY])
delete_columns = st.sampled_from([None, b"a", b"b", b"c", b"d", *CELLS, UNKNOWN_FAMILY])
values = st.sampled_from(VALUES)
bounds = st.sampled_from([b"", b"\x00\x00", b"aa", b"b\x00", b"\xff\x01"]) | rows

puts = st.builds(
    LogicalPut, row=rows, column=write_columns, value=values, timestamp=write_stamps, ttl=ttls
).map(_decided)
seed_puts = st.builds(LogicalPut, row=rows, column=cell_columns, value=values, timestamp=stamps)
deletes = st.builds(LogicalDelete, row=rows, column=delete_columns, timestamp=write_stamps)
increments = st.builds(
    Increment, row=rows, column=write_columns, amount=st.integers(min_value=-3, max_value=3)
)


def _mutation_faults(batch: list[LogicalMutation]) -> int:
    return faults(m.column for m in batch if isinstance(m, LogicalPut)) + sum(
        m.column == UNKNOWN_FAMILY for m in batch if isinstance(m, LogicalDelete)
    )


mutations = st.lists(st.one_of(puts, deletes), min_size=1, max_size=5).filter(
    lambda batch: _mutation_faults(batch) <= 1
)
increment_batches = st.lists(increments, min_size=1, max_size=4).filter(
    lambda batch: faults(i.column for i in batch) <= 1
)
appends = st.dictionaries(write_columns, values, max_size=3).filter(lambda d: faults(d) <= 1)
read_column_lists = st.lists(read_columns, max_size=3).filter(
    lambda columns: columns.count(UNKNOWN_FAMILY) <= 1
)

#: In filter templates, the example's row prefix and explicit stamps are tokens, rendered
#: per example: ``@R@`` is the prefix, ``@Sp5@`` the stamp ``Stamp("past", 5)``.
ROW_TOKEN = b"@R@"
_TOKEN = re.compile(rb"@R@|@S([epf])(\d+)@")


def _stamp_token(stamp: Stamp) -> bytes:
    return b"@S" + ERA_LETTERS[stamp.era] + b"%d@" % stamp.offset


_leaf_filters = st.one_of(
    st.sampled_from([b"a", b"ab", b"\x00", b"\xff", b"b"]).map(
        lambda prefix: b"PrefixFilter(" + quoted(ROW_TOKEN + prefix) + b")"
    ),
    st.tuples(st.sampled_from([b"=", b"!=", b"<", b">="]), values).map(
        lambda pair: b"ValueFilter(" + pair[0] + b", " + quoted(b"binary:" + pair[1]) + b")"
    ),
    st.tuples(values, st.booleans(), st.booleans()).map(
        lambda args: (
            b"SingleColumnValueFilter('a', 'x', =, "
            + quoted(b"binary:" + args[0])
            + (b", true" if args[1] else b", false")
            + (b", true)" if args[2] else b", false)")
        )
    ),
    st.sampled_from([b"x", b"y", b"\xff"]).map(
        lambda prefix: b"ColumnPrefixFilter(" + quoted(prefix) + b")"
    ),
    st.just(b"KeyOnlyFilter()"),
    st.just(b"FirstKeyOnlyFilter()"),
    st.integers(min_value=1, max_value=3).map(lambda size: b"PageFilter(%d)" % size),
    st.tuples(st.sampled_from([b"<", b"=", b">="]), bounds).map(
        lambda pair: (
            b"RowFilter(" + pair[0] + b", " + quoted(b"binary:" + ROW_TOKEN + pair[1]) + b")"
        )
    ),
    st.sampled_from([b"x", b""]).map(
        lambda qualifier: b"QualifierFilter(=, " + quoted(b"binary:" + qualifier) + b")"
    ),
    st.lists(stamps, min_size=1, max_size=3).map(
        lambda chosen: b"TimestampsFilter(" + b", ".join(map(_stamp_token, chosen)) + b")"
    ),
    st.integers(min_value=1, max_value=2).map(lambda count: b"ColumnCountGetFilter(%d)" % count),
)
#: Filter templates (I4): leaves, parenthesised and joined by AND / OR or under WHILE / SKIP.
filter_templates = st.recursive(
    _leaf_filters,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from([b" AND ", b" OR "]), inner).map(
            lambda parts: b"(" + parts[0] + b")" + parts[1] + b"(" + parts[2] + b")"
        ),
        st.tuples(st.sampled_from([b"WHILE ", b"SKIP "]), inner).map(
            lambda parts: parts[0] + b"(" + parts[1] + b")"
        ),
    ),
    max_leaves=3,
)


@attrs.frozen
class LogicalScan:
    """A scan of the machine: bounds relative to the example's prefix, a filter template.

    ``text`` sends the rendered filter as a ``str`` (UTF-8, surrogateescape) instead of bytes.
    """

    start: bytes = b""
    stop: bytes = b""
    columns: tuple[bytes, ...] = ()
    filter: bytes | None = None
    text: bool = False
    before: Stamp | None = None
    reverse: bool = False
    limit: int | None = None
    batch_size: int = 1000


def _scans(templates: st.SearchStrategy[bytes | None]) -> st.SearchStrategy[LogicalScan]:
    return st.builds(
        LogicalScan,
        start=bounds,
        stop=bounds,
        columns=read_column_lists.map(tuple),
        filter=templates,
        text=st.booleans(),
        before=befores,
        reverse=st.booleans(),
        limit=st.none() | st.integers(min_value=0, max_value=4),
        batch_size=st.integers(min_value=1, max_value=4),
    )


scans = _scans(st.none() | filter_templates)
filtered_scans = _scans(filter_templates)


def wall_ms() -> int:
    """This host's clock in epoch milliseconds, the one the real server stamps with."""
    return system_clock()


class Side:
    """How one side of the comparison receives the machine's logical operations.

    Both sides get the same rows (the example's prefix before each logical row) and the
    same explicit timestamps. A write without a timestamp reaches the engine without one
    (it stamps the call's moment from its clock) and the real server with that moment
    written out, so the server's clock cannot race the engine's (HBASE_FACTS: a delete and
    a put stamped in one millisecond hide the put).
    """

    def __init__(self, machine: RealAgreement, *, real: bool, unflushed: bool = False) -> None:
        self.machine = machine
        self.real = real
        self.unflushed = unflushed

    def versions(self, column: bytes, wanted: int) -> int:
        """``max_versions`` for a read of ``column``: on the unflushed engine, capped at the
        family's VERSIONS as HBase's read path caps what it counts."""
        if not self.unflushed:
            return wanted
        return min(wanted, self.machine.kept.get(family_of(column), wanted))

    def row(self, row: bytes) -> bytes:
        """The example's row for the logical ``row``."""
        return self.machine.prefix + row

    def stamp(self, stamp: Stamp | None, *, server: bool = False) -> int | None:
        """The timestamp of a write: explicit on both sides, ``None`` now only on the engine.

        ``server``: leave ``None`` to the real server too (a conditional write, which HBase
        stamps by rules of its own: compared by :class:`Window`).
        """
        if stamp is None:
            return self.machine.moment if self.real and not server else None
        return self.machine.at(stamp)

    def mutation(self, mutation: LogicalMutation, *, server: bool = False) -> Mutation:
        """The rendered put or delete (``server``: see :meth:`stamp`)."""
        timestamp = self.stamp(mutation.timestamp, server=server)
        if isinstance(mutation, LogicalPut):
            return Put(
                self.row(mutation.row),
                mutation.column,
                mutation.value,
                timestamp=timestamp,
                ttl=mutation.ttl,
            )
        return Delete(self.row(mutation.row), mutation.column, timestamp=timestamp)

    def delete(self, delete: LogicalDelete, *, server: bool = False) -> Delete:
        """The rendered delete (``server``: see :meth:`stamp`)."""
        timestamp = self.stamp(delete.timestamp, server=server)
        return Delete(self.row(delete.row), delete.column, timestamp=timestamp)

    def mutations(self, batch: list[LogicalMutation], *, server: bool = False) -> list[Mutation]:
        """The rendered batch, in order (``server``: see :meth:`stamp`)."""
        return [self.mutation(m, server=server) for m in batch]

    def before(self, stamp: Stamp | None) -> int | None:
        """A read's exclusive upper timestamp bound."""
        return None if stamp is None else self.machine.at(stamp)

    def filter(self, template: bytes | None, *, text: bool) -> str | bytes | None:
        """The filter string with the example's prefix and stamps put in."""
        if template is None:
            return None
        rendered = _TOKEN.sub(self.machine.render_token, template)
        return rendered.decode("utf-8", "surrogateescape") if text else rendered

    def scan(self, scan: LogicalScan) -> Scan:
        """The rendered scan, its open bounds closed at the ends of the example's rows."""
        prefix = self.machine.prefix
        return Scan(
            start=prefix + scan.start,
            stop=prefix + scan.stop if scan.stop else prefix_stop(prefix),
            columns=scan.columns,
            filter=self.filter(scan.filter, text=scan.text),
            before=self.before(scan.before),
            reverse=scan.reverse,
            limit=scan.limit,
            batch_size=scan.batch_size,
        )


@attrs.frozen
class Window:
    """The moments a call the real server stamps itself (increment, append) may have used.

    The engine stamped ``start`` (its clock during the call, the call's start); the server
    stamped with its own clock between ``start`` and ``end``, where ``end`` is the call's
    return plus one millisecond per cell it stamped (``max(now, old + 1)`` chains).
    """

    start: int
    end: int


def _stamped(result: Any, windows: list[Window]) -> Any:
    """``result`` (as :func:`outcome` gives it) with each timestamp stamped in a window
    replaced by that window: the comparison of a server-stamped cell with the engine's."""
    if isinstance(result, Cell):
        for window in windows:
            if window.start <= result.timestamp <= window.end:
                return ("stamped in", window, result.value)
        return result
    if isinstance(result, (list, tuple)):
        return type(result)(_stamped(item, windows) for item in result)
    return result


class RealAgreement(RuleBasedStateMachine):
    """Random operations on the engine and on a real HBase; every read must agree.

    A hypothesis state machine (fakeredis's tests against a real Redis, ARCHITECTURE
    style 8): each operation goes to a :class:`MemoryBackend` and to a real HBase over one
    protocol. The real table is the session's; each example writes only rows under a fresh
    prefix and bounds every scan to it, so no example sees another's cells and nothing is
    emptied between examples.

    Time: the engine's :class:`ManualClock` is set, before each call, to this host's clock
    once it is past the end of the previous call; so the real server (on this host's clock)
    stamps at or after the engine's moment and before the next. Explicit timestamps lie in
    eras far from that moment (1970, 10 minutes before, a day after), and TTLs are short
    only where the cell is already expired (or in the future), so every expiry is decided
    before the example starts. A cell the real server stamps itself (increment, append) is
    compared by window (:class:`Window`).

    Differences the engine keeps on purpose (docs/engine.md) are named normalisers:
    :meth:`failed_check_first`.
    """

    counter = itertools.count()

    def __init__(self, real: Backend, families: list[Family]) -> None:
        super().__init__()
        self.real = real
        #: Each family's VERSIONS, which the unflushed engine's reads apply themselves.
        self.kept = {family.name.encode(): family.versions for family in families}
        self.start = wall_ms()
        self.clock = ManualClock(self.start)
        self.memory = MemoryBackend(clock=self.clock)
        self.memory.create_table(Table(TABLE, families, allow_many_families=True))
        # The families as a memstore holds them before a flush: every version written.
        unflushed = [attrs.evolve(family, versions=2**31 - 1) for family in families]
        self.unflushed = MemoryBackend(clock=self.clock)
        self.unflushed.create_table(Table(TABLE, unflushed, allow_many_families=True))
        self.unflushed_side = Side(self, real=False, unflushed=True)
        self.prefix = b"e%07d/" % next(self.counter)
        self.moment = self.start
        self.last_end = self.start
        self.windows: list[Window] = []
        self.engine_side = Side(self, real=False)
        self.real_side = Side(self, real=True)
        #: The cells written at an explicit timestamp: ``(row, column, stamp)``.
        self.written: set[tuple[bytes, bytes, Stamp]] = set()

    def teardown(self) -> None:
        """Drop the engine; the real rows stay under their prefix, the table is the session's."""
        self.memory.close()
        self.unflushed.close()

    # --- time -------------------------------------------------------------------------

    def at(self, stamp: Stamp) -> int:
        """The epoch milliseconds of an explicit stamp (``now``: the call's moment)."""
        if stamp.era == "epoch":
            return stamp.offset
        if stamp.era == "past":
            return self.start - PAST + stamp.offset
        if stamp.era == "future":
            return self.start + FUTURE + stamp.offset
        return self.moment

    def render_token(self, match: re.Match[bytes]) -> bytes:
        """The bytes of one filter-template token (see :data:`ROW_TOKEN`)."""
        if match.group(0) == ROW_TOKEN:
            return self.prefix
        return b"%d" % self.at(Stamp(LETTER_ERAS[match.group(1)], int(match.group(2))))

    def _next_moment(self) -> int:
        """Wait (under a millisecond, on a busy clock) until this host's clock is past the
        end of the last call, and make that the engine's now."""
        moment = wall_ms()
        while moment <= self.last_end:
            moment = wall_ms()
        self.clock.set(moment)
        self.moment = moment
        return moment

    # --- comparing ----------------------------------------------------------------------

    def both(
        self,
        what: str,
        call: Callable[[Backend, Side], Any],
        *,
        stamps: int = 0,
        refused: Callable[[Outcome], bool] = lambda actual: False,
    ) -> Any:
        """Run ``call`` on both sides at one moment and assert equal outcomes.

        ``stamps``: how many cells the real server stamps itself in this call (increments,
        appends), so their timestamps are compared by window. ``refused``: whether the
        real side's outcome is a refusal of the protocol's backend (nothing sent), after
        which the engine is not called either.
        """
        moment = self._next_moment()
        actual = outcome(lambda: call(self.real, self.real_side))
        self.last_end = wall_ms() + stamps
        if refused(actual):
            return None
        expected = outcome(lambda: call(self.memory, self.engine_side))
        unflushed = outcome(lambda: call(self.unflushed, self.unflushed_side))
        if stamps:
            self.windows.append(Window(moment, self.last_end))
        expected, unflushed, actual = (
            (kind, _stamped(result, self.windows)) for kind, result in (expected, unflushed, actual)
        )
        if actual != expected and not self.known_difference(what, expected, actual, unflushed):
            raise AssertionError(
                f"{what}: engine {expected!r} but real HBase {actual!r} "
                f"(engine keeping every version: {unflushed!r})"
            )
        return expected[1]

    def known_difference(
        self, what: str, expected: Outcome, actual: Outcome, unflushed: Outcome
    ) -> bool:
        """Whether a difference is one the engine keeps on purpose (docs/engine.md)."""
        return self.failed_check_first(what, expected, actual) or self.unflushed_versions(
            actual, unflushed
        )

    @staticmethod
    def unflushed_versions(actual: Outcome, unflushed: Outcome) -> bool:
        """HBase reads versions beyond VERSIONS until a flush; the engine drops them at once.

        Before a flush, HBase's memstore holds every version written, and a read counts
        VERSIONS among the versions it has not skipped: those of its time range. The
        engine discards versions beyond VERSIONS when they are written (as a flush would),
        so a time-range read below the newest versions finds nothing where HBase finds an
        older one. The machine keeps a second engine whose families keep every version and
        whose reads cap the versions at VERSIONS; HBase's answer must be that one
        (docs/engine.md, "Differences kept on purpose").
        """
        return actual == unflushed

    def note(self, batch: list[LogicalPut] | list[LogicalMutation]) -> None:
        """Remember the cells ``batch`` puts at explicit timestamps."""
        for m in batch:
            if isinstance(m, LogicalPut) and m.timestamp is not None:
                self.written.add((m.row, m.column, m.timestamp))

    def hides_a_rewritten_cell(self, batch: list[LogicalPut] | list[LogicalMutation]) -> bool:
        """Whether ``batch`` rewrites a cell at its timestamp with a put already expired.

        HBase keeps both writes of one cell and timestamp until a compaction and a read
        skips an expired one, showing the other again; the engine keeps the later write
        only (a difference kept on purpose, docs/engine.md, shown by
        ``test_engine_differences.py``). The machine does not send such a batch.
        """
        for m in batch:
            if (
                isinstance(m, LogicalPut)
                and m.timestamp is not None
                and m.ttl is not None
                and (m.timestamp.era == "epoch" or (m.timestamp.era == "past" and m.ttl < LONG_TTL))
                and (m.row, m.column, m.timestamp) in self.written
            ):
                return True
        return False

    @staticmethod
    def failed_check_first(what: str, expected: Outcome, actual: Outcome) -> bool:
        """HBase answers a failed check before looking at the mutations' families.

        The engine checks the mutations' families first: a conditional write whose check
        fails and whose mutation names an unknown family raises on the engine and is false
        on HBase (docs/engine.md, "Differences kept on purpose").
        """
        return (
            what.startswith(("check_and_put(", "check_and_delete(", "check_and_mutate("))
            and expected == ("raised", "ColumnFamilyNotFoundError")
            and actual == ("ok", False)
        )

    @initialize(seed=st.lists(seed_puts, max_size=12))
    def seed(self, seed: list[LogicalPut]) -> None:
        """Start from some cells at explicit timestamps, so reads have rows to find."""
        self.note(seed)
        self.both(f"mutate({seed!r})", lambda b, s: b.mutate(TABLE, s.mutations(list(seed))))

    # --- writes -------------------------------------------------------------------------

    @rule(put=puts)
    def put(self, put: LogicalPut) -> None:
        """One put, with or without timestamp and per-cell TTL."""
        if self.hides_a_rewritten_cell([put]):
            return
        self.note([put])
        self.both(f"mutate([{put!r}])", lambda b, s: b.mutate(TABLE, [s.mutation(put)]))

    @rule(delete=deletes)
    def delete(self, delete: LogicalDelete) -> None:
        """One delete of a column, a family or a row, with or without timestamp."""
        self.both(f"mutate([{delete!r}])", lambda b, s: b.mutate(TABLE, [s.mutation(delete)]))

    @rule(batch=mutations)
    def mutate(self, batch: list[LogicalMutation]) -> None:
        """A batch mixing puts and deletes of several rows, timestamps and TTLs."""
        if self.hides_a_rewritten_cell(batch):
            return
        self.note(batch)
        self.both(f"mutate({batch!r})", lambda b, s: b.mutate(TABLE, s.mutations(batch)))

    def _overflows(self, increments: list[Increment]) -> bool:
        """Whether applying ``increments`` in order takes a counter past 64 bits.

        HBase wraps around silently where the engine raises ``CounterError`` (a difference
        kept on purpose, docs/engine.md, shown by ``test_engine_differences.py``); the
        machine does not send such increments, since the two would then hold other values.
        """
        totals: dict[tuple[bytes, bytes], int] = {}
        for inc in increments:
            key = (inc.row, inc.column)
            if key not in totals:
                if inc.column in FAULTY:
                    continue
                found = self.memory.get(TABLE, [self.prefix + inc.row], columns=[inc.column])
                value = found[0].value(inc.column) if found else None
                if value is not None and len(value) != 8:
                    continue
                totals[key] = 0 if value is None else int.from_bytes(value, "big", signed=True)
            totals[key] += inc.amount
            if not -(2**63) <= totals[key] < 2**63:
                return True
        return False

    @rule(row=rows, column=write_columns, amount=st.integers(min_value=-3, max_value=3))
    def increment(self, row: bytes, column: bytes, amount: int) -> None:
        """An increment: a new counter, an existing one, or a cell that is no long (F10)."""
        if self._overflows([Increment(row, column, amount)]):
            return
        self.both(
            f"increment({row!r}, {column!r}, {amount})",
            lambda b, s: b.increment(TABLE, s.row(row), column, amount),
            stamps=1,
        )

    @rule(batch=increment_batches)
    def increment_many(self, batch: list[Increment]) -> None:
        """Several increments in one call; a failing one keeps those before it."""
        if self._overflows(batch):
            return
        self.both(
            f"increment_many({batch!r})",
            lambda b, s: b.increment_many(
                TABLE, [attrs.evolve(i, row=s.row(i.row)) for i in batch]
            ),
            stamps=len(batch),
        )

    @rule(
        row=rows,
        column=write_columns,
        expectation=st.sampled_from(["absent", "empty", "current", "other"]),
        written=write_columns,
        value=values,
        ttl=st.none() | st.just(LONG_TTL),
        elsewhere=st.integers(min_value=0, max_value=9),
    )
    def check_and_put(
        self,
        *,
        row: bytes,
        column: bytes,
        expectation: str,
        written: bytes,
        value: bytes,
        ttl: int | None,
        elsewhere: int,
    ) -> None:
        """A check-and-put expecting absence, b"", the current value or another value."""
        expected = self._expected(row, column, expectation)
        # One time in ten the put is on another row, which both must refuse.
        put_row = ROWS[(ROWS.index(row) + 1) % len(ROWS)] if elsewhere == 0 else row
        if faults([column, written]) + (put_row != row) > 1:
            put_row, written = row, CELLS[0]  # at most one fault per call
        # Thrift1's checkAndPut cannot carry a timestamp: the server stamps the put.
        self.both(
            f"check_and_put({row!r}, {column!r}, {expected!r}, {put_row!r}, {written!r}, "
            f"{value!r}, ttl={ttl!r})",
            lambda b, s: b.check_and_put(
                TABLE, s.row(row), column, expected, Put(s.row(put_row), written, value, ttl=ttl)
            ),
            stamps=1,
        )

    @rule(row=rows, appended=appends)
    def append(self, row: bytes, appended: dict[bytes, bytes]) -> None:
        """An append to some columns of one row; the new values come back."""
        self.both(
            f"append({row!r}, {appended!r})",
            lambda b, s: b.append(TABLE, s.row(row), appended),
            stamps=len(appended),
        )

    def _expected(self, row: bytes, column: bytes, expectation: str) -> bytes | None:
        expected: bytes | None = {"absent": None, "empty": b"", "other": b"other"}.get(expectation)
        if expectation == "current" and column not in FAULTY:
            found = self.memory.get(TABLE, [self.prefix + row], columns=[column])
            expected = found[0].value(column) if found else None
        return expected

    # --- reads --------------------------------------------------------------------------

    @rule(wanted=st.lists(rows, max_size=4), columns=read_column_lists, before=befores)
    def get(self, wanted: list[bytes], columns: list[bytes], before: Stamp | None) -> None:
        """A get of several rows (missing and repeated ones too), columns, families, before."""
        self.both(
            f"get({wanted!r}, columns={columns!r}, before={before!r})",
            lambda b, s: b.get(
                TABLE, [s.row(r) for r in wanted], columns=columns, before=s.before(before)
            ),
        )

    @rule(
        row=rows,
        column=read_columns,
        max_versions=st.integers(min_value=1, max_value=4),
        before=befores,
    )
    def get_versions(
        self, row: bytes, column: bytes, max_versions: int, before: Stamp | None
    ) -> None:
        """The versions of one cell, newest first."""
        self.both(
            f"get_versions({row!r}, {column!r}, max_versions={max_versions}, before={before!r})",
            lambda b, s: b.get_versions(
                TABLE,
                s.row(row),
                column,
                max_versions=s.versions(column, max_versions),
                before=s.before(before),
            ),
        )

    @rule(scan=filtered_scans)
    def filtered_scan(self, scan: LogicalScan) -> None:
        """A scan with a filter (I4): leaves, AND / OR lists, WHILE and SKIP."""
        self.scan(scan)

    @rule(scan=scans)
    def scan(self, scan: LogicalScan) -> None:
        """A scan with random bounds, direction, limit, columns, batch size and filter."""
        self.both(f"scan({scan!r})", lambda b, s: list(b.scan(TABLE, s.scan(scan))))

    # --- after every step -----------------------------------------------------------------

    @invariant()
    def full_scans_agree(self) -> None:
        """A plain scan of all the example's rows reads the same rows and cells from both."""
        self.both("scan(every row)", lambda b, s: list(b.scan(TABLE, s.scan(LogicalScan()))))


class RealAtomicAgreement(RealAgreement):
    """The agreement, plus the conditional writes only Thrift2 has (check-and-delete/mutate)."""

    @rule(
        row=rows,
        column=write_columns,
        expectation=st.sampled_from(["absent", "empty", "current", "other"]),
        batch=mutations,
    )
    def check_and_mutate(
        self, row: bytes, column: bytes, expectation: str, batch: list[LogicalMutation]
    ) -> None:
        """A check-and-mutate of one row."""
        on_row: list[LogicalMutation] = [attrs.evolve(m, row=row) for m in batch]
        if column in FAULTY and _mutation_faults(on_row):
            return  # at most one fault per call
        if self.hides_a_rewritten_cell(on_row):
            return
        self.note(on_row)
        expected = self._expected(row, column, expectation)
        self.both(
            f"check_and_mutate({row!r}, {column!r}, {expected!r}, {on_row!r})",
            lambda b, s: b.check_and_mutate(
                TABLE, s.row(row), column, expected, s.mutations(on_row, server=True)
            ),
            stamps=len(on_row),
            # HBase's Thrift2 checkAndMutate cannot check for absence: refused, unsent.
            refused=lambda actual: (
                not expected and actual == ("raised", "UnsupportedOperationError")
            ),
        )

    @rule(
        row=rows,
        column=write_columns,
        expectation=st.sampled_from(["absent", "empty", "current", "other"]),
        delete=deletes,
    )
    def check_and_delete(
        self, row: bytes, column: bytes, expectation: str, delete: LogicalDelete
    ) -> None:
        """A check-and-delete."""
        on_row = attrs.evolve(delete, row=row)
        if column in FAULTY and on_row.column == UNKNOWN_FAMILY:
            return  # at most one fault per call
        expected = self._expected(row, column, expectation)
        self.both(
            f"check_and_delete({row!r}, {column!r}, {expected!r}, {on_row!r})",
            lambda b, s: b.check_and_delete(
                TABLE, s.row(row), column, expected, s.delete(on_row, server=True)
            ),
        )


def _examples() -> int:
    text = os.environ.get(EXAMPLES_VARIABLE)
    return int(text) if text else CI_EXAMPLES


@attrs.frozen
class RealTable:
    """The session's table on a real server, and the families it was made with."""

    backend: Backend
    families: list[Family]


@pytest.fixture(scope="module", params=REAL_TARGETS)
def real(request: pytest.FixtureRequest) -> Iterator[RealTable]:
    """A real HBase over Thrift1 (``hbase``) or Thrift2 (``hbase2``) with the session's table.

    Skipped with the reason when the target is not chosen or no real server is available.
    The table is created for the module (over Thrift1 through the Thrift2 server beside
    it, which carries MIN_VERSIONS and KEEP_DELETED_CELLS; without one, without them) and
    dropped after it.
    """
    target = str(request.param)
    chosen = [getattr(p, "values", (p,))[0] for p in target_params()]
    if target not in chosen:
        pytest.skip(f"{TARGETS_VARIABLE} leaves out {target}: no real-HBase agreement run")
    backend: Backend
    families = FAMILIES
    if target == "hbase":
        host, port = request.getfixturevalue("hmodel_real_hbase_address")
        try:
            admin_host, admin_port = request.getfixturevalue("hmodel_real_hbase2_address")
        except pytest.skip.Exception:
            admin, families = None, THRIFT1_FAMILIES
        else:
            admin = f"{admin_host}:{admin_port}"
        backend = ThriftBackend(host, port, table_prefix=_prefix(target), admin=admin)
    else:
        host, port = request.getfixturevalue("hmodel_real_hbase2_address")
        backend = Thrift2Backend(host, port, table_prefix=_prefix(target))
    try:
        if backend.table_exists(TABLE):
            backend.delete_table(TABLE)
        backend.create_table(Table(TABLE, families, allow_many_families=True))
        _require_same_clock(backend)
        yield RealTable(backend, families)
        backend.delete_table(TABLE)
    finally:
        backend.close()


def _prefix(target: str) -> str:
    """The table prefix: the kit's, ``agreement`` appended without a separator, so the
    kit's table pools (which drop unknown tables of their own prefix) never see it."""
    return real_prefix(target) + "agreement"


def _require_same_clock(backend: Backend) -> None:
    """Skip, with the reason, unless the server stamps with this host's clock (see Side)."""
    before = wall_ms()
    backend.mutate(TABLE, [Put(b"clock", b"a:x", b"")])
    after = wall_ms()
    (found,) = backend.get(TABLE, [b"clock"])
    stamped = found.cells[b"a:x"].timestamp
    if not before <= stamped <= after:
        pytest.skip(
            f"the server stamped {stamped}, outside this host's [{before}, {after}]: the "
            "real-HBase agreement needs the server on this host's clock"
        )


def test_memory_and_real_hbase_agree_after_every_step(real: RealTable) -> None:
    """Random operation sequences give equal results and error types on the engine and HBase."""
    backend = real.backend
    base = RealAtomicAgreement if "check_and_mutate" in backend.capabilities else RealAgreement

    class AgreementHere(base):  # type: ignore[valid-type, misc]
        def __init__(self) -> None:
            super().__init__(backend, real.families)

    run_state_machine_as_test(
        AgreementHere,
        settings=settings(
            max_examples=_examples(),
            stateful_step_count=STEPS,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
