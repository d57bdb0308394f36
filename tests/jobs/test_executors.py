"""The same jobs on every executor, a worker killed mid-shard in each: the exact result (I3, R3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hmodel import Store
from hmodel.backend.base import Backend
from hmodel.jobs import (
    CheckpointStore,
    CopyTask,
    DirectoryCheckpoints,
    IndexTask,
    InlineExecutor,
    JobError,
    JobReport,
    ProcessExecutor,
    RateLimit,
    Sharding,
    TableCheckpoints,
    job_status,
    run_job,
)
from hmodel.jobs.model import Task
from tests.jobs.models import Crash, always_die, drop_all, executor_of, ship_to, stock
from tests.patterns.index_models import colour_index
from tests.patterns.shared_models import Line, Shipping

SPLITS = (b"i10", b"i20", b"i30")


def _store(kind: str, tmp_path: Path) -> CheckpointStore:
    # A pool shares the local disk; Dask and Spark record in the cluster, as across machines.
    return DirectoryCheckpoints(tmp_path / "jobs") if kind == "process" else TableCheckpoints()


def _as_run(kind: str, counts: dict[str, int]) -> dict[str, int]:
    """The counts an executor promises after a kill: exact, but for the process pool.

    A broken ``concurrent.futures`` pool terminates its other workers wherever they are:
    the rows a stopped batch had already written count as ``ok`` when it is run again
    (see :class:`~hmodel.jobs.ProcessExecutor`), so only their sum is exact there.
    """
    if kind != "process":
        return dict(counts)
    merged = dict(counts)
    merged["ok+written"] = merged.pop("ok", 0) + merged.pop("written", 0)
    return merged


def _rebuild(backend: Backend, store: CheckpointStore, job: str, **options: Any) -> JobReport:
    task: Task = IndexTask(colour_index(), "rebuild")
    return run_job(backend, task, store, job=job, batch_size=4, **options)


@pytest.mark.parametrize("kind", ["process", "dask", "spark"])
def test_an_index_rebuild_survives_a_killed_worker(
    kind: str,
    factory: Callable[[], Backend],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    """A worker SIGKILLed after 6 rows of shard 1: the job ends as an uninterrupted run."""
    executor = executor_of(kind, request)
    store = _store(kind, tmp_path)
    with factory() as backend:
        stock(backend, 40, SPLITS)
        reference = _rebuild(backend, store, "reference")  # inline, on the same data
        assert reference.count("written") == 40 and len(reference.shards) == 5
        drop_all(backend)
        stock(backend, 40, SPLITS)
        marker = tmp_path / "killed"
        report = _rebuild(
            backend,
            store,
            "killed",
            executor=executor,
            factory=factory,
            sharding=Sharding(parts=1),
            limit=RateLimit(1_000_000),
            hook=Crash(str(marker), number=1, after=6),
        )
        assert marker.exists()  # a worker died mid-shard
        assert _as_run(kind, report.counts) == _as_run(kind, reference.counts)
        assert [s.rows for s in report.shards] == [s.rows for s in reference.shards]
        assert job_status(backend, store, "killed").counts == report.counts
        verify = run_job(backend, IndexTask(colour_index(), "verify"), store, job="verify")
        assert verify.problems == 0 and verify.count("ok") == 40


def test_the_inline_executor_resumes_a_crashed_job(
    factory: Callable[[], Backend], tmp_path: Path
) -> None:
    """Inline, the "kill" is an exception mid-shard; a second run resumes from the records."""
    store = TableCheckpoints()
    with factory() as backend:
        stock(backend, 40, SPLITS)
        reference = _rebuild(backend, store, "reference")
        drop_all(backend)
        stock(backend, 40, SPLITS)
        crash = Crash(str(tmp_path / "crashed"), number=1, after=6, kill=False)
        with pytest.raises(RuntimeError, match="crashed in shard 1"):
            _rebuild(backend, store, "crashed", executor=InlineExecutor(), hook=crash)
        report = _rebuild(backend, store, "crashed", executor=InlineExecutor(), hook=crash)
        assert report.counts == reference.counts


@pytest.mark.parametrize("kind", ["process", "dask", "spark"])
def test_a_copy_sync_runs_on_every_executor(
    kind: str,
    factory: Callable[[], Backend],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    """Copies (R3) repaired over the source table's shards, with a worker killed."""
    executor = executor_of(kind, request)
    with factory() as backend:
        shop = Store(backend)
        shop.create_tables(Shipping)
        copy = ship_to(backend)
        for n in range(8):
            shipping = Shipping(order_id=f"o{n}", ship=1, city="Paris")
            shop.repository(Shipping).save(shipping)
            line = Line(order_id=f"o{n}", ship=1, line=1, item="i", ship_city="")
            shop.repository(Line).save(copy.fill(line, shipping))
            shop.repository(Shipping).save(Shipping(order_id=f"o{n}", ship=1, city="Oslo"))
        report = run_job(
            backend,
            CopyTask(ship_to, "repair"),
            _store(kind, tmp_path),
            job="repair",
            executor=executor,
            factory=factory,
            batch_size=2,
            sharding=Sharding(rows_per_shard=4),
            hook=Crash(str(tmp_path / "killed"), number=0, after=2),
        )
        assert (tmp_path / "killed").exists()
        assert report.count("sources") == 8
        if kind == "process":  # the broken pool may stop the other worker mid-batch
            assert 0 < report.count("written") <= 8
        else:
            assert report.count("written") == 8
        verify = run_job(backend, CopyTask(ship_to, "verify"), _store(kind, tmp_path), job="v")
        assert verify.problems == 0


def test_a_pool_whose_workers_keep_dying_gives_up_and_the_job_resumes_later(
    factory: Callable[[], Backend], tmp_path: Path
) -> None:
    store = DirectoryCheckpoints(tmp_path)
    with factory() as backend:
        stock(backend, 8, (b"i04",))
        task = IndexTask(colour_index(), "backfill")
        pool = ProcessExecutor(1, mp_context="spawn", attempts=2)
        with pytest.raises(JobError, match="kept dying: shards \\[0, 1\\] did not finish in 2"):
            run_job(backend, task, store, job="j", executor=pool, factory=factory, hook=always_die)
        assert not job_status(backend, store, "j").done
        report = run_job(backend, task, store, job="j", executor=pool, factory=factory)
        assert report.done and report.count("written") == 8
