"""Executors: where a job's shards run (here, a process pool, Dask, Spark)."""

from __future__ import annotations

import importlib
import multiprocessing.context
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures import ProcessPoolExecutor as _Pool
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from hmodel.backend.base import Backend
from hmodel.jobs.model import JobError, Shard, ShardReport
from hmodel.jobs.runner import Progress, ShardCall

__all__ = ["DaskExecutor", "Executor", "InlineExecutor", "ProcessExecutor", "SparkExecutor"]


class Executor(Protocol):
    """Runs a phase's shards and yields their reports as they finish.

    Attributes:
        workers: How many shards run at once (the rate limit is shared among them).
    """

    @property
    def workers(self) -> int:
        """How many shards run at once."""
        ...  # pragma: no cover

    def run(
        self,
        call: ShardCall,
        shards: Sequence[Shard],
        backend: Backend,
        progress: Progress | None,
    ) -> Iterator[ShardReport]:
        """Run ``call`` on every shard; yield each report (any order)."""
        ...  # pragma: no cover


class InlineExecutor:
    """One shard after the other, in this process, on the job's own backend.

    A crash (an exception out of a shard) stops the job; the shards' records stay, so
    running the job again resumes.
    """

    workers = 1

    def run(
        self,
        call: ShardCall,
        shards: Sequence[Shard],
        backend: Backend,
        progress: Progress | None,
    ) -> Iterator[ShardReport]:
        """See :meth:`Executor.run` (``progress`` after every batch)."""
        for shard in shards:
            yield call.run(backend, shard, progress)


class ProcessExecutor:
    """Shards on a local pool of worker processes (``concurrent.futures``).

    Each worker opens its own backend with the job's ``factory``. A worker that dies
    (killed, out of memory) breaks the pool: the shards not finished are run again on a
    fresh pool, resuming from their checkpoints, up to ``attempts`` pools in all. A broken
    pool also terminates its *other* workers, wherever they are: a batch one of them had
    half written is made again by the resumed run, which counts what it finds made as
    made before (an index entry ``ok`` rather than ``written``; a migrated old row, gone,
    not at all). The data ends the same; Dask and Spark lose only the dead worker's task.

    Args:
        workers: Worker processes.
        mp_context: The ``multiprocessing`` start method's context (default: the
            platform's; ``"spawn"`` or ``"forkserver"`` where the parent runs threads).
        attempts: Pools tried before the job gives up (``JobError``).
    """

    def __init__(
        self,
        workers: int = 2,
        *,
        mp_context: multiprocessing.context.BaseContext | str | None = None,
        attempts: int = 3,
    ) -> None:
        self._workers = workers
        self.mp_context = (
            multiprocessing.get_context(mp_context) if isinstance(mp_context, str) else mp_context
        )
        self.attempts = attempts

    @property
    def workers(self) -> int:
        """Worker processes."""
        return self._workers

    def run(
        self,
        call: ShardCall,
        shards: Sequence[Shard],
        backend: Backend,
        progress: Progress | None,
    ) -> Iterator[ShardReport]:
        """See :meth:`Executor.run` (``progress`` after every shard)."""
        left = list(shards)
        for _ in range(self.attempts):
            with _Pool(max_workers=self._workers, mp_context=self.mp_context) as pool:
                futures: dict[Future[ShardReport], Shard] = {
                    pool.submit(call, shard): shard for shard in left
                }
                broken = False
                while futures:
                    finished, _pending = wait(futures, return_when=FIRST_COMPLETED)
                    for future in finished:
                        shard = futures.pop(future)
                        try:
                            report = future.result()
                        except BrokenProcessPool:
                            broken = True
                            continue
                        left.remove(shard)
                        if progress is not None:
                            progress(shard, report)
                        yield report
                if not broken:
                    return
        raise JobError(
            f"worker processes kept dying: shards {[s.number for s in left]} did not finish "
            f"in {self.attempts} pools; run the job again to resume"
        )


def _distributed() -> Any:
    """The ``distributed`` package (the ``hmodel[dask]`` extra), imported when first used."""
    return importlib.import_module("distributed")


class DaskExecutor:
    """Shards as tasks of a Dask distributed cluster (the ``hmodel[dask]`` extra).

    Each shard is one task (``client.submit(call, shard)``); a worker that dies has its
    task rerun elsewhere by the scheduler (up to its ``allowed-failures``), resuming from
    the shard's checkpoint.

    Args:
        client: A ``distributed.Client``, or a scheduler address (``"tcp://host:8786"``)
            to connect one to.
        retries: Dask's own retries of a task that raised (not of a dead worker).
    """

    def __init__(self, client: Any, *, retries: int = 0) -> None:
        if isinstance(client, str):
            client = _distributed().Client(client)
        self.client = client
        self.retries = retries

    @property
    def workers(self) -> int:
        """The cluster's worker threads (``nthreads`` summed)."""
        threads: dict[str, int] = self.client.nthreads()
        return max(1, sum(threads.values()))

    def run(
        self,
        call: ShardCall,
        shards: Sequence[Shard],
        backend: Backend,
        progress: Progress | None,
    ) -> Iterator[ShardReport]:
        """See :meth:`Executor.run` (``progress`` after every shard)."""
        futures = [
            self.client.submit(call, shard, pure=False, retries=self.retries) for shard in shards
        ]
        done = _distributed().as_completed(futures, with_results=True)
        for _, report in done:
            if progress is not None:
                progress(report.shard, report)
            yield report


def _partition(call: ShardCall, shards: Iterator[Shard]) -> Iterator[ShardReport]:
    for shard in shards:
        yield call(shard)


class SparkExecutor:
    """Shards as Spark tasks: ``mapPartitions`` over one partition per shard (``[spark]``).

    A Python worker that dies fails its task, which Spark runs again (up to
    ``spark.task.maxFailures``; in local mode give it as ``local[N,F]``), resuming from
    the shard's checkpoint.

    Args:
        spark: A ``SparkSession`` or a ``SparkContext``.
    """

    def __init__(self, spark: Any) -> None:
        self.context = getattr(spark, "sparkContext", spark)

    @property
    def workers(self) -> int:
        """Spark's default parallelism (cores of the executors)."""
        return max(1, int(self.context.defaultParallelism))

    def run(
        self,
        call: ShardCall,
        shards: Sequence[Shard],
        backend: Backend,
        progress: Progress | None,
    ) -> Iterator[ShardReport]:
        """See :meth:`Executor.run` (``progress`` once the whole phase is done)."""
        import functools

        rdd = self.context.parallelize(list(shards), numSlices=max(1, len(shards)))
        reports: list[ShardReport] = rdd.mapPartitions(
            functools.partial(_partition, call)
        ).collect()
        for report in reports:
            if progress is not None:
                progress(report.shard, report)
            yield report
