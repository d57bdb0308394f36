"""The job runner: plan a task's shards, run the unfinished ones, sum their checkpoints."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from hmodel.backend.base import Backend, RowResult, Scan
from hmodel.errors import ValidationError
from hmodel.jobs.checkpoints import Checkpoint, CheckpointStore, Pending, Plan, check_job_id
from hmodel.jobs.limit import RateLimit, TokenBucket
from hmodel.jobs.model import (
    CheckpointConflictError,
    JobError,
    JobReport,
    Shard,
    ShardReport,
    Tally,
    Task,
)
from hmodel.jobs.sharding import Sharding, plan_shards

if TYPE_CHECKING:
    from hmodel.jobs.executors import Executor

__all__ = ["Hook", "Progress", "ShardCall", "job_status", "run_job", "run_shard"]

#: Called after every batch with the shard and its report so far (counts of every run).
Progress = Callable[[Shard, ShardReport], None]
#: Called with the shard and the rows this run of it has read, after each batch is read
#: and before it is processed or counted: a hook that raises (or kills its worker) there
#: interrupts the job as a crash would, the batch unrecorded, so a test can run the job
#: again with the same id and check it resumes (docs/jobs.md, "Interrupting a job in
#: your own tests"). Must pickle for executors other than the inline one.
Hook = Callable[[Shard, int], None]


def _merge(tally: Tally, counts: Mapping[str, int], samples: Mapping[str, Sequence[bytes]]) -> None:
    """Add a batch's counts and samples (as counted apart) to ``tally``."""
    for kind, amount in counts.items():
        tally.add(kind, amount=amount)
    for kind, rows in samples.items():
        for row in rows:
            tally.add(kind, row, amount=0)


def _report(shard: Shard, checkpoint: Checkpoint | None) -> ShardReport:
    if checkpoint is None:
        return ShardReport(shard)
    return ShardReport(
        shard, dict(checkpoint.counts), dict(checkpoint.samples), checkpoint.last, checkpoint.done
    )


def run_shard(
    backend: Backend,
    task: Task,
    shard: Shard,
    store: CheckpointStore,
    *,
    batch_size: int = 500,
    limiter: TokenBucket | None = None,
    progress: Progress | None = None,
    hook: Hook | None = None,
) -> ShardReport:
    """Run one shard from its checkpoint to its end, recording a checkpoint per batch.

    The shard's scan starts right after its recorded last row (at its start when none).
    Each batch is ``batch_size`` rows: read, passed to ``hook``, rate limited (one
    token per row), processed by the task, then recorded: the batch's counts added to
    the record's and its last row, in one :meth:`CheckpointStore.advance`. A process
    killed before that write re-runs the whole batch when resumed and counts it once; the
    task's writes of a batch killed midway are made again, idempotently (a batch killed
    after some of its writes counts them as found made). A shard already done is not
    run.

    A work whose writes take rows out of its own scan (a migration deleting the old
    rows) defines ``count(rows, tally)``: what :meth:`~ShardWork.batch` will count for
    ``rows``, written nowhere. Its batches are counted first and the counts recorded as
    the record's :attr:`~hmodel.jobs.Checkpoint.pending` batch (one more
    compare-and-set) before any write; a run resumed after a kill between the two
    records redoes that batch's rows still there (``[after last, pending last]``) and
    takes its counts from the record, so the report is an uninterrupted run's though
    the rows the killed run had moved are no longer read.

    Args:
        backend: Where the shard's table is.
        task: What to do with the rows.
        shard: Which rows.
        store: The job's checkpoints (bound to ``backend`` here).
        batch_size: Rows per batch (and per scan fetch), ``>= 1``.
        limiter: The shard's token bucket (``None``: no limit).
        progress: Called after every batch with the report so far.
        hook: See :data:`Hook`.

    Returns:
        The shard's report: the counts of every run of it, this one included.

    Raises:
        CheckpointConflictError: Another runner advanced this shard's record first; this
            run stopped before counting its batch.
    """
    store = store.bind(backend)
    previous = store.load(shard.job, shard.number)
    if previous is not None and previous.done:
        return _report(shard, previous)
    work = task.open(backend, shard)
    resume = getattr(work, "resume", None)
    if resume is not None:
        resume(previous.last if previous else None)
    count: Callable[[Sequence[RowResult], Tally], None] | None = getattr(work, "count", None)
    tally = Tally(
        dict(previous.counts) if previous else {"rows": 0},
        {k: list(v) for k, v in previous.samples.items()} if previous else {},
    )
    tally.counts.setdefault("rows", 0)
    columns = tuple(work.columns)

    def advance(new: Checkpoint) -> Checkpoint:
        if not store.advance(previous, new):
            raise CheckpointConflictError(
                f"shard {shard.number} of job {shard.job!r} was advanced by another "
                "runner: run the job again to resume from its record",
                table=shard.table,
                row=new.last,
            )
        return new

    def record(last: bytes | None, done: bool, pending: Pending | None = None) -> Checkpoint:
        return Checkpoint(
            shard.job,
            shard.number,
            last,
            dict(tally.counts),
            {k: tuple(v) for k, v in tally.samples.items()},
            done,
            (previous.seq if previous else 0) + 1,
            pending,
        )

    last = previous.last if previous else None
    if previous is not None and previous.pending is not None:
        # The batch a run was cut in after counting it: its writes made again (the rows
        # it had already moved away are not read), its counts the recorded ones.
        pending = previous.pending
        start = shard.start if last is None else last + b"\x00"
        redo = Scan(start=start, stop=pending.last + b"\x00", columns=columns)
        rows = backend.scan(shard.table, redo)
        try:
            again = list(rows)
        finally:
            close = getattr(rows, "close", None)
            if close is not None:
                close()
        if again:
            work.batch(again, Tally())
        _merge(tally, pending.counts, pending.samples)
        last = pending.last
        previous = advance(record(last, pending.done))
        if pending.done:
            return _report(shard, previous)
    start = shard.start if last is None else last + b"\x00"
    scan = Scan(start=start, stop=shard.stop, columns=columns, batch_size=batch_size)
    read = 0
    rows = backend.scan(shard.table, scan)
    try:
        done = False
        while not done:
            chunk: list[RowResult] = []
            for result in rows:
                chunk.append(result)
                if len(chunk) == batch_size:
                    break
            done = len(chunk) < batch_size
            if chunk:
                read += len(chunk)
                if hook is not None:
                    hook(shard, read)
                if limiter is not None:
                    limiter.acquire(len(chunk))
                if count is None:
                    tally.counts["rows"] += len(chunk)
                    work.batch(chunk, tally)
                else:
                    planned = Tally({"rows": len(chunk)})
                    count(chunk, planned)
                    intent = Pending(
                        chunk[-1].row,
                        planned.counts,
                        {k: tuple(v) for k, v in planned.samples.items()},
                        done,
                    )
                    previous = advance(record(last, False, intent))
                    work.batch(chunk, Tally())
                    _merge(tally, planned.counts, planned.samples)
                last = chunk[-1].row
            previous = advance(record(last, done))
            if progress is not None:
                progress(shard, _report(shard, previous))
    finally:
        close = getattr(rows, "close", None)
        if close is not None:
            close()
    return _report(shard, previous)


@attrs.frozen
class ShardCall:
    """Everything a worker needs to run a shard: picklable, called with the shard.

    Attributes:
        factory: Opens the worker's backend (a module-level function or a
            ``functools.partial`` of a backend class: it must pickle).
        task: The task.
        store: The checkpoints (bound to the worker's backend).
        batch_size: Rows per batch.
        limit: The shard's share of the job's rate limit (``None``: none).
        hook: See :data:`Hook`.
    """

    factory: Callable[[], Backend] | None
    task: Task
    store: CheckpointStore
    batch_size: int = 500
    limit: RateLimit | None = None
    hook: Hook | None = None

    def run(self, backend: Backend, shard: Shard, progress: Progress | None = None) -> ShardReport:
        """Run ``shard`` on ``backend`` (see :func:`run_shard`)."""
        return run_shard(
            backend,
            self.task,
            shard,
            self.store,
            batch_size=self.batch_size,
            limiter=None if self.limit is None else self.limit.bucket(),
            progress=progress,
            hook=self.hook,
        )

    def __call__(self, shard: Shard) -> ShardReport:
        """Open a backend with :attr:`factory`, run ``shard``, close the backend."""
        if self.factory is None:
            raise JobError("a remote executor needs a backend factory (factory=...)")
        backend = self.factory()
        try:
            return self.run(backend, shard)
        finally:
            backend.close()


def run_job(
    backend: Backend,
    task: Task,
    store: CheckpointStore,
    *,
    job: str,
    executor: Executor | None = None,
    factory: Callable[[], Backend] | None = None,
    sharding: Sharding | None = None,
    batch_size: int = 500,
    limit: RateLimit | None = None,
    progress: Progress | None = None,
    hook: Hook | None = None,
) -> JobReport:
    """Run (or resume) job ``job``: every unfinished shard of ``task``, phase by phase.

    The first run with an id plans the shards (``task.plan`` split by ``sharding``) and
    records the plan in ``store``; a later run with the same id (after a crash, or
    after a worker was killed) uses the recorded plan, skips the shards recorded done
    and resumes the others after their last row. The report is summed from the
    shards' records, so a resumed job reports exactly what one uninterrupted run
    would have (the batch a crash interrupted is counted once, by the run that
    recorded it). Phases run in order (all of phase 0's shards, then phase 1's...).

    Args:
        backend: Where the tables are: plans the shards; the inline executor runs them
            on it.
        task: What to do.
        store: The job's plan and checkpoints.
        job: The job id (1-200 letters, digits, ``_``, ``.``, ``-``).
        executor: Runs the shards (default: :class:`~hmodel.jobs.InlineExecutor`).
        factory: Opens a backend in a worker (every executor but the inline one).
        sharding: How regions are cut into shards (first run only; default: one shard
            per region).
        batch_size: Rows per batch.
        limit: The job's rate limit, shared equally by the shards running at once.
        progress: Called with every shard's report as it advances (after every batch
            inline, after every shard elsewhere); e.g. a
            :class:`~hmodel.ops.progress.JobProgress`.
        hook: Called after each batch is read, before it is processed (see
            :data:`Hook`): raise there to interrupt the job at a chosen point in a test.

    Raises:
        JobError: A shard failed in a way its executor did not retry; the job's records
            stay, so running it again resumes.
        ValidationError: ``task`` is not a :class:`~hmodel.jobs.Task` (an
            :class:`~hmodel.patterns.Index`, say: its one-process jobs are
            :func:`hmodel.patterns.run_index_job`'s, or wrap it in
            :class:`~hmodel.jobs.IndexTask`), or ``job`` is not a job id.
    """
    from hmodel.jobs.executors import InlineExecutor

    if not isinstance(task, Task):
        raise ValidationError(
            f"run_job takes a task (IndexTask(index, 'rebuild'), CopyTask, MigrationTask, ...), "
            f"not a {type(task).__name__}; an index's one-process jobs are "
            "hmodel.patterns.run_index_job(backend, index, job)",
            field="task",
        )
    check_job_id(job)
    runner = InlineExecutor() if executor is None else executor
    bound = store.bind(backend)
    plan = bound.plan(job)
    if plan is None:
        planned = plan_shards(backend, job, task.plan(backend), sharding or Sharding())
        plan = bound.record_plan(Plan(job, tuple(planned), task.name, tuple(task.problems)))
    shards = plan.shards
    reports: dict[int, ShardReport] = {}
    for phase in sorted({s.phase for s in shards}):
        part = [s for s in shards if s.phase == phase]
        pending: list[Shard] = []
        for shard in part:
            record = bound.load(job, shard.number)
            if record is not None and record.done:
                reports[shard.number] = _report(shard, record)
            else:
                pending.append(shard)
        if pending:
            share = None if limit is None else limit.share(min(runner.workers, len(pending)))
            call = ShardCall(factory, task, store, batch_size, share, hook)
            for report in runner.run(call, pending, backend, progress):
                reports[report.shard.number] = report
        unfinished = [s.number for s in part if not reports.get(s.number, ShardReport(s)).done]
        if unfinished:
            raise JobError(
                f"job {job!r}: shards {unfinished} did not finish; run the job again to resume",
                table=part[0].table,
            )
    return JobReport.of(job, task.name, reports.values(), task.problems)


def job_status(backend: Backend, store: CheckpointStore, job: str) -> JobReport:
    """Job ``job``'s report as recorded so far (shards not started count nothing).

    Raises:
        JobError: No plan is recorded for ``job``.
    """
    bound = store.bind(backend)
    plan = bound.plan(job)
    if plan is None:
        raise JobError(f"no job {job!r} is recorded", field="job")
    reports = (_report(s, bound.load(job, s.number)) for s in plan.shards)
    return JobReport.of(job, plan.task, reports, plan.problems)
