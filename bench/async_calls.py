"""Async benchmark: gets, scans and saves from one event loop, against threads and aiohappybase.

Every side does the same work on a 4,000-row table of the fake HBase server, run by
``hmodel fake-hbase`` in **its own process** on 127.0.0.1 (Thrift1 and Thrift2 over one
engine): ``N`` concurrent gets (one row each), 8 concurrent scans of 500 rows, ``N``
concurrent saves (one row of two cells each).

* ``async.<work>`` (Thrift2) and ``async.thrift1_<work>`` (Thrift1): hmodel's
  ``AsyncRepository`` over ``AsyncThrift2Backend``/``AsyncThriftBackend`` (one event
  loop, ``N`` tasks, a pool of ``N`` connections) against ``Repository`` over the
  synchronous backend from ``N`` threads (a pool of ``N`` connections). The ratio is the
  threads' time over the event loop's (above 1: the event loop is faster).
* ``async.aiohappybase_<work>``: the same Thrift1 work by hand-written **aiohappybase**
  code (a pool of ``N`` connections, each task holding one, rows turned into the same
  model objects) over hmodel's event loop: aiohappybase's time over hmodel's (above 1:
  hmodel is faster).

* ``async.wire_get`` and ``async.wire_scan``: the client's CPU for one call with no I/O
  (a Thrift2 ``get`` reply of one row, a ``getScannerRows`` reply of 500 rows served
  from memory): thriftpy2's asyncio client (``thriftpy2.contrib.aio``, the wire of
  aiohappybase and of hmodel before ``hmodel.backend.aio_wire``) over hmodel's wire.

Ratios are the median of interleaved pairs in one process; each note adds this
process's (the client's) CPU ratio, same direction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench.harness import Result, Scale, paired, paired_with_cpu, summary
from bench.servers import fake_servers
from hmodel import Family, Key, Str, Table, field, model
from hmodel.aio import AsyncRepository
from hmodel.backend.thrift import AsyncThriftBackend, ThriftBackend
from hmodel.backend.thrift2 import AsyncThrift2Backend, Thrift2Backend
from hmodel.repository import Repository

__all__ = ["run"]

profiles = Table("bench_async_profile", [Family("p")])

#: Rows in the table; scans read 500 of them each.
ROWS = 4000
SCAN_ROWS = 500
SCANS = 8


@model(profiles, key=Key(Str("user_id")))
class Profile:
    user_id: str
    name: str = field("p:n")
    city: str = field("p:c")


def _row(user_id: str) -> bytes:
    """The rowkey hmodel writes for ``user_id`` (order-preserving string: NUL NUL after it)."""
    return user_id.encode() + b"\x00\x00"


def _key(i: int) -> str:
    """Row ``i``'s user id (``i`` past the last row: a bound after it)."""
    return f"u{i:04d}"


def run(scale: Scale) -> list[Result]:
    """Measure gets, scans and saves: loop against threads (Thrift2, Thrift1), and aiohappybase."""
    pairs = 5 if scale.repeat < 5 else 7
    gets = scale.count(2000, multiple=32)
    saves = scale.count(1000, multiple=32)
    results = _wire(scale)
    with fake_servers() as server:
        admin = Thrift2Backend(*server.thrift2)
        admin.create_table(profiles)
        Repository(Profile, admin).save_many(
            [Profile(user_id=_key(i), name=f"n{i}", city="c" * 20) for i in range(ROWS)]
        )
        admin.close()
        for api, address in (("thrift2", server.thrift2), ("thrift1", server.thrift1)):
            prefix = "" if api == "thrift2" else "thrift1_"
            for work, tasks, count in (
                ("get", 8, gets),
                ("get", 32, gets),
                ("scan", SCANS, SCANS),
                ("save", 8, saves),
            ):
                bench = _Bench(api, address, tasks, pairs=pairs)
                try:
                    name = f"{work}_{tasks}"
                    results.append(bench.against_threads(f"async.{prefix}{name}", work, count))
                    if api == "thrift1":
                        results.append(
                            bench.against_aiohappybase(f"async.aiohappybase_{name}", work, count)
                        )
                finally:
                    bench.close()
    return results


_WHAT = {
    "get": "{tasks} concurrent gets ({count} in all)",
    "scan": f"{{tasks}} concurrent scans of {SCAN_ROWS} rows",
    "save": "{tasks} concurrent saves ({count} in all)",
}


class _Bench:
    """One API, one concurrency: hmodel's event loop, threads, and aiohappybase code."""

    def __init__(self, api: str, address: tuple[str, int], tasks: int, *, pairs: int) -> None:
        self.api = api
        self.pairs = pairs
        self.tasks = tasks
        self.address = address
        self.loop = asyncio.new_event_loop()
        async_class: Any = AsyncThrift2Backend if api == "thrift2" else AsyncThriftBackend
        sync_class: Any = Thrift2Backend if api == "thrift2" else ThriftBackend
        self.abackend = async_class(*address, pool_size=tasks)
        self.arepo = AsyncRepository(Profile, self.abackend)
        self.backend = sync_class(*address, pool_size=tasks)
        self.repo = Repository(Profile, self.backend)
        self.threads = ThreadPoolExecutor(tasks)
        self.pool: Any = None

    def close(self) -> None:
        self.threads.shutdown()
        self.backend.close()
        self.loop.run_until_complete(self.abackend.aclose())
        if self.pool is not None:
            self.pool.close()
        self.loop.close()

    def _shares(self, work: str, count: int) -> list[list[int]]:
        """What each task does: row numbers to get or save, or one scan's first row."""
        if work == "scan":
            return [[t * SCAN_ROWS] for t in range(self.tasks)]
        each = count // self.tasks
        return [[i % ROWS for i in range(t * each, (t + 1) * each)] for t in range(self.tasks)]

    def _on_loop(
        self, worker: Callable[[list[int]], Awaitable[None]], shares: list[list[int]]
    ) -> Callable[[int], object]:
        async def everything() -> None:
            await asyncio.gather(*(worker(share) for share in shares))

        return lambda _: self.loop.run_until_complete(everything())

    def _hmodel_loop(self, work: str, shares: list[list[int]]) -> Callable[[int], object]:
        repo = self.arepo

        async def worker(share: list[int]) -> None:
            if work == "get":
                for i in share:
                    await repo.get(user_id=_key(i), required=True)
            elif work == "save":
                for i in share:
                    await repo.save(Profile(user_id=_key(i), name=f"n{i}", city="c" * 20))
            else:
                found = [
                    p async for p in repo.scan(low=_key(share[0]), high=_key(share[0] + SCAN_ROWS))
                ]
                assert len(found) == SCAN_ROWS

        return self._on_loop(worker, shares)

    def _hmodel_threads(self, work: str, shares: list[list[int]]) -> Callable[[int], object]:
        repo = self.repo

        def worker(share: list[int]) -> None:
            if work == "get":
                for i in share:
                    repo.get(user_id=_key(i), required=True)
            elif work == "save":
                for i in share:
                    repo.save(Profile(user_id=_key(i), name=f"n{i}", city="c" * 20))
            else:
                found = list(repo.scan(low=_key(share[0]), high=_key(share[0] + SCAN_ROWS)))
                assert len(found) == SCAN_ROWS

        return lambda _: list(self.threads.map(worker, shares))

    def _aiohappybase(self, work: str, shares: list[list[int]]) -> Callable[[int], object]:
        from aiohappybase import ConnectionPool  # the baseline, imported only here

        if self.pool is None:
            host, port = self.address
            self.pool = ConnectionPool(self.tasks, host=host, port=port)
        pool = self.pool
        table_name = profiles.full_name

        async def worker(share: list[int]) -> None:
            async with pool.connection() as connection:
                table = connection.table(table_name)
                if work == "get":
                    for i in share:
                        user_id = _key(i)
                        data = await table.row(_row(user_id))
                        if not data:
                            raise LookupError(user_id)
                        Profile(
                            user_id=user_id, name=data[b"p:n"].decode(), city=data[b"p:c"].decode()
                        )
                elif work == "save":
                    for i in share:
                        obj = Profile(user_id=_key(i), name=f"n{i}", city="c" * 20)
                        await table.put(
                            _row(obj.user_id),
                            {b"p:n": obj.name.encode(), b"p:c": obj.city.encode()},
                        )
                else:
                    start = share[0]
                    found = [
                        Profile(
                            user_id=key[:-2].decode(),
                            name=data[b"p:n"].decode(),
                            city=data[b"p:c"].decode(),
                        )
                        async for key, data in table.scan(
                            row_start=_row(_key(start)),
                            row_stop=_row(_key(start + SCAN_ROWS)),
                        )
                    ]
                    assert len(found) == SCAN_ROWS

        return self._on_loop(worker, shares)

    def against_threads(self, name: str, work: str, count: int) -> Result:
        shares = self._shares(work, count)
        wall, cpu = paired_with_cpu(
            self._hmodel_loop(work, shares), self._hmodel_threads(work, shares), pairs=self.pairs
        )
        return self._result(name, work, count, (wall, cpu), "threads' time over one event loop's")

    def against_aiohappybase(self, name: str, work: str, count: int) -> Result:
        shares = self._shares(work, count)
        wall, cpu = paired_with_cpu(
            self._hmodel_loop(work, shares), self._aiohappybase(work, shares), pairs=self.pairs
        )
        return self._result(
            name, work, count, (wall, cpu), "aiohappybase's time over hmodel's (Thrift1)"
        )

    def _result(
        self, name: str, work: str, count: int, measured: tuple[list[float], list[float]], what: str
    ) -> Result:
        wall, cpu = measured
        ratio, spread = summary(wall)
        cpu_ratio, _ = summary(cpu)
        described = _WHAT[work].format(tasks=self.tasks, count=count - count % self.tasks)
        return Result(
            name,
            ratio,
            "x",
            "higher",
            f"{described}: {what}; client CPU ratio {cpu_ratio:.2f}",
            spread,
        )


class _Replay:
    """A stream whose every read serves one reply again, from memory (no I/O)."""

    def __init__(self, reply: bytes) -> None:
        self.reply = reply
        self.pending = b""

    async def read(self, size: int) -> bytes:
        if not self.pending:
            self.pending = self.reply
        served, self.pending = self.pending[:size], self.pending[size:]
        return served

    def write(self, data: bytes) -> None:
        """Requests go nowhere."""

    async def flush(self) -> None:
        """Nothing to send."""

    def is_open(self) -> bool:
        return True

    async def open(self) -> None:
        """Always open."""

    def close(self) -> None:
        """Nothing to close."""


def _wire(scale: Scale) -> list[Result]:
    """One call's client CPU, no I/O: thriftpy2's asyncio client over hmodel's wire."""
    from thriftpy2.protocol import TCyBinaryProtocol
    from thriftpy2.thrift import TMessageType
    from thriftpy2.transport import TCyMemoryBuffer

    from hmodel.backend.thrift2.idl import HBASE2

    service = HBASE2.THBaseService

    def row(i: int) -> Any:
        values = [
            HBASE2.TColumnValue(family=b"p", qualifier=q, value=b"n%d" % i, timestamp=1)
            for q in (b"n", b"c")
        ]
        return HBASE2.TResult(row=_row(_key(i)), columnValues=values)

    def reply(method: str, result: Any) -> bytes:
        buffer = TCyMemoryBuffer()
        protocol: Any = TCyBinaryProtocol(buffer)  # type: ignore[no-untyped-call]
        protocol.write_message_begin(method, TMessageType.REPLY, 0)
        protocol.write_struct(result)
        data: bytes = buffer.getvalue()
        return data

    cases = [
        ("get", service.get_result(success=row(1)), (b"t", HBASE2.TGet(row=b"r")), 2000),
        (
            "getScannerRows",
            service.getScannerRows_result(success=[row(i) for i in range(500)]),
            (1, 500),
            20,
        ),
    ]
    loop = asyncio.new_event_loop()
    try:
        return [
            _wire_ratio(
                loop,
                name,
                method=method,
                reply=reply(method, result),
                args=args,
                count=scale.count(calls),
                scale=scale,
            )
            for (method, result, args, calls), name in zip(cases, ("get", "scan"), strict=True)
        ]
    finally:
        loop.close()


def _wire_ratio(
    loop: asyncio.AbstractEventLoop,
    name: str,
    *,
    method: str,
    reply: bytes,
    args: tuple[Any, ...],
    count: int,
    scale: Scale,
) -> Result:
    from thriftpy2.contrib.aio.client import TAsyncClient
    from thriftpy2.contrib.aio.protocol.binary import TAsyncBinaryProtocolFactory
    from thriftpy2.contrib.aio.transport.buffered import TAsyncBufferedTransportFactory

    from hmodel.backend.aio_wire import WireClient, WireCodec
    from hmodel.backend.thrift2.idl import HBASE2

    service = HBASE2.THBaseService
    stream = _Replay(reply)
    transport: Any = TAsyncBufferedTransportFactory()
    factory: Any = TAsyncBinaryProtocolFactory(decode_response=True)  # type: ignore[no-untyped-call]
    client: Any = TAsyncClient
    theirs = client(service, factory.get_protocol(transport.get_transport(stream)))
    codec = WireCodec(service, protocol="binary", decode_response=True)
    ours = WireClient(stream, codec, framed=False)

    async def with_ours() -> None:
        for _ in range(count):
            await ours.call(method, codec.encode(method, args))

    async def with_theirs() -> None:
        for _ in range(count):
            await getattr(theirs, method)(*args)

    ratios = paired(
        lambda _: loop.run_until_complete(with_ours()),
        lambda _: loop.run_until_complete(with_theirs()),
        pairs=5 if scale.repeat < 5 else 7,
    )
    ratio, spread = summary(ratios)
    what = "a 1-row get" if name == "get" else "a 500-row scanner batch"
    return Result(
        f"async.wire_{name}",
        ratio,
        "x",
        "higher",
        f"{what}, no I/O: thriftpy2.contrib.aio's time over hmodel's aio_wire",
        spread,
    )
