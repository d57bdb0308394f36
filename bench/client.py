"""Client CPU per row, no I/O: each step of hmodel's read and write paths against the
hand-written code's same step (issue 11: <= 1.5 times).

The four steps the issue measured, and a fifth, on the model of ``bench/handwritten.py``
(a 16-bucket salted key, five value cells):

* a rowkey from key fields: ``Mapper.key_of_values`` against ``struct`` and ``hashlib``;
* a Thrift1 ``TRowResult`` into a row: ``hmodel.backend.thrift.result.row_result``
  against happybase's ``make_row``;
* a row into an object: ``Mapper.from_row`` against a slotted dataclass built by hand;
* a row into an object as a repository loads it: ``Repository.load``, which also
  observes the row's timestamps for later write stamps and remembers the instance in the
  identity map;
* an object into Thrift1 mutations: ``Mapper.to_mutations`` and the Thrift1 batch
  planning against happybase's ``Mutation`` structs of ``struct``-packed cells.

Each ratio is hmodel's time over the hand-written code's, the median of interleaved pairs
over the same rows; the note adds each side's microseconds a row (best of 3 runs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.handwritten import Sale, hand_cells, hand_decode, hand_key, sales
from bench.harness import Result, Scale, paired, summary, timed
from hmodel.backend.base import Cell, RowResult
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift.batch import plan_batches
from hmodel.backend.thrift.idl import BatchMutation, Mutation
from hmodel.backend.thrift.result import row_result
from hmodel.mapping import mapper_for
from hmodel.repository import Repository

__all__ = ["run"]


def _thrift_rows(rows: list[bytes], cells: list[dict[bytes, bytes]]) -> list[Any]:
    """Thrift1 ``TRowResult`` structs of these rows, as a server sends them."""
    import importlib

    hbase: Any = importlib.import_module("Hbase_thrift")
    return [
        hbase.TRowResult(
            row=row,
            columns={
                name: hbase.TCell(value=value, timestamp=7) for name, value in row_cells.items()
            },
        )
        for row, row_cells in zip(rows, cells, strict=True)
    ]


def run(scale: Scale) -> list[Result]:
    """Measure the four per-row steps, hmodel against hand-written code."""
    count = scale.count(2000, multiple=100)
    pairs = 5 if scale.repeat < 5 else 9
    mapper = mapper_for(Sale)
    items = sales(count)
    keys: list[dict[str, Any]] = [{"user": s.user, "ts": s.ts, "product": s.product} for s in items]
    rows = [mapper.key_of_values(k) for k in keys]
    cells = [hand_cells(s) for s in items]
    results = [
        RowResult(r, {c: Cell(v, 7) for c, v in sorted(cs.items())})
        for r, cs in zip(rows, cells, strict=True)
    ]
    thrift_rows = _thrift_rows(rows, cells)
    key_of = mapper.key_of_values

    def hm_key(_: int) -> None:
        for key in keys:
            key_of(key)

    def hw_key(_: int) -> None:
        for key in keys:
            hand_key(key["user"], key["ts"], key["product"])

    def hm_result(_: int) -> None:
        for thrift_row in thrift_rows:
            row_result(thrift_row)

    def hw_result(_: int) -> None:
        for thrift_row in thrift_rows:
            {name: cell.value for name, cell in thrift_row.columns.items()}  # happybase make_row

    def hm_object(_: int) -> None:
        for result in results:
            mapper.from_row(result)

    def hw_object(_: int) -> None:
        for row, row_cells in zip(rows, cells, strict=True):
            hand_decode(row, row_cells)

    repository = Repository(Sale, MemoryBackend())
    load = repository.load

    def hm_load(_: int) -> None:
        for result in results:
            load(result)

    def hm_mutations(index: int) -> None:
        mutations = [
            m for s in items for m in mapper.to_mutations(s, timestamp=1_700_000_000_000 + index)
        ]
        for batch in plan_batches(mutations, lambda: [b"p"]):
            batch.row_batches()

    def hw_mutations(_: int) -> None:
        batches = [
            BatchMutation(
                row=hand_key(s.user, s.ts, s.product),
                mutations=[
                    Mutation(isDelete=False, column=column, value=value, writeToWAL=True)
                    for column, value in hand_cells(s).items()
                ],
            )
            for s in items
        ]
        assert len(batches) == len(items)

    steps = [
        ("rowkey", hm_key, hw_key, "rowkey from key fields"),
        ("thrift_row", hm_result, hw_result, "Thrift1 TRowResult of 5 cells to a row"),
        ("row_to_object", hm_object, hw_object, "row of 5 cells to an object (key decoded)"),
        (
            "load",
            hm_load,
            hw_object,
            "row to object by Repository.load: + write-stamp observation and identity map",
        ),
        ("object_to_mutations", hm_mutations, hw_mutations, "object to Thrift1 mutations"),
    ]
    out = []
    for name, ours, theirs, note in steps:
        median, spread = summary(paired(theirs, ours, pairs=pairs))
        per_row = f"{_per_row(ours, count):.2f} vs {_per_row(theirs, count):.2f} us a row"
        out.append(
            Result(
                f"client.{name}",
                median,
                "x time",
                "lower",
                f"{note}, {count} rows, {per_row}; hmodel / hand-written, {pairs} interleaved "
                "pairs",
                spread,
            )
        )
    return out


def _per_row(run: Callable[[int], object], count: int) -> float:
    """Microseconds a row of ``run``, the best of 3 runs (for the note; the ratio is paired)."""
    best = min(timed(run, index) for index in range(100, 103))
    return best / 1000 / count
