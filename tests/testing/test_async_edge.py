"""AsyncEdgeBackend: the Backend protocol served by an AsyncBackend (the contract's async edge)."""

from __future__ import annotations

import asyncio

import pytest

from hmodel.backend.aio import InProcessAsyncBackend
from hmodel.backend.base import Put, Scan
from hmodel.backend.memory import AsyncMemoryBackend, MemoryBackend
from hmodel.errors import ColumnFamilyNotFoundError, TableNotFoundError
from hmodel.schema import Family, Table
from hmodel.testing.async_edge import (
    AsyncEdgeBackend,
    TellingAsyncBackend,
    async_backend_of,
    pool_touch,
)
from hmodel.testing.fault import FaultyBackend


def _edge(engine: MemoryBackend, **options: bool) -> AsyncEdgeBackend:
    return AsyncEdgeBackend(lambda: AsyncMemoryBackend(engine), engine, **options)


def test_data_calls_are_the_async_backends_and_admin_the_sync_ones() -> None:
    engine = MemoryBackend()
    opened: list[str] = []

    def open_async() -> InProcessAsyncBackend:
        opened.append("async")
        return InProcessAsyncBackend(engine)

    edge = AsyncEdgeBackend(open_async, engine)
    edge.create_table(Table("t", [Family("f", versions=2)]))
    assert opened == []  # made at the first data call, after the table exists
    edge.mutate("t", [Put(b"r", b"f:q", b"1", timestamp=1), Put(b"r", b"f:q", b"2", timestamp=2)])
    assert opened == ["async"]
    assert edge.get("t", [b"r"])[0].value(b"f:q") == b"2"
    assert [c.value for c in edge.get_versions("t", b"r", b"f:q", max_versions=2)] == [b"2", b"1"]
    assert edge.increment("t", b"n", b"f:c", 3) == 3
    assert edge.list_tables() == ["t"]
    assert edge.capabilities == engine.capabilities
    edge.close()


def test_errors_are_the_async_backends_and_a_scan_fails_when_opened() -> None:
    edge = _edge(MemoryBackend())
    with pytest.raises(TableNotFoundError):
        edge.get("missing", [b"r"])
    with pytest.raises(TableNotFoundError):
        edge.scan("missing", Scan())  # at the call, as the synchronous backends raise
    edge.create_table(Table("t", [Family("f")]))
    with pytest.raises(ColumnFamilyNotFoundError):
        edge.mutate("t", [Put(b"r", b"x:q", b"v")])
    edge.close()


def test_a_scan_yields_rows_as_asked_and_stops_once_closed() -> None:
    engine = MemoryBackend()
    edge = _edge(engine)
    edge.create_table(Table("t", [Family("f")]))
    edge.mutate("t", [Put(b"r%d" % n, b"f:q", b"v") for n in range(5)])
    rows = edge.scan("t", Scan(batch_size=2))
    assert next(rows).row == b"r0"
    rows.close()  # type: ignore[attr-defined]
    assert list(rows) == []
    assert [r.row for r in edge.scan("t", Scan(start=b"r3"))] == [b"r3", b"r4"]
    edge.close()


def test_close_closes_the_async_backend_once_and_the_admin_only_when_owned() -> None:
    engine = MemoryBackend()
    faulty = FaultyBackend(engine)
    edge = AsyncEdgeBackend(lambda: InProcessAsyncBackend(faulty), faulty, owns_admin=False)
    edge.list_tables()
    edge.mutate_round_trips([])  # makes the async backend
    edge.close()
    edge.close()  # safe to repeat
    assert faulty.calls == ["list_tables", "close"]  # the async backend's aclose, once
    owned = AsyncEdgeBackend(lambda: AsyncMemoryBackend(engine), faulty)
    owned.close()
    assert faulty.calls[-1] == "close"  # the owned admin
    assert len(faulty.calls) == 3


def test_only_known_backends_have_an_async_form() -> None:
    engine = MemoryBackend()
    made = async_backend_of(engine)
    assert isinstance(made, AsyncMemoryBackend) and made.engine is engine
    assert async_backend_of(FaultyBackend(engine)) is None


class _Pool:
    """A table pool's books, as the kit's real targets keep them."""

    def __init__(self) -> None:
        self.claimed: list[str] = []
        self.written: list[str] = []

    def claim(self, name: str) -> None:
        self.claimed.append(name)

    def wrote(self, name: str) -> None:
        self.written.append(name)


def test_a_real_targets_async_backend_tells_its_table_pool_of_reads_and_writes() -> None:
    """A table written only by the async edge is emptied before reuse (its delete markers
    would otherwise hide the next test's writes stamped by a manual clock)."""
    engine = MemoryBackend()
    engine.create_table(Table("t", [Family("f")]))

    class Pooled:
        pool = _Pool()

    touch = pool_touch(Pooled())  # type: ignore[arg-type]
    assert touch is not None and pool_touch(engine) is None
    told = TellingAsyncBackend(AsyncMemoryBackend(engine), touch)

    async def work() -> None:
        await told.mutate("t", [Put(b"r", b"f:a", b"1", 5)])
        assert [r.row for r in await told.get("t", [b"r"])] == [b"r"]
        assert await told.increment("t", b"c", b"f:n", 2) == 2
        scanner = await told.scan("t", Scan())
        await scanner.aclose()

    asyncio.run(work())
    assert Pooled.pool.claimed == ["t", "t", "t", "t"]
    assert Pooled.pool.written == ["t", "t"]  # the mutate and the increment, no read
    assert told.capabilities == AsyncMemoryBackend(engine).capabilities
