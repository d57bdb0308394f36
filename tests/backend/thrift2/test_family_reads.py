"""Thrift2 scans of single columns sent as family scans with an exact filter.

tests/contract/test_column_reads.py holds the results to the contract on every target
(the real HBase's Thrift2 server included); these tests pin what is sent.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmodel.backend.base import Put, Scan
from hmodel.backend.family_read import exact_filter
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift2 import AsyncThrift2Backend, Thrift2Backend
from hmodel.backend.thrift2.idl import TColumn
from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer


class _Recording:
    """Wraps a backend's ``_rpc``: the method and arguments of every call."""

    def __init__(self, backend: Thrift2Backend) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self._rpc = backend._rpc
        backend._rpc = self  # type: ignore[method-assign]

    def __call__(self, method: str, *args: Any, **options: Any) -> Any:
        self.calls.append((method, args, options))
        return self._rpc(method, *args, **options)


@pytest.fixture
def filled(thrift2: Thrift2Backend, table: str) -> str:
    thrift2.mutate(
        table,
        [
            Put(b"r1", b"f:a", b"1a", timestamp=10),
            Put(b"r1", b"f:b", b"1b", timestamp=10),
            Put(b"r1", b"g:a", b"1ga", timestamp=10),
            Put(b"r2", b"f:c", b"2c", timestamp=10),
        ],
    )
    return table


def test_exact_filter_lists_qualifiers_per_family_in_byte_order() -> None:
    assert exact_filter(frozenset({b"f:b", b"f:a"})) == (
        b"QualifierFilter(=,'binary:a') OR QualifierFilter(=,'binary:b')"
    )
    assert exact_filter(frozenset({b"g:x", b"f:it's"})) == (
        b"(FamilyFilter(=,'binary:f') AND (QualifierFilter(=,'binary:it''s')))"
        b" OR (FamilyFilter(=,'binary:g') AND (QualifierFilter(=,'binary:x')))"
    )
    assert exact_filter(frozenset({b"f:"})) == b"QualifierFilter(=,'binary:')"


_names = st.binary(min_size=0, max_size=4)


@given(
    cells=st.dictionaries(
        st.tuples(st.sampled_from([b"f", b"g"]), _names), st.binary(max_size=3), max_size=8
    ),
    wanted=st.sets(st.tuples(st.sampled_from([b"f", b"g"]), _names), min_size=1, max_size=5),
)
def test_the_exact_filter_keeps_exactly_the_columns_on_the_engine(
    cells: dict[tuple[bytes, bytes], bytes], wanted: set[tuple[bytes, bytes]]
) -> None:
    """Any qualifier bytes (quotes, NUL, colons): the filter passes exactly ``wanted``."""
    engine = MemoryBackend()
    engine.create_table(Table("t", [Family("f"), Family("g")]))
    puts = [Put(b"r", f + b":" + q, v, timestamp=1) for (f, q), v in cells.items()]
    if puts:
        engine.mutate("t", puts)
    columns = sorted(f + b":" + q for f, q in wanted)
    named = [dict(r.cells) for r in engine.scan("t", Scan(columns=columns))]
    families = sorted({f for f, _ in wanted})
    text = exact_filter(frozenset(columns)).decode("utf-8", "surrogateescape")
    filtered = [dict(r.cells) for r in engine.scan("t", Scan(columns=families, filter=text))]
    assert filtered == named


def test_a_get_names_its_columns(thrift2: Thrift2Backend, filled: str) -> None:
    """HBase parses a ``TGet``'s filter once per row, so gets never widen (docs/thrift.md)."""
    recording = _Recording(thrift2)
    results = thrift2.get(filled, [b"r1", b"r2"], columns=(b"f:b",), before=100)
    [(_, (_, tgets), _)] = recording.calls
    assert [t.columns for t in tgets] == [[TColumn(family=b"f", qualifier=b"b")]] * 2
    assert {t.filterString for t in tgets} == {None}
    assert [(r.row, list(r.cells)) for r in results] == [(b"r1", [b"f:b"])]


def test_a_scan_sends_families_and_the_filter_unless_it_has_one(
    thrift2: Thrift2Backend, filled: str
) -> None:
    recording = _Recording(thrift2)
    rows = list(thrift2.scan(filled, Scan(columns=(b"f:a", b"g:a"), limit=1)))
    assert [(r.row, list(r.cells)) for r in rows] == [(b"r1", [b"f:a", b"g:a"])]
    list(thrift2.scan(filled, Scan(columns=(b"f:a",), filter="KeyOnlyFilter()")))
    opened = [args[1] for method, args, _ in recording.calls if method == "openScanner"]
    assert opened[0].columns == [TColumn(family=b"f"), TColumn(family=b"g")]
    assert opened[0].filterString == exact_filter(frozenset({b"f:a", b"g:a"}))
    assert opened[1].columns == [TColumn(family=b"f", qualifier=b"a")]
    assert opened[1].filterString == b"KeyOnlyFilter()"


def test_family_reads_off_names_the_columns(server: FakeHBaseServer, filled: str) -> None:
    assert server.thrift2_port is not None
    backend = Thrift2Backend(server.host, server.thrift2_port, family_reads=False)
    try:
        recording = _Recording(backend)
        list(backend.scan(filled, Scan(columns=(b"f:a",))))
        [(_, (_, tscan), _)] = [c for c in recording.calls if c[0] == "openScanner"]
        assert tscan.columns == [TColumn(family=b"f", qualifier=b"a")]
        assert tscan.filterString is None
        assert backend.get(filled, [b"r1"], columns=(b"f:a",))[0].row == b"r1"
    finally:
        backend.close()


def test_the_async_backend_shares_the_setting(server: FakeHBaseServer, filled: str) -> None:
    assert server.thrift2_port is not None

    async def main() -> list[list[bytes]]:
        backend = AsyncThrift2Backend(server.host, server.thrift2_port)
        try:
            assert backend.family_reads
            scanner = await backend.scan(filled, Scan(columns=(b"f:b",)))
            first = [row async for row in scanner]
            backend.family_reads = False
            assert not backend._ops.family_reads
            scanner = await backend.scan(filled, Scan(columns=(b"f:b",)))
            second = [row async for row in scanner]
            return [[r.row for r in rows] for rows in (first, second)]
        finally:
            await backend.aclose()

    assert asyncio.run(main()) == [[b"r1"], [b"r1"]]
