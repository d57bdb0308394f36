"""A data migration (the e-commerce orders, 10 salt buckets to 16) on the job runner."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from examples.ecommerce.migrations import Order16
from hmodel import Store
from hmodel.backend.base import Backend, Scan
from hmodel.errors import OutcomeUnknownError
from hmodel.jobs import (
    DirectoryCheckpoints,
    MigrationTask,
    TableCheckpoints,
    run_job,
)
from hmodel.testing.fault import FaultyBackend
from tests.jobs.models import Crash, executor_of, orders_to_16, shop_with_orders


def _old_orders(backend: Backend) -> int:
    return sum(1 for _ in backend.scan("order", Scan(columns=(b"o",))))


@pytest.mark.parametrize("kind", ["inline", "process", "dask", "spark"])
def test_a_migration_moves_every_order_once_with_a_worker_killed(
    kind: str,
    factory: Callable[[], Backend],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    """The old table's 10 regions as shards; a worker dies mid-shard (inline: raises, and
    the job is run again): every order ends in the new layout once, none in the old."""
    with factory() as backend:
        orders = shop_with_orders(backend)
        assert orders == 120 and _old_orders(backend) == 120
        store = DirectoryCheckpoints(tmp_path / "jobs") if kind == "process" else TableCheckpoints()
        crash = Crash(str(tmp_path / "killed"), number=3, after=7, kill=kind != "inline")
        options: dict[str, Any] = {
            "executor": executor_of(kind, request),
            "factory": factory,
            "batch_size": 7,
        }
        if kind == "inline":
            with pytest.raises(RuntimeError, match="crashed in shard 3"):
                run_job(backend, MigrationTask(orders_to_16), store, job="m", hook=crash, **options)
        report = run_job(
            backend, MigrationTask(orders_to_16), store, job="m", hook=crash, **options
        )
        assert (tmp_path / "killed").exists()
        assert report.problems == 0 and len(report.shards) == 10
        moved = (report.count("read"), report.count("written"), report.count("deleted"))
        # A broken pool stops its other worker wherever it is; the old rows its batch
        # had moved are gone when the batch runs again, but counted from its record.
        assert moved == (120, 120, 120)
        assert _old_orders(backend) == 0
        new = list(Store(backend).repository(Order16).scan())
        assert len(new) == len({o.order_id for o in new}) == 120
        verify = run_job(backend, MigrationTask(orders_to_16, "verify"), store, job="v")
        assert verify.problems == 0 and verify.count("old_rows") == 0
        assert orders_to_16(backend).verify().clean


@pytest.mark.parametrize("nth", [1, 2, 13])
def test_a_resumed_migration_reports_what_an_uninterrupted_run_does_F5(
    backend: Backend, nth: int
) -> None:
    """A batch cut after one of its writes landed (the reply lost), resumed with the same
    job id: the rows the cut run had moved are no longer read, yet counted once."""
    orders = shop_with_orders(backend)
    faulty = FaultyBackend(backend)
    faulty.on("mutate", nth=nth, fail=OutcomeUnknownError("killed"), fail_after=True)
    store = TableCheckpoints()
    with pytest.raises(OutcomeUnknownError):
        run_job(faulty, MigrationTask(orders_to_16), store, job="cut", batch_size=5)
    report = run_job(backend, MigrationTask(orders_to_16), store, job="cut", batch_size=5)
    moved = (report.count("read"), report.count("written"), report.count("deleted"))
    assert moved == (orders, orders, orders) and report.count("rows") == orders
    assert _old_orders(backend) == 0
    assert len(list(Store(backend).repository(Order16).scan())) == orders
