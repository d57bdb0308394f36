"""The backend targets of the shipped test kit: one test body on every backend (fakeredis-style)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from hmodel.backend.base import Backend

__all__ = [
    "FAKE_TARGETS",
    "PREFIX_VARIABLE",
    "REAL_TARGETS",
    "TARGETS",
    "TARGETS_VARIABLE",
    "open_target",
    "real_prefix",
    "target_params",
]

#: The in-process engine and hmodel's own HBase-compatible servers: always available.
FAKE_TARGETS = ("memory", "thrift", "thrift2")
#: A real HBase: Thrift1 (``HMODEL_TEST_HBASE=host:port`` or a testcontainer) and Thrift2
#: (``HMODEL_TEST_HBASE2=host:port``); skipped with a reason when not available.
REAL_TARGETS = ("hbase", "hbase2")
TARGETS = FAKE_TARGETS + REAL_TARGETS

#: ``HMODEL_TARGETS=memory,thrift2`` runs only those targets (default: all five).
TARGETS_VARIABLE = "HMODEL_TARGETS"
#: The table prefix on a real cluster (default ``hmodel_test``); only its tables are dropped.
PREFIX_VARIABLE = "HMODEL_TEST_PREFIX"


def target_params() -> list[Any]:
    """The targets to run, as pytest params; real-HBase ones carry the ``hbase`` marker."""
    wanted = os.environ.get(TARGETS_VARIABLE)
    chosen = TARGETS if not wanted else tuple(t.strip() for t in wanted.split(",") if t.strip())
    unknown = sorted(set(chosen) - set(TARGETS))
    if unknown:
        raise pytest.UsageError(f"{TARGETS_VARIABLE} names unknown targets {unknown}: {TARGETS}")
    return [pytest.param(t, marks=pytest.mark.hbase) if t in REAL_TARGETS else t for t in chosen]


def _drop_all(backend: Backend) -> None:
    for name in backend.list_tables():
        backend.delete_table(name)


@contextmanager
def open_target(target: str, request: pytest.FixtureRequest) -> Iterator[Backend]:
    """A clean backend of ``target`` for one test; its tables are dropped afterwards.

    ``memory`` is a fresh engine. ``thrift``/``thrift2`` talk to the session's fake server
    (:func:`hmodel.testing.plugin.hmodel_thrift_server`), private to the test run: every
    table is dropped before and after the test. ``hbase``/``hbase2`` talk to a real
    cluster under the table prefix :func:`real_prefix` (or one of its copies' prefixes,
    ``-1``, ``-2``, ...: the backend's ``table_prefix`` says which, from its first call);
    only those tables are touched, and a test's tables are kept for the next test that
    creates them alike, emptied in the background
    (:class:`~hmodel.testing.table_reuse.TablePool`) instead of dropped and re-created.
    """
    if target == "memory":
        from hmodel.backend.memory import MemoryBackend

        yield MemoryBackend()
        return
    from hmodel.backend.thrift import ThriftBackend
    from hmodel.backend.thrift2 import Thrift2Backend

    if target in ("hbase", "hbase2"):
        with _real_target(target, request) as backend:
            yield backend
        return
    prefix = os.environ.get(PREFIX_VARIABLE)
    server = request.getfixturevalue("hmodel_thrift_server")
    fake: Backend
    if target == "thrift":
        # Tables Thrift1's createTable cannot carry (split points) go through the server's
        # Thrift2 side, as with HBase's thrift and thrift2 servers side by side.
        admin = f"{server.host}:{server.thrift2_port}"
        fake = ThriftBackend(server.host, server.port, table_prefix=prefix, admin=admin)
    else:
        fake = Thrift2Backend(server.host, server.thrift2_port, table_prefix=prefix)
    _drop_all(fake)
    try:
        yield fake
    finally:
        _drop_all(fake)
        fake.close()


def real_prefix(target: str) -> str:
    """The table prefix of a real target: ``HMODEL_TEST_PREFIX`` (default ``hmodel_test``).

    ``hbase2`` appends ``2``: both targets may be one cluster, and each keeps its own
    tables between tests (:class:`~hmodel.testing.table_reuse.TablePool`, whose further
    copies of a table use this prefix followed by ``-1``, ``-2``, ...).
    """
    prefix = os.environ.get(PREFIX_VARIABLE) or "hmodel_test"
    return prefix + "2" if target == "hbase2" else prefix


@contextmanager
def _real_target(target: str, request: pytest.FixtureRequest) -> Iterator[Backend]:
    from hmodel.testing.table_reuse import ReusingThrift2Backend, ReusingThriftBackend

    backend: Backend
    if target == "hbase":
        host, port = request.getfixturevalue("hmodel_real_hbase_address")
        pool = request.getfixturevalue("hmodel_real_hbase_pool")
        backend = ReusingThriftBackend(pool, host, port, table_prefix=real_prefix(target))
    else:
        host, port = request.getfixturevalue("hmodel_real_hbase2_address")
        pool = request.getfixturevalue("hmodel_real_hbase2_pool")
        backend = ReusingThrift2Backend(pool, host, port, table_prefix=real_prefix(target))
    pool.begin()
    try:
        yield backend
    finally:
        try:
            pool.end()
        finally:
            backend.close()
