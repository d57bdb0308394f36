"""Run the benchmarks and print a table; ``--check`` fails on a missed target."""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: import ``bench.*`` from the project root
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import (
    async_calls,
    client,
    codec,
    columns,
    engine,
    handwritten,
    key,
    mock,
    repository,
    thrift,
    ycsb,
)
from bench.harness import FULL, QUICK, Result, Scale
from bench.report import as_json, misses, table
from bench.targets import TARGETS

__all__ = ["GROUPS", "main"]

#: The benchmark groups in the order they run, by the name ``--only`` takes.
GROUPS: dict[str, Callable[[Scale], list[Result]]] = {
    "keys": key.run,
    "codecs": codec.run,
    "engine": engine.run,
    "mock": mock.run,
    "repository": repository.run,
    "thrift": thrift.run,
    "handwritten": handwritten.run,
    "columns": columns.run,
    "client": client.run,
    "async": async_calls.run,
    "ycsb": ycsb.run,
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bench/run.py",
        description="Measure hmodel's key and value codecs, the in-memory engine, repositories "
        "on it, and repositories over Thrift to the fake HBase server.",
    )
    parser.add_argument("--quick", action="store_true", help="fewer operations (< 60 s)")
    parser.add_argument("--json", metavar="PATH", type=Path, help="also write results as JSON")
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit with status 1 if a target in targets.py is missed",
    )
    parser.add_argument(
        "--only",
        metavar="GROUPS",
        help=f"comma-separated groups to run, of: {','.join(GROUPS)} (default: all)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks selected by ``argv``; return the process exit status."""
    args = _parser().parse_args(argv)
    chosen = list(GROUPS) if args.only is None else args.only.split(",")
    unknown = [name for name in chosen if name not in GROUPS]
    if unknown:
        print(f"unknown group {unknown[0]!r}; groups are {', '.join(GROUPS)}", file=sys.stderr)
        return 2
    scale = QUICK if args.quick else FULL
    print(
        f"hmodel benchmarks ({'quick' if args.quick else 'full'}): Python "
        f"{platform.python_version()}, {os.cpu_count()} CPUs, {platform.platform()}; "
        f"median of {scale.repeat} runs; load average {os.getloadavg()[0]:.2f} (other work "
        "on the machine lowers every number)",
        flush=True,
    )
    results: list[Result] = []
    started = time.perf_counter()
    for name in chosen:
        group_started = time.perf_counter()
        results += GROUPS[name](scale)
        print(f"  {name}: {time.perf_counter() - group_started:.1f} s", flush=True)
    print(f"done in {time.perf_counter() - started:.1f} s\n")
    print(table(results, TARGETS))
    if args.json is not None:
        args.json.write_text(as_json(results, TARGETS, quick=args.quick) + "\n")
    missed = misses(results, TARGETS)
    if missed:
        print(f"\n{len(missed)} target(s) missed:", *missed, sep="\n  ")
        if args.check:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
