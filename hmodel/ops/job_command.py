"""The ``hmodel job`` subcommand: run, resume and inspect jobs of the job runner."""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Callable
from typing import Any

from hmodel.backend.base import Backend
from hmodel.errors import InputError
from hmodel.jobs import (
    CheckpointStore,
    DaskExecutor,
    DirectoryCheckpoints,
    Executor,
    InlineExecutor,
    JobReport,
    ProcessExecutor,
    RateLimit,
    Sharding,
    TableCheckpoints,
    Task,
    job_status,
    run_job,
)
from hmodel.ops.inventory import import_module
from hmodel.ops.live import parse_address
from hmodel.ops.options import add_output_format
from hmodel.ops.progress import JobProgress

__all__ = ["configure", "render_report", "run_job_command", "run_status"]


def _factory(address: str) -> Callable[[], Backend]:
    from hmodel.backend.thrift2 import Thrift2Backend  # a live cluster is reached only here

    host, port = parse_address(address)
    return functools.partial(Thrift2Backend, host, port)


def _task(spec: str) -> Task:
    """The task ``MODULE:NAME`` names: a task, or a function of no argument returning one."""
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise InputError("give the task as MODULE:NAME", field="task", value=spec)
    found = getattr(import_module(module), name, None)
    if found is None:
        raise InputError(f"{module} has no {name}", field="task", value=spec)
    task = found
    if not isinstance(found, Task) and callable(found):
        try:
            task = found()
        except TypeError as exc:  # a function that takes arguments: not a task factory
            raise InputError(
                f"{spec} is not a task nor a function of no argument returning one: {exc}",
                field="task",
                value=spec,
            ) from exc
    if not isinstance(task, Task):
        raise InputError(
            f"{spec} is not a task (an object with name, problems, plan and open)",
            field="task",
            value=spec,
        )
    return task


def _store(args: argparse.Namespace) -> CheckpointStore:
    if args.checkpoints is not None:
        return DirectoryCheckpoints(args.checkpoints)
    return TableCheckpoints(table=args.checkpoint_table)


def _executor(args: argparse.Namespace) -> Executor:
    if args.dask is not None:
        return DaskExecutor(args.dask)
    if args.workers > 1:
        return ProcessExecutor(args.workers)
    return InlineExecutor()


def render_report(report: JobReport, output_format: str = "text") -> str:
    """A report as text (one line per count, samples in hex) or JSON."""
    samples = {kind: [row.hex() for row in rows] for kind, rows in report.samples.items()}
    if output_format == "json":
        return json.dumps(
            {
                "job": report.job,
                "task": report.task,
                "done": report.done,
                "shards": len(report.shards),
                "shards_done": sum(s.done for s in report.shards),
                "problems": report.problems,
                "counts": dict(report.counts),
                "samples": samples,
            },
            indent=2,
        )
    done = sum(s.done for s in report.shards)
    lines = [
        f"job {report.job}" + (f" ({report.task})" if report.task else ""),
        f"shards: {done} of {len(report.shards)} done",
        *(f"{kind}: {count}" for kind, count in sorted(report.counts.items())),
        *(f"samples of {kind}: {', '.join(rows)}" for kind, rows in sorted(samples.items())),
    ]
    if report.problem_kinds:
        lines.append(f"problems: {report.problems}")
    return "\n".join(lines)


def run_job_command(args: argparse.Namespace) -> int:
    """Run ``hmodel job run`` (or ``resume``); 0 done without problems, 1 problems found."""
    task = _task(args.task)
    factory = _factory(args.hbase2)
    sharding = Sharding(parts=args.parts, rows_per_shard=args.rows_per_shard)
    limit = None if args.rate is None else RateLimit(args.rate)
    with factory() as backend, JobProgress(f"job {args.job}") as progress:
        report = run_job(
            backend,
            task,
            _store(args),
            job=args.job,
            executor=_executor(args),
            factory=factory,
            sharding=sharding,
            batch_size=args.batch_size,
            limit=limit,
            progress=progress,
        )
    print(render_report(report, args.output_format))
    return 1 if report.problems else 0


def run_status(args: argparse.Namespace) -> int:
    """Run ``hmodel job status``; 0 done without problems found, 1 otherwise."""
    with _factory(args.hbase2)() as backend:
        report = job_status(backend, _store(args), args.job)
    print(render_report(report, args.output_format))
    return 0 if report.done and not report.problems else 1


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hbase2", required=True, metavar="HOST:PORT", help="the cluster's Thrift2 server"
    )
    parser.add_argument(
        "--checkpoints",
        metavar="DIR",
        help="keep the checkpoints in this local directory (default: an HBase table)",
    )
    parser.add_argument(
        "--checkpoint-table",
        default="hmodel_jobs",
        metavar="TABLE",
        help="the checkpoints' table (default: %(default)s)",
    )
    add_output_format(parser)


def configure(commands: Any) -> None:
    """Add the ``job`` subcommand (``run``, ``resume``, ``status``) to ``commands``."""
    job: argparse.ArgumentParser = commands.add_parser(
        "job",
        help="run, resume or inspect a bulk job (index, copy, relation) in resumable shards",
        description="Run a task of the job runner (hmodel.jobs) over a live cluster, in\n"
        "shards with checkpoints: a job run again with the same --job id resumes where it\n"
        "stopped. TASK is MODULE:NAME, a task object or a function returning one.",
        epilog="exit status: 0 done, no problem left (what a repairing task fixes, e.g. the\n"
        "entries a backfill writes, is counted, not a problem); 1 problems found or, for\n"
        "status, not done; 2 bad input or a cluster that cannot be reached.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = job.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    for name, text in (
        ("run", "plan and run a job (or resume it, if the id is recorded)"),
        ("resume", "resume a recorded job (the same as run with its id)"),
    ):
        parser: argparse.ArgumentParser = actions.add_parser(name, help=text, description=text)
        parser.add_argument("task", metavar="TASK", help="MODULE:NAME of the task")
        parser.add_argument("--job", required=True, help="the job id")
        _common(parser)
        parser.add_argument("--workers", type=int, default=1, help="local worker processes")
        parser.add_argument("--dask", metavar="ADDRESS", help="a Dask scheduler's address")
        parser.add_argument("--batch-size", type=int, default=500, help="rows per batch")
        parser.add_argument("--rate", type=float, help="rows per second for the whole job")
        parser.add_argument("--parts", type=int, default=1, help="shards per region (bisection)")
        parser.add_argument("--rows-per-shard", type=int, help="cut regions every N rows")
        parser.set_defaults(run=run_job_command)
    status: argparse.ArgumentParser = actions.add_parser(
        "status", help="print a recorded job's report", description="print a job's report"
    )
    status.add_argument("job", metavar="JOB", help="the job id")
    _common(status)
    status.set_defaults(run=run_status)
