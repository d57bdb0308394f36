"""Property: the memory engine and the Thrift1 and Thrift2 backends over the fake server agree."""

from __future__ import annotations

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

from hmodel.backend.base import Backend, Delete, Increment, Mutation, Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.clock import ManualClock
from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer
from tests.backend.agreement_common import (
    BARE_FAMILY,
    COLUMNS,
    FAULTY,
    ROWS,
    UNKNOWN_FAMILY,
    VALUES,
    Outcome,
    batch_faults,
    faults,
    outcome,
    quoted,
)

TABLE = "agreement"
#: Family ``a`` keeps 3 versions, ``b`` HBase's default of 1 (no split points: Thrift1 has none).
FAMILIES = [Family("a", versions=3), Family("b")]
#: Where each example's clock starts; explicit timestamps fall on both sides of it.
CLOCK_START = 20

rows = st.sampled_from(ROWS)
cell_columns = st.sampled_from(COLUMNS)
#: Mostly valid columns; now and then one whose error both sides must raise alike.
write_columns = st.one_of(
    cell_columns, cell_columns, cell_columns, st.sampled_from([UNKNOWN_FAMILY, BARE_FAMILY])
)
read_columns = st.sampled_from([*COLUMNS, b"a", b"b", UNKNOWN_FAMILY])
delete_columns = st.sampled_from([None, b"a", b"b", *COLUMNS, UNKNOWN_FAMILY])
values = st.sampled_from(VALUES)
#: Explicit timestamps below, at and above the clock's values, or none (the server's now).
timestamps = st.none() | st.integers(min_value=0, max_value=60)
befores = st.none() | st.integers(min_value=0, max_value=70)
ttls = st.none() | st.integers(min_value=1, max_value=30)
#: Scan bounds: empty (open), one of the rows, or a key between rows.
bounds = st.sampled_from([b"", b"\x00\x00", b"aa", b"b\x00", b"\xff\x01"]) | rows

puts = st.builds(Put, row=rows, column=write_columns, value=values, timestamp=timestamps, ttl=ttls)
seed_puts = st.builds(
    Put, row=rows, column=cell_columns, value=values, timestamp=st.integers(0, 60)
)
deletes = st.builds(Delete, row=rows, column=delete_columns, timestamp=timestamps)
increments = st.builds(
    Increment, row=rows, column=write_columns, amount=st.integers(min_value=-3, max_value=3)
)


mutations = st.lists(st.one_of(puts, deletes), min_size=1, max_size=5).filter(
    lambda batch: batch_faults(batch) <= 1
)
# An unknown family anywhere in a batch applies nothing on both sides: ThriftBackend
# checks the families (cached) before its incrementRows, as the engine does.
increment_batches = st.lists(increments, min_size=1, max_size=4).filter(
    lambda batch: faults(i.column for i in batch) <= 1
)
appends = st.dictionaries(write_columns, values, max_size=3).filter(lambda d: faults(d) <= 1)
read_column_lists = st.lists(read_columns, max_size=3).filter(
    lambda columns: columns.count(UNKNOWN_FAMILY) <= 1
)


_leaf_filters = st.one_of(
    st.sampled_from([b"a", b"ab", b"\x00", b"\xff", b"b"]).map(
        lambda prefix: b"PrefixFilter(" + quoted(prefix) + b")"
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
        lambda pair: b"RowFilter(" + pair[0] + b", " + quoted(b"binary:" + pair[1]) + b")"
    ),
    st.sampled_from([b"x", b""]).map(
        lambda qualifier: b"QualifierFilter(=, " + quoted(b"binary:" + qualifier) + b")"
    ),
    st.lists(st.integers(min_value=0, max_value=60), min_size=1, max_size=3).map(
        lambda stamps: b"TimestampsFilter(" + b", ".join(b"%d" % t for t in stamps) + b")"
    ),
    st.integers(min_value=1, max_value=2).map(lambda count: b"ColumnCountGetFilter(%d)" % count),
)
#: Filter strings (I4): leaves, parenthesised and joined by AND / OR or under WHILE / SKIP.
filter_bytes = st.recursive(
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


# The protocol takes a filter as bytes or as a str; a str goes to the server as UTF-8 with
# surrogateescape, so lone surrogates stand for raw bytes on both sides.
filters = filter_bytes | filter_bytes.map(lambda b: b.decode("utf-8", "surrogateescape"))


def _scans(filter_texts: st.SearchStrategy[str | bytes | None]) -> st.SearchStrategy[Scan]:
    return st.builds(
        Scan,
        start=bounds,
        stop=bounds,
        columns=read_column_lists,
        filter=filter_texts,
        before=befores,
        reverse=st.booleans(),
        limit=st.none() | st.integers(min_value=0, max_value=4),
        batch_size=st.integers(min_value=1, max_value=4),
    )


scans = _scans(st.none() | filters)
filtered_scans = _scans(filters)


class RelayClock:
    """The clock both engines read: the running example's :class:`ManualClock`.

    The server is shared by every example while a ManualClock never moves back, so each
    example installs a fresh ManualClock here and both engines follow it.
    """

    def __init__(self) -> None:
        self.target = ManualClock(CLOCK_START)

    def __call__(self) -> int:
        """Return the running example's time in epoch milliseconds."""
        return self.target()


class Agreement(RuleBasedStateMachine):
    """Random operations on both backends; every result and error type must be equal.

    A hypothesis state machine (fakeredis's engine-vs-engine tests, ARCHITECTURE style 8)
    sends each operation to a :class:`MemoryBackend` directly and to a
    remote backend (:class:`ThriftBackend` or :class:`Thrift2Backend`) talking to
    :class:`FakeHBaseServer`, which serves another memory
    engine. Both engines read one clock that only the ``tick`` rule moves, so server-stamped
    cells, ``now`` delete markers, counter and append timestamps and per-cell TTLs (F8) line
    up exactly. After every step the raw stored versions and delete markers of every row
    touched must be equal too (F9, F10). Since both sides run the same engine, anything that
    differs is a bug in the Thrift translation (client or server handler) or a gap in the
    protocol's contract.
    """

    def __init__(self, server: FakeHBaseServer, thrift: Backend, relay: RelayClock) -> None:
        super().__init__()
        self.clock = ManualClock(CLOCK_START)
        relay.target = self.clock
        self.server = server
        self.memory = MemoryBackend(clock=self.clock)
        self.thrift = thrift
        self.touched: set[bytes] = set()
        if thrift.table_exists(TABLE):  # left over by an example that failed to start
            thrift.delete_table(TABLE)
        for backend in (self.memory, self.thrift):
            backend.create_table(Table(TABLE, FAMILIES))

    def teardown(self) -> None:
        """Drop the table from the shared server; the direct engine goes with the example."""
        self.thrift.delete_table(TABLE)
        self.memory.close()

    def both(self, what: str, call: Callable[[Backend], Any]) -> Any:
        """Run ``call`` on both backends, assert equal outcomes, and return the result."""
        expected = outcome(lambda: call(self.memory))
        actual = outcome(lambda: call(self.thrift))
        if not self.known_deviation(what, expected, actual):
            assert actual == expected, f"{what}: memory {expected!r} but thrift {actual!r}"
        return expected[1]

    def known_deviation(self, what: str, expected: Outcome, actual: Outcome) -> bool:
        """HBase answers a failed check before looking at the mutations (HBASE_FACTS).

        The engine checks the mutations' families first: a conditional write whose check
        fails and whose mutations name an unknown family raises on the engine and is false
        on HBase (and on the fake server's Thrift1 and Thrift2 sides, which follow HBase).
        Kept on purpose: docs/engine.md, ``test_engine_differences.py``.
        """
        return (
            what.startswith(("check_and_put(", "check_and_delete(", "check_and_mutate("))
            and expected == ("raised", "ColumnFamilyNotFoundError")
            and actual == ("ok", False)
        )

    @initialize(seed=st.lists(seed_puts, max_size=12))
    def seed(self, seed: list[Put]) -> None:
        """Start from some cells at explicit timestamps, so reads have rows to find."""
        self.touched.update(put.row for put in seed)
        self.both(f"mutate({seed!r})", lambda b: b.mutate(TABLE, seed))

    # --- time -------------------------------------------------------------------------

    @rule(millis=st.integers(min_value=0, max_value=6))
    def tick(self, millis: int) -> None:
        """Move the shared clock on (0: the next write shares the last one's stamp)."""
        self.clock.advance(millis)

    # --- writes -------------------------------------------------------------------------

    @rule(put=puts)
    def put(self, put: Put) -> None:
        """One put, with or without timestamp and per-cell TTL."""
        self.touched.add(put.row)
        self.both(f"mutate([{put!r}])", lambda b: b.mutate(TABLE, [put]))

    @rule(delete=deletes)
    def delete(self, delete: Delete) -> None:
        """One delete of a column, a family or a row, with or without timestamp."""
        self.touched.add(delete.row)
        self.both(f"mutate([{delete!r}])", lambda b: b.mutate(TABLE, [delete]))

    @rule(batch=mutations)
    def mutate(self, batch: list[Mutation]) -> None:
        """A batch mixing puts and deletes of several rows, timestamps and TTLs."""
        self.touched.update(m.row for m in batch)
        self.both(f"mutate({batch!r})", lambda b: b.mutate(TABLE, batch))

    @rule(row=rows, column=write_columns, amount=st.integers(min_value=-3, max_value=3))
    def increment(self, row: bytes, column: bytes, amount: int) -> None:
        """An increment: a new counter, an existing one, or a cell that is no long (F10)."""
        self.touched.add(row)
        self.both(
            f"increment({row!r}, {column!r}, {amount})",
            lambda b: b.increment(TABLE, row, column, amount),
        )

    @rule(batch=increment_batches)
    def increment_many(self, batch: list[Increment]) -> None:
        """Several increments in one call; a failing one keeps those before it."""
        self.touched.update(i.row for i in batch)
        self.both(f"increment_many({batch!r})", lambda b: b.increment_many(TABLE, batch))

    @rule(
        row=rows,
        column=write_columns,
        expectation=st.sampled_from(["absent", "empty", "current", "other"]),
        written=write_columns,
        value=values,
        ttl=ttls,
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
        expected: bytes | None = {"absent": None, "empty": b"", "other": b"other"}.get(expectation)
        if expectation == "current" and column not in FAULTY:
            found = self.memory.get(TABLE, [row], columns=[column])
            expected = found[0].value(column) if found else None
        # One time in ten the put is on another row, which both must refuse.
        put_row = ROWS[(ROWS.index(row) + 1) % len(ROWS)] if elsewhere == 0 else row
        if faults([column, written]) + (put_row != row) > 1:
            put_row, written = row, COLUMNS[0]  # at most one fault per call
        put = Put(put_row, written, value, ttl=ttl)
        self.touched.add(row)
        self.both(
            f"check_and_put({row!r}, {column!r}, {expected!r}, {put!r})",
            lambda b: b.check_and_put(TABLE, row, column, expected, put),
        )

    @rule(row=rows, appended=appends)
    def append(self, row: bytes, appended: dict[bytes, bytes]) -> None:
        """An append to some columns of one row; the new values come back."""
        self.touched.add(row)
        self.both(f"append({row!r}, {appended!r})", lambda b: b.append(TABLE, row, appended))

    # --- reads --------------------------------------------------------------------------

    @rule(
        wanted=st.lists(rows, max_size=4),
        columns=read_column_lists,
        before=befores,
    )
    def get(self, wanted: list[bytes], columns: list[bytes], before: int | None) -> None:
        """A get of several rows (missing and repeated ones too), columns, families, before."""
        self.both(
            f"get({wanted!r}, columns={columns!r}, before={before!r})",
            lambda b: b.get(TABLE, wanted, columns=columns, before=before),
        )

    @rule(
        row=rows,
        column=read_columns,
        max_versions=st.integers(min_value=1, max_value=4),
        before=befores,
    )
    def get_versions(
        self, row: bytes, column: bytes, max_versions: int, before: int | None
    ) -> None:
        """The versions of one cell, newest first."""
        self.both(
            f"get_versions({row!r}, {column!r}, max_versions={max_versions}, before={before!r})",
            lambda b: b.get_versions(TABLE, row, column, max_versions=max_versions, before=before),
        )

    @rule(scan=filtered_scans)
    def filtered_scan(self, scan: Scan) -> None:
        """A scan with a filter (I4): leaves, AND / OR lists, WHILE and SKIP."""
        self.scan(scan)

    @rule(scan=scans)
    def scan(self, scan: Scan) -> None:
        """A scan with random bounds, direction, limit, columns, batch size and filter."""
        self.both(f"scan({scan!r})", lambda b: list(b.scan(TABLE, scan)))

    # --- after every step -----------------------------------------------------------------

    @invariant()
    def stored_cells_agree(self) -> None:
        """Both engines store the same versions and delete markers for every row touched."""
        for row in sorted(self.touched):
            mine = self.memory.raw(TABLE, row)
            served = self.server.backend.raw(TABLE, row)
            assert served == mine, f"raw cells of {row!r}: memory {mine!r} but server {served!r}"

    @invariant()
    def full_scans_agree(self) -> None:
        """A plain full scan reads the same rows and cells from both."""
        self.both("scan(Scan())", lambda b: list(b.scan(TABLE, Scan())))


class AtomicAgreement(Agreement):
    """The agreement, plus the conditional writes only some remote backends have (Thrift2).

    A subclass, so the Thrift1 machine draws exactly the rules it always drew.
    """

    @rule(
        row=rows,
        column=write_columns,
        expectation=st.sampled_from(["absent", "empty", "current", "other"]),
        batch=mutations,
    )
    def check_and_mutate(
        self, row: bytes, column: bytes, expectation: str, batch: list[Mutation]
    ) -> None:
        """A check-and-mutate of one row."""
        on_row: list[Mutation] = [attrs.evolve(m, row=row) for m in batch]
        if column in FAULTY and batch_faults(on_row):
            return  # at most one fault per call
        expected = self._expected(row, column, expectation)
        self.touched.add(row)
        what = f"check_and_mutate({row!r}, {column!r}, {expected!r}, {on_row!r})"
        actual = outcome(lambda: self.thrift.check_and_mutate(TABLE, row, column, expected, on_row))
        if actual == ("raised", "UnsupportedOperationError") and not expected:
            return  # HBase 2.2's checkAndMutate cannot check for absence: refused, unsent
        expected_outcome = outcome(
            lambda: self.memory.check_and_mutate(TABLE, row, column, expected, on_row)
        )
        if not self.known_deviation(what, expected_outcome, actual):
            assert actual == expected_outcome, f"{what}: memory {expected_outcome!r} but {actual!r}"

    @rule(
        row=rows,
        column=write_columns,
        expectation=st.sampled_from(["absent", "empty", "current", "other"]),
        delete=deletes,
    )
    def check_and_delete(self, row: bytes, column: bytes, expectation: str, delete: Delete) -> None:
        """A check-and-delete."""
        on_row = attrs.evolve(delete, row=row)
        if column in FAULTY and on_row.column == UNKNOWN_FAMILY:
            return  # at most one fault per call
        expected = self._expected(row, column, expectation)
        self.touched.add(row)
        self.both(
            f"check_and_delete({row!r}, {column!r}, {expected!r}, {on_row!r})",
            lambda b: b.check_and_delete(TABLE, row, column, expected, on_row),
        )

    def _expected(self, row: bytes, column: bytes, expectation: str) -> bytes | None:
        expected: bytes | None = {"absent": None, "empty": b"", "other": b"other"}.get(expectation)
        if expectation == "current" and column not in FAULTY:
            found = self.memory.get(TABLE, [row], columns=[column])
            expected = found[0].value(column) if found else None
        return expected


@pytest.fixture(scope="module")
def relay() -> RelayClock:
    """The clock the served engine reads; each example points it at its own ManualClock."""
    return RelayClock()


@pytest.fixture(scope="module")
def server(relay: RelayClock) -> Iterator[FakeHBaseServer]:
    """One Thrift server for the module, serving an engine that reads ``relay``."""
    with FakeHBaseServer(MemoryBackend(clock=relay), thrift2_port=0) as fake:
        yield fake


@pytest.fixture(scope="module", params=["thrift", "thrift2"])
def thrift(server: FakeHBaseServer, request: pytest.FixtureRequest) -> Iterator[Backend]:
    """One Thrift1 or Thrift2 backend to ``server`` per module run; examples drop their table."""
    backend: Backend
    if request.param == "thrift":
        backend = ThriftBackend(server.host, server.port, retry_backoff_ms=0)
    else:
        assert server.thrift2_port is not None
        backend = Thrift2Backend(server.host, server.thrift2_port, retry_backoff_ms=0)
    try:
        yield backend
    finally:
        backend.close()


def test_memory_and_thrift_backends_agree_after_every_step(
    server: FakeHBaseServer, thrift: Backend, relay: RelayClock
) -> None:
    """Random operation sequences give equal results, errors and stored cells on both."""

    base = AtomicAgreement if "check_and_mutate" in thrift.capabilities else Agreement

    class AgreementHere(base):
        def __init__(self) -> None:
            super().__init__(server, thrift, relay)

    run_state_machine_as_test(
        AgreementHere,
        settings=settings(
            max_examples=200,
            stateful_step_count=25,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
