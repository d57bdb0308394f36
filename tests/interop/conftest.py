"""Fixtures of the interop tests: one JVM of HBase's own client per module, both protocols."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from hmodel.backend.base import Backend
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.schema import Family, Table
from hmodel.testing.plugin import _zookeeper_of
from tests.interop.client import JavaClient

#: The families every interop table has.
FAMILIES = ("d",)


@pytest.fixture(scope="module")
def java(hmodel_real_hbase_address: tuple[str, int]) -> Iterator[JavaClient]:
    """HBase 2.6.1's Java client in one JVM, connected to the real cluster's ZooKeeper."""
    zookeeper = _zookeeper_of(hmodel_real_hbase_address)
    if zookeeper is None:
        pytest.skip("the ZooKeeper of the real cluster is unknown (set HMODEL_TEST_ZOOKEEPER)")
    client = JavaClient(zookeeper)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture(scope="module")
def real_backends(
    hmodel_real_hbase_address: tuple[str, int], hmodel_real_hbase2_address: tuple[str, int]
) -> Iterator[dict[str, Backend]]:
    """Unprefixed backends on the real cluster over Thrift1 (``hbase``) and Thrift2 (``hbase2``)."""
    backends: dict[str, Backend] = {
        "hbase": ThriftBackend(*hmodel_real_hbase_address),
        "hbase2": Thrift2Backend(*hmodel_real_hbase2_address),
    }
    try:
        yield backends
    finally:
        for backend in backends.values():
            backend.close()


@pytest.fixture(scope="module")
def interop_table(
    request: pytest.FixtureRequest, real_backends: dict[str, Backend]
) -> Iterator[str]:
    """A fresh table of this module under the session's prefix, dropped afterwards."""
    prefix = os.environ.get("HMODEL_TEST_PREFIX") or "hmodel_test"
    name = f"{prefix}_interop_{request.module.__name__.rpartition('.')[2].removeprefix('test_')}"
    admin = real_backends["hbase2"]
    if admin.table_exists(name):
        admin.delete_table(name)
    admin.create_table(Table(name, [Family(f) for f in FAMILIES]))
    try:
        yield name
    finally:
        admin.delete_table(name)
