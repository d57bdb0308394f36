"""Issue 26's differential workload: random raw Thrift calls to the fake and a real HBase.

Every operation goes to hmodel's fake server and to a real HBase 2.6 through raw Thrift
clients (thriftpy2 over happybase's Thrift1 IDL and hmodel's Thrift2 IDL, not hmodel's
backends), so each answer and each error is compared as a client sees it. Operations
cover puts (per-cell TTLs, unknown families), deletes of every type, versions, time
ranges, a TTL family with MIN_VERSIONS, KEEP_DELETED_CELLS, increments (also of cells that
are not counters), appends, conditional writes with every operator and empty values,
batches with bad rows, gets and scans with filters, reverse scans, batch sizes, caching
and limits, and descriptors. After every few operations the whole table is read back
(all versions of every row) and compared too.

Timestamps: every put and delete carries an explicit timestamp in the first milliseconds
of 1970, so their order never depends on either server's clock; the calls the server
stamps itself (increments, appends) write their own columns, and a timestamp after 2001
is compared as ``"now"``. An operation a documented difference covers is not sent (it is
counted under the difference's name, from :data:`DOCUMENTED`).

A long run: ``python -m tests.backend.differential --ops 5000 --seed 7`` (both protocols;
``--protocol 1`` or ``2`` for one), with ``HMODEL_TEST_HBASE`` and ``HMODEL_TEST_HBASE2``
naming the real servers' Thrift1 and Thrift2 addresses.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import re
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

import attrs
import thriftpy2.rpc
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.transport import TBufferedTransportFactory

from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.backend.thrift2.idl import HBASE2, TTL_ATTRIBUTE
from hmodel.schema import Family, Table
from hmodel.testing.fake import FakeHBaseServer
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT

#: The differences kept on purpose (docs/engine.md, "Differences kept on purpose"): an
#: operation one covers is not sent, and counted under its name.
DOCUMENTED: dict[str, str] = {
    "unflushed_versions": "versions beyond VERSIONS before a flush (families keep 1000)",
    "rewritten_cell": "a cell rewritten at its timestamp by a put whose TTL ran out (puts "
    "with a TTL get timestamps of their own)",
    "no_op_with_a_value": "NO_OP with a value: on an existing cell HBase retries for minutes",
    "counter_past_64_bits": "a counter past 64 bits: HBase wraps, the engine refuses",
    "batched_scan_with_row_filter": "a batched scan with a filter that filters whole rows "
    "(SKIP, SingleColumnValueFilter, PageFilter): HBase 2.6.1 may never answer (the client "
    "times out); the fake answers",
    "internal_error_cause": "the fake's Thrift1 internal errors name their cause after "
    "'Internal error processing <call>' (compared up to it)",
}

_ROWS = [b"r0", b"r1", b"r2", b"r3", b"r4"]
_COLUMNS = [(b"f", b"a"), (b"f", b"b"), (b"g", b"a"), (b"g", b"c"), (b"t", b"a"), (b"t", b"b")]
_VALUES = [b"", b"1", b"5", b"a", b"zz", b"\x00\x00\x00\x00\x00\x00\x00\x07"]
_FILTERS = [
    "PrefixFilter('r1')",
    "ValueFilter(=, 'binary:1')",
    "ValueFilter(!=, 'binary:a')",
    "QualifierFilter(=, 'binary:a')",
    "ColumnPrefixFilter('b')",
    "KeyOnlyFilter()",
    "FirstKeyOnlyFilter()",
    "SingleColumnValueFilter('f', 'a', =, 'binary:1')",
    "SingleColumnValueFilter('f', 'a', =, 'binary:1', true, true)",
    "ColumnCountGetFilter(1)",
    "PageFilter(2)",
    "RowFilter(<=, 'binary:r2')",
    "TimestampsFilter(3, 7, 20)",
    "SKIP ValueFilter(=, 'binary:1')",
    "PrefixFilter('r') AND ValueFilter(!=, 'binary:')",
    "Bad(",
]
_NOW = 10**12  # a timestamp above this was stamped by the server


def table_families() -> list[Family]:
    """``f``, ``g`` (KEEP_DELETED_CELLS) and ``t`` (TTL 1 h, MIN_VERSIONS 1,
    KEEP_DELETED_CELLS => TTL).

    Each keeps more VERSIONS than the workload has timestamps: versions beyond VERSIONS
    are the documented ``unflushed_versions`` difference (HBase keeps them until a flush
    no Thrift call can drive).
    """
    return [
        Family("f", versions=1000),
        Family("g", versions=1000, keep_deleted_cells=True),
        Family("t", versions=1000, ttl=3600, min_versions=1, keep_deleted_cells="TTL"),
    ]


_JAVA = re.compile(r"(?:[a-z][a-z0-9]*\.)+[A-Z]\w*(?:Exception|Error)")
_FAILED = re.compile(r"Failed \d+ actions?")


def normal_error(exc: BaseException, table: bytes) -> tuple[str, ...]:
    """What a client could branch on: the Thrift class, the Java classes named in the
    message's first line, a ``Failed N action(s)`` prefix, a message that is the table."""
    message: Any = getattr(exc, "message", None) or str(exc)
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    first = str(message).split("\n")[0]
    if first == table.decode():
        return (type(exc).__name__, "<table>")
    if type(exc).__name__ == "TApplicationException":  # DOCUMENTED internal_error_cause
        return (type(exc).__name__, first.split(": ")[0])
    failed = _FAILED.search(first)
    return (type(exc).__name__, *(_JAVA.findall(first)[:2]), failed.group(0) if failed else "")


def normal(value: Any) -> Any:
    """A Thrift answer as plain data, server-stamped timestamps as ``"now"``."""
    if isinstance(value, list):
        return [normal(v) for v in value]
    if isinstance(value, dict):
        return {normal(k): normal(v) for k, v in value.items()}
    if hasattr(value, "thrift_spec"):
        fields = {}
        for spec in value.thrift_spec.values():
            name = spec[1]
            item = getattr(value, name)
            if name == "timestamp" and isinstance(item, int) and item > _NOW:
                item = "now"
            fields[name] = normal(item)
        return (type(value).__name__, fields)
    return value


@attrs.define
class Side:
    """One server: raw clients of both protocols and the workload's table on it."""

    thrift1: Any
    thrift2: Any
    table: bytes

    def call(self, protocol: int, api: str, *args: Any) -> Any:
        """``api(*args)`` on one protocol's client: its normalised answer or error."""
        client = self.thrift1 if protocol == 1 else self.thrift2
        try:
            return ("ok", normal(getattr(client, api)(*args)))
        except Exception as exc:  # every answer, errors too, is compared
            return ("error", normal_error(exc, self.table))


def _client(service: Any, host: str, port: int) -> Any:
    return thriftpy2.rpc.make_client(
        service, host, port, proto_factory=TBinaryProtocolFactory(),
        trans_factory=TBufferedTransportFactory(), timeout=30_000,
    )  # fmt: skip


def open_side(address1: tuple[str, int], address2: tuple[str, int], short: str) -> Side:
    """Raw clients of a server's two ports and a fresh workload table ``short`` on it."""
    admin = Thrift2Backend(*address2)
    if admin.table_exists(short):
        admin.delete_table(short)
    admin.create_table(Table(short, table_families()))
    admin.close()
    return Side(
        _client(HBASE_THRIFT.Hbase, *address1),
        _client(HBASE2.THBaseService, *address2),
        short.encode(),
    )


def close_side(side: Side, address2: tuple[str, int]) -> None:
    """Close the clients and drop the table."""
    side.thrift1.close()
    side.thrift2.close()
    admin = Thrift2Backend(*address2)
    if admin.table_exists(side.table.decode()):
        admin.delete_table(side.table.decode())
    admin.close()


@attrs.define
class Report:
    """What a run compared."""

    sent: Counter[str] = attrs.field(factory=Counter)
    skipped: Counter[str] = attrs.field(factory=Counter)
    differences: list[str] = attrs.field(factory=list)

    @property
    def agreement(self) -> float:
        """The share of operations whose answers agreed, in percent."""
        total = sum(self.sent.values())
        return 100.0 if not total else 100.0 * (total - len(self.differences)) / total


#: An operation: (protocol, api, args), or a documented difference's name (not sent).
Op = tuple[int, str, tuple[Any, ...]] | str


def _row_filtered_batch(scan: Any) -> bool:
    """Whether a scan has a batch size and a filter of whole rows (HBase may hang)."""
    text = scan.filterString or b""
    rows = (b"SKIP", b"WHILE", b"SingleColumnValueFilter", b"PageFilter")
    return bool(scan.batchSize) and any(word in text for word in rows)


class Workload:
    """Random operations over both protocols, from one seed."""

    def __init__(self, seed: int, table: bytes, protocols: tuple[int, ...]) -> None:
        self.rng = random.Random(seed)
        self.ttl_stamps = itertools.count(100)
        self.table = table
        self.protocols = protocols

    # --- pieces ---------------------------------------------------------------------

    def row(self) -> bytes:
        return self.rng.choice(_ROWS)

    def column(self, bad: float = 0.05) -> tuple[bytes, bytes]:
        if self.rng.random() < bad:
            return (b"x", b"a")
        return self.rng.choice(_COLUMNS)

    def stamp(self) -> int:
        return self.rng.randint(1, 30)

    def value(self) -> bytes:
        return self.rng.choice(_VALUES)

    def filter(self) -> bytes | None:
        return self.rng.choice(_FILTERS).encode() if self.rng.random() < 0.3 else None

    # --- Thrift2 --------------------------------------------------------------------

    def tput(self, row: bytes | None = None) -> Any:
        cells = [
            HBASE2.TColumnValue(family=f, qualifier=q, value=self.value(), timestamp=self.stamp())
            for f, q in (self.column() for _ in range(self.rng.randint(1, 3)))
        ]
        attributes = None
        if self.rng.random() < 0.15:
            ttl = self.rng.choice([1, 2**62])  # gone, or alive for ages
            attributes = {TTL_ATTRIBUTE: ttl.to_bytes(8, "big")}
            for cell in cells:  # never a rewrite of a cell: documented, rewritten_cell
                cell.timestamp = next(self.ttl_stamps)
        return HBASE2.TPut(row=row or self.row(), columnValues=cells, attributes=attributes)

    def tdelete(self, row: bytes | None = None) -> Any:
        kinds = HBASE2.TDeleteType
        kind = self.rng.choice(
            [None, kinds.DELETE_COLUMNS, kinds.DELETE_FAMILY, kinds.DELETE_COLUMN,
             kinds.DELETE_FAMILY_VERSION, "row"]
        )  # fmt: skip
        if kind == "row":
            return HBASE2.TDelete(row=row or self.row(), timestamp=self.stamp())
        columns = []
        for f, q in (self.column() for _ in range(self.rng.randint(1, 2))):
            latest = kind == kinds.DELETE_COLUMN and self.rng.random() < 0.4
            stamp = None if latest else self.stamp()  # DELETE_COLUMN's latest version
            columns.append(HBASE2.TColumn(family=f, qualifier=q, timestamp=stamp))
        return HBASE2.TDelete(row=row or self.row(), columns=columns, deleteType=kind)

    def tget(self) -> Any:
        columns = None
        if self.rng.random() < 0.5:
            columns = []
            for _ in range(self.rng.randint(1, 2)):
                f, q = self.column()
                whole = self.rng.random() < 0.4
                columns.append(HBASE2.TColumn(family=f, qualifier=None if whole else q))
        time_range = None
        if self.rng.random() < 0.3:
            low = self.rng.randint(0, 20)
            time_range = HBASE2.TTimeRange(minStamp=low, maxStamp=low + self.rng.randint(1, 20))
        return HBASE2.TGet(
            row=self.row(), columns=columns, timeRange=time_range,
            maxVersions=self.rng.choice([None, 1, 2, 5]), filterString=self.filter(),
        )  # fmt: skip

    def tscan(self) -> Any:
        start, stop = sorted(self.rng.sample([b"", *_ROWS], 2))
        reverse = self.rng.random() < 0.3
        if reverse:
            start, stop = stop, start
        columns = None
        if self.rng.random() < 0.3:
            f, q = self.column()
            columns = [HBASE2.TColumn(family=f, qualifier=q if self.rng.random() < 0.5 else None)]
        return HBASE2.TScan(
            startRow=start or None, stopRow=stop or None, reversed=reverse, columns=columns,
            filterString=self.filter(), batchSize=self.rng.choice([None, None, 1, 2]),
            caching=self.rng.choice([None, 1, 2, 100]),
            limit=self.rng.choice([None, None, 1, 3]),
            maxVersions=self.rng.choice([None, None, 1, 2, 5]),
        )  # fmt: skip

    def thrift2(self) -> Op:
        t, rng = self.table, self.rng
        ops = HBASE2.TCompareOperator
        pick = rng.randrange(19)
        if pick < 3:
            return (2, "put", (t, self.tput()))
        if pick == 3:
            return (2, "putMultiple", (t, [self.tput() for _ in range(rng.randint(1, 3))]))
        if pick < 6:
            return (2, "deleteSingle", (t, self.tdelete()))
        if pick == 6:
            deletes = [self.tdelete() for _ in range(rng.randint(1, 2))]
            return (2, "deleteMultiple", (t, deletes))
        if pick < 10:
            gets = [self.tget() for _ in range(1 if pick < 9 else 2)]
            return (2, "get", (t, gets[0])) if pick < 9 else (2, "getMultiple", (t, gets))
        if pick == 10:
            return (2, rng.choice(["exists", "existsAll"]), (t, self.tget()))
        if pick == 11:
            f, q = rng.choice([(b"f", b"n"), (b"f", b"a"), (b"x", b"n")])
            amount = rng.choice([1, -2, 5])
            increment = HBASE2.TIncrement(
                row=self.row(),
                columns=[HBASE2.TColumnIncrement(family=f, qualifier=q, amount=amount)],
                returnResults=rng.choice([None, False]),
            )
            return (2, "increment", (t, increment))
        if pick == 12:
            f, q = rng.choice([(b"f", b"s"), (b"g", b"s")])
            append = HBASE2.TAppend(
                row=self.row(), columns=[HBASE2.TColumnValue(family=f, qualifier=q, value=b"+")]
            )
            return (2, "append", (t, append))
        if pick < 16:
            row = self.row()
            f, q = self.column(bad=0.02)
            value = rng.choice([None, b"", *_VALUES])
            if pick == 13:
                return (2, "checkAndPut", (t, row, f, q, value, self.tput(row)))
            if pick == 14:
                return (2, "checkAndDelete", (t, row, f, q, value, self.tdelete(row)))
            operator = rng.choice(list(ops._VALUES_TO_NAMES))
            if value is None:
                value = b""
            if operator == ops.NO_OP and value:
                return "no_op_with_a_value"
            mutations = [HBASE2.TMutation(put=self.tput(row))]
            return (
                2,
                "checkAndMutate",
                (t, row, f, q, operator, value, HBASE2.TRowMutations(row=row, mutations=mutations)),
            )
        if pick == 16:
            row = self.row()
            mutations = [
                HBASE2.TMutation(put=self.tput(row)),
                HBASE2.TMutation(deleteSingle=self.tdelete(row)),
            ]
            return (2, "mutateRow", (t, HBASE2.TRowMutations(row=row, mutations=mutations)))
        if pick == 17:
            scan = self.tscan()
            if _row_filtered_batch(scan):
                return "batched_scan_with_row_filter"
            return (2, "scan", (t, scan, rng.choice([1, 2, 10])))
        return (2, "getTableDescriptor", (HBASE2.TTableName(qualifier=t),))

    # --- Thrift1 --------------------------------------------------------------------

    def mutations(self) -> list[Any]:
        found = []
        for _ in range(self.rng.randint(1, 3)):
            f, q = self.column()
            column = f if self.rng.random() < 0.03 else f + b":" + q
            delete = self.rng.random() < 0.25
            found.append(HBASE_THRIFT.Mutation(column=column, value=self.value(), isDelete=delete))
        return found

    def column1(self) -> bytes:
        f, q = self.column()
        return f if self.rng.random() < 0.3 else f + b":" + q

    def thrift1(self) -> Op:
        t, rng = self.table, self.rng
        pick = rng.randrange(13)
        if pick < 3:
            return (1, "mutateRowTs", (t, self.row(), self.mutations(), self.stamp(), {}))
        if pick == 3:
            batches = [
                HBASE_THRIFT.BatchMutation(row=self.row(), mutations=self.mutations())
                for _ in range(rng.randint(1, 3))
            ]
            return (1, "mutateRowsTs", (t, batches, self.stamp(), {}))
        if pick == 4:
            return (1, "deleteAllTs", (t, self.row(), self.column1(), self.stamp(), {}))
        if pick == 5:
            return (1, "deleteAllRowTs", (t, self.row(), self.stamp(), {}))
        if pick == 6:
            return (1, "getVer", (t, self.row(), self.column1(), rng.choice([1, 2, 5]), {}))
        if pick == 7:
            return (1, "getVerTs", (t, self.row(), self.column1(), rng.randint(1, 30),
                                    rng.choice([1, 3]), {}))  # fmt: skip
        if pick == 8:
            rows = rng.sample(_ROWS, 2)
            return (1, "getRowsWithColumns", (t, rows, [self.column1()], {}))
        if pick == 9:
            column = rng.choice([b"f:n", b"f:a", b"x:n"])
            return (1, "atomicIncrement", (t, self.row(), column, rng.choice([1, 3])))
        if pick == 10:
            f, q = self.column()
            value = rng.choice([None, *_VALUES])
            put = HBASE_THRIFT.Mutation(column=f + b":" + q, value=self.value())
            return (1, "checkAndPut", (t, self.row(), f + b":" + q, value, put, {}))
        if pick == 11:
            scan = HBASE_THRIFT.TScan(
                startRow=rng.choice([None, *_ROWS]), stopRow=rng.choice([None, *_ROWS]),
                timestamp=rng.choice([None, 10, 40]),
                columns=rng.choice([None, [self.column1()]]),
                caching=rng.choice([None, 2]), filterString=self.filter(),
                batchSize=rng.choice([None, 1, 2]), reversed=rng.random() < 0.2,
            )  # fmt: skip
            if _row_filtered_batch(scan):
                return "batched_scan_with_row_filter"
            return (1, "scan1", (t, scan, rng.choice([1, 10])))
        return (1, "getColumnDescriptors", (t,))

    def next(self) -> Op:
        """The next operation, on one of the protocols."""
        protocol = self.rng.choice(self.protocols)
        return self.thrift2() if protocol == 2 else self.thrift1()


def _scan(side: Side, protocol: int, table: bytes, tscan: Any, fetch: int) -> Any:
    """Open a scanner, fetch twice (at most ``fetch`` rows each), close it."""
    client = side.thrift1 if protocol == 1 else side.thrift2
    try:
        if protocol == 1:
            scanner = client.scannerOpenWithScan(table, tscan, {})
            got = [client.scannerGetList(scanner, fetch) for _ in range(2)]
            client.scannerClose(scanner)
        else:
            scanner = client.openScanner(table, tscan)
            got = [client.getScannerRows(scanner, fetch) for _ in range(2)]
            client.closeScanner(scanner)
        return ("ok", normal(got))
    except Exception as exc:  # compared like any answer
        return ("error", normal_error(exc, side.table))


def answer(side: Side, op: tuple[int, str, tuple[Any, ...]]) -> Any:
    """One side's normalised answer to ``op`` (table names made alike)."""
    protocol, api, args = op
    args = tuple(side.table if a == _TABLE_TOKEN else a for a in args)
    if api in ("scan", "scan1"):
        return _scan(side, protocol, side.table, args[1], args[2])
    if api == "getTableDescriptor":
        got = side.call(2, api, HBASE2.TTableName(qualifier=side.table))
        return _without_names(got)
    if api == "getColumnDescriptors":
        return side.call(1, api, side.table)
    return side.call(protocol, api, *args)


def _without_names(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return type(value)(_without_names(v) for v in value)
    if isinstance(value, dict):
        return {k: _without_names(v) for k, v in value.items() if k != "qualifier"}
    return value


#: Stands for the table in an operation's arguments (each side has its own name).
_TABLE_TOKEN = b"\x00table"


def state(side: Side) -> Any:
    """Every row's cells, all versions (a Thrift2 get of up to 5 versions per row)."""
    gets = [HBASE2.TGet(row=row, maxVersions=5) for row in _ROWS]
    return side.call(2, "getMultiple", side.table, gets)


def run(fake: Side, real: Side, *, ops: int, seed: int, protocols: tuple[int, ...],
        check_every: int = 1, log: Callable[[str], None] | None = None) -> Report:  # fmt: skip
    """Send ``ops`` random operations to both sides; compare every answer and, every
    ``check_every`` operations, the whole table."""
    workload = Workload(seed, _TABLE_TOKEN, protocols)
    report = Report()
    for index in range(ops):
        op = workload.next()
        if isinstance(op, str):
            report.skipped[op] += 1
            continue
        report.sent[op[1]] += 1
        theirs, ours = answer(real, op), answer(fake, op)
        if theirs != ours:
            text = f"op {index} {op[1]}{op[2]!r}:\n  hbase: {theirs!r}\n  fake:  {ours!r}"
            report.differences.append(text)
            if log is not None:
                log(text)
        if index % check_every == 0:
            report.sent["state"] += 1
            theirs, ours = state(real), state(fake)
            if theirs != ours:
                rows = [(a, b) for a, b in zip(theirs[1], ours[1], strict=False) if a != b]
                text = f"state after op {index}:\n  hbase: {rows!r}\n  fake:  {ours[0]!r}"
                report.differences.append(text)
                if log is not None:
                    log(text)
                break  # the tables differ: later answers would only repeat it
    return report


def _address(variable: str) -> tuple[str, int]:
    host, _, port = os.environ[variable].rpartition(":")
    return host or "127.0.0.1", int(port)


def main(argv: list[str] | None = None) -> int:
    """Run the workload against ``HMODEL_TEST_HBASE``/``HMODEL_TEST_HBASE2``; exit 1 on
    any difference outside :data:`DOCUMENTED`."""
    parser = argparse.ArgumentParser(prog="python -m tests.backend.differential")
    parser.add_argument("--ops", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--protocol", type=int, choices=[1, 2], action="append")
    args = parser.parse_args(argv)
    protocols = tuple(args.protocol or (1, 2))
    real1, real2 = _address("HMODEL_TEST_HBASE"), _address("HMODEL_TEST_HBASE2")
    prefix = os.environ.get("HMODEL_TEST_PREFIX", "hmodel_test")
    short = f"{prefix}diff{args.seed}"
    with FakeHBaseServer(thrift2_port=0) as server:
        assert server.thrift2_port is not None
        fake_addresses = ((server.host, server.port), (server.host, server.thrift2_port))
        fake = open_side(*fake_addresses, short)
        real = open_side(real1, real2, short)
        try:
            report = run(fake, real, ops=args.ops, seed=args.seed, protocols=protocols,
                         log=print)  # fmt: skip
        finally:
            close_side(fake, fake_addresses[1])
            close_side(real, real2)
    total = sum(report.sent.values())
    print(f"{total} operations sent, {len(report.differences)} differ: "
          f"{report.agreement:.2f}% agree")  # fmt: skip
    for name, count in sorted(report.skipped.items()):
        print(f"not sent ({DOCUMENTED[name]}): {count}")
    return 1 if report.differences else 0


if __name__ == "__main__":
    sys.exit(main())
