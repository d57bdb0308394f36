"""A bulk mutate stores the cells and markers its mutations sent one call each store (F7-F9)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel.backend.base import Delete, Mutation, Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.schema import Family, Table

NOW = 1_000_000

#: f: one version; g: three with a family TTL; h: two, keeping deleted cells.
TABLE = Table(
    "t",
    [
        Family("f"),
        Family("g", versions=3, min_versions=1, ttl=2_000),
        Family("h", versions=2, keep_deleted_cells=True),
    ],
)
#: The same without the family TTL: reads of plain rows then take the engine's fast path.
TIMELESS = Table(
    "t",
    [Family("f"), Family("g", versions=3), Family("h", versions=2, keep_deleted_cells=True)],
)
COLUMNS = [b"f:a", b"f:b", b"f:c", b"g:a", b"g:b", b"h:a"]

_rows = st.sampled_from([b"r0", b"r1", b"\x00", b"\xff"])
_stamps = st.one_of(st.none(), st.integers(NOW - 5, NOW + 5))
_puts = st.builds(
    Put,
    _rows,
    st.sampled_from(COLUMNS),
    st.binary(max_size=3),
    _stamps,
    st.one_of(st.none(), st.integers(0, 10)),
)
_deletes = st.builds(Delete, _rows, st.sampled_from([None, b"f", b"g", b"h", *COLUMNS]), _stamps)
#: Calls of mutations: mostly puts, in runs of one row (a new row built whole), with deletes.
_calls = st.lists(
    st.lists(st.one_of(_puts, _puts, _puts, _deletes), max_size=25), min_size=1, max_size=5
)


def _engine(table: Table) -> MemoryBackend:
    engine = MemoryBackend(clock=ManualClock(NOW))
    engine.create_table(table)
    return engine


def _stored(engine: MemoryBackend) -> dict[bytes, list[object]]:
    rows = [result.row for result in engine.scan("t", Scan(columns=()))]
    rows += [b"r0", b"r1", b"r2", b"r3", b"\x00", b"\xff"]
    return {row: engine.raw("t", row) for row in sorted(set(rows))}


@settings(max_examples=300, deadline=None)
@given(calls=_calls, sort=st.booleans(), table=st.sampled_from([TABLE, TIMELESS]))
def test_bulk_mutate_stores_what_single_puts_store(
    calls: list[list[Mutation]], sort: bool, table: Table
) -> None:
    """Same raw cells, markers and reads: one call of many mutations, or one call each."""
    bulk, single = _engine(table), _engine(table)
    for given_call in calls:
        call = given_call
        if sort:  # rows in order, columns ascending: the path that builds new rows whole
            call = sorted(call, key=lambda m: (type(m) is Delete, m.row, m.column or b""))
        bulk.mutate("t", call)
        # One call each, the puts before the deletes, as one mutate call applies them.
        for mutation in [m for m in call if type(m) is Put] + [
            m for m in call if type(m) is Delete
        ]:
            single.mutate("t", [mutation])
    assert _stored(bulk) == _stored(single)
    rows = [b"r0", b"r1", b"r2", b"r3", b"\x00", b"\xff"]
    assert bulk.get("t", rows) == single.get("t", rows)
    assert list(bulk.scan("t", Scan())) == list(single.scan("t", Scan()))
