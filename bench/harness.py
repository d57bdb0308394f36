"""Measurement: operations per second as the median of repeated runs, and retained bytes."""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "Better",
    "Result",
    "Scale",
    "paired",
    "paired_with_cpu",
    "rate",
    "retained_bytes",
    "summary",
    "timed",
]

#: Which way a result improves: ``"higher"`` (throughput), ``"lower"`` (bytes, round trips).
Better = Literal["higher", "lower"]


@dataclass(frozen=True)
class Result:
    """One measured number.

    Attributes:
        name: Dotted id, ``group.metric`` (``engine.put``); targets are keyed by it.
        value: The number.
        unit: What it counts, e.g. ``"ops/s"``, ``"rows/s"``, ``"B/cell"``, ``"trips/op"``.
        better: Whether a higher or a lower value is better.
        note: What exactly was measured, in a few words.
        spread: For a ratio, the lowest and highest of the paired measurements whose
            median is :attr:`value`; ``None`` for a plain measurement.
    """

    name: str
    value: float
    unit: str
    better: Better
    note: str = ""
    spread: tuple[float, float] | None = None

    @property
    def group(self) -> str:
        """The part of :attr:`name` before the first dot."""
        return self.name.partition(".")[0]


@dataclass(frozen=True)
class Scale:
    """How big and how often: ``quick`` runs fewer operations and fewer repeats.

    Attributes:
        factor: Multiplies every operation count (at least 1 operation is kept).
        repeat: Timed runs per measurement; the median is reported.
        warmup: Untimed runs before them.
    """

    factor: float
    repeat: int
    warmup: int = 1

    def count(self, full: int, *, multiple: int = 1) -> int:
        """``full`` scaled by :attr:`factor`, rounded down to a multiple of ``multiple`` (>= it)."""
        scaled = int(full * self.factor) // multiple * multiple
        return max(multiple, scaled)


FULL = Scale(factor=1.0, repeat=5)
QUICK = Scale(factor=0.2, repeat=3)


def rate(run: Callable[[int], object], *, ops: int, scale: Scale) -> float:
    """Return ``ops`` per second for the median duration of ``run``.

    ``run(i)`` is called ``scale.warmup + scale.repeat`` times with ``i = 0, 1, ...`` and
    must do ``ops`` operations each time; ``i`` lets a write benchmark use fresh rows in
    every run. A full garbage collection precedes each run so one run's garbage is not
    collected on another's clock; the collector stays enabled during the run, as in an
    application. Timing uses :func:`time.perf_counter_ns`.
    """
    durations = []
    for index in range(scale.warmup + scale.repeat):
        gc.collect()
        start = time.perf_counter_ns()
        run(index)
        elapsed = time.perf_counter_ns() - start
        if index >= scale.warmup:
            durations.append(elapsed)
    return ops * 1e9 / max(1.0, statistics.median(durations))


def retained_bytes(build: Callable[[], object]) -> int:
    """Return the bytes still allocated after ``build()`` returns, as tracemalloc counts them.

    What ``build`` allocates and drops (temporary lists, request objects) is collected
    before the count; what it keeps reachable from objects that existed before the call
    (a table in an engine) is counted, including the values it created. The object
    ``build`` returns is kept alive until the count is taken.
    """
    gc.collect()
    tracemalloc.start()
    try:
        baseline = tracemalloc.get_traced_memory()[0]
        kept = build()
        gc.collect()
        retained = tracemalloc.get_traced_memory()[0] - baseline
    finally:
        tracemalloc.stop()
    del kept
    return retained


def timed(run: Callable[[int], object], index: int) -> int:
    """Nanoseconds of one ``run(index)``, after a full garbage collection."""
    gc.collect()
    start = time.perf_counter_ns()
    run(index)
    return max(1, time.perf_counter_ns() - start)


def paired(
    ours: Callable[[int], object], theirs: Callable[[int], object], *, pairs: int
) -> list[float]:
    """Time ``ours`` and ``theirs`` alternately; return ``theirs / ours`` per pair.

    Both do the same operations. Each pair runs both once (``run(i)`` as in :func:`rate`,
    ``i`` counting from 1 after one untimed warm-up run of each with ``i = 0``), the
    first of them alternating between pairs, so a machine that slows down or speeds up
    during the run weighs on both sides alike. A ratio above 1 means ``ours`` is faster.
    """
    ours(0)
    theirs(0)
    ratios = []
    for index in range(1, pairs + 1):
        if index % 2:
            mine, other = timed(ours, index), timed(theirs, index)
        else:
            other, mine = timed(theirs, index), timed(ours, index)
        ratios.append(other / mine)
    return ratios


def _timed_with_cpu(run: Callable[[int], object], index: int) -> tuple[int, int]:
    gc.collect()
    start, cpu = time.perf_counter_ns(), time.process_time_ns()
    run(index)
    return max(1, time.perf_counter_ns() - start), max(1, time.process_time_ns() - cpu)


def paired_with_cpu(
    ours: Callable[[int], object], theirs: Callable[[int], object], *, pairs: int
) -> tuple[list[float], list[float]]:
    """As :func:`paired`, and also the ratios of this process's CPU time (``theirs / ours``).

    The CPU time is :func:`time.process_time_ns` of the benchmark's process alone: with
    the server in a process of its own, that is the client's CPU, whatever the server
    and the network add to the wall-clock time.
    """
    ours(0)
    theirs(0)
    walls, cpus = [], []
    for index in range(1, pairs + 1):
        if index % 2:
            mine, other = _timed_with_cpu(ours, index), _timed_with_cpu(theirs, index)
        else:
            other, mine = _timed_with_cpu(theirs, index), _timed_with_cpu(ours, index)
        walls.append(other[0] / mine[0])
        cpus.append(other[1] / mine[1])
    return walls, cpus


def summary(ratios: list[float]) -> tuple[float, tuple[float, float]]:
    """The median of ``ratios`` and their spread (lowest, highest)."""
    return statistics.median(ratios), (min(ratios), max(ratios))
