"""The Thrift1 channel's pool: reuse, its bound, replacement after failures, and close."""

from __future__ import annotations

import threading
import time

import pytest

from hmodel.backend.base import Put
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift.channel import Retry
from hmodel.errors import ConnectionLostError, IllegalArgumentError
from hmodel.testing import FakeHBaseServer


def test_one_thread_reuses_one_connection(server: FakeHBaseServer) -> None:
    backend = ThriftBackend(server.host, server.port, pool_size=4)
    try:
        for _ in range(20):
            backend.list_tables()
        assert len(backend._channel._connections) == 1
    finally:
        backend.close()


def test_threads_wait_for_the_connections_of_a_full_pool(
    server: FakeHBaseServer, table: str
) -> None:
    shared = ThriftBackend(server.host, server.port, pool_size=2)
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for step in range(20):
                shared.mutate(table, [Put(b"w%d" % worker, b"f:q", b"%d" % step)])
                shared.get(table, [b"w%d" % worker])
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == []
        assert len(shared._channel._connections) <= 2
        assert shared.round_trips == 6 * 20 * 2
    finally:
        shared.close()


def test_an_unencodable_argument_gives_its_connection_place_back(
    server: FakeHBaseServer, table: str
) -> None:
    backend = ThriftBackend(server.host, server.port, pool_size=1)
    try:
        with pytest.raises(IllegalArgumentError, match="cannot be encoded"):
            backend._channel.call(
                "atomicIncrement", b"t", b"r", b"f:n", "one", retry=Retry.UNSENT, table=table
            )
        assert backend.round_trips == 0
        assert backend.increment(table, b"r", b"f:n") == 1  # the only place was freed
    finally:
        backend.close()


def test_closing_wakes_a_thread_waiting_for_a_connection(server: FakeHBaseServer) -> None:
    backend = ThriftBackend(server.host, server.port, pool_size=1)
    held = backend._channel._borrow()  # the pool's only connection, lent out
    outcome: list[BaseException] = []

    def wait() -> None:
        try:
            backend.list_tables()
        except BaseException as exc:  # reported by the main thread
            outcome.append(exc)

    waiter = threading.Thread(target=wait)
    waiter.start()
    while not backend._channel._waiting and waiter.is_alive():  # until it waits in the pool
        time.sleep(0.001)
    backend.close()
    waiter.join(timeout=10)
    backend._channel._give_back(held)
    assert not waiter.is_alive()
    assert len(outcome) == 1
    assert isinstance(outcome[0], ConnectionLostError)
    assert "closed" in str(outcome[0])
