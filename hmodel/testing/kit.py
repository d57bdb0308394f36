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
    cluster under the table prefix ``HMODEL_TEST_PREFIX`` (default ``hmodel_test``), and
    only the prefixed tables are dropped.
    """
    if target == "memory":
        from hmodel.backend.memory import MemoryBackend

        yield MemoryBackend()
        return
    from hmodel.backend.thrift import ThriftBackend
    from hmodel.backend.thrift2 import Thrift2Backend

    prefix = os.environ.get(PREFIX_VARIABLE)
    backend: Backend
    if target in ("thrift", "thrift2"):
        server = request.getfixturevalue("hmodel_thrift_server")
        if target == "thrift":
            # Tables Thrift1's createTable cannot carry (split points) go through the
            # server's Thrift2 side, as with HBase's thrift and thrift2 side by side.
            admin = f"{server.host}:{server.thrift2_port}"
            backend = ThriftBackend(server.host, server.port, table_prefix=prefix, admin=admin)
        else:
            backend = Thrift2Backend(server.host, server.thrift2_port, table_prefix=prefix)
    elif target == "hbase":
        host, port = request.getfixturevalue("hmodel_real_hbase_address")
        backend = ThriftBackend(host, port, table_prefix=prefix or "hmodel_test")
    else:
        host, port = request.getfixturevalue("hmodel_real_hbase2_address")
        backend = Thrift2Backend(host, port, table_prefix=prefix or "hmodel_test")
    _drop_all(backend)
    try:
        yield backend
    finally:
        _drop_all(backend)
        backend.close()
