"""The YCSB group draws as YCSB does, and loads byte-identical rows through hmodel and by hand."""

from __future__ import annotations

import collections
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.handwritten import check_identical
from bench.ycsb import (
    FIELD_LENGTH,
    FIELDS,
    MAX_SCAN,
    RECORDS,
    WORKLOADS,
    Operations,
    ScrambledZipfian,
    UserRecord,
    Workload,
    build_key_name,
    fnvhash64,
    load,
    records,
)
from hmodel.backend.thrift import ThriftBackend
from hmodel.repository import Repository
from hmodel.testing import FakeHBaseServer


def _fnv1a_over_bytes(value: int) -> int:
    """64-bit FNV-1a of the 8 little-endian bytes of ``value``, written from the definition."""
    hashed = 0xCBF29CE484222325
    for octet in (value % 2**64).to_bytes(8, "little"):
        hashed = ((hashed ^ octet) * 0x100000001B3) % 2**64
    signed = hashed - 2**64 if hashed >= 2**63 else hashed
    return signed if signed == -(2**63) else abs(signed)


def test_the_first_key_is_ycsbs_well_known_first_key() -> None:
    """Record 0 of a hashed-insert YCSB load is ``user6284781860667377211``."""
    assert fnvhash64(0) == 6284781860667377211
    assert build_key_name(0) == "user6284781860667377211"


@given(st.integers(min_value=0, max_value=2**63 - 1))
def test_fnvhash64_is_fnv1a_of_the_little_endian_bytes_made_positive(value: int) -> None:
    """YCSB's shift-and-mask loop is FNV-1a over the value's bytes, low byte first."""
    assert fnvhash64(value) == _fnv1a_over_bytes(value)


def test_scrambled_zipfian_stays_in_bounds_and_puts_the_head_where_fnv_says() -> None:
    """The most popular item is fnvhash64(0) mod n, drawn about 1/zetan of the time."""
    low, high = 100, 100 + RECORDS - 1
    chooser = ScrambledZipfian(low, high, seed=3)
    draws = [chooser.next() for _ in range(50_000)]
    assert min(draws) >= low
    assert max(draws) <= high
    (first, first_count), (second, second_count) = collections.Counter(draws).most_common(2)
    assert first == low + fnvhash64(0) % RECORDS
    assert second == low + fnvhash64(1) % RECORDS
    # P(item 0) = 1 / zetan = 3.78 %; P(item 1) = 0.5 ** 0.99 / zetan = 1.90 %.
    assert 0.034 < first_count / len(draws) < 0.042
    assert 0.016 < second_count / len(draws) < 0.022


def _draws(seed: int) -> list[int]:
    chooser = ScrambledZipfian(0, 99, seed=seed)
    return [chooser.next() for _ in range(20)]


def test_a_seed_draws_the_same_sequence() -> None:
    """Both sides of a pair run the same operations: the draws are a function of the seed."""
    assert _draws(5) == _draws(5)
    assert _draws(5) != _draws(6)


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_operations_follow_the_workload_mix(workload: Workload) -> None:
    """Kinds in YCSB's proportions; keys of loaded records; inserts count on from RECORDS."""
    chosen = workload
    operations = Operations(chosen, expected=20_000).take(20_000)
    kinds = collections.Counter(kind for kind, _, _ in operations)
    for kind in ("read", "update", "insert", "scan", "rmw"):
        assert abs(kinds[kind] / len(operations) - getattr(chosen, kind)) < 0.015, kind
    inserted = [key for kind, key, _ in operations if kind == "insert"]
    assert inserted == [build_key_name(RECORDS + i) for i in range(len(inserted))]
    existing = {build_key_name(i) for i in range(RECORDS)}
    for kind, key, argument in operations:
        if kind == "insert":
            assert key not in existing
            assert len(argument) == FIELDS
            existing.add(key)
            continue
        assert key in existing, "a key is chosen only among the records written before"
        if kind == "scan":
            assert 1 <= argument <= MAX_SCAN
        elif kind in ("update", "rmw"):
            name, value = argument
            assert name in {f"field{i}" for i in range(FIELDS)}
            assert len(value) == FIELD_LENGTH


@pytest.fixture(scope="module")
def server() -> Iterator[FakeHBaseServer]:
    """The fake Thrift1 server in a thread, for the load phase's two writers."""
    with FakeHBaseServer() as fake:
        yield fake


def test_the_load_writes_byte_identical_rows_through_hmodel_and_by_hand(
    server: FakeHBaseServer,
) -> None:
    """After the load phase both tables hold the same rowkeys and cells; a changed cell shows."""
    import happybase

    backend = ThriftBackend(server.host, server.port, retry_backoff_ms=0)
    connection = happybase.Connection(server.host, server.port, timeout=10_000)
    try:
        repo = Repository(UserRecord, backend)
        repo.create_table()
        connection.create_table("bench_ycsb_raw", {"f": {"max_versions": 1}})
        hand = connection.table("bench_ycsb_raw")
        data = records(200)
        assert len({record.key for record in data}) == 200
        assert all(len(record.field9) == FIELD_LENGTH for record in data)
        load(repo, hand, data)
        check_identical(repo, hand, data)
        hand.put(data[7].key.encode() + b"\x00\x00", {b"f:field3": b"changed"})
        with pytest.raises(AssertionError, match="different bytes"):
            check_identical(repo, hand, data)
    finally:
        backend.close()
        connection.close()
