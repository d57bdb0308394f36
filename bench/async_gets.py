"""Async benchmark: N concurrent gets from one event loop against N threads on the sync API.

Both sides read the same rows of a 1,000-row table from the fake HBase server's Thrift2
API, run by ``hmodel fake-hbase`` in **its own process** on 127.0.0.1: hmodel's
``AsyncRepository`` over ``AsyncThrift2Backend`` (one event loop, ``N`` tasks, a pool of
``N`` connections) against ``Repository`` over ``Thrift2Backend`` from ``N`` threads (a
pool of ``N`` connections). The ratio is the threads' wall-clock time over the event
loop's (above 1: the event loop is faster), the median of interleaved pairs; the note
adds both sides' gets per second and this process's CPU ratio.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from bench.harness import Result, Scale, paired_with_cpu, summary
from hmodel import Family, Key, Str, Table, field, model
from hmodel.aio import AsyncRepository
from hmodel.backend.thrift2 import AsyncThrift2Backend, Thrift2Backend
from hmodel.repository import Repository

__all__ = ["run"]

profiles = Table("bench_async_profile", [Family("p")])


@model(profiles, key=Key(Str("user_id")))
class Profile:
    user_id: str
    name: str = field("p:n")
    city: str = field("p:c")


class _Server:
    """``hmodel fake-hbase`` with its Thrift2 side, in a child process, stopped on exit."""

    def __enter__(self) -> _Server:
        self.process = subprocess.Popen(
            [
                *(sys.executable, "-m", "hmodel.cli", "fake-hbase"),
                *("--host", "127.0.0.1", "--port", "0", "--thrift2-port", "0"),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        for _ in range(2):
            line = self.process.stdout.readline()
            if "Thrift2 server listening on" in line:
                address = line.split("listening on ", 1)[1].split()[0]
                host, port = address.rsplit(":", 1)
                self.address = (host, int(port))
                return self
        self.process.kill()
        raise RuntimeError("hmodel fake-hbase did not report its Thrift2 port")

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def run(scale: Scale) -> list[Result]:
    """Measure N concurrent gets, one event loop against N threads; ratios only."""
    pairs = 5 if scale.repeat < 5 else 9
    gets = scale.count(4000, multiple=200)
    rows = 1000
    with _Server() as server:
        host, port = server.address
        admin = Thrift2Backend(host, port)
        admin.create_table(profiles)
        Repository(Profile, admin).save_many(
            [Profile(user_id=f"u{i:04d}", name=f"n{i}", city="c") for i in range(rows)]
        )
        admin.close()
        results = [
            _measure(host, port, tasks, gets=gets, rows=rows, pairs=pairs) for tasks in (8, 32)
        ]
    return results


def _measure(host: str, port: int, tasks: int, *, gets: int, rows: int, pairs: int) -> Result:
    """One ratio: ``tasks`` concurrent workers reading ``gets`` rows in all."""
    per_task = gets // tasks
    keys = [[f"u{(t * per_task + i) % rows:04d}" for i in range(per_task)] for t in range(tasks)]
    loop = asyncio.new_event_loop()
    abackend = AsyncThrift2Backend(host, port, pool_size=tasks)
    arepo = AsyncRepository(Profile, abackend)
    backend = Thrift2Backend(host, port, pool_size=tasks)
    repo = Repository(Profile, backend)
    pool = ThreadPoolExecutor(tasks)

    async def worker(mine: list[str]) -> None:
        for user_id in mine:
            await arepo.get(user_id=user_id, required=True)

    async def all_tasks() -> None:
        await asyncio.gather(*(worker(mine) for mine in keys))

    def on_loop(_: int) -> None:
        loop.run_until_complete(all_tasks())

    def thread_worker(mine: list[str]) -> None:
        for user_id in mine:
            repo.get(user_id=user_id, required=True)

    def on_threads(_: int) -> None:
        list(pool.map(thread_worker, keys))

    try:
        wall, cpu = paired_with_cpu(on_loop, on_threads, pairs=pairs)
    finally:
        pool.shutdown()
        backend.close()
        loop.run_until_complete(abackend.aclose())
        loop.close()
    ratio, spread = summary(wall)
    cpu_ratio, _ = summary(cpu)
    return Result(
        f"async.get_{tasks}",
        ratio,
        "x",
        "higher",
        f"{tasks} concurrent gets ({per_task * tasks} in all): threads' time over one "
        f"event loop's; client CPU ratio {cpu_ratio:.2f}",
        spread,
    )
