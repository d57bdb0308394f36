"""In-memory engine benchmarks: puts, gets, scans, increments, and bytes per stored cell."""

from __future__ import annotations

from bench.harness import Result, Scale, rate, retained_bytes
from hmodel.backend.base import Increment, Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.schema import Family, Table

__all__ = ["run"]

TABLE = Table("bench_engine", [Family("f")])

#: Cells per benchmark row: ``f:a``, ``f:b``, ``f:d`` hold 50 bytes, ``f:c`` a category digit.
CELLS_PER_ROW = 4

#: Puts per ``mutate`` call.
BATCH = 1000

#: Cells stored for the bytes-per-cell measurement.
MEMORY_CELLS = 100_000

#: Rows the scan filter keeps: one in ten has category ``3``.
FILTER = "SingleColumnValueFilter('f', 'c', =, 'binary:3', true, true)"


def _value(i: int) -> bytes:
    """A distinct value of exactly 50 bytes."""
    return b"value-%044d" % i


def _row(i: int) -> bytes:
    """The rowkey of row ``i``: 14 bytes."""
    return b"row-%010d" % i


def _puts(first_row: int, rows: int) -> list[Put]:
    """The ``rows * CELLS_PER_ROW`` puts of rows ``first_row, first_row + 1, ...``."""
    puts = []
    for i in range(first_row, first_row + rows):
        row = _row(i)
        puts.append(Put(row, b"f:a", _value(i), timestamp=1))
        puts.append(Put(row, b"f:b", _value(i + 1), timestamp=1))
        puts.append(Put(row, b"f:c", b"%d" % (i % 10), timestamp=1))
        puts.append(Put(row, b"f:d", _value(i + 2), timestamp=1))
    return puts


def _loaded(rows: int) -> MemoryBackend:
    """An engine holding ``rows`` benchmark rows."""
    backend = MemoryBackend()
    backend.create_table(TABLE)
    per_batch = BATCH // CELLS_PER_ROW
    for start in range(0, rows, per_batch):
        backend.mutate(TABLE.name, _puts(start, min(per_batch, rows - start)))
    return backend


def bytes_per_cell(rows: int, columns: int) -> float:
    """Bytes retained per cell by ``rows`` rows of ``columns`` distinct 50-byte cells.

    The count covers everything the engine keeps: rowkeys, qualifiers, values, versions
    and the sorted structures holding them (see :func:`bench.harness.retained_bytes`).
    """
    backend = MemoryBackend()
    backend.create_table(TABLE)
    per_batch = max(1, BATCH // columns)

    def build() -> MemoryBackend:
        for start in range(0, rows, per_batch):
            backend.mutate(
                TABLE.name,
                [
                    Put(_row(i), b"f:q%03d" % c, _value(i * columns + c), timestamp=1)
                    for i in range(start, min(rows, start + per_batch))
                    for c in range(columns)
                ],
            )
        return backend

    return retained_bytes(build) / (rows * columns)


def _write_results(scale: Scale) -> list[Result]:
    rows_per_batch = BATCH // CELLS_PER_ROW
    batches = scale.count(20, multiple=1)
    runs = scale.warmup + scale.repeat
    requests = [
        [_puts((run * batches + b) * rows_per_batch, rows_per_batch) for b in range(batches)]
        for run in range(runs)
    ]
    backend = MemoryBackend()
    backend.create_table(TABLE)

    def put(index: int) -> None:
        for batch in requests[index]:
            backend.mutate(TABLE.name, batch)

    increments = scale.count(20_000, multiple=100)
    counters = [(_row(i % 100), b"f:n") for i in range(increments)]

    def increment(_: int) -> None:
        for row, column in counters:
            backend.increment(TABLE.name, row, column)

    many = [Increment(row, column) for row, column in counters[:100]]

    def increment_many(_: int) -> None:
        for _ in range(increments // 100):
            backend.increment_many(TABLE.name, many)

    return [
        Result(
            "engine.put",
            rate(put, ops=batches * BATCH, scale=scale),
            "cells/s",
            "higher",
            f"mutate of {BATCH} puts, {rows_per_batch} new rows x {CELLS_PER_ROW} cells",
        ),
        Result(
            "engine.increment",
            rate(increment, ops=increments, scale=scale),
            "ops/s",
            "higher",
            "one increment call each, 100 counters",
        ),
        Result(
            "engine.increment_many",
            rate(increment_many, ops=increments, scale=scale),
            "ops/s",
            "higher",
            "increment_many of 100 counters",
        ),
    ]


def _read_results(scale: Scale) -> list[Result]:
    rows = scale.count(20_000, multiple=1000)
    backend = _loaded(rows)
    step = 7919  # a prime: reads hop around the table instead of walking it in order
    keys = [_row(i * step % rows) for i in range(rows)]
    gets = keys[: scale.count(10_000, multiple=100)]

    def get(_: int) -> None:
        for row in gets:
            backend.get(TABLE.name, [row])

    groups = [keys[i : i + 100] for i in range(0, len(keys), 100)]

    def get_many(_: int) -> None:
        for group in groups:
            backend.get(TABLE.name, group)

    def scanner(scan: Scan) -> None:
        for _ in backend.scan(TABLE.name, scan):
            pass

    forward, backward, filtered = Scan(), Scan(reverse=True), Scan(filter=FILTER)
    return [
        Result(
            "engine.get",
            rate(get, ops=len(gets), scale=scale),
            "rows/s",
            "higher",
            f"get of 1 row ({CELLS_PER_ROW} cells) in {rows} rows",
        ),
        Result(
            "engine.get_many",
            rate(get_many, ops=rows, scale=scale),
            "rows/s",
            "higher",
            "get of 100 rows per call",
        ),
        Result(
            "engine.scan",
            rate(lambda _: scanner(forward), ops=rows, scale=scale),
            "rows/s",
            "higher",
            f"full forward scan of {rows} rows, batches of 1000",
        ),
        Result(
            "engine.scan_reverse",
            rate(lambda _: scanner(backward), ops=rows, scale=scale),
            "rows/s",
            "higher",
            "full reverse scan",
        ),
        Result(
            "engine.scan_filter",
            rate(lambda _: scanner(filtered), ops=rows, scale=scale),
            "rows/s",
            "higher",
            "SingleColumnValueFilter keeping 1 row in 10; rows examined",
        ),
    ]


def run(scale: Scale) -> list[Result]:
    """Measure the engine through the Backend protocol; requests are built before timing."""
    narrow = bytes_per_cell(MEMORY_CELLS, 1)
    wide = bytes_per_cell(MEMORY_CELLS // 10, 10)
    return [
        *_write_results(scale),
        *_read_results(scale),
        Result(
            "engine.bytes_per_cell",
            narrow,
            "B/cell",
            "lower",
            f"{MEMORY_CELLS} rows x 1 cell of 50 bytes (14-byte rowkey)",
        ),
        Result(
            "engine.bytes_per_cell_wide",
            wide,
            "B/cell",
            "lower",
            f"{MEMORY_CELLS // 10} rows x 10 cells of 50 bytes",
        ),
    ]
