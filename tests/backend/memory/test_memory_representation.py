"""The engine's compact rows agree with a naive model of HBase's rules, whatever the history.

Rows keep one version as itself until a second is kept, markers only once deleted, and a
fast read path for rows nothing can hide; this compares every read with a model that keeps
every write in plain dictionaries and applies the rules from scratch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel.backend.base import Cell, Delete, Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.schema import Family, Table

START = 1_000_000

#: f: one version; g: three, one of them kept past its 1 s TTL; h: two, keeping deleted cells.
FAMILIES = {
    b"f": Family("f"),
    b"g": Family("g", versions=3, min_versions=1, ttl=1),
    b"h": Family("h", versions=2, keep_deleted_cells=True),
}
ROWS = [b"r1", b"r2"]
COLUMNS = [b"f:a", b"f:b", b"g:a", b"g:b", b"h:a"]


@dataclass
class Model:
    """Every version ever kept, and every marker, in plain dictionaries."""

    versions: dict[tuple[bytes, bytes], dict[int, tuple[bytes, int | None]]] = field(
        default_factory=dict
    )
    column_markers: dict[tuple[bytes, bytes], set[int]] = field(default_factory=dict)
    family_markers: dict[tuple[bytes, bytes], set[int]] = field(default_factory=dict)

    def put(self, row: bytes, column: bytes, ts: int, value: bytes, ttl: int | None) -> None:
        cell = self.versions.setdefault((row, column), {})
        cell[ts] = (value, ttl)
        keep = FAMILIES[column.partition(b":")[0]].versions
        for old in sorted(cell, reverse=True)[keep:]:
            del cell[old]

    def visible(
        self, row: bytes, column: bytes, *, before: int | None, now: int, explicit: bool = False
    ) -> list[Cell]:
        family_name = column.partition(b":")[0]
        family = FAMILIES[family_name]
        markers = self.column_markers.get((row, column), set()) | self.family_markers.get(
            (row, family_name), set()
        )
        if family.keep_deleted_cells and before is not None:
            markers = {m for m in markers if m < before}
        horizon = max(markers, default=-1)
        seen: list[Cell] = []
        for ts, (value, ttl) in sorted(self.versions.get((row, column), {}).items(), reverse=True):
            if before is not None and ts >= before:
                continue
            if ts <= horizon:
                break
            if ttl is not None and now > ts + ttl:
                continue
            expired = family.has_ttl and now > ts + family.ttl * 1000
            if expired and explicit and family.min_versions:
                # HBase's explicit column tracker: it counts this version, returns it if
                # MIN_VERSIONS are reached with it, and ends the column there.
                if len(seen) + 1 >= family.min_versions:
                    seen.append(Cell(value, ts))
                    break
            elif expired and len(seen) >= family.min_versions:
                break  # read with the whole family: HBase's wildcard column tracker
            seen.append(Cell(value, ts))
        return seen

    def compact(self, now: int) -> None:
        for (row, column), cell in list(self.versions.items()):
            family_name = column.partition(b":")[0]
            family = FAMILIES[family_name]
            if family.keep_deleted_cells:
                kept = self._undeleted_live(row, column, now)
            else:
                kept = self.visible(row, column, before=None, now=now)
            stamps = {c.timestamp for c in kept}
            self.versions[(row, column)] = {ts: v for ts, v in cell.items() if ts in stamps}
        for markers in (self.column_markers, self.family_markers):
            for key in list(markers):
                name = key[1].partition(b":")[0]
                if not FAMILIES[name].keep_deleted_cells:
                    del markers[key]

    def _undeleted_live(self, row: bytes, column: bytes, now: int) -> list[Cell]:
        saved = self.column_markers, self.family_markers
        self.column_markers, self.family_markers = {}, {}
        try:
            return self.visible(row, column, before=None, now=now)
        finally:
            self.column_markers, self.family_markers = saved


#: Coarse timestamps, so that versions and markers often share one.
stamps = st.integers(min_value=-12, max_value=12).map(lambda step: START + step * 250)
puts = st.tuples(
    st.just("put"),
    st.sampled_from(ROWS),
    st.sampled_from(COLUMNS),
    stamps,
    st.none() | st.none() | st.integers(min_value=0, max_value=3_000),
)
#: Several puts in one mutate call: new rows are built whole, columns come in any order.
batches = st.tuples(st.just("batch"), st.lists(puts, min_size=2, max_size=6))
operations = st.one_of(
    puts,
    puts,
    batches,
    st.tuples(st.just("delete_column"), st.sampled_from(ROWS), st.sampled_from(COLUMNS), stamps),
    st.tuples(
        st.just("delete_family"), st.sampled_from(ROWS), st.sampled_from(list(FAMILIES)), stamps
    ),
    st.tuples(st.just("delete_row"), st.sampled_from(ROWS), stamps),
    st.tuples(st.just("advance"), st.integers(min_value=0, max_value=1_500)),
    st.tuples(st.just("compact")),
)


def _check(engine: MemoryBackend, model: Model, now: int, families: list[bytes]) -> None:
    present = [column for column in COLUMNS if column[:1] in families]
    for before in (None, START - 1_000, START, START + 1_000):
        for columns in ((), (b"h",), (b"f:b", b"h:a")):
            got = {
                r.row: dict(r.cells) for r in engine.get("t", ROWS, columns=columns, before=before)
            }
            want: dict[bytes, dict[bytes, Cell]] = {}
            for row in ROWS:
                for column in present:
                    selected = not columns or column in columns or column[:1] in columns
                    seen = model.visible(row, column, before=before, now=now)
                    if selected and seen:
                        want.setdefault(row, {})[column] = seen[0]
            assert got == want
            scanned = {
                r.row: dict(r.cells) for r in engine.scan("t", Scan(columns=columns, before=before))
            }
            assert scanned == want
    for row in ROWS:
        for column in present:
            assert engine.get_versions("t", row, column, max_versions=5) == model.visible(
                row, column, before=None, now=now, explicit=True
            )


@settings(max_examples=300, deadline=None)
@given(st.lists(operations, min_size=2, max_size=25))
def test_reads_agree_with_a_naive_model(ops: list[tuple[object, ...]]) -> None:
    """Any history of puts (with and without TTLs), deletes, time and compactions.

    Twice: in a table with a TTL family, and in one without (where reads of rows that
    nothing can hide take the fast path), each getting the operations on its families.
    """
    clock = ManualClock(START)
    model = Model()
    engines = []
    for names in ([b"f", b"g", b"h"], [b"f", b"h"]):
        engine = MemoryBackend(clock=clock)
        engine.create_table(Table("t", [FAMILIES[name] for name in names]))
        engines.append((engine, names))
    for op in ops:
        for engine, names in engines:
            _apply(engine, names, op)
        _model(model, op, clock)
        for engine, names in engines:
            _check(engine, model, clock(), names)


def _apply(engine: MemoryBackend, families: list[bytes], op: tuple[object, ...]) -> None:
    kind = op[0]
    if kind == "batch":
        batch = [put for put in op[1] if put[2][:1] in families]
        if batch:
            engine.mutate(
                "t", [Put(r, c, b"v%d" % ts, timestamp=ts, ttl=ttl) for _, r, c, ts, ttl in batch]
            )
        return
    if kind in ("put", "delete_column", "delete_family"):
        column = op[2]
        assert isinstance(column, bytes)
        if column[:1] not in families:
            return
    if kind == "put":
        _, row, column, ts, ttl = op
        value = b"v%d" % ts
        engine.mutate("t", [Put(row, column, value, timestamp=ts, ttl=ttl)])
    elif kind in {"delete_column", "delete_family"}:
        _, row, column, ts = op
        engine.mutate("t", [Delete(row, column, timestamp=ts)])
    elif kind == "delete_row":
        _, row, ts = op
        engine.mutate("t", [Delete(row, timestamp=ts)])
    elif kind == "compact":
        engine.major_compact("t")


def _model(model: Model, op: tuple[object, ...], clock: ManualClock) -> None:
    kind = op[0]
    if kind == "batch":
        for put in op[1]:
            _model(model, put, clock)
        return
    if kind == "put":
        _, row, column, ts, ttl = op
        value = b"v%d" % ts
        model.put(row, column, ts, value, ttl)
    elif kind == "delete_column":
        _, row, column, ts = op
        model.column_markers.setdefault((row, column), set()).add(ts)
    elif kind == "delete_family":
        _, row, family, ts = op
        model.family_markers.setdefault((row, family), set()).add(ts)
    elif kind == "delete_row":
        _, row, ts = op
        for family in FAMILIES:
            model.family_markers.setdefault((row, family), set()).add(ts)
    elif kind == "advance":
        clock.advance(op[1])
    else:
        model.compact(clock())
