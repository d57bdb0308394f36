"""The backend targets of the shipped test kit: one test body on every backend (fakeredis-style)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pytest

from hmodel.backend.base import Backend

if TYPE_CHECKING:
    from hmodel.backend.aio import AsyncBackend

__all__ = [
    "ALL_TARGETS",
    "ASYNC_SUFFIX",
    "FAKE_TARGETS",
    "FAKE_TRANSPORT_TARGETS",
    "PREFIX_VARIABLE",
    "REAL_TARGETS",
    "REAL_TRANSPORT_TARGETS",
    "TARGETS",
    "TARGETS_VARIABLE",
    "as_async",
    "is_async",
    "is_real",
    "open_target",
    "real_prefix",
    "split_target",
    "target_params",
]

#: The in-process engine and hmodel's own HBase-compatible servers: always available.
FAKE_TARGETS = ("memory", "thrift", "thrift2")
#: A real HBase: Thrift1 (``HMODEL_TEST_HBASE=host:port`` or a testcontainer) and Thrift2
#: (``HMODEL_TEST_HBASE2=host:port``); skipped with a reason when not available.
REAL_TARGETS = ("hbase", "hbase2")
TARGETS = FAKE_TARGETS + REAL_TARGETS
#: Both Thrift backends against the fake servers over a socket in TLS (``-tls``), Thrift
#: over HTTP (``-http``) and HTTPS (``-https``); the certificates are the session's own
#: (:mod:`hmodel.testing.certs`, needs ``openssl``).
FAKE_TRANSPORT_TARGETS = (
    "thrift-tls",
    "thrift-http",
    "thrift-https",
    "thrift2-tls",
    "thrift2-http",
    "thrift2-https",
)
#: Both Thrift backends against a real HBase's Thrift servers in HTTP mode, without and
#: with TLS (:class:`~hmodel.testing.hbase_process.ThriftServers`); HBase serves no TLS
#: on its socket mode.
REAL_TRANSPORT_TARGETS = ("hbase-http", "hbase-https", "hbase2-http", "hbase2-https")
#: A target's name followed by this (``thrift2-https-async``) is the same server reached
#: through the asyncio backend of its kind (``AsyncMemoryBackend``, ``AsyncThriftBackend``,
#: ``AsyncThrift2Backend``), served to a synchronous test by
#: :class:`~hmodel.testing.async_edge.AsyncEdgeBackend` (table administration through the
#: synchronous backend).
ASYNC_SUFFIX = "-async"
_SYNC_TARGETS = TARGETS + FAKE_TRANSPORT_TARGETS + REAL_TRANSPORT_TARGETS
#: Every target ``HMODEL_TARGETS`` may name: each synchronous one, and its ``-async`` form.
ALL_TARGETS = _SYNC_TARGETS + tuple(t + ASYNC_SUFFIX for t in _SYNC_TARGETS)

#: ``HMODEL_TARGETS=memory,thrift2`` runs only those targets (default: the five of
#: :data:`TARGETS`, plus the transport targets for tests marked ``transports``).
TARGETS_VARIABLE = "HMODEL_TARGETS"
#: The table prefix on a real cluster (default ``hmodel_test``); only its tables are dropped.
PREFIX_VARIABLE = "HMODEL_TEST_PREFIX"


def is_async(target: str) -> bool:
    """Whether ``target`` reaches its server through an asyncio backend (``-async``)."""
    return target.endswith(ASYNC_SUFFIX)


def as_async(target: str) -> str:
    """The ``-async`` form of ``target``: ``"thrift2"`` gives ``"thrift2-async"``."""
    return target if is_async(target) else target + ASYNC_SUFFIX


def split_target(target: str) -> tuple[str, str]:
    """``(backend target, transport)``: ``"thrift2-https"`` is ``("thrift2", "https")``.

    The transport is ``"socket"`` for the five plain targets; an ``-async`` form splits
    as its synchronous target (see :func:`is_async`).
    """
    if is_async(target):
        target = target[: -len(ASYNC_SUFFIX)]
    base, _, transport = target.partition("-")
    return base, transport or "socket"


def is_real(target: str) -> bool:
    """Whether ``target`` needs a real HBase (``hbase``, ``hbase2`` and their transports)."""
    return split_target(target)[0] in REAL_TARGETS


def target_params(
    *, transports: bool = False, real_transports: bool = False, async_edge: bool = False
) -> list[Any]:
    """The targets to run, as pytest params; real-HBase ones carry the ``hbase`` marker.

    ``HMODEL_TARGETS`` (comma-separated names of :data:`ALL_TARGETS`) decides when set;
    else :data:`TARGETS`, with :data:`FAKE_TRANSPORT_TARGETS` when ``transports`` and
    :data:`REAL_TRANSPORT_TARGETS` when ``real_transports``; with ``async_edge``, also
    the ``-async`` form of each of those that is not real (the real ones only when
    ``HMODEL_TARGETS`` names them: a real server is slow to clean between tests).

    Raises:
        pytest.UsageError: ``HMODEL_TARGETS`` names an unknown target.
    """
    wanted = os.environ.get(TARGETS_VARIABLE)
    if wanted:
        chosen = tuple(t.strip() for t in wanted.split(",") if t.strip())
    else:
        chosen = TARGETS
        if transports:
            chosen += FAKE_TRANSPORT_TARGETS
        if real_transports:
            chosen += REAL_TRANSPORT_TARGETS
        if async_edge:
            chosen += tuple(as_async(t) for t in chosen if not is_real(t))
    unknown = sorted(set(chosen) - set(ALL_TARGETS))
    if unknown:
        raise pytest.UsageError(
            f"{TARGETS_VARIABLE} names unknown targets {unknown}: {ALL_TARGETS}"
        )
    return [pytest.param(t, marks=pytest.mark.hbase) if is_real(t) else t for t in chosen]


def _drop_all(backend: Backend) -> None:
    for name in backend.list_tables():
        backend.delete_table(name)


@contextmanager
def open_target(target: str, request: pytest.FixtureRequest) -> Iterator[Backend]:
    """A clean backend of ``target`` for one test; its tables are dropped afterwards.

    ``memory`` is a fresh engine. ``thrift``/``thrift2`` talk to the session's fake server
    (:func:`hmodel.testing.plugin.hmodel_thrift_server`), private to the test run: every
    table is dropped before and after the test; their ``-tls``, ``-http`` and ``-https``
    forms talk to the session's fake server of that transport
    (:func:`hmodel.testing.plugin.hmodel_transport_servers`). ``hbase``/``hbase2`` talk to
    a real cluster under the table prefix :func:`real_prefix` (or one of its copies'
    prefixes, ``-1``, ``-2``, ...: the backend's ``table_prefix`` says which, from its
    first call); only those tables are touched, and a test's tables are kept for the next
    test that creates them alike, emptied in the background
    (:class:`~hmodel.testing.table_reuse.TablePool`) instead of dropped and re-created;
    their ``-http``/``-https`` forms reach the same cluster through its Thrift servers in
    HTTP mode, with the same tables.
    An ``-async`` target is its synchronous target's server reached through the
    asyncio backend of its kind, served by an
    :class:`~hmodel.testing.async_edge.AsyncEdgeBackend` (tables created and dropped
    through the synchronous backend).
    """
    if is_async(target):
        from hmodel.testing.async_edge import AsyncEdgeBackend, async_backend_of

        with open_target(target[: -len(ASYNC_SUFFIX)], request) as sync:

            def open_async() -> AsyncBackend:
                made = async_backend_of(sync)
                assert made is not None, f"no asyncio backend for {sync!r}"
                return made

            # async_backend_of tells a real target's table pool of each data call
            edge = AsyncEdgeBackend(open_async, sync, owns_admin=False)
            try:
                yield edge
            finally:
                edge.close()
        return
    if target == "memory":
        from hmodel.backend.memory import MemoryBackend

        yield MemoryBackend()
        return
    from hmodel.backend.thrift import ThriftBackend
    from hmodel.backend.thrift2 import Thrift2Backend

    if is_real(target):
        with _real_target(target, request) as backend:
            yield backend
        return
    prefix = os.environ.get(PREFIX_VARIABLE)
    base, transport = split_target(target)
    options: dict[str, Any] = {}
    if transport == "socket":
        server = request.getfixturevalue("hmodel_thrift_server")
    else:
        servers = request.getfixturevalue("hmodel_transport_servers")
        server = servers.server(transport)
        options = servers.client_options(transport)
    fake: Backend
    if base == "thrift":
        # Tables Thrift1's createTable cannot carry (split points) go through the server's
        # Thrift2 side, as with HBase's thrift and thrift2 servers side by side.
        admin = f"{server.host}:{server.thrift2_port}"
        fake = ThriftBackend(server.host, server.port, table_prefix=prefix, admin=admin, **options)
    else:
        fake = Thrift2Backend(server.host, server.thrift2_port, table_prefix=prefix, **options)
    _drop_all(fake)
    try:
        yield fake
    finally:
        _drop_all(fake)
        fake.close()


#: The data calls that write nothing (a table only read is not emptied after the test).


def real_prefix(target: str) -> str:
    """The table prefix of a real target: ``HMODEL_TEST_PREFIX`` (default ``hmodel_test``).

    ``hbase2`` appends ``2``: both targets may be one cluster, and each keeps its own
    tables between tests (:class:`~hmodel.testing.table_reuse.TablePool`, whose further
    copies of a table use this prefix followed by ``-1``, ``-2``, ...). A transport form
    (``hbase2-https``) shares its backend target's prefix and tables.
    """
    prefix = os.environ.get(PREFIX_VARIABLE) or "hmodel_test"
    return prefix + "2" if split_target(target)[0] == "hbase2" else prefix


@contextmanager
def _real_target(target: str, request: pytest.FixtureRequest) -> Iterator[Backend]:
    from hmodel.testing.table_reuse import ReusingThrift2Backend, ReusingThriftBackend

    backend: Backend
    base, transport = split_target(target)
    role = "thrift" if base == "hbase" else "thrift2"
    options: dict[str, Any] = {}
    if transport == "socket":
        host, port = request.getfixturevalue(f"hmodel_real_{base}_address")
    else:
        servers = request.getfixturevalue("hmodel_real_hbase_transports")
        host, port = servers.address(role, transport)
        options = servers.client_options(transport)
    pool = request.getfixturevalue(f"hmodel_real_{base}_pool")
    kind = ReusingThriftBackend if base == "hbase" else ReusingThrift2Backend
    with pool.for_test(kind, host, port, table_prefix=real_prefix(target), **options) as backend:
        yield backend
