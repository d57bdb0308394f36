"""Server-side scanners: column batching, exhaustion, ids and closing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hmodel.backend.base import Cell, RowResult
from hmodel.clock import ManualClock
from hmodel.errors import IllegalArgumentError
from hmodel.testing.fake.thrift1_scanner import Scanner, ScannerRegistry


def _rows(*widths: int) -> list[RowResult]:
    return [
        RowResult(
            f"r{i}".encode(),
            {f"f:{q}".encode(): Cell(f"v{q}".encode(), 1) for q in range(width)},
        )
        for i, width in enumerate(widths)
    ]


def _columns(chunks: list[tuple[bytes, list[tuple[bytes, Cell]]]]) -> list[tuple[bytes, int]]:
    return [(row, len(cells)) for row, cells in chunks]


def test_scanner_returns_whole_rows_up_to_the_count_asked() -> None:
    scanner = Scanner(iter(_rows(2, 1, 3)))
    assert _columns(scanner.next(2)) == [(b"r0", 2), (b"r1", 1)]
    assert _columns(scanner.next(5)) == [(b"r2", 3)]


def test_scanner_batch_cuts_wide_rows_into_results_with_the_same_key() -> None:
    scanner = Scanner(iter(_rows(5, 1)), batch=2)
    chunks = scanner.next(10)
    assert _columns(chunks) == [(b"r0", 2), (b"r0", 2), (b"r0", 1), (b"r1", 1)]
    assert [column for _, cells in chunks[:3] for column, _ in cells] == [
        b"f:0",
        b"f:1",
        b"f:2",
        b"f:3",
        b"f:4",
    ]


def test_scanner_counts_partial_rows_as_results() -> None:
    scanner = Scanner(iter(_rows(3)), batch=1)
    assert _columns(scanner.next(2)) == [(b"r0", 1), (b"r0", 1)]
    assert _columns(scanner.next(2)) == [(b"r0", 1)]


@pytest.mark.parametrize("batch", [None, 0, -1])
def test_scanner_without_a_positive_batch_returns_whole_rows(batch: int | None) -> None:
    assert _columns(Scanner(iter(_rows(4)), batch=batch).next(9)) == [(b"r0", 4)]


def test_exhausted_scanner_keeps_returning_nothing() -> None:
    scanner = Scanner(iter(_rows(1)))
    scanner.next(5)
    assert scanner.next(5) == []
    assert scanner.next(5) == []


def test_a_count_below_one_returns_nothing_and_consumes_nothing() -> None:
    scanner = Scanner(iter(_rows(1)))
    assert scanner.next(0) == []
    assert scanner.next(-3) == []
    assert _columns(scanner.next(1)) == [(b"r0", 1)]


def test_closing_a_scanner_closes_the_engine_iterator() -> None:
    closed = []

    def rows() -> Iterator[RowResult]:
        try:
            yield from _rows(1, 1)
        finally:
            closed.append(True)

    scanner = Scanner(rows())
    scanner.next(1)
    scanner.close()
    assert closed == [True]
    assert scanner.next(1) == []


def test_registry_ids_count_up_from_zero() -> None:
    registry = ScannerRegistry()
    assert [registry.add(Scanner(iter(()))) for _ in range(3)] == [0, 1, 2]
    assert len(registry) == 3


def test_registry_get_returns_the_scanner_of_an_id() -> None:
    registry = ScannerRegistry()
    scanner = Scanner(iter(()))
    assert registry.get(registry.add(scanner)) is scanner


def test_unknown_scanner_id_is_an_illegal_argument() -> None:
    registry = ScannerRegistry()
    with pytest.raises(IllegalArgumentError, match="scanner ID is invalid"):
        registry.get(7)
    with pytest.raises(IllegalArgumentError, match="scanner ID is invalid"):
        registry.close(7)


def test_a_closed_scanner_id_is_invalid() -> None:
    registry = ScannerRegistry()
    scanner_id = registry.add(Scanner(iter(())))
    registry.close(scanner_id)
    with pytest.raises(IllegalArgumentError):
        registry.get(scanner_id)


def test_close_all_closes_and_forgets_every_scanner() -> None:
    registry = ScannerRegistry()
    scanners = [Scanner(iter(_rows(1))) for _ in range(3)]
    ids = [registry.add(scanner) for scanner in scanners]
    registry.close_all()
    assert len(registry) == 0
    assert all(scanner.next(1) == [] for scanner in scanners)
    with pytest.raises(IllegalArgumentError):
        registry.get(ids[0])


class _Rows:
    """An engine row iterator that records whether it was closed."""

    def __init__(self) -> None:
        self.closed = False

    def __iter__(self) -> Iterator[RowResult]:
        return self

    def __next__(self) -> RowResult:
        raise StopIteration

    def close(self) -> None:
        self.closed = True


def test_a_scanner_unused_for_its_lease_expires_and_is_closed() -> None:
    """HBase's Thrift1 handler drops scanners nobody used for the lease; so does the fake."""
    clock = ManualClock(1_000)
    registry = ScannerRegistry(lease_ms=100, clock=clock)
    rows = _Rows()
    scanner_id = registry.add(Scanner(rows))
    clock.advance(99)
    assert len(registry) == 1 and not rows.closed
    clock.advance(1)
    assert registry.expire() == [scanner_id]
    assert rows.closed
    with pytest.raises(IllegalArgumentError, match="scanner ID is invalid"):
        registry.get(scanner_id)
    with pytest.raises(IllegalArgumentError, match="scanner ID is invalid"):
        registry.close(scanner_id)


def test_every_use_renews_the_lease() -> None:
    """The lease counts from the last call that used the scanner (expireAfterAccess)."""
    clock = ManualClock(1_000)
    registry = ScannerRegistry(lease_ms=100, clock=clock)
    scanner_id = registry.add(Scanner(iter(_rows(1, 1, 1))))
    for _ in range(3):
        clock.advance(60)
        registry.get(scanner_id).next(1)
    clock.advance(99)
    assert registry.get(scanner_id).next(1) == []
    clock.advance(100)
    assert len(registry) == 0


def test_any_call_expires_the_scanners_that_are_due() -> None:
    """Abandoned scanners go at the next call of any client, not only their own id's."""
    clock = ManualClock(1_000)
    registry = ScannerRegistry(lease_ms=100, clock=clock)
    abandoned = _Rows()
    old = registry.add(Scanner(abandoned))
    clock.advance(100)
    new = registry.add(Scanner(iter(())))
    assert abandoned.closed and new != old
    with pytest.raises(IllegalArgumentError):
        registry.get(old)


@pytest.mark.parametrize("lease", [0, -1, 1.5, True, None])
def test_a_lease_must_be_a_positive_int(lease: object) -> None:
    with pytest.raises(IllegalArgumentError, match="lease_ms"):
        ScannerRegistry(lease_ms=lease)  # type: ignore[arg-type]
