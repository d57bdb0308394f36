"""Grouping of mutations into Thrift1 mutateRows calls: one per (timestamp, ttl) (F8)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.backend.base import Delete, Put
from hmodel.backend.thrift.batch import TTL_ATTRIBUTE, _check, plan_batches, ttl_attribute
from hmodel.errors import BackendError, IllegalArgumentError


def _no_families() -> list[bytes]:
    raise AssertionError("families were asked for without a whole-row delete")


def _shape(batch: object) -> dict[bytes, list[tuple[bool, bytes, bytes | None]]]:
    return {
        row: [(m.isDelete, m.column, m.value) for m in mutations]
        for row, mutations in batch.rows.items()  # type: ignore[attr-defined]
    }


def test_mutations_sharing_timestamp_and_ttl_travel_in_one_batch() -> None:
    batches = plan_batches(
        [Put(b"r1", b"f:a", b"1"), Put(b"r2", b"f:b", b"2"), Delete(b"r1", b"f:c")],
        _no_families,
    )
    assert len(batches) == 1
    assert batches[0].timestamp is None and batches[0].attributes == {}
    assert _shape(batches[0]) == {
        b"r1": [(False, b"f:a", b"1"), (True, b"f:c", None)],
        b"r2": [(False, b"f:b", b"2")],
    }


def test_each_distinct_timestamp_ttl_pair_gets_its_own_batch() -> None:
    batches = plan_batches(
        [
            Put(b"r", b"f:a", b"1", timestamp=5),
            Put(b"r", b"f:b", b"2", timestamp=5, ttl=1000),
            Put(b"r", b"f:c", b"3", timestamp=6),
            Put(b"r", b"f:d", b"4", timestamp=5),
        ],
        _no_families,
    )
    assert [(b.timestamp, b.ttl) for b in batches] == [(5, None), (5, 1000), (6, None)]
    assert [len(b.rows[b"r"]) for b in batches] == [2, 1, 1]


def test_ttl_travels_as_the_8_byte_big_endian_ttl_attribute_of_mutation_set_ttl() -> None:
    (batch,) = plan_batches([Put(b"r", b"f:a", b"v", ttl=90_000)], _no_families)
    assert batch.attributes == {b"_ttl": (90_000).to_bytes(8, "big")}
    assert TTL_ATTRIBUTE == b"_ttl"
    assert ttl_attribute(1) == {b"_ttl": b"\x00\x00\x00\x00\x00\x00\x00\x01"}


def test_a_whole_row_delete_becomes_family_deletes_of_every_family() -> None:
    (batch,) = plan_batches([Delete(b"r", timestamp=7)], lambda: [b"f", b"g"])
    assert batch.timestamp == 7
    assert _shape(batch) == {b"r": [(True, b"f", None), (True, b"g", None)]}


def test_families_are_asked_for_once_however_many_whole_row_deletes() -> None:
    calls = []

    def families() -> list[bytes]:
        calls.append(1)
        return [b"f"]

    plan_batches([Delete(b"a"), Delete(b"b"), Delete(b"c", timestamp=3)], families)
    assert len(calls) == 1


def test_puts_are_sent_before_deletes_and_now_deletes_last() -> None:
    batches = plan_batches(
        [
            Delete(b"r", b"f:a"),  # (None, None): deletes at server time
            Delete(b"r", b"f:b", timestamp=9),  # (9, None): explicit-timestamp delete
            Put(b"r", b"f:a", b"v", ttl=5),  # (None, 5): puts only
        ],
        _no_families,
    )
    assert [(b.timestamp, b.ttl) for b in batches] == [(None, 5), (9, None), (None, None)]


def test_a_put_on_a_bare_family_is_refused_before_anything_is_sent() -> None:
    with pytest.raises(IllegalArgumentError, match="family:qualifier") as info:
        plan_batches([Put(b"r", b"f", b"v")], _no_families)
    assert info.value.column == b"f"


def test_a_negative_ttl_is_refused() -> None:
    with pytest.raises(IllegalArgumentError, match="ttl"):
        plan_batches([Put(b"r", b"f:q", b"v", ttl=-1)], _no_families)


def test_something_that_is_not_a_mutation_is_refused_naming_its_position() -> None:
    with pytest.raises(IllegalArgumentError, match="mutation 1"):
        plan_batches([Put(b"r", b"f:q", b"v"), "oops"], _no_families)  # type: ignore[list-item]


_mutations = st.lists(
    st.one_of(
        st.builds(
            Put,
            row=st.sampled_from([b"a", b"b"]),
            column=st.sampled_from([b"f:x", b"f:y"]),
            value=st.binary(max_size=3),
            timestamp=st.none() | st.integers(1, 3),
            ttl=st.none() | st.integers(0, 2),
        ),
        st.builds(
            Delete,
            row=st.sampled_from([b"a", b"b"]),
            column=st.sampled_from([None, b"f", b"f:x"]),
            timestamp=st.none() | st.integers(1, 3),
        ),
    ),
    max_size=12,
)


def _overwritten_left_out(mutations: list[object]) -> list[object]:
    """The mutations but the puts a later put of the cell overwrites from another call.

    That is a later put of the same cell and timestamp with another ttl.
    """
    kept = []
    for index, m in enumerate(mutations):
        if isinstance(m, Put):
            later = [
                p
                for p in mutations[index + 1 :]
                if isinstance(p, Put)
                and (p.row, p.column, p.timestamp) == (m.row, m.column, m.timestamp)
            ]
            if later and later[-1].ttl != m.ttl:
                continue
        kept.append(m)
    return kept


def test_a_later_put_of_a_cell_in_another_call_wins_over_an_earlier_one() -> None:
    mutations = [
        Put(b"r", b"f:x", b"old"),
        Delete(b"s"),
        Put(b"r", b"f:x", b"new", ttl=1),
        Put(b"r", b"f:y", b"kept"),
    ]
    batches = plan_batches(mutations, lambda: [b"f"])
    assert [(b.timestamp, b.ttl) for b in batches] == [(None, 1), (None, None)]
    assert _shape(batches[0]) == {b"r": [(False, b"f:x", b"new")]}
    assert _shape(batches[1]) == {
        b"r": [(False, b"f:y", b"kept")],
        b"s": [(True, b"f", None)],
    }


def test_families_are_asked_for_once_when_overwritten_puts_are_left_out() -> None:
    asked: list[int] = []

    def families() -> list[bytes]:
        asked.append(1)
        return [b"f"]

    mutations = [Put(b"r", b"f:x", b"old"), Delete(b"s"), Put(b"r", b"f:x", b"new", ttl=1)]
    batches = plan_batches(mutations, families)
    assert asked == [1]
    assert sum(len(ms) for b in batches for ms in b.rows.values()) == 2


@given(_mutations)
def test_batches_are_one_per_distinct_pair_and_lose_no_mutation(mutations: list[object]) -> None:
    batches = plan_batches(mutations, lambda: [b"f"])  # type: ignore[arg-type]
    sent_mutations = _overwritten_left_out(mutations)
    pairs = {
        (m.timestamp, m.ttl if isinstance(m, Put) else None)  # type: ignore[attr-defined]
        for m in sent_mutations
    }
    assert len(batches) == len(pairs) == len({(b.timestamp, b.ttl) for b in batches})
    sent = sum(len(ms) for b in batches for ms in b.rows.values())
    assert sent == len(sent_mutations)
    seen_delete = False
    for batch in batches:  # no put-only batch after a batch with deletes
        assert not (seen_delete and not batch.has_deletes)
        seen_delete = seen_delete or batch.has_deletes


class _Bytes(bytes):
    """A bytes subclass: accepted, as ``isinstance`` accepts it, through the full checks."""


@pytest.mark.parametrize(
    "put",
    [
        Put("r", b"f:q", b"v"),  # type: ignore[arg-type]
        Put(b"", b"f:q", b"v"),
        Put(b"r" * 32_768, b"f:q", b"v"),
        Put(b"r", bytearray(b"f:q"), b"v"),  # type: ignore[arg-type]
        Put(b"r", b"f", b"v"),
        Put(b"r", b":q", b"v"),
        Put(b"r", b"f:q", "v"),  # type: ignore[arg-type]
        Put(b"r", b"f:q", b"v", timestamp=True),
        Put(b"r", b"f:q", b"v", timestamp=-1),
        Put(b"r", b"f:q", b"v", timestamp=2**63 - 1),
        Put(b"r", b"f:q", b"v", timestamp=1.0),  # type: ignore[arg-type]
        Put(b"r", b"f:q", b"v", ttl=-1),
        Put(b"r", b"f:q", b"v", ttl=False),
        Put(b"r", b"f:q", b"v", ttl=2**63),
    ],
    ids=repr,
)
def test_a_bad_put_raises_what_the_full_checks_raise(put: Put) -> None:
    with pytest.raises(BackendError) as expected:
        _check(put, 1)
    with pytest.raises(BackendError) as raised:
        plan_batches([Put(b"ok", b"f:q", b"v"), put], _no_families)
    assert type(raised.value) is type(expected.value)
    assert str(raised.value) == str(expected.value)
    assert raised.value.row == expected.value.row


def test_bytes_subclasses_and_the_bounds_themselves_are_accepted() -> None:
    puts = [
        Put(_Bytes(b"r"), _Bytes(b"f:q"), _Bytes(b"v")),
        Put(b"r" * 32_767, b"f:q", b"v", timestamp=0, ttl=0),
        Put(b"r", b"f:", b"", timestamp=2**63 - 2, ttl=2**63 - 1),
    ]
    batches = plan_batches(puts, _no_families)
    assert sum(len(ms) for b in batches for ms in b.rows.values()) == 3


def _reference(mutations: list[object], families: list[bytes]) -> list[tuple[object, ...]]:
    """What plan_batches sends, computed the plain way: per pair, rows in first order."""
    grouped: dict[tuple[object, object], dict[bytes, list[tuple[bool, bytes, object]]]] = {}
    for m in mutations:
        ttl = m.ttl if isinstance(m, Put) else None
        rows = grouped.setdefault((m.timestamp, ttl), {})  # type: ignore[attr-defined]
        cells = rows.setdefault(m.row, [])  # type: ignore[attr-defined]
        if isinstance(m, Put):
            cells.append((False, m.column, m.value))
        elif isinstance(m, Delete) and m.column is not None:
            cells.append((True, m.column, None))
        else:
            cells.extend((True, family, None) for family in families)
    return sorted(((pair, rows) for pair, rows in grouped.items()), key=repr)


_far = st.integers(0, 2).map(lambda n: int("1700000000000") + n)  # equal, not identical

_any_mutations = st.lists(
    st.one_of(
        st.builds(
            Put,
            row=st.sampled_from([b"a", b"b", _Bytes(b"c")]),
            column=st.sampled_from([b"f:x", b"g:y"]),
            value=st.binary(max_size=3),
            timestamp=st.none() | st.integers(1, 3) | _far,
            ttl=st.none() | st.integers(0, 2) | _far,
        ),
        st.builds(
            Delete,
            row=st.sampled_from([b"a", b"b"]),
            column=st.sampled_from([None, b"f", b"f:x"]),
            timestamp=st.none() | st.integers(1, 3) | _far,
        ),
    ),
    max_size=16,
)


@given(_any_mutations)
def test_batches_hold_the_mutations_grouped_by_pair_rows_in_first_order(
    mutations: list[object],
) -> None:
    batches = plan_batches(mutations, lambda: [b"f", b"g"])  # type: ignore[arg-type]
    mutations = _overwritten_left_out(mutations)
    got = sorted(
        (((b.timestamp, b.ttl), {row: [(m.isDelete, m.column, m.value) for m in ms]
                                 for row, ms in b.rows.items()}) for b in batches),
        key=repr,
    )  # fmt: skip
    assert got == _reference(mutations, [b"f", b"g"])
    for batch in batches:
        kinds = {m.isDelete for ms in batch.rows.values() for m in ms}
        assert batch.has_puts == (False in kinds)
        assert batch.has_deletes == (True in kinds)
