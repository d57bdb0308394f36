"""The job tests' servers: a fake HBase in a process of its own, Dask and Spark clusters."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hmodel.backend.base import Backend
from hmodel.backend.thrift2 import Thrift2Backend

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def fake_thrift2_process() -> Iterator[tuple[str, int]]:
    """A fake HBase server in its own process (``hmodel fake-hbase``): its Thrift2 address.

    Worker processes (a pool, Dask, Spark) reach it over TCP, as they would a cluster; the
    memory engine of one process cannot be shared with them.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "hmodel.cli", "fake-hbase", "--port", "0", "--thrift2-port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert process.stdout is not None
        address = None
        for line in process.stdout:
            found = re.search(r"Thrift2 server listening on ([\d.]+):(\d+)", line)
            if found:
                address = found.group(1), int(found.group(2))
                break
        assert address is not None, "the fake server did not start"
        yield address
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture
def factory(fake_thrift2_process: tuple[str, int]) -> Iterator[Callable[[], Backend]]:
    """Opens a backend on the fake server (picklable); every table is dropped around the test."""
    opener = functools.partial(Thrift2Backend, *fake_thrift2_process)
    with opener() as backend:
        for name in backend.list_tables():
            backend.delete_table(name)
    yield opener
    with opener() as backend:
        for name in backend.list_tables():
            backend.delete_table(name)


@pytest.fixture(scope="session")
def dask_client() -> Iterator[Any]:
    """A Dask ``LocalCluster`` of two single-threaded worker processes, and its client."""
    distributed = pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            memory_limit="1GiB",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark session for the test session: 2 cores, a task retried up to 3 times."""
    sql = pytest.importorskip("pyspark.sql", reason="the [spark] extra is not installed")
    if not os.environ.get("JAVA_HOME") and not _has_java():
        pytest.skip("Spark needs Java (no java on PATH and no JAVA_HOME)")
    # Spark's Python workers import the tasks' models (tests.*) from the project's root.
    paths = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        sql.SparkSession.builder.master("local[2,3]")
        .appName("hmodel-jobs-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "512m")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()


def _has_java() -> bool:
    import shutil

    return shutil.which("java") is not None
