"""Repository benchmarks: save, save_many, get, get_many and pages over any backend."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from bench.fixture import BUCKETS, FlatPurchase, Purchase, purchase_keys, purchases
from bench.harness import Result, Scale, rate
from hmodel.backend.base import Backend
from hmodel.backend.memory import MemoryBackend
from hmodel.repository import Repository
from hmodel.schema import Table

__all__ = ["Sizes", "measure", "run"]

M = TypeVar("M")

#: Objects per ``save_many`` and ``get_many`` call, and rows per page.
GROUP = 100


@dataclass(frozen=True)
class Sizes:
    """Operation counts of one timed run.

    Attributes:
        saves: Single saves (and single gets).
        groups: ``save_many`` / ``get_many`` calls of :data:`GROUP` objects.
        pages: Pages of :data:`GROUP` rows read per run.
    """

    saves: int
    groups: int
    pages: int


def _trips(backend: Backend, call: Callable[[], object]) -> int:
    """Round trips ``call`` costs on ``backend`` (``Backend.round_trips`` before and after)."""
    before = backend.round_trips
    call()
    return backend.round_trips - before


def _read_pages(repository: Repository[M], count: int) -> int:
    """Read the first ``count`` pages of :data:`GROUP` rows; return the rows read."""
    rows = 0
    for page in itertools.islice(repository.pages(GROUP), count):
        rows += len(page)
    return rows


def measure(
    group: str,
    backend: Backend,
    create: Callable[[Table], None],
    scale: Scale,
    sizes: Sizes,
) -> list[Result]:
    """Measure the repository operations on ``backend``, naming results ``group.<op>``.

    ``create`` makes a table on the store (a Thrift1 client cannot send split points, so
    the Thrift benchmark creates tables on the server's engine). Every timed run saves
    fresh objects; reads go to what was saved. Round trips per operation are counted on a
    separate, untimed call.
    """
    repo = Repository(Purchase, backend)
    flat = Repository(FlatPurchase, backend)
    create(repo.info.table)
    create(flat.info.table)
    runs = scale.warmup + scale.repeat
    singles = [purchases(Purchase, sizes.saves, start=run * sizes.saves) for run in range(runs)]
    offset = runs * sizes.saves
    grouped = [
        purchases(Purchase, sizes.groups * GROUP, start=offset + run * sizes.groups * GROUP)
        for run in range(runs)
    ]

    def save(index: int) -> None:
        for obj in singles[index]:
            repo.save(obj)

    def save_many(index: int) -> None:
        objs = grouped[index]
        for start in range(0, len(objs), GROUP):
            repo.save_many(objs[start : start + GROUP])

    results = [
        Result(
            f"{group}.save",
            rate(save, ops=sizes.saves, scale=scale),
            "ops/s",
            "higher",
            "save of one purchase (3 cells)",
        ),
        Result(
            f"{group}.save_many",
            rate(save_many, ops=sizes.groups * GROUP, scale=scale),
            "objects/s",
            "higher",
            f"save_many of {GROUP} purchases per call",
        ),
    ]
    copies = purchases(FlatPurchase, offset + runs * sizes.groups * GROUP)  # the same keys
    for start in range(0, len(copies), GROUP):
        flat.save_many(copies[start : start + GROUP])

    keys = purchase_keys(sizes.saves)
    key_groups = [purchase_keys(GROUP, start=offset + g * GROUP) for g in range(sizes.groups)]

    def get(_: int) -> None:
        for key in keys:
            repo.get(**key)

    def get_many(_: int) -> None:
        for chunk in key_groups:
            repo.get_many(chunk)

    read_rows = sizes.pages * GROUP
    if _read_pages(repo, sizes.pages) != read_rows:
        raise AssertionError("the salted table holds fewer rows than the pages read")
    results += [
        Result(
            f"{group}.get",
            rate(get, ops=len(keys), scale=scale),
            "ops/s",
            "higher",
            "get of one purchase by its key fields",
        ),
        Result(
            f"{group}.get_many",
            rate(get_many, ops=sizes.groups * GROUP, scale=scale),
            "objects/s",
            "higher",
            f"get_many of {GROUP} keys per call",
        ),
        Result(
            f"{group}.page",
            rate(lambda _: _read_pages(repo, sizes.pages), ops=read_rows, scale=scale),
            "rows/s",
            "higher",
            f"pages of {GROUP}, salted table ({BUCKETS} buckets)",
        ),
        Result(
            f"{group}.page_flat",
            rate(lambda _: _read_pages(flat, sizes.pages), ops=read_rows, scale=scale),
            "rows/s",
            "higher",
            f"pages of {GROUP}, the same rows unsalted",
        ),
    ]
    extra = purchases(Purchase, GROUP + 1, start=10**7)
    one: dict[str, Any] = keys[0]
    trips = {
        "save": _trips(backend, lambda: repo.save(extra[0])),
        "save_many": _trips(backend, lambda: repo.save_many(extra[1:])),
        "get": _trips(backend, lambda: repo.get(**one)),
        "get_many": _trips(backend, lambda: repo.get_many(key_groups[0])),
        "page": _trips(backend, lambda: repo.page(GROUP)),
        "page_flat": _trips(backend, lambda: flat.page(GROUP)),
    }
    for op, count in trips.items():
        results.append(
            Result(
                f"{group}.trips_{op}", count, "trips/op", "lower", f"round trips of one {op} call"
            )
        )
    return results


def run(scale: Scale) -> list[Result]:
    """Measure the repository on the in-memory engine."""
    backend = MemoryBackend()
    sizes = Sizes(
        saves=scale.count(5000, multiple=100),
        groups=scale.count(50, multiple=1),
        pages=scale.count(20, multiple=1),
    )
    return measure("repository", backend, backend.create_table, scale, sizes)
