"""Reads of named columns against reads of their families, through each Thrift backend.

What ``family_reads`` (docs/thrift.md, "Reads of single columns") buys: the same reads
of single ``family:qualifier`` columns sent by one backend with the columns named
(``family_reads=False``) and by another as family reads (the default: Thrift1 keeps the
columns in the client; Thrift2 scans send a filter passing exactly them, and its gets
name the columns either way, so its ``get_many`` pair is a control), against the kit's
real HBase when one is at hand (``bench/servers.py``), else the fake server, whose
engine reads both alike. The time is mostly the server's: HBase's explicit column
tracker seeks from each named column to the next.

Workloads, on a table of rows with six one-letter columns (the ``handwritten`` group's
shape) and one of ten 100-byte fields (YCSB's): a full scan, 100-row multi-gets, and
short scans of 50 rows. Reported per workload and protocol as ratios of interleaved
pairs: ``columns.<protocol>_<workload>``, family reads' time / named columns' (below 1:
family reads are faster), and ``_cpu``, the client's CPU likewise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.harness import Result, Scale, paired_with_cpu, summary
from bench.servers import drop_tables, servers
from hmodel.backend.base import Backend, Put, Scan
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.schema import Family, Table

__all__ = ["TABLES", "run"]

#: The group's tables (under the server's table prefix), dropped before and after.
TABLES = ("bench_columns_narrow", "bench_columns_wide")

_NARROW = tuple(b"p:" + q for q in (b"c", b"n", b"p", b"q", b"t", b"v"))
_WIDE = tuple(b"f:field%d" % i for i in range(10))


def _fill(backend: Backend, name: str, family: str, rows: int, cells: dict[bytes, bytes]) -> None:
    backend.create_table(Table(name, [Family(family)]))
    for start in range(0, rows, 500):
        backend.mutate(
            name,
            [
                Put(bytes((i % 16,)) + b"row%07d" % i, column, value)
                for i in range(start, min(rows, start + 500))
                for column, value in cells.items()
            ],
        )


def _workloads(backend: Backend, rows: int) -> dict[str, Callable[[int], object]]:
    """Each workload through ``backend``, by name; each checks what it read."""
    narrow_keys = [bytes((i % 16,)) + b"row%07d" % i for i in range(0, rows, max(1, rows // 500))]
    wide_starts = [bytes((i % 16,)) + b"row%07d" % i for i in range(0, rows, max(1, rows // 40))]

    def scan(_: int) -> None:
        found = sum(1 for _ in backend.scan(TABLES[0], Scan(columns=_NARROW)))
        if found != rows:
            raise AssertionError("the scan should read every row")

    def get_many(_: int) -> None:
        for at in range(0, len(narrow_keys), 100):
            group = narrow_keys[at : at + 100]
            if len(backend.get(TABLES[0], group, columns=_NARROW)) != len(group):
                raise AssertionError("every row asked for exists")

    def short_scans(_: int) -> None:
        for start in wide_starts:
            scan = Scan(start=start, columns=_WIDE, limit=50, batch_size=50)
            for result in backend.scan(TABLES[1], scan):
                if len(result.cells) != len(_WIDE):
                    raise AssertionError("every field of the row")

    return {"scan": scan, "get_many": get_many, "short_scans": short_scans}


def run(scale: Scale) -> list[Result]:
    """Time family reads against named columns on both protocols; ratios only."""
    pairs = 5 if scale.repeat < 5 else 9
    rows = scale.count(6000, multiple=100)
    results: list[Result] = []
    with servers() as server:
        print(f"  columns: against {server.what}", flush=True)
        options: dict[str, Any] = {"table_prefix": server.prefix}
        made: list[Backend] = []
        try:
            sides = []
            for protocol, make, address in (
                ("thrift1", ThriftBackend, server.thrift1),
                ("thrift2", Thrift2Backend, server.thrift2),
            ):
                named = make(*address, family_reads=False, **options)
                family = make(*address, **options)
                made += [named, family]
                sides.append((protocol, named, family))
            setup = sides[0][1]
            drop_tables(server, TABLES)
            _fill(setup, TABLES[0], "p", rows, {c: b"v" * 8 for c in _NARROW[:5]})
            _fill(setup, TABLES[1], "f", rows, {c: b"x" * 100 for c in _WIDE})
            timing = f"{pairs} interleaved pairs"
            for protocol, named, family in sides:
                theirs, ours = _workloads(named, rows), _workloads(family, rows)
                for name in theirs:
                    walls, cpus = paired_with_cpu(theirs[name], ours[name], pairs=pairs)
                    for metric, ratios, what in (
                        ("", walls, "time"),
                        ("_cpu", cpus, "client CPU"),
                    ):
                        median, spread = summary(ratios)
                        results.append(
                            Result(
                                f"columns.{protocol}_{name}{metric}",
                                median,
                                "x " + ("time" if not metric else "CPU"),
                                "lower",
                                f"{name} ({rows} rows), {protocol}: family reads' {what} / "
                                f"named columns', {timing}",
                                spread,
                            )
                        )
        finally:
            drop_tables(server, TABLES)
            for backend in made:
                backend.close()
    return results
