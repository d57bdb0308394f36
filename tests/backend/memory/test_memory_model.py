"""Property: the engine agrees with a naive model of HBase's versions and delete markers."""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel.backend.base import Cell, Delete, Mutation, Put, Scan, family_of
from hmodel.backend.memory import MemoryBackend
from hmodel.schema import Family, Table

ROWS = [b"a", b"b", b"c"]
#: Family f keeps 2 versions, g keeps 1.
VERSIONS = {b"f": 2, b"g": 1}
COLUMNS = [family + b":" + qualifier for family in VERSIONS for qualifier in (b"x", b"y")]
stamps = st.integers(min_value=1, max_value=12)

mutations = st.lists(
    st.one_of(
        st.builds(
            Put,
            row=st.sampled_from(ROWS),
            column=st.sampled_from(COLUMNS),
            value=st.binary(max_size=2),
            timestamp=stamps,
        ),
        st.builds(
            Delete,
            row=st.sampled_from(ROWS),
            column=st.sampled_from([None, *VERSIONS, *COLUMNS]),
            timestamp=stamps,
        ),
    ),
    max_size=25,
)


class Model:
    """Every put ever written and every marker, judged from scratch at each read."""

    def __init__(self, keep_deleted_cells: bool) -> None:
        self.keep = keep_deleted_cells
        self.puts: dict[tuple[bytes, bytes], dict[int, bytes]] = defaultdict(dict)
        #: Markers by (row, column), the column b"f" for family markers.
        self.markers: dict[tuple[bytes, bytes], list[int]] = defaultdict(list)

    def apply(self, mutation: Mutation) -> None:
        """Record a put or the markers of a delete (a row delete marks every family)."""
        assert mutation.timestamp is not None
        if isinstance(mutation, Put):
            self.puts[(mutation.row, mutation.column)][mutation.timestamp] = mutation.value
            return
        for column in list(VERSIONS) if mutation.column is None else [mutation.column]:
            self.markers[(mutation.row, column)].append(mutation.timestamp)

    def versions(self, row: bytes, column: bytes, before: int | None) -> list[Cell]:
        """Newest VERSIONS of all stamps written, minus the deleted and the too new."""
        written = self.puts.get((row, column), {})
        kept = sorted(written, reverse=True)[: VERSIONS[family_of(column)]]
        markers = self.markers.get((row, column), []) + self.markers.get(
            (row, family_of(column)), []
        )
        if self.keep and before is not None:
            markers = [m for m in markers if m < before]
        horizon = max(markers, default=-1)
        return [Cell(written[s], s) for s in kept if s > horizon and (before is None or s < before)]


def _engine(keep_deleted_cells: bool) -> MemoryBackend:
    engine = MemoryBackend()
    engine.create_table(
        Table(
            "t",
            [
                Family("f", versions=2, keep_deleted_cells=keep_deleted_cells),
                Family("g", versions=1, keep_deleted_cells=keep_deleted_cells),
            ],
        )
    )
    return engine


@settings(max_examples=300, deadline=None)
@given(given=mutations, before=st.none() | stamps, keep=st.booleans())
def test_reads_agree_with_the_model(given: list[Mutation], before: int | None, keep: bool) -> None:
    """get, get_versions and scan see exactly what the model says, with or without before=."""
    engine, model = _engine(keep), Model(keep)
    for mutation in given:
        engine.mutate("t", [mutation])
        model.apply(mutation)
    expected_rows = []
    for row in ROWS:
        expected = {}
        for column in COLUMNS:
            versions = model.versions(row, column, before)
            got_versions = engine.get_versions("t", row, column, max_versions=5, before=before)
            assert got_versions == versions
            if versions:
                expected[column] = versions[0]
        got = engine.get("t", [row], before=before)
        assert (dict(got[0].cells) if got else {}) == expected
        if expected:
            expected_rows.append(row)
    assert [r.row for r in engine.scan("t", Scan(before=before, batch_size=2))] == expected_rows


@settings(max_examples=100, deadline=None)
@given(given=mutations)
def test_one_call_applies_puts_before_deletes(given: list[Mutation]) -> None:
    """All mutations in one call equal all its puts, then all its deletes, in separate calls."""
    engine = _engine(False)
    engine.mutate("t", given)
    ordered = _engine(False)
    for mutation in [m for m in given if isinstance(m, Put)] + [
        m for m in given if isinstance(m, Delete)
    ]:
        ordered.mutate("t", [mutation])
    assert list(engine.scan("t", Scan())) == list(ordered.scan("t", Scan()))
    assert all(engine.raw("t", row) == ordered.raw("t", row) for row in ROWS)
