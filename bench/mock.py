"""The engine against happybase-mock, the other Python HBase fake: speed ratios and memory.

happybase-mock 0.10.0 (``pip install -e ".[bench]"``) keeps ``row -> column -> timestamp ->
value`` in nested dicts. Its known bugs, and where they touch these workloads:

* ``scan`` filters **every** rowkey of the table and sorts the survivors, so a prefix scan
  costs in proportion to the table, not to the rows returned; the ratio of the prefix
  scan therefore grows with the table (here :data:`ROWS` rows).
* ``scan(limit=...)`` never limits (``if len(result) < limit: result = result[:limit]``);
  not used here.
* A column list naming a bare family (``[b"f"]``) returns nothing; not used here.
* ``Connection`` is a process-wide singleton per host and port, so tables outlive the
  connection that made them: each measurement uses a table name of its own.
* Deletes remove cells at once (no markers, so an older put arriving later is visible),
  TTLs and ``MIN_VERSIONS`` are ignored, ``counter_inc`` is a read, a delete and a put
  (not atomic, returns ``None``), ``batch`` ignores ``batch_size`` and sends one put per
  row, and ``row_prefix`` must be UTF-8. None of these is measured: the engine does all
  of them properly, which is what its extra bytes per cell pay for.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from bench.harness import Result, Scale, paired, retained_bytes, summary
from hmodel.backend.base import Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.schema import Family, Table

__all__ = ["FLOOR", "bytes_per_cell", "mock_bytes_per_cell", "run"]

#: Rows in the table the reads go to.
ROWS = 20_000

#: Cells per row of the speed workloads, each a 50-byte value under a 1-byte qualifier.
COLUMNS = (b"f:a", b"f:b", b"f:c", b"f:d")

#: The bytes one cell carries at least: 16-byte rowkey, family, qualifier, 50-byte value,
#: 8-byte timestamp.
FLOOR = 16 + 1 + 1 + 50 + 8

#: Cells stored for the bytes-per-cell measurement.
MEMORY_CELLS = 100_000

_names = itertools.count()


def _row(i: int) -> bytes:
    """The 16-byte rowkey of row ``i``."""
    return b"row-%012d" % i


def _value(i: int) -> bytes:
    """A distinct 50-byte value."""
    return b"value-%044d" % i


def _mock_table(families: dict[str, dict[str, Any]] | None = None) -> Any:
    """A fresh happybase-mock table with family ``f`` (VERSIONS 1, as the engine's ``f``)."""
    try:
        import happybase_mock
    except ImportError as exc:
        raise SystemExit(
            'the mock benchmarks need happybase-mock: pip install -e ".[bench]" '
            "(or leave them out: --only with the other groups)"
        ) from exc

    connection = happybase_mock.Connection()
    name = f"bench_mock_{next(_names)}"
    connection.create_table(name, families or {"f": {"max_versions": 1}})
    return connection.table(name)


def _engine() -> tuple[MemoryBackend, str]:
    backend = MemoryBackend()
    name = f"bench_mock_{next(_names)}"
    backend.create_table(Table(name, [Family("f")]))
    return backend, name


def _cells(i: int) -> dict[bytes, bytes]:
    return {column: _value(i * len(COLUMNS) + c) for c, column in enumerate(COLUMNS)}


def _loaded(rows: int) -> tuple[MemoryBackend, str, Any]:
    """The engine and a happybase-mock table holding the same ``rows`` rows, timestamp 1."""
    backend, name = _engine()
    table = _mock_table()
    for start in range(0, rows, 250):
        chunk = range(start, min(rows, start + 250))
        backend.mutate(
            name,
            [Put(_row(i), c, v, timestamp=1) for i in chunk for c, v in _cells(i).items()],
        )
        for i in chunk:
            table.put(_row(i), _cells(i), timestamp=1)
    return backend, name, table


def bytes_per_cell(rows: int, columns: int) -> float:
    """Bytes the engine keeps per cell for ``rows`` rows of ``columns`` 50-byte cells.

    Rowkeys are 16 bytes, qualifiers 1 byte (``a``, ``b``, ...), timestamps 1: the
    payload is :data:`FLOOR` bytes per cell.
    """
    backend, name = _engine()
    per_call = max(1, 1000 // columns)
    qualifiers = [b"f:" + bytes([ord("a") + c]) for c in range(columns)]

    def build() -> MemoryBackend:
        for start in range(0, rows, per_call):
            backend.mutate(
                name,
                [
                    Put(_row(i), qualifiers[c], _value(i * columns + c), timestamp=1)
                    for i in range(start, min(rows, start + per_call))
                    for c in range(columns)
                ],
            )
        return backend

    return retained_bytes(build) / (rows * columns)


def mock_bytes_per_cell(rows: int, columns: int) -> float:
    """The same measurement as :func:`bytes_per_cell` on happybase-mock."""
    table = _mock_table()
    qualifiers = [b"f:" + bytes([ord("a") + c]) for c in range(columns)]

    def build() -> Any:
        for i in range(rows):
            table.put(
                _row(i), {q: _value(i * columns + c) for c, q in enumerate(qualifiers)}, timestamp=1
            )
        return table

    return retained_bytes(build) / (rows * columns)


def _ratio(
    name: str, ours: Callable[[int], object], theirs: Callable[[int], object], pairs: int, note: str
) -> Result:
    median, spread = summary(paired(ours, theirs, pairs=pairs))
    return Result(
        name,
        median,
        "x mock",
        "higher",
        f"{note}; engine speed / happybase-mock speed, {pairs} interleaved pairs",
        spread,
    )


def run(scale: Scale) -> list[Result]:
    """Measure the engine and happybase-mock side by side on the same workloads."""
    pairs = 7 if scale.repeat < 5 else 11
    backend, name, table = _loaded(ROWS)
    step = 7919
    gets = [_row(i * step % ROWS) for i in range(scale.count(5000, multiple=100))]
    groups = [gets[i : i + 100] for i in range(0, len(gets), 100)]
    prefix = b"row-000000001"  # rows 1,000 to 1,999
    prefix_scan = Scan.prefix(prefix)
    scans = scale.count(10, multiple=1)

    def engine_get(_: int) -> None:
        for row in gets:
            backend.get(name, [row])

    def mock_get(_: int) -> None:
        for row in gets:
            table.row(row)

    def engine_get_many(_: int) -> None:
        for group in groups:
            backend.get(name, group)

    def mock_get_many(_: int) -> None:
        for group in groups:
            table.rows(group)

    def engine_scan(_: int) -> None:
        for _ in range(scans):
            if sum(1 for _ in backend.scan(name, prefix_scan)) != 1000:
                raise AssertionError("the prefix scan should return 1,000 rows")

    def mock_scan(_: int) -> None:
        for _ in range(scans):
            if sum(1 for _ in table.scan(row_prefix=prefix)) != 1000:
                raise AssertionError("the prefix scan should return 1,000 rows")

    # Puts: 100 new rows of 4 cells per call, fresh rows in every run, timestamp 1.
    calls = scale.count(20, multiple=1)
    put_backend, put_name = _engine()
    put_table = _mock_table()

    def requests(index: int) -> list[list[tuple[bytes, dict[bytes, bytes]]]]:
        first = index * calls * 100
        return [
            [(_row(i), _cells(i)) for i in range(first + c * 100, first + (c + 1) * 100)]
            for c in range(calls)
        ]

    runs = [requests(index) for index in range(pairs + 1)]
    engine_runs = [
        [
            [Put(row, c, v, timestamp=1) for row, cells in call for c, v in cells.items()]
            for call in run
        ]
        for run in runs
    ]

    def engine_put(index: int) -> None:
        for call in engine_runs[index]:
            put_backend.mutate(put_name, call)

    def mock_put(index: int) -> None:
        for call in runs[index]:
            with put_table.batch(timestamp=1) as batch:
                for row, cells in call:
                    batch.put(row, cells)

    narrow = bytes_per_cell(MEMORY_CELLS, 1)
    wide = bytes_per_cell(MEMORY_CELLS // 10, 10)
    narrow_mock = mock_bytes_per_cell(MEMORY_CELLS, 1)
    wide_mock = mock_bytes_per_cell(MEMORY_CELLS // 10, 10)
    cells = f"{len(COLUMNS)} cells of 50 bytes"
    return [
        _ratio("mock.get", engine_get, mock_get, pairs, f"get of 1 row ({cells}) in {ROWS}"),
        _ratio("mock.get_many", engine_get_many, mock_get_many, pairs, "get of 100 rows"),
        _ratio(
            "mock.scan_prefix",
            engine_scan,
            mock_scan,
            pairs,
            f"prefix scan of 1,000 rows in {ROWS}",
        ),
        _ratio("mock.put", engine_put, mock_put, pairs, f"puts of 100 new rows x {cells} per call"),
        Result(
            "mock.bytes_per_cell",
            narrow,
            "B/cell",
            "lower",
            f"engine, {MEMORY_CELLS} rows x 1 cell; floor {FLOOR}, "
            f"happybase-mock {narrow_mock:.0f}",
        ),
        Result(
            "mock.bytes_per_cell_wide",
            wide,
            "B/cell",
            "lower",
            f"engine, {MEMORY_CELLS // 10} rows x 10 cells; floor {FLOOR}, "
            f"happybase-mock {wide_mock:.0f}",
        ),
    ]
