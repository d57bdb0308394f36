"""RowIndex on its own: a sorted map in chunks, checked against a dict sorted on demand."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel.backend.memory.rows import Names, RowIndex

#: Small rowkeys, so that operations collide and chunks split and empty often.
_keys = st.binary(min_size=1, max_size=3)

_operations = st.lists(
    st.one_of(
        st.tuples(st.just("set"), _keys, st.integers(0, 5)),
        st.tuples(st.just("delete"), _keys, st.just(0)),
    ),
    max_size=120,
)


#: The names a row may have: shared tuples (uniform chunks) and ``None``.
_SHAPES: list[Names] = [(b"f:a",), (b"f:a", b"f:b"), None]


def _names(payload: int) -> Names:
    """Mostly one shape, so that chunks are often uniform."""
    return _SHAPES[0] if payload < 3 else _SHAPES[payload - 3]


class _Small(RowIndex):
    """Chunks of at most 4 rows, so a few operations split and empty them."""

    __slots__ = ()
    CHUNK = 4


def _check_invariants(index: RowIndex) -> None:
    assert len(index.firsts) == len(index.keys) == len(index.names)
    flat: list[bytes] = []
    for first, keys, names in zip(index.firsts, index.keys, index.names, strict=True):
        assert keys and first == keys[0]
        assert len(keys) <= index.CHUNK
        assert type(names) is tuple or len(names) == len(keys)  # uniform, or one per row
        flat.extend(keys)
    assert flat == sorted(set(flat)) and set(flat) == set(index.data)


@settings(max_examples=300, deadline=None)
@given(
    operations=_operations,
    low=_keys,
    high=st.one_of(st.none(), _keys),
    low_inclusive=st.booleans(),
    reverse=st.booleans(),
)
def test_the_index_behaves_as_a_sorted_map(
    operations: list[tuple[str, bytes, int]],
    low: bytes,
    high: bytes | None,
    low_inclusive: bool,
    reverse: bool,
) -> None:
    """Sets, deletes, look-ups and ranges agree with a plain dict, in byte order."""
    index = _Small()
    model: dict[bytes, tuple[Names, object]] = {}
    for kind, key, payload in operations:
        if kind == "set":
            index.set(key, _names(payload), payload)
            model[key] = (_names(payload), payload)
        else:
            index.delete(key)
            model.pop(key, None)
        _check_invariants(index)
    assert list(index) == sorted(model)
    assert len(index) == len(model)
    for key in {key for _, key, _ in operations} | {low}:
        assert index.get(key) == (model[key][1] if key in model else None)
        if key in model and model[key][0] is not None:  # rows without names: any answer
            assert index.names_of(key) is model[key][0]
    expected = [
        (key, model[key][0], model[key][1])
        for key in sorted(model)
        if (key >= low if low_inclusive else key > low) and (high is None or key < high)
    ]
    if reverse:
        expected.reverse()
    got = list(index.range(low, high, low_inclusive=low_inclusive, reverse=reverse))
    assert [(key, data) for key, _, data in got] == [(key, data) for key, _, data in expected]
    for (_, names, _), (_, wanted, _) in zip(got, expected, strict=True):
        assert wanted is None or names is wanted


def test_rows_arriving_in_order_fill_their_chunks() -> None:
    """Appending splits off only the new last row, so the chunks behind it stay full."""
    index = _Small()
    for number in range(10):
        index.set(b"%02d" % number, _SHAPES[0], number)
    assert [len(keys) for keys in index.keys] == [4, 4, 2]
    assert index.names == [_SHAPES[0]] * 3  # every chunk uniform: no names list


def test_a_chunk_stops_and_starts_being_uniform() -> None:
    """Other names turn a uniform chunk into one list per row; a split re-unites halves."""
    index = _Small()
    for number in range(4):
        index.set(b"%02d" % number, _SHAPES[0], number)
    index.set(b"01", None, "rich")  # a row without names leaves the chunk uniform
    assert index.names == [_SHAPES[0]]
    index.set(b"02", _SHAPES[1], "other")
    assert index.names == [[_SHAPES[0], _SHAPES[0], _SHAPES[1], _SHAPES[0]]]
    assert index.get(b"01") == "rich" and index.names_of(b"02") is _SHAPES[1]
    index.set(b"025", _SHAPES[0], 25)  # five rows: split in halves
    assert index.names == [_SHAPES[0], [_SHAPES[1], _SHAPES[0], _SHAPES[0]]]


def test_clear_empties_the_index() -> None:
    """After clear nothing is found and new rows go in as into a new index."""
    index = _Small()
    for key in (b"b", b"a", b"c"):
        index.set(key, None, key)
    index.clear()
    assert index.get(b"a") is None and list(index) == []
    index.set(b"z", None, 1)
    assert list(index.range(b"", None, low_inclusive=True, reverse=True)) == [(b"z", None, 1)]
