"""Thrift1 reads of single columns sent as reads of their families (``family_reads``).

tests/contract/test_column_reads.py holds the results to the contract on every target;
these tests pin what is sent, and when a read is left as it is.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hmodel.backend.base import Put, Scan
from hmodel.backend.family_read import family_read
from hmodel.backend.thrift import AsyncThriftBackend, ThriftBackend
from hmodel.testing import FakeHBaseServer


class _Recording:
    """Wraps a backend's ``_rpc``: the method and arguments of every call."""

    def __init__(self, backend: ThriftBackend) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self._rpc = backend._rpc
        backend._rpc = self  # type: ignore[method-assign]

    def __call__(self, method: str, *args: Any, **options: Any) -> Any:
        self.calls.append((method, args))
        return self._rpc(method, *args, **options)

    def sent(self, method: str) -> list[tuple[Any, ...]]:
        return [args for name, args in self.calls if name == method]


@pytest.fixture
def filled(thrift: ThriftBackend, table: str) -> str:
    thrift.mutate(
        table,
        [
            Put(b"r1", b"f:a", b"1a"),
            Put(b"r1", b"f:b", b"1b"),
            Put(b"r1", b"g:a", b"1ga"),
            Put(b"r2", b"f:c", b"2c"),
        ],
    )
    return table


def test_family_read_widens_only_lists_of_single_columns() -> None:
    """Families in first-column order; a whole family or no column leaves the list alone."""
    read = family_read([b"g:x", b"f:a", b"g:y", b"f:"])
    assert read is not None
    assert read.families == [b"g", b"f"]
    assert read.keep == frozenset({b"g:x", b"f:a", b"g:y", b"f:"})
    assert family_read([]) is None
    assert family_read([b"f:a", b"g"]) is None
    assert family_read([b"f"]) is None


def test_a_get_of_columns_sends_their_families(thrift: ThriftBackend, filled: str) -> None:
    """``getRowsWithColumns`` carries ``f`` and ``g``; the rows keep only the columns."""
    recording = _Recording(thrift)
    results = thrift.get(filled, [b"r1", b"r2"], columns=(b"f:a", b"g:a"))
    [(_, rows, columns, _)] = recording.sent("getRowsWithColumns")
    assert rows == [b"r1", b"r2"]
    assert columns == [b"f", b"g"]
    assert [(r.row, list(r.cells)) for r in results] == [(b"r1", [b"f:a", b"g:a"])]


def test_a_scan_of_columns_sends_their_families(thrift: ThriftBackend, filled: str) -> None:
    recording = _Recording(thrift)
    results = list(thrift.scan(filled, Scan(columns=(b"f:b",))))
    [(_, tscan, _)] = recording.sent("scannerOpenWithScan")
    assert tscan.columns == [b"f"]
    assert [(r.row, list(r.cells)) for r in results] == [(b"r1", [b"f:b"])]


def test_a_scan_with_a_filter_names_its_columns(thrift: ThriftBackend, filled: str) -> None:
    """The filter must see only the named columns' cells, so nothing is widened."""
    recording = _Recording(thrift)
    list(thrift.scan(filled, Scan(columns=(b"f:b", b"f:a"), filter="KeyOnlyFilter()")))
    [(_, tscan, _)] = recording.sent("scannerOpenWithScan")
    assert tscan.columns == [b"f:b", b"f:a"]


def test_family_reads_off_names_the_columns(server: FakeHBaseServer, filled: str) -> None:
    """Off by the constructor or the attribute: the columns go as they are."""
    backend = ThriftBackend(server.host, server.port, family_reads=False)
    try:
        recording = _Recording(backend)
        columns = (b"f:a", b"g:a")
        backend.get(filled, [b"r1"], columns=columns)
        list(backend.scan(filled, Scan(columns=columns)))
        backend.family_reads = True  # the remembered list follows the setting
        backend.get(filled, [b"r1"], columns=columns)
        sent = [args[2] for args in recording.sent("getRowsWithColumns")]
        assert sent == [[b"f:a", b"g:a"], [b"f", b"g"]]
        [(_, tscan, _)] = recording.sent("scannerOpenWithScan")
        assert tscan.columns == [b"f:a", b"g:a"]
    finally:
        backend.close()


def test_a_prepared_get_keeps_only_the_columns(thrift: ThriftBackend, filled: str) -> None:
    """The one-row reader of ``prepare_get`` drops the family's other cells too."""
    reader = thrift.prepare_get(filled, (b"f:b",))
    assert reader is not None
    found = reader(b"r1")
    assert found is not None
    assert dict(found.cells) == dict(thrift.get(filled, [b"r1"], columns=(b"f:b",))[0].cells)
    assert list(found.cells) == [b"f:b"]
    assert reader(b"r2") is None  # holds f:c only


def test_the_async_backend_shares_the_setting(server: FakeHBaseServer, filled: str) -> None:
    async def main() -> list[list[bytes]]:
        backend = AsyncThriftBackend(server.host, server.port)
        try:
            assert backend.family_reads
            first = await backend.get(filled, [b"r1", b"r2"], columns=(b"f:b",))
            backend.family_reads = False
            assert not backend._ops.family_reads
            second = await backend.get(filled, [b"r1", b"r2"], columns=(b"f:b",))
            scanner = await backend.scan(filled, Scan(columns=(b"f:b",)))
            third = [row async for row in scanner]
            return [[r.row for r in rows] for rows in (first, second, third)]
        finally:
            await backend.aclose()

    assert asyncio.run(main()) == [[b"r1"], [b"r1"], [b"r1"]]
