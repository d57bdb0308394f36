"""The ``hmodel hbase`` subcommand: start, status and stop of a real HBase for a person."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hmodel.errors import BackendError, InputError
from hmodel.testing.hbase_process import (
    HBASE_VERSION,
    HBaseProcess,
    run_dir,
    running_pids,
    stop_state,
)

__all__ = ["configure", "default_state_file", "run_hbase"]


def default_state_file() -> Path:
    """Where ``hmodel hbase start`` records its run: ``<cache>/hmodel/run/hbase.json``."""
    return run_dir() / "hbase.json"


def _read(path: Path) -> dict[str, Any] | None:
    try:
        state: dict[str, Any] = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the state file {path}: {exc}", value=str(path)) from exc
    return state


def _addresses(state: dict[str, Any]) -> str:
    host = state["host"]
    return (
        f"HMODEL_TEST_HBASE={host}:{state['thrift_port']}\n"
        f"HMODEL_TEST_HBASE2={host}:{state['thrift2_port']}"
    )


def _answers(state: dict[str, Any]) -> bool:
    from hmodel.backend.thrift import ThriftBackend
    from hmodel.backend.thrift2 import Thrift2Backend

    try:
        with ThriftBackend(state["host"], state["thrift_port"], retries=0) as thrift1:
            thrift1.list_tables()
        with Thrift2Backend(state["host"], state["thrift2_port"], retries=0) as thrift2:
            thrift2.list_tables()
    except BackendError:
        return False
    return True


def _start(args: argparse.Namespace, path: Path) -> int:
    state = _read(path)
    if state is not None and running_pids(state):
        print(f"hmodel hbase: already running (state file {path}):", file=sys.stderr)
        print(_addresses(state))
        return 1
    process = HBaseProcess(
        version=args.version,
        hbase_home=args.hbase_home,
        master_heap_mb=args.master_heap_mb,
        thrift_heap_mb=args.thrift_heap_mb,
        detached=True,
    )
    process.start()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(process.state(), indent=2))
    print(_addresses(process.state()))
    print(f"# HBase {process.version}; data and logs in {process.work_dir}; state file {path}")
    print(f"# started in {sum(process.timings.values()):.1f} s; stop with: hmodel hbase stop")
    return 0


def _status(path: Path) -> int:
    state = _read(path)
    if state is None:
        print(f"not running (no state file {path})")
        return 1
    alive = running_pids(state)
    roles = ", ".join(f"{role} pid {pid}" for role, pid in alive.items()) or "no process"
    answers = bool(alive) and _answers(state)
    print(_addresses(state))
    print(f"# {'running' if answers else 'NOT answering'}: {roles}; data in {state['work_dir']}")
    return 0 if answers else 1


def _stop(args: argparse.Namespace, path: Path) -> int:
    state = _read(path)
    if state is None:
        print(f"not running (no state file {path})")
        return 0
    stop_state(state, grace_s=args.grace_s)
    path.unlink(missing_ok=True)
    print(f"stopped HBase run {state['run_id']} and removed {state['work_dir']}")
    return 0


def run_hbase(args: argparse.Namespace) -> int:
    """Run ``hmodel hbase start|status|stop``; return the exit status.

    ``start``: 0 once both Thrift servers answer, 1 if a run is already recorded and
    alive. ``status``: 0 when every server answers, 1 otherwise. ``stop``: 0.
    """
    path = Path(args.state) if args.state else default_state_file()
    if args.action == "start":
        return _start(args, path)
    if args.action == "status":
        return _status(path)
    return _stop(args, path)


def configure(commands: Any) -> None:
    """Add the ``hbase`` subcommand to ``commands`` (an argparse subparsers object)."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "hbase",
        help="start, check or stop a real standalone HBase with Thrift1 and Thrift2",
        description="Start a standalone HBase (master, embedded ZooKeeper and region server "
        "in one JVM, data in a temporary directory) and its Thrift1 and Thrift2 servers on "
        "free loopback ports, in the background; print the two addresses as "
        "HMODEL_TEST_HBASE=... and HMODEL_TEST_HBASE2=... lines. The jars come from "
        f"HBASE_HOME or are resolved once with Maven (HBase {HBASE_VERSION}). Needs Java 17.",
        epilog="examples:\n"
        "  hmodel hbase start          # prints HMODEL_TEST_HBASE=127.0.0.1:PORT ...\n"
        "  export $(hmodel hbase start | grep -v '^#')\n"
        "  hmodel hbase status\n"
        "  hmodel hbase stop",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("action", choices=("start", "status", "stop"))
    parser.add_argument(
        "--state",
        metavar="FILE",
        help="the state file recording the run (default: ~/.cache/hmodel/run/hbase.json)",
    )
    parser.add_argument("--version", default=HBASE_VERSION, help="HBase version (Maven)")
    parser.add_argument("--hbase-home", help="an unpacked HBase distribution (or $HBASE_HOME)")
    parser.add_argument("--master-heap-mb", type=int, default=1024, help="master JVM -Xmx")
    parser.add_argument("--thrift-heap-mb", type=int, default=384, help="each Thrift JVM -Xmx")
    parser.add_argument(
        "--grace-s", type=float, default=5.0, help="stop: seconds from SIGTERM to SIGKILL"
    )
    parser.set_defaults(run=run_hbase)
