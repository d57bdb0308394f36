"""Summary tables (I3) recounted on the job runner: every executor, a worker killed mid-job."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

import pytest

from hmodel import Store
from hmodel.backend.base import Backend, Scan
from hmodel.backend.forwarding import ForwardingBackend
from hmodel.jobs import (
    JOBS_TABLE,
    TALLIES_TABLE,
    DirectoryCheckpoints,
    InlineExecutor,
    JobError,
    Sharding,
    SummaryTask,
    TableCheckpoints,
    run_summary_job,
)
from hmodel.patterns import SummarizedRepository
from tests.jobs.models import Crash, executor_of, orders_daily, stock_orders
from tests.patterns.summary_models import Order, at

SPLITS = (b"o10", b"o20", b"o30")
P = ParamSpec("P")
T = TypeVar("T")


def test_a_rebuild_recounts_in_shards_and_fixes_every_group(
    factory: Callable[[], Backend], tmp_path: Path
) -> None:
    """Counters never kept (orders saved without the summary) are rebuilt from the shards."""
    with factory() as backend:
        stock_orders(backend, 40, SPLITS)
        summary = orders_daily(backend)
        assert summary.verify().wrong == 12  # 3 customers x 4 days, all counters empty
        task = SummaryTask(orders_daily)
        crash = Crash(str(tmp_path / "crashed"), number=1, after=4, kill=False)
        store = TableCheckpoints()
        with pytest.raises(RuntimeError, match="crashed in shard 1"):
            run_summary_job(backend, task, store, job="daily", batch_size=4, hook=crash)
        report, settled = run_summary_job(
            backend, task, store, job="daily", fix=True, batch_size=4, hook=crash
        )
        assert report.count("counted") == 40 and report.count("rows") == 40
        assert (settled.wrong, settled.fixed) == (12, 12)
        assert summary.verify().ok
        assert summary.get(customer_id="c0", day="2026-11-01").orders == 4  # o00 o12 o24 o36
        assert list(backend.scan(TALLIES_TABLE, Scan())) == []  # the recounts are cleaned up


def test_a_settled_job_refuses_to_settle_again_from_nothing(
    factory: Callable[[], Backend],
) -> None:
    with factory() as backend:
        stock_orders(backend, 8)
        task = SummaryTask(orders_daily)
        store = TableCheckpoints()
        run_summary_job(backend, task, store, job="once", fix=True)
        with pytest.raises(JobError, match="settled before"):
            run_summary_job(backend, task, store, job="once", fix=True)
        store.bind(backend).forget("once")
        _report, again = run_summary_job(backend, task, store, job="once")
        assert again.ok


def test_counters_kept_at_write_time_verify_clean_on_the_runner(
    factory: Callable[[], Backend],
) -> None:
    """The write-time counters and the sharded recount agree: verify finds nothing."""
    with factory() as backend:
        stock_orders(backend, 0, SPLITS)
        summary = orders_daily(backend)
        orders = SummarizedRepository(Store(backend).repository(Order), [summary])
        for n in range(24):
            orders.save(Order(order_id=f"o{n:02d}", customer_id="ann", placed_at=at(2), total=n))
        report, settled = run_summary_job(
            backend, SummaryTask(orders_daily), TableCheckpoints(), job="v", batch_size=5
        )
        assert settled.ok and settled.rows == 24 and report.count("counted") == 24


@pytest.mark.parametrize("kind", ["process", "dask", "spark"])
def test_a_summary_rebuild_survives_a_killed_worker(
    kind: str,
    factory: Callable[[], Backend],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    """A worker SIGKILLed mid-shard: every row is still counted exactly once."""
    executor = executor_of(kind, request)
    store = DirectoryCheckpoints(tmp_path / "jobs") if kind == "process" else TableCheckpoints()
    with factory() as backend:
        stock_orders(backend, 40, SPLITS)
        report, settled = run_summary_job(
            backend,
            SummaryTask(orders_daily),
            store,
            job="killed",
            fix=True,
            executor=executor,
            factory=factory,
            batch_size=3,
            sharding=Sharding(parts=1),
            hook=Crash(str(tmp_path / "killed"), number=1, after=6),
        )
        assert (tmp_path / "killed").exists()
        assert report.count("counted") == 40
        assert settled.fixed == 12
        assert orders_daily(backend).verify().ok


def test_the_inline_executor_runs_it_too(factory: Callable[[], Backend]) -> None:
    with factory() as backend:
        stock_orders(backend, 10, SPLITS)
        _report, settled = run_summary_job(
            backend,
            SummaryTask(orders_daily),
            TableCheckpoints(),
            job="inline",
            executor=InlineExecutor(),
        )
        # 10 orders: (n % 3, n % 4) is a different group for each; verify fixes nothing
        assert (settled.wrong, settled.fixed, settled.rows) == (10, 0, 10)


class _DiesBeforeACheckpoint(ForwardingBackend):
    """Raises at the first checkpoint written after ``after`` recount rows landed."""

    def __init__(self, inner: Backend, after: int) -> None:
        super().__init__(inner)
        self.after = after
        self.recounts = 0
        self.fired = False

    def _forward(
        self, method: str, call: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        table = args[0] if args else None
        if method == "mutate" and table == TALLIES_TABLE:
            self.recounts += 1
        elif (
            method == "check_and_put"
            and table == JOBS_TABLE
            and self.recounts >= self.after
            and not self.fired
        ):
            self.fired = True
            raise RuntimeError("died between a batch's recount and its checkpoint")
        return call(*args, **kwargs)


def test_a_batch_whose_recount_landed_before_the_crash_is_counted_once(
    factory: Callable[[], Backend],
) -> None:
    """The re-run batch starts after the same row and replaces the recount row it left."""
    with factory() as plain:
        stock_orders(plain, 40, SPLITS)
        dying = _DiesBeforeACheckpoint(plain, after=3)
        task = SummaryTask(orders_daily)
        store = TableCheckpoints()
        with pytest.raises(RuntimeError, match="between a batch's recount"):
            run_summary_job(dying, task, store, job="twice", batch_size=4)
        assert dying.fired
        report, settled = run_summary_job(plain, task, store, job="twice", fix=True, batch_size=4)
        assert report.count("counted") == 40 and settled.rows == 40
        assert orders_daily(plain).verify().ok
