"""YCSB's core workloads A, B, C, E and F: the Repository against hand-written happybase."""

from __future__ import annotations

import asyncio
import base64
import gc
import random
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from bench.handwritten import check_identical
from bench.harness import Result, Scale, summary
from bench.servers import Servers, drop_tables, servers
from hmodel import Family, Key, Str, Table, field, model
from hmodel.aio import AsyncRepository
from hmodel.backend.thrift import AsyncThriftBackend, ThriftBackend
from hmodel.repository import Repository

__all__ = [
    "FIELDS",
    "RECORDS",
    "WORKLOADS",
    "Operation",
    "ScrambledZipfian",
    "UserRecord",
    "Workload",
    "build_key_name",
    "fnvhash64",
    "load",
    "records",
    "run",
]

#: Records loaded (YCSB's ``recordcount``), fields per record and bytes per field.
RECORDS = 10_000
FIELDS = 10
FIELD_LENGTH = 100

#: The longest short scan of workload E (YCSB's ``maxscanlength``; lengths are uniform).
MAX_SCAN = 100

FNV_OFFSET_BASIS_64 = 0xCBF29CE484222325
FNV_PRIME_64 = 1099511628211
_LONG_MIN = -(2**63)
_MASK_64 = 2**64 - 1


def _signed(value: int) -> int:
    """The 64 low bits of ``value`` as Java's ``long``."""
    value &= _MASK_64
    return value - 2**64 if value >= 2**63 else value


def fnvhash64(value: int) -> int:
    """YCSB's ``Utils.fnvhash64``: 64-bit FNV-1a over the 8 bytes of ``value``, made positive.

    The bytes are taken low byte first (``value & 0xff``, then an arithmetic shift right
    by 8, eight times); the hash is a Java ``long`` and the result is ``Math.abs`` of it,
    which leaves ``Long.MIN_VALUE`` negative, as in Java.
    """
    hashed = FNV_OFFSET_BASIS_64
    value = _signed(value)
    for _ in range(8):
        hashed = ((hashed ^ (value & 0xFF)) * FNV_PRIME_64) & _MASK_64
        value >>= 8
    signed = _signed(hashed)
    return signed if signed == _LONG_MIN else abs(signed)


def _java_remainder(dividend: int, divisor: int) -> int:
    """Java's ``%`` on longs: the remainder takes the dividend's sign."""
    remainder = abs(dividend) % abs(divisor)
    return -remainder if dividend < 0 else remainder


def build_key_name(keynum: int) -> str:
    """YCSB's ``CoreWorkload.buildKeyName`` with hashed inserts: ``"user"`` + fnvhash64."""
    return f"user{fnvhash64(keynum)}"


class ScrambledZipfian:
    """YCSB's ``ScrambledZipfianGenerator``: zipfian popularity, popular items scattered.

    A zipfian generator over ``[0, ITEM_COUNT]`` with constant 0.99 and YCSB's
    precomputed zeta (Gray et al., SIGMOD 1994, as YCSB's ``ZipfianGenerator``: item 0
    with probability ``1 / zetan``, item 1 while ``u * zetan < 1 + 0.5 ** theta``, else
    ``ITEM_COUNT * (eta * u - eta + 1) ** alpha`` truncated), each draw then mapped to
    ``low + fnvhash64(draw) % items`` (Java's remainder). As in YCSB, constructing it
    draws once. ``random.Random(seed)`` replaces Java's ``Random``: the sequence differs
    from YCSB's, the distribution is the same.

    Args:
        low: The smallest value (inclusive).
        high: The largest value (inclusive).
        seed: The seed of the uniform draws.
    """

    ZETAN = 26.46902820178302
    ITEM_COUNT = 10_000_000_000_000_000
    THETA = 0.99

    def __init__(self, low: int, high: int, *, seed: int = 1) -> None:
        self.low = low
        self.items = high - low + 1
        self._random = random.Random(seed).random
        zipf_items = self.ITEM_COUNT + 1  # the zipfian generator's [0, ITEM_COUNT]
        zeta2theta = 1.0 + 0.5**self.THETA
        self._alpha = 1.0 / (1.0 - self.THETA)
        self._eta = (1 - (2.0 / zipf_items) ** (1 - self.THETA)) / (1 - zeta2theta / self.ZETAN)
        self._second = 1.0 + 0.5**self.THETA
        self._zipf_items = zipf_items
        self._zipfian()

    def _zipfian(self) -> int:
        u = self._random()
        uz = u * self.ZETAN
        if uz < 1.0:
            return 0
        if uz < self._second:
            return 1
        return int(self._zipf_items * (self._eta * u - self._eta + 1) ** self._alpha)

    def next(self) -> int:
        """The next value, in ``[low, high]``."""
        return self.low + _java_remainder(fnvhash64(self._zipfian()), self.items)


#: One operation: ``(kind, key, argument)``. ``read``: argument ``None``; ``update`` and
#: ``rmw`` (read-modify-write): ``(field name, new value)``; ``insert``: the record's
#: values, field0 first; ``scan``: the number of records from ``key`` (inclusive).
Operation = tuple[str, str, Any]


@dataclass(frozen=True)
class Workload:
    """A core workload's operation mix (proportions summing to 1).

    Attributes:
        name: YCSB's letter.
        read: Reads of one whole record.
        update: Writes of one field of one record.
        insert: Writes of a new whole record (keys continue after the loaded ones).
        scan: Short scans of 1 to :data:`MAX_SCAN` records (uniform) from a chosen key.
        rmw: Reads of a whole record, then a write of one of its fields.
    """

    name: str
    read: float = 0.0
    update: float = 0.0
    insert: float = 0.0
    scan: float = 0.0
    rmw: float = 0.0


#: YCSB's core workloads (D, read-latest, is left out: its distribution is not zipfian).
WORKLOADS = (
    Workload("a", read=0.5, update=0.5),
    Workload("b", read=0.95, update=0.05),
    Workload("c", read=1.0),
    Workload("e", scan=0.95, insert=0.05),
    Workload("f", read=0.5, rmw=0.5),
)


class Operations:
    """The operations of one workload, drawn as YCSB's ``CoreWorkload`` draws them.

    The kind by YCSB's order of proportions (read, update, insert, scan, rmw); the key
    from a :class:`ScrambledZipfian` over the loaded records plus twice the inserts
    expected in ``expected`` operations, drawn again while above the last inserted key;
    the field uniformly; values of :data:`FIELD_LENGTH` random printable characters.
    Inserted keys count on from :data:`RECORDS` across every :meth:`take`.
    """

    def __init__(self, workload: Workload, *, expected: int, seed: int = 1) -> None:
        self.workload = workload
        new_keys = int(expected * workload.insert * 2.0)
        self.chooser = ScrambledZipfian(0, RECORDS + new_keys, seed=seed)
        self.random = random.Random(seed + 1)
        self.next_insert = RECORDS

    def value(self) -> str:
        """A field's new value."""
        return _value(self.random)

    def _key(self) -> str:
        while True:
            keynum = self.chooser.next()
            if keynum < self.next_insert:
                return build_key_name(keynum)

    def take(self, count: int) -> list[Operation]:
        """The next ``count`` operations."""
        w = self.workload
        bounds = [w.read, w.read + w.update, w.read + w.update + w.insert]
        bounds.append(bounds[-1] + w.scan)
        operations: list[Operation] = []
        for _ in range(count):
            u = self.random.random()
            if u < bounds[0]:
                operations.append(("read", self._key(), None))
            elif u < bounds[1]:
                operations.append(("update", self._key(), self._change()))
            elif u < bounds[2]:
                key = build_key_name(self.next_insert)
                self.next_insert += 1
                operations.append(("insert", key, tuple(self.value() for _ in range(FIELDS))))
            elif u < bounds[3]:
                operations.append(("scan", self._key(), self.random.randint(1, MAX_SCAN)))
            else:
                operations.append(("rmw", self._key(), self._change()))
        return operations

    def _change(self) -> tuple[str, str]:
        return f"field{self.random.randrange(FIELDS)}", self.value()


def _value(draw: random.Random) -> str:
    """:data:`FIELD_LENGTH` random printable characters (base64 of random bytes)."""
    return base64.b64encode(draw.randbytes(FIELD_LENGTH * 3 // 4)).decode()


@model(Table("bench_ycsb_model", [Family("f")]), key=Key(Str("key")))
class UserRecord:
    """YCSB's ``usertable`` record: a key and ten string fields in one family."""

    key: str
    field0: str = field("f:field0")
    field1: str = field("f:field1")
    field2: str = field("f:field2")
    field3: str = field("f:field3")
    field4: str = field("f:field4")
    field5: str = field("f:field5")
    field6: str = field("f:field6")
    field7: str = field("f:field7")
    field8: str = field("f:field8")
    field9: str = field("f:field9")


#: The hand-written side's table (under the server's prefix, as hmodel's).
RAW_TABLE = "bench_ycsb_raw"
TABLES = ("bench_ycsb_model", RAW_TABLE)
_NAMES = tuple(f"field{i}" for i in range(FIELDS))
_COLUMNS = tuple(f"f:{name}".encode() for name in _NAMES)


def _row(key: str) -> bytes:
    """The rowkey hmodel writes for ``key`` (a variable-width ``Str``: NUL NUL after it)."""
    return key.encode() + b"\x00\x00"


def _fields(cells: dict[bytes, bytes]) -> dict[str, str]:
    """A row's cells as the hand-written client returns a record: field name to text."""
    return {column[2:].decode(): value.decode() for column, value in cells.items()}


def records(count: int = RECORDS, *, seed: int = 7) -> list[UserRecord]:
    """The load phase's records: keys ``build_key_name(0 .. count-1)``, random values."""
    draw = random.Random(seed)
    return [_record(build_key_name(i), [_value(draw) for _ in _NAMES]) for i in range(count)]


def load(repo: Repository[UserRecord], hand: Any, data: Sequence[UserRecord]) -> None:
    """Write ``data`` through ``repo`` and, by hand, to the happybase table ``hand``."""
    for start in range(0, len(data), 1000):
        repo.save_many(data[start : start + 1000])
    with hand.batch(batch_size=1000) as batch:
        for record in data:
            batch.put(_row(record.key), _cells(record))


def _record(key: str, values: Sequence[str]) -> UserRecord:
    return UserRecord(key=key, **dict(zip(_NAMES, values, strict=True)))


def _cells(record: UserRecord) -> dict[bytes, bytes]:
    values = (getattr(record, name) for name in _NAMES)
    return {column: value.encode() for column, value in zip(_COLUMNS, values, strict=True)}


# -- one side's client code --------------------------------------------------------------


def _hmodel_op(repo: Repository[UserRecord], operation: Operation) -> None:
    kind, key, argument = operation
    if kind == "read":
        repo.get(key=key)
    elif kind == "update":
        repo.update({"key": key}, **{argument[0]: argument[1]})
    elif kind == "rmw":
        repo.get(key=key)
        repo.update({"key": key}, **{argument[0]: argument[1]})
    elif kind == "insert":
        repo.save(_record(key, argument))
    else:
        list(repo.scan(low=key, limit=argument))


def _hand_op(table: Any, operation: Operation) -> None:
    kind, key, argument = operation
    if kind == "read":
        _fields(table.row(_row(key)))
    elif kind == "update":
        table.put(_row(key), {f"f:{argument[0]}".encode(): argument[1].encode()})
    elif kind == "rmw":
        _fields(table.row(_row(key)))
        table.put(_row(key), {f"f:{argument[0]}".encode(): argument[1].encode()})
    elif kind == "insert":
        values = (value.encode() for value in argument)
        table.put(_row(key), dict(zip(_COLUMNS, values, strict=True)))
    else:
        [
            (row[:-2].decode(), _fields(cells))
            for row, cells in table.scan(row_start=_row(key), limit=argument, batch_size=argument)
        ]


async def _hmodel_aop(repo: AsyncRepository[UserRecord], operation: Operation) -> None:
    kind, key, argument = operation
    if kind == "read":
        await repo.get(key=key)
    elif kind == "update":
        await repo.update({"key": key}, **{argument[0]: argument[1]})
    elif kind == "rmw":
        await repo.get(key=key)
        await repo.update({"key": key}, **{argument[0]: argument[1]})
    elif kind == "insert":
        await repo.save(_record(key, argument))
    else:
        [record async for record in repo.scan(low=key, limit=argument)]


async def _hand_aop(table: Any, operation: Operation) -> None:
    kind, key, argument = operation
    if kind == "read":
        _fields(await table.row(_row(key)))
    elif kind == "update":
        await table.put(_row(key), {f"f:{argument[0]}".encode(): argument[1].encode()})
    elif kind == "rmw":
        _fields(await table.row(_row(key)))
        await table.put(_row(key), {f"f:{argument[0]}".encode(): argument[1].encode()})
    elif kind == "insert":
        values = (value.encode() for value in argument)
        await table.put(_row(key), dict(zip(_COLUMNS, values, strict=True)))
    else:
        [
            (row[:-2].decode(), _fields(cells))
            async for row, cells in table.scan(
                row_start=_row(key), limit=argument, batch_size=argument
            )
        ]


# -- measuring ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Run:
    """One timed run: wall and CPU nanoseconds, and every operation's latency."""

    wall: int
    cpu: int
    latencies: list[int]

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        return float(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))])


#: A side: runs ``operations`` split among its clients, returns every operation's latency.
_Side = Callable[[list[Operation]], list[int]]


def _timed(side: _Side, operations: list[Operation]) -> _Run:
    gc.collect()
    start, cpu = time.perf_counter_ns(), time.process_time_ns()
    latencies = side(operations)
    return _Run(
        max(1, time.perf_counter_ns() - start),
        max(1, time.process_time_ns() - cpu),
        latencies,
    )


def _pairs(ours: _Side, theirs: _Side, runs: list[list[Operation]]) -> list[tuple[_Run, _Run]]:
    """Run both sides on each run's operations, the first alternating; the first pair untimed."""
    ours(runs[0])
    theirs(runs[0])
    measured = []
    for index, operations in enumerate(runs[1:], start=1):
        if index % 2:
            mine = _timed(ours, operations)
            other = _timed(theirs, operations)
        else:
            other = _timed(theirs, operations)
            mine = _timed(ours, operations)
        measured.append((mine, other))
    return measured


def _share(operations: list[Operation], clients: int) -> list[list[Operation]]:
    return [operations[i::clients] for i in range(clients)]


def _threaded(
    threads: ThreadPoolExecutor, clients: int, client: Callable[[list[Operation]], list[int]]
) -> _Side:
    def side(operations: list[Operation]) -> list[int]:
        return [t for share in threads.map(client, _share(operations, clients)) for t in share]

    return side


def _each(operations: list[Operation], do: Callable[[Operation], object]) -> list[int]:
    latencies = []
    clock = time.perf_counter_ns
    for operation in operations:
        start = clock()
        do(operation)
        latencies.append(clock() - start)
    return latencies


async def _each_async(
    operations: list[Operation], do: Callable[[Operation], Awaitable[object]]
) -> list[int]:
    latencies = []
    clock = time.perf_counter_ns
    for operation in operations:
        start = clock()
        await do(operation)
        latencies.append(clock() - start)
    return latencies


def _results(
    name: str, what: str, measured: list[tuple[_Run, _Run]], count: int, theirs: str
) -> list[Result]:
    """Throughput, p50, p99 and client CPU, hmodel over ``theirs``, for one workload."""
    timing = f"{len(measured)} interleaved pairs"
    throughput = [other.wall / mine.wall for mine, other in measured]
    ours_rate = statistics.median(count * 1e9 / mine.wall for mine, _ in measured)
    their_rate = statistics.median(count * 1e9 / other.wall for _, other in measured)
    p50 = [mine.percentile(0.5) / other.percentile(0.5) for mine, other in measured]
    p99 = [mine.percentile(0.99) / other.percentile(0.99) for mine, other in measured]
    cpu = [mine.cpu / other.cpu for mine, other in measured]
    ratios = [
        (name, throughput, "x ops/s", "higher", f"throughput, hmodel / {theirs}"),
        (f"{name}_p50", p50, "x p50", "lower", f"median latency, hmodel / {theirs}"),
        (f"{name}_p99", p99, "x p99", "lower", f"99th percentile latency, hmodel / {theirs}"),
        (f"{name}_cpu", cpu, "x CPU", "lower", f"client CPU, hmodel / {theirs}"),
    ]
    results = []
    for result, values, unit, better, metric in ratios:
        median, spread = summary(values)
        note = f"{what}: {metric}, {timing}"
        if result == name:
            note += f" (hmodel {ours_rate:,.0f} ops/s, {theirs} {their_rate:,.0f} ops/s)"
        results.append(Result(f"ycsb.{result}", median, unit, better, note, spread))  # type: ignore[arg-type]
    return results


def _describe(workload: Workload, clients: int, count: int, unit: str) -> str:
    mix = ", ".join(
        f"{int(share * 100)} % {kind}"
        for kind in ("read", "update", "insert", "scan", "rmw")
        if (share := getattr(workload, kind))
    )
    return f"workload {workload.name.upper()} ({mix}), {count} ops, {clients} {unit}"


def run(scale: Scale) -> list[Result]:
    """Load 10,000 records, then run each workload through hmodel and by hand, paired.

    Against :func:`bench.servers.servers` (a real HBase when one is at hand, else the fake
    server in its own process), over Thrift1 (buffered transport, binary protocol):

    * ``ycsb.<w>_<n>`` (and ``_p50``, ``_p99``, ``_cpu``): ``Repository`` over
      ``ThriftBackend`` (a pool of ``n`` connections) from ``n`` threads against
      hand-written happybase code (a ``ConnectionPool`` of ``n``, each thread holding
      one connection for its share);
    * ``ycsb.async_<w>_<n>``: ``AsyncRepository`` over ``AsyncThriftBackend`` (a pool of
      ``n``) from ``n`` tasks of one event loop against aiohappybase code (a pool of
      ``n``, each task holding one).

    Each side runs the same operations (drawn before the clock starts) on a table of its
    own; the tables hold byte-identical rows after the load (checked). The throughput
    ratio is hand-written time over hmodel's (above 1: hmodel is faster); the latency
    and CPU ratios are hmodel's over the hand-written code's (below 1: hmodel is better).
    """
    pairs = 3 if scale.repeat < 5 else 5
    count = scale.count(1000, multiple=40)
    with servers() as server:
        print(f"  ycsb: against {server.what}", flush=True)
        return _measure(server, count, pairs)


def _measure(server: Servers, count: int, pairs: int) -> list[Result]:
    import happybase

    options: dict[str, Any] = {"table_prefix": server.prefix}
    admin = happybase.Connection(*server.thrift1, timeout=10_000, **options)
    backend = ThriftBackend(*server.thrift1, pool_size=8, **options)
    try:
        drop_tables(server, TABLES)
        repo = Repository(UserRecord, backend)
        repo.create_table()
        admin.create_table(RAW_TABLE, {"f": {"max_versions": 1}})
        data = records()
        load(repo, admin.table(RAW_TABLE), data)
        check_identical(repo, admin.table(RAW_TABLE), data)
        results: list[Result] = []
        for workload in WORKLOADS:
            # Short scans read up to 100 records each: a fifth of the operations.
            ops = count // 5 if workload.scan else count
            draw = Operations(workload, expected=ops * (pairs + 1) * 4)
            for clients in (1, 8):
                runs = [draw.take(ops) for _ in range(pairs + 1)]
                results += _sync(server, workload, clients, runs, options)
                runs = [draw.take(ops) for _ in range(pairs + 1)]
                results += _async(server, workload, clients, runs, options)
        return results
    finally:
        backend.close()
        admin.close()
        drop_tables(server, TABLES)


def _sync(
    server: Servers,
    workload: Workload,
    clients: int,
    runs: list[list[Operation]],
    options: dict[str, Any],
) -> list[Result]:
    import happybase

    backend = ThriftBackend(*server.thrift1, pool_size=clients, **options)
    pool = happybase.ConnectionPool(
        clients, host=server.thrift1[0], port=server.thrift1[1], timeout=10_000, **options
    )
    threads = ThreadPoolExecutor(clients)
    try:
        repo = Repository(UserRecord, backend)

        def hmodel_client(share: list[Operation]) -> list[int]:
            return _each(share, lambda operation: _hmodel_op(repo, operation))

        def hand_client(share: list[Operation]) -> list[int]:
            with pool.connection() as connection:
                table = connection.table(RAW_TABLE)
                return _each(share, lambda operation: _hand_op(table, operation))

        measured = _pairs(
            _threaded(threads, clients, hmodel_client),
            _threaded(threads, clients, hand_client),
            runs,
        )
    finally:
        threads.shutdown()
        backend.close()
    what = _describe(workload, clients, len(runs[0]), "threads" if clients > 1 else "thread")
    return _results(f"{workload.name}_{clients}", what, measured, len(runs[0]), "happybase")


def _async(
    server: Servers,
    workload: Workload,
    clients: int,
    runs: list[list[Operation]],
    options: dict[str, Any],
) -> list[Result]:
    from aiohappybase import ConnectionPool  # the baseline, imported only here

    loop = asyncio.new_event_loop()
    backend = AsyncThriftBackend(*server.thrift1, pool_size=clients, **options)
    host, port = server.thrift1
    pool = ConnectionPool(clients, host=host, port=port, **options)
    repo = AsyncRepository(UserRecord, backend)

    async def hand_client(share: list[Operation]) -> list[int]:
        async with pool.connection() as connection:
            table = connection.table(RAW_TABLE)
            return await _each_async(share, lambda operation: _hand_aop(table, operation))

    async def hmodel_client(share: list[Operation]) -> list[int]:
        return await _each_async(share, lambda operation: _hmodel_aop(repo, operation))

    def on_loop(client: Callable[[list[Operation]], Awaitable[list[int]]]) -> _Side:
        async def everything(operations: list[Operation]) -> list[int]:
            shares = await asyncio.gather(*(client(s) for s in _share(operations, clients)))
            return [latency for share in shares for latency in share]

        return lambda operations: loop.run_until_complete(everything(operations))

    try:
        measured = _pairs(on_loop(hmodel_client), on_loop(hand_client), runs)
    finally:
        loop.run_until_complete(backend.aclose())
        pool.close()
        loop.close()
    what = _describe(workload, clients, len(runs[0]), "tasks" if clients > 1 else "task")
    return _results(
        f"async_{workload.name}_{clients}", what, measured, len(runs[0]), "aiohappybase"
    )
