"""What the job tests run: picklable tasks' factories and the hooks that crash a shard."""

from __future__ import annotations

import os
import signal

import attrs
import pytest

from examples.ecommerce.dataset import generate, load
from examples.ecommerce.migrations import ORDER16, ORDERS_SALT16, Order16
from examples.ecommerce.models import Order as EOrder
from examples.ecommerce.schema import TABLES as SHOP_TABLES
from examples.ecommerce.service import Shop
from hmodel import Query, Store
from hmodel.backend.base import Backend
from hmodel.clock import ManualClock
from hmodel.jobs import (
    DaskExecutor,
    Executor,
    IndexTask,
    InlineExecutor,
    ProcessExecutor,
    Shard,
    SparkExecutor,
)
from hmodel.patterns import Copy, Migrator, Relation, Summary
from hmodel.repository import Repository
from hmodel.schema import Family, Table
from tests.patterns.index_models import ITEMS_BY_COLOUR, Item, colour_index
from tests.patterns.shared_models import Line, Shipping, User
from tests.patterns.summary_models import DAILY, ORDERS, DailyOrders, Order, at, daily


def stock(backend: Backend, count: int, splits: tuple[bytes, ...] = ()) -> None:
    """``count`` items written before their colour index existed (over ``splits``)."""
    backend.create_table(Table("item", [Family("i")], splits=list(splits)))
    Repository(Item, backend).save_many(
        [Item(item_id=f"i{n:02d}", colour=("red", "blue")[n % 2], size=n) for n in range(count)]
    )
    backend.create_table(ITEMS_BY_COLOUR)


def drop_all(backend: Backend) -> None:
    for name in backend.list_tables():
        backend.delete_table(name)


def _lines_of(shipping: Shipping) -> Query:
    return Query({"order_id": shipping.order_id, "ship": shipping.ship})


def ship_to(backend: Backend) -> Copy[Shipping, Line]:
    """The shipping city copied into each line (R3)."""
    return Copy(Store(backend), Shipping, Line, fields={"ship_city": "city"}, locate=_lines_of)


def follows(backend: Backend) -> Relation[User, User]:
    """Who follows whom, kept on both sides (R6)."""
    return Relation(Store(backend), User, "follows", User, "fans")


@attrs.frozen
class Crash:
    """A hook: once shard ``number`` has read ``after`` rows, crash its process.

    ``kill``: ``SIGKILL`` the worker process (it dies mid-shard, before the batch is
    processed); else raise ``RuntimeError`` (the inline executor's "kill"). Only once per
    ``marker`` file, created when it fires, so the retried shard runs through.
    """

    marker: str
    number: int = 0
    after: int = 1
    kill: bool = True

    def __call__(self, shard: Shard, read: int) -> None:
        if shard.number != self.number or read < self.after:
            return
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.close(fd)
        if self.kill:
            os.kill(os.getpid(), signal.SIGKILL)
        raise RuntimeError(f"crashed in shard {shard.number} after {read} rows")


def colour_job(job: str = "backfill") -> IndexTask:
    """The colour index's job: what ``hmodel job run tests.jobs.models:colour_job`` runs."""
    return IndexTask(colour_index(), job)  # type: ignore[arg-type]


def colour_verify() -> IndexTask:
    return colour_job("verify")


def always_die(shard: Shard, read: int) -> None:
    """A hook: every worker dies at its first batch (a job that cannot make progress)."""
    os.kill(os.getpid(), signal.SIGKILL)


def orders_daily(backend: Backend) -> Summary[object, DailyOrders]:
    """Orders per customer per day (I3), on a worker's backend."""
    return daily(Store(backend))


def stock_orders(backend: Backend, count: int, splits: tuple[bytes, ...] = ()) -> None:
    """``count`` orders over ``splits``, saved without their summary (its counters empty)."""
    backend.create_table(Table(ORDERS.name, list(ORDERS.families), splits=list(splits)))
    backend.create_table(DAILY)
    Repository(Order, backend).save_many(
        [
            Order(order_id=f"o{n:02d}", customer_id=f"c{n % 3}", placed_at=at(1 + n % 4), total=n)
            for n in range(count)
        ]
    )


def orders_to_16(backend: Backend) -> Migrator[EOrder, Order16]:
    """The e-commerce orders moved from 10 salt buckets to 16, on a worker's backend."""
    return Migrator(Store(backend), ORDERS_SALT16, batch_size=7)


def shop_with_orders(backend: Backend) -> int:
    """The e-commerce shop loaded (120 orders) and the 16-bucket table: the orders' count."""
    for table in (*SHOP_TABLES, ORDER16):
        backend.create_table(table)
    clock = ManualClock()
    load(Shop(backend, clock=clock), generate(7, customers=30, orders=120, days=10), clock)
    return sum(1 for _ in Repository(EOrder, backend).scan())


def executor_of(kind: str, request: pytest.FixtureRequest) -> Executor:
    """The executor ``kind`` names: a pool of two spawned processes, or the session's
    Dask or Spark cluster (fixtures of tests/jobs/conftest.py), or the inline one."""
    if kind == "inline":
        return InlineExecutor()
    if kind == "process":
        return ProcessExecutor(2, mp_context="spawn")
    if kind == "dask":
        return DaskExecutor(request.getfixturevalue("dask_client"))
    return SparkExecutor(request.getfixturevalue("spark"))
