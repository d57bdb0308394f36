"""RowIndex keeps a Cell row as its value and timestamp alone and hands back an equal Cell."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel.backend.base import Cell
from hmodel.backend.memory.rows import RowIndex


class _Small(RowIndex):
    """Chunks of at most 4 rows, so a few operations split and empty them."""

    __slots__ = ()
    CHUNK = 4


_data = st.one_of(
    st.builds(Cell, st.binary(max_size=4), st.integers(0, 2**63 - 2)),
    st.binary(max_size=3),  # any other object is kept as it is, bytes included
    st.tuples(st.integers()),
)


@settings(max_examples=300, deadline=None)
@given(
    operations=st.lists(
        st.tuples(st.booleans(), st.binary(min_size=1, max_size=2), _data), max_size=60
    )
)
def test_cells_and_other_data_read_back_equal(operations: list[tuple[bool, bytes, object]]) -> None:
    """get, entry, replace and range give back what was set: equal Cells, other data as is."""
    index = _Small()
    model: dict[bytes, object] = {}
    for keep, key, data in operations:
        if keep:
            index.set(key, None, data)
            model[key] = data
        else:
            index.delete(key)
            model.pop(key, None)
    for key, data in model.items():
        got = index.get(key)
        assert got == data and type(got) is type(data)
        entry = index.entry(key)
        assert entry is not None and entry[1] == data
    assert [
        (key, data) for key, _, data in index.range(b"", None, low_inclusive=True, reverse=False)
    ] == sorted(model.items())
    assert dict(index.data) == model
    # Rows of objects are also in the hash index; Cell rows are not.
    assert index.objects == {key: data for key, data in model.items() if type(data) is not Cell}
    for key in list(model)[:3]:
        index.replace(key, Cell(b"new", 7))
        assert index.get(key) == Cell(b"new", 7)
    assert index.get(b"\xff\xff\xff") is None and index.entry(b"\xff\xff\xff") is None
