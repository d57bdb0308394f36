"""R9: time-bucketed rows, events as offset columns; appends without reads, exact window reads.

Bodies taking ``edge`` run on the synchronous ``TimeSeries`` and on ``AsyncTimeSeries``
(the same operations, awaited).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.aio import AsyncMemoryBackend, AsyncStore, AsyncTimeSeries
from hmodel.backend.base import Backend, Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.codecs import Float64, Long
from hmodel.errors import DeclarationError, DecodeError, ValidationError
from hmodel.keys import Key, Salt, Str
from hmodel.patterns import Point, TimeBuckets
from hmodel.schema import Family, Table
from tests.edges import Edge

UTC = dt.timezone.utc
TSDB = Table("tsdb", [Family("t")])
T0 = dt.datetime(2024, 5, 1, 10, 0, tzinfo=UTC)


def hourly(**options: object) -> TimeBuckets[float]:
    return TimeBuckets(TSDB, key=Key(Str("metric"), Str("host")), value=Float64(), **options)  # type: ignore[arg-type]


def at(seconds: float) -> dt.datetime:
    return T0 + timedelta(seconds=seconds)


def on_edge(edge: Edge, declaration: TimeBuckets[Any], **options: Any) -> Any:
    """``declaration`` bound to the edge's backend (its table created, synchronously)."""
    declaration.on(edge.backend).create_table()
    if edge.async_backend is not None:
        return AsyncTimeSeries(declaration, edge.async_backend, **options)
    return declaration.on(edge.backend, **options)


def test_one_row_per_bucket_one_column_per_event(edge: Edge) -> None:
    backend = edge.backend
    series = on_edge(edge, hourly(unit="s"))
    cpu = {"metric": "cpu", "host": "web1"}
    assert (
        edge.call(series.append(cpu, {at(0): 1.0, at(5): 2.0, at(3600): 3.0, at(7199): 4.0})) == 4
    )
    rows = list(backend.scan("tsdb", Scan()))
    assert len(rows) == 2
    assert [len(r.cells) for r in rows] == [2, 2]
    assert list(rows[0].cells) == [b"t:\x00\x00", b"t:\x00\x05"]  # 2-byte offsets, time order
    assert rows[1].row == hourly(unit="s").row(cpu, at(3600))


def test_a_window_read_trims_to_start_inclusive_end_exclusive(edge: Edge) -> None:
    series = on_edge(edge, hourly(unit="s"))
    cpu = {"metric": "cpu", "host": "web1"}
    edge.call(series.append(cpu, [(at(s), float(s)) for s in range(0, 4 * 3600, 600)]))
    got = edge.call(series.read(cpu, at(1800), at(3 * 3600)))
    assert [p.value for p in got] == [float(s) for s in range(1800, 3 * 3600, 600)]
    assert got[0] == Point(at(1800), 1800.0)
    assert edge.call(series.read(cpu, at(1800), at(1800))) == []
    assert edge.call(series.read(cpu, at(1801), at(2400))) == []
    assert [p.value for p in edge.call(series.read(cpu, at(1800), at(1801)))] == [1800.0]


def test_a_window_read_is_one_round_trip_and_empty_windows_none(edge: Edge) -> None:
    series = on_edge(edge, hourly())
    cpu = {"metric": "cpu", "host": "web1"}
    edge.call(series.append(cpu, {at(10): 1.0, at(10 * 3600): 2.0}))
    before = edge.round_trips
    assert [p.value for p in edge.call(series.read(cpu, at(0), at(11 * 3600)))] == [1.0, 2.0]
    assert edge.round_trips - before == 1
    before = edge.round_trips
    assert edge.call(series.read(cpu, at(5), at(5))) == []
    assert edge.round_trips == before


def test_rows_per_get_bounds_each_round_trip(edge: Edge) -> None:
    series = on_edge(edge, hourly(), rows_per_get=4)
    cpu = {"metric": "cpu", "host": "web1"}
    edge.call(series.append(cpu, {at(h * 3600): float(h) for h in range(10)}))
    before = edge.round_trips
    assert len(edge.call(series.read(cpu, at(0), at(10 * 3600)))) == 10
    assert edge.round_trips - before == 3


def test_entities_do_not_see_each_others_events(edge: Edge) -> None:
    series = on_edge(edge, hourly(salt=8))
    web1, web2 = {"metric": "cpu", "host": "web1"}, {"metric": "cpu", "host": "web2"}
    edge.call(series.append_many([(web1, {at(1): 1.0}), (web2, {at(1): 2.0, at(2): 3.0})]))
    one, two = edge.call(series.read_many([web1, web2], at(0), at(3600)))
    assert [p.value for p in one] == [1.0]
    assert [p.value for p in two] == [2.0, 3.0]


def test_salt_leads_the_key_and_follows_the_series() -> None:
    salted = hourly(salt=8)
    assert isinstance(salted.key.components[0], Salt)
    cpu = {"metric": "cpu", "host": "web1"}
    assert salted.row(cpu, at(0))[0] == salted.row(cpu, at(3600 * 5))[0]
    assert salted.row(cpu, at(0))[1:] == hourly().row(cpu, at(0))


def test_the_same_tick_written_twice_keeps_the_later_value(edge: Edge) -> None:
    series = on_edge(edge, hourly())
    cpu = {"metric": "cpu", "host": "web1"}
    edge.call(series.append(cpu, {at(1): 1.0}))
    edge.call(series.append(cpu, {at(1): 9.0}))
    assert edge.call(series.read(cpu, at(0), at(2))) == [Point(at(1), 9.0)]


def test_typed_values_through_a_codec(edge: Edge) -> None:
    counts = TimeBuckets(TSDB, key=Key(Str("page")), value=Long(), bucket=timedelta(days=1))
    series = on_edge(edge, counts)
    edge.call(
        series.append({"page": "/"}, {1_714_557_600_123: 7})
    )  # int instants are unit ticks (ms)
    (point,) = edge.call(series.read({"page": "/"}, T0, T0 + timedelta(days=1)))
    assert point.value == 7 and point.at == T0 + timedelta(milliseconds=123)
    assert counts.offset_width == 4  # 86,400,000 ms in a day


@given(
    events=st.dictionaries(st.integers(0, 5 * 3600 - 1), st.floats(allow_nan=False), max_size=30),
    start=st.integers(0, 5 * 3600),
    length=st.integers(0, 5 * 3600),
)
def test_a_read_returns_exactly_the_events_in_the_window(
    events: dict[int, float], start: int, length: int
) -> None:
    series = hourly(unit="s", bucket=timedelta(minutes=30)).on(MemoryBackend())
    series.create_table()
    cpu = {"metric": "cpu", "host": "h"}
    series.append(cpu, {at(s): v for s, v in events.items()})
    got = series.read(cpu, at(start), at(start + length))
    expected = sorted((s, v) for s, v in events.items() if start <= s < start + length)
    assert [(p.at, p.value) for p in got] == [(at(s), v) for s, v in expected]


def test_buckets_spanned_are_aligned_to_the_epoch() -> None:
    decl = hourly()
    assert decl.buckets(at(1800), at(3 * 3600)) == [at(0), at(3600), at(7200)]
    assert decl.buckets(at(3600), at(3601)) == [at(3600)]
    assert decl.bucket_start(at(5000)) == at(3600)


def test_invalid_events_are_refused_before_anything_is_written(edge: Edge) -> None:
    series = on_edge(edge, hourly(unit="s"))
    cpu = {"metric": "cpu", "host": "web1"}
    with pytest.raises(ValidationError) as caught:
        edge.call(series.append(cpu, {at(0): 1.0, at(1): "not a float"}))  # type: ignore[dict-item]
    assert caught.value.table == "tsdb" and caught.value.column == b"t:\x00\x01"
    with pytest.raises(ValidationError):
        edge.call(series.append(cpu, {at(0.5): 1.0}))  # finer than a second
    with pytest.raises(ValidationError):
        edge.call(series.append(cpu, {dt.datetime(2024, 1, 1): 1.0}))  # naive
    with pytest.raises(ValidationError):
        edge.call(series.append({"metric": "cpu"}, {at(0): 1.0}))  # host missing
    assert edge.call(series.read(cpu, at(0), at(3600))) == []


def test_a_foreign_column_in_the_family_is_a_decode_error(edge: Edge) -> None:
    backend = edge.backend
    series = on_edge(edge, hourly())
    cpu = {"metric": "cpu", "host": "web1"}
    edge.call(series.append(cpu, {at(0): 1.0}))

    backend.mutate("tsdb", [Put(hourly().row(cpu, at(0)), b"t:x", b"1")])
    with pytest.raises(DecodeError) as caught:
        edge.call(series.read(cpu, at(0), at(10)))
    assert caught.value.column == b"t:x"


@pytest.mark.parametrize(
    "options",
    [
        {"bucket": timedelta(0)},
        {"bucket": timedelta(milliseconds=1500), "unit": "s"},
        {"unit": "min"},
        {"family": "x"},
        {"bucket_field": "host"},
        {"salt": 0},
        {"ttl": timedelta(0)},
    ],
)
def test_bad_declarations_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(DeclarationError):
        hourly(**options)


def test_a_key_with_its_own_salt_takes_no_salt_option() -> None:
    salted = Key(Salt("metric", buckets=4), Str("metric"))
    TimeBuckets(TSDB, key=salted, value=Float64())
    with pytest.raises(DeclarationError):
        TimeBuckets(TSDB, key=salted, value=Float64(), salt=4)


def test_a_store_gives_its_backend_and_write_stamps(backend: Backend) -> None:
    from hmodel import Store
    from hmodel.clock import ManualClock

    store = Store(backend, clock=ManualClock(5_000))
    series = hourly().on(store)
    assert series.backend is backend and series.stamps is store.stamps
    series.create_table()
    series.append({"metric": "cpu", "host": "h"}, {at(1): 1.0})
    (row,) = backend.get("tsdb", [hourly().row({"metric": "cpu", "host": "h"}, at(1))])
    assert all(cell.timestamp >= 5_000 for cell in row.cells.values())
    assert series.read({"metric": "cpu", "host": "h"}, at(0), at(2)) == [Point(at(1), 1.0)]


def test_two_async_writers_gathered_on_one_bucket_keep_every_event(
    loop: asyncio.AbstractEventLoop,
) -> None:
    """Appends never read: writers interleaved call by call on one entity's bucket lose
    no event (each event is its own cell; a bucket row's cells are put atomically)."""
    engine = MemoryBackend()
    hourly().on(engine).create_table()
    cpu = {"metric": "cpu", "host": "web1"}
    one = AsyncTimeSeries(hourly(), AsyncMemoryBackend(engine))
    two = AsyncTimeSeries(hourly(), AsyncMemoryBackend(engine))

    async def writer(series: AsyncTimeSeries[float], offset: int) -> None:
        for second in range(offset, 20, 2):
            await series.append(cpu, {at(second): float(second)})

    async def scenario() -> list[Point[float]]:
        await asyncio.gather(writer(one, 0), writer(two, 1))
        return await one.read(cpu, at(0), at(3600))

    got = loop.run_until_complete(scenario())
    assert [p.value for p in got] == [float(s) for s in range(20)]


def test_an_append_cancelled_before_its_mutate_writes_nothing_and_may_be_sent_again(
    loop: asyncio.AbstractEventLoop,
) -> None:
    """As a connection dropped before the request left: nothing written; the same append
    sent again writes the same cells (appends are idempotent)."""
    engine = MemoryBackend()
    hourly().on(engine).create_table()
    series = AsyncTimeSeries(hourly(), AsyncMemoryBackend(engine))
    cpu = {"metric": "cpu", "host": "web1"}
    before = engine.round_trips

    async def scenario() -> None:
        task = asyncio.create_task(series.append(cpu, {at(1): 1.0, at(3601): 2.0}))
        await asyncio.sleep(0)  # the task runs up to its first suspension, before the mutate
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert engine.round_trips == before
        assert await series.read(cpu, at(0), at(7200)) == []
        assert await series.append(cpu, {at(1): 1.0, at(3601): 2.0}) == 2
        assert [p.value for p in await series.read(cpu, at(0), at(7200))] == [1.0, 2.0]

    loop.run_until_complete(scenario())


def test_an_async_store_gives_its_backend_and_write_stamps(
    loop: asyncio.AbstractEventLoop,
) -> None:
    from hmodel.clock import ManualClock

    engine = MemoryBackend()
    hourly().on(engine).create_table()
    store = AsyncStore(AsyncMemoryBackend(engine), clock=ManualClock(5_000))
    series = AsyncTimeSeries(hourly(), store)
    assert series.backend is store.backend and series.stamps is store.stamps
    cpu = {"metric": "cpu", "host": "h"}
    loop.run_until_complete(series.append(cpu, {at(1): 1.0}))
    (row,) = engine.get("tsdb", [hourly().row(cpu, at(1))])
    assert all(cell.timestamp >= 5_000 for cell in row.cells.values())
