"""One ThriftBackend shared by many threads: each RPC borrows a pooled connection."""

from __future__ import annotations

import threading

from hmodel.backend.base import Put, Scan
from hmodel.backend.thrift import ThriftBackend
from hmodel.testing import FakeHBaseServer


def test_threads_sharing_a_small_pool_lose_no_increment(
    server: FakeHBaseServer, table: str
) -> None:
    shared = ThriftBackend(server.host, server.port, pool_size=3)
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for step in range(25):
                shared.increment(table, b"c", b"f:n")
                shared.mutate(table, [Put(b"w%d" % worker, b"f:q", b"%d" % step)])
                assert len(list(shared.scan(table, Scan(start=b"w", batch_size=2)))) >= 1
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == []
        assert shared.increment(table, b"c", b"f:n", 0) == 8 * 25
        assert [r.value(b"f:q") for r in shared.get(table, [b"w0", b"w7"])] == [b"24", b"24"]
    finally:
        shared.close()
