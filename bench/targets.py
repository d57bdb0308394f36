"""TARGETS: the floors and ceilings ``python bench/run.py --check`` holds the results to."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TARGETS", "Target"]


@dataclass(frozen=True)
class Target:
    """A bound one result must respect: ``value >= floor`` or ``value <= ceiling`` (inclusive)."""

    floor: float | None = None
    ceiling: float | None = None

    def met(self, value: float) -> bool:
        """Whether ``value`` is within the bound."""
        if self.floor is not None and value < self.floor:
            return False
        return self.ceiling is None or value <= self.ceiling

    def describe(self) -> str:
        """``">= 50,000"`` or ``"<= 1"``."""
        if self.floor is not None:
            return f">= {_bound(self.floor)}"
        return f"<= {_bound(self.ceiling or 0.0)}"


def _bound(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:g}"


def _at_least(floor: float) -> Target:
    return Target(floor=floor)


def _at_most(ceiling: float) -> Target:
    return Target(ceiling=ceiling)


#: Conservative bounds. Throughput floors are about a third of the best a 2-core machine
#: measured (see docs/performance.md): the machine may be busy with other work, and only a
#: real regression should miss them. Round trips are exact; bytes per cell nearly so.
TARGETS: dict[str, Target] = {
    # Key codecs: the salted purchase key [salt][user][reverse ts][product].
    "keys.encode": _at_least(50_000),
    "keys.decode": _at_least(50_000),
    "keys.range_user": _at_least(40_000),
    "keys.range_time": _at_least(25_000),
    "keys.range_fanout": _at_least(12_000),
    # Value codecs: encode + decode pairs per second.
    "codecs.long": _at_least(600_000),
    "codecs.utf8": _at_least(1_200_000),
    "codecs.json": _at_least(25_000),
    "codecs.msgpack": _at_least(60_000),
    "codecs.avro": _at_least(25_000),
    # The in-memory engine.
    "engine.put": _at_least(60_000),
    "engine.increment": _at_least(70_000),
    "engine.increment_many": _at_least(90_000),
    "engine.get": _at_least(25_000),
    "engine.get_many": _at_least(30_000),
    "engine.scan": _at_least(30_000),
    "engine.scan_reverse": _at_least(30_000),
    "engine.scan_filter": _at_least(18_000),
    # tracemalloc counts are nearly deterministic: these ceilings leave ~15 % headroom.
    "engine.bytes_per_cell": _at_most(400),
    "engine.bytes_per_cell_wide": _at_most(190),
    # The engine against happybase-mock (issue 11): at least as fast on every operation
    # (median of interleaved pairs), and the memory goals on the 76-byte payload.
    "mock.get": _at_least(1),
    "mock.get_many": _at_least(1),
    "mock.scan_prefix": _at_least(1),
    "mock.put": _at_least(1),
    "mock.bytes_per_cell": _at_most(200),
    "mock.bytes_per_cell_wide": _at_most(120),
    # The Repository over Thrift against hand-written happybase code (issues 11 and 29):
    # hmodel's time / the hand-written code's (median of interleaved pairs; pages(100)
    # <= 1.0, issue 29), the client's CPU time likewise (<= 1.0 on every operation over
    # Thrift1, issue 29), and Thrift calls of one call, hmodel's / the hand-written code's.
    **{
        f"handwritten.{metric}{operation}": _at_most(bound)
        for operation in (
            "save",
            "save_many",
            "get",
            "get_many",
            "scan_prefix",
            "pages",
            "merged",
            "increment",
        )
        for metric, bound in (
            ("", 1.0 if operation == "pages" else 1.15),
            ("cpu_", 1.0),
            ("calls_", 1.0),
            ("thrift2_cpu_", 1.1),  # hmodel over Thrift2 / over Thrift1 (issue 29)
        )
    },
    "handwritten.thrift2_pages": _at_most(1.0),
    # YCSB's core workloads (issue 29): hmodel's throughput / the hand-written code's, on
    # every workload with 1 and 8 clients: Repository against happybase (threads),
    # AsyncRepository against aiohappybase (tasks of one event loop).
    **{
        f"ycsb.{edge}{workload}_{clients}": _at_least(1.0)
        for edge in ("", "async_")
        for workload in "abcef"
        for clients in (1, 8)
    },
    # Client CPU per row, no I/O, hmodel / hand-written (issue 11: <= 1.5).
    "client.rowkey": _at_most(1.5),
    "client.thrift_row": _at_most(1.5),
    "client.row_to_object": _at_most(1.5),
    "client.load": _at_most(1.5),
    "client.object_to_mutations": _at_most(1.5),
    # The asyncio wire against thriftpy2's asyncio client, one call's client CPU with no
    # I/O (issue 19): measured 7 to 8 (get) and 11 to 13 (500-row batch) on a busy 2-core
    # machine. The ratios with the fake server in the loop follow the machine's load too
    # much for a bound (docs/performance.md).
    "async.wire_get": _at_least(3),
    "async.wire_scan": _at_least(4),
    # Repositories on the engine.
    "repository.save": _at_least(5_000),
    "repository.save_many": _at_least(7_000),
    "repository.get": _at_least(6_000),
    "repository.get_many": _at_least(10_000),
    "repository.page": _at_least(2_000),
    "repository.page_flat": _at_least(10_000),
    "repository.trips_save": _at_most(1),
    "repository.trips_save_many": _at_most(1),
    "repository.trips_get": _at_most(1),
    "repository.trips_get_many": _at_most(1),
    # Per bucket: open + one fetch of ~2*size/buckets rows, plus a few refetches where the
    # merge drains a bucket early (16 buckets; fewer rows read beats fewer round trips).
    "repository.trips_page": _at_most(40),
    "repository.trips_page_flat": _at_most(2),
    # Repositories over Thrift1 (buffered, binary) to FakeHBaseServer on loopback.
    "thrift.rpc": _at_least(6_000),
    "thrift.save": _at_least(2_000),
    "thrift.save_many": _at_least(5_000),
    "thrift.get": _at_least(2_000),
    "thrift.get_many": _at_least(6_000),
    "thrift.page": _at_least(800),
    "thrift.page_flat": _at_least(6_000),
    "thrift.trips_save": _at_most(1),
    "thrift.trips_save_many": _at_most(1),
    "thrift.trips_get": _at_most(1),
    "thrift.trips_get_many": _at_most(1),
    "thrift.trips_page": _at_most(56),  # per bucket: open, fetch(es), close
    "thrift.trips_page_flat": _at_most(3),
}
