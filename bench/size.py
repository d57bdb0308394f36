"""Engine costs at several table sizes: ``python bench/size.py 10000 100000 1000000``.

Rows of four 50-byte cells; per size, microseconds per row (best of 7) of gets of 2,000
rows spread over the table, a prefix scan of 1,000 rows, and puts of new rows in calls of
100 rows (requests built before timing). Not part of ``run.py``: a million rows take a
few minutes and about 2 GB to load.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: import ``hmodel`` from the project root
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from hmodel.backend.base import Put, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.schema import Family, Table

__all__ = ["main", "measure"]

COLUMNS = (b"f:a", b"f:b", b"f:c", b"f:d")


def _row(i: int) -> bytes:
    return b"row-%012d" % i


def _value(i: int) -> bytes:
    return b"value-%044d" % i


def _puts(first: int, rows: int) -> list[Put]:
    return [
        Put(_row(i), column, _value(i), timestamp=1)
        for i in range(first, first + rows)
        for column in COLUMNS
    ]


def _best(run: Callable[[], object], ops: int, repeat: int = 7) -> float:
    """Microseconds per operation of the fastest of ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times) / ops * 1e6


def measure(size: int) -> tuple[float, float, float]:
    """Microseconds per row of a get, a prefix-scanned row and a put, at ``size`` rows."""
    backend = MemoryBackend()
    backend.create_table(Table("t", [Family("f")]))
    for start in range(0, size, 250):
        backend.mutate("t", _puts(start, min(250, size - start)))
    keys = [_row(i * 7919 % size) for i in range(2000)]
    get = _best(lambda: [backend.get("t", [key]) for key in keys], len(keys))
    prefix = Scan.prefix(b"row-000000001")  # rows 1,000 to 1,999
    scan = _best(lambda: list(backend.scan("t", prefix)), 1000)
    calls = [_puts(10**9 + c * 100, 100) for c in range(70)]
    runs = iter(range(7))

    def put() -> None:
        run = next(runs)
        for call in calls[run * 10 : (run + 1) * 10]:
            backend.mutate("t", call)

    return get, scan, _best(put, 1000)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the costs at each size given (default: 10,000 and 100,000 rows)."""
    sizes = [int(arg) for arg in (argv if argv is not None else sys.argv[1:])] or [
        10_000,
        100_000,
    ]
    for size in sizes:
        get, scan, put = measure(size)
        print(
            f"{size:>9,} rows: get {get:.2f} us/row, prefix scan {scan:.2f} us/row, "
            f"put {put:.2f} us/row",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
