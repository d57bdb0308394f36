"""Summary tables (I3) on the job runner: shards recount, the driver verifies or rebuilds."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs
import msgpack

from hmodel.backend.base import Backend, Delete, Put, RowResult, Scan
from hmodel.errors import TableNotFoundError
from hmodel.jobs.checkpoints import CheckpointStore, create_if_missing, job_row
from hmodel.jobs.model import JobError, JobReport, Shard, Tally, Target
from hmodel.jobs.runner import run_job
from hmodel.patterns.summary import Summary, SummaryReport
from hmodel.patterns.summary import Tally as Recount

__all__ = ["TALLIES_TABLE", "SummaryTask", "run_summary_job"]

#: Where the shards of summary jobs keep their recounts until the driver sums them.
TALLIES_TABLE = "hmodel_job_tallies"
_COLUMN = b"t:v"


def _encode(recount: Recount) -> bytes:
    packed: bytes = msgpack.packb(
        {"rows": recount.rows, "undecodable": recount.undecodable, "counts": recount.counts},
        use_bin_type=True,
    )
    return packed


def _decode(raw: bytes) -> Recount:
    data = msgpack.unpackb(raw, raw=False)
    recount = Recount(rows=data["rows"], undecodable=data["undecodable"])
    recount.add(data["counts"])
    return recount


@attrs.define
class _SummaryWork:
    summary: Summary[Any, Any]
    shard: Shard
    table: str
    columns: Sequence[bytes]
    after: bytes = b""

    def resume(self, last: bytes | None) -> None:
        self.after = b"" if last is None else last

    def batch(self, rows: Sequence[RowResult], tally: Tally) -> None:
        recount = self.summary.tally_rows(rows)
        # One row per batch, keyed by where the batch's scan starts: a batch run again
        # after a crash starts there again and replaces its row, so it is summed once.
        row = job_row(self.shard.job, self.shard.number) + self.after
        self.summary.store.backend.mutate(self.table, [Put(row, _COLUMN, _encode(recount))])
        tally.add("counted", amount=recount.rows)
        tally.add("skipped", amount=len(rows) - recount.rows - recount.undecodable)
        if recount.undecodable:
            tally.add("undecodable", amount=recount.undecodable)
        self.after = rows[-1].row


@attrs.frozen
class SummaryTask:
    r"""Recount a summary table's data rows in shards (I3): the runner's half of a rebuild.

    Each shard reads its range of the data table and, per batch, writes the batch's
    recount (per group, per measure) to :data:`TALLIES_TABLE`, one row per batch keyed
    ``<job>\\x00`` + the shard number (4 bytes, big endian) + the row the batch's scan
    started after (empty for the shard's start). A batch run again after a killed worker
    starts after the same row and replaces its row, so every data row is counted exactly
    once. Counts: ``counted`` (data rows of the summary's model), ``skipped`` (other
    record types sharing the table, R1), ``undecodable``. The groups' totals are summed
    by :func:`run_summary_job`, which then verifies or rebuilds the counters: a group's
    rows may lie in any shard, so no shard can judge a counter alone.

    Attributes:
        summary_of: Builds the :class:`~hmodel.patterns.Summary` on a worker's backend
            (a module-level function: it must pickle).
        table: Where the batches' recounts are kept.
    """

    summary_of: Callable[[Backend], Summary[Any, Any]]
    table: str = TALLIES_TABLE

    problems = ("undecodable",)

    @property
    def name(self) -> str:
        """``"summary recount"``."""
        return "summary recount"

    def plan(self, backend: Backend) -> list[Target]:
        """The data table's regions (the recount table is created here if missing)."""
        create_if_missing(backend, self.table, "t")
        table = self.summary_of(backend).data.table
        return [Target(table, r.start, r.end, 0, "data") for r in backend.regions(table)]

    def open(self, backend: Backend, shard: Shard) -> _SummaryWork:
        """The batch step over data rows."""
        summary = self.summary_of(backend)
        return _SummaryWork(summary, shard, self.table, summary.data.plan().columns)


def _batches(backend: Backend, table: str, job: str) -> Iterator[RowResult]:
    try:
        yield from backend.scan(table, Scan.prefix(job_row(job), columns=(_COLUMN,)))
    except TableNotFoundError:
        return


def run_summary_job(
    backend: Backend,
    task: SummaryTask,
    store: CheckpointStore,
    *,
    job: str,
    fix: bool = False,
    **options: Any,
) -> tuple[JobReport, SummaryReport]:
    """Recount a summary's data table on the job runner, then verify or rebuild it (I3).

    Runs (or resumes) job ``job`` of ``task`` with :func:`~hmodel.jobs.run_job`
    (``options``: its executor, factory, sharding, batch size, rate limit, progress,
    hook), sums the shards' recounts and passes the total to
    :meth:`~hmodel.patterns.Summary.verify` (``fix=False``) or
    :meth:`~hmodel.patterns.Summary.rebuild` (``fix=True``), whose guarantees while
    writers keep running hold here too. The recount rows of the job are deleted
    afterwards and its checkpoints stay: calling again with the same id raises
    :class:`JobError` rather than settle from nothing; forget the job first
    (:meth:`CheckpointStore.forget`) to recount.

    Returns:
        The runner's report (rows read, counted, skipped, undecodable) and the summary's
        (groups checked, wrong groups with samples, fixed).

    Raises:
        JobError: A shard did not finish (run again with the same id to resume), a
            recount row does not decode, or the job was settled before.
    """
    report = run_job(backend, task, store, job=job, **options)
    total = Recount()
    rows: list[bytes] = []
    for result in _batches(backend, task.table, job):
        raw = result.value(_COLUMN)
        if raw is None:
            continue
        try:
            total = total + _decode(raw)
        except (ValueError, KeyError, TypeError, msgpack.UnpackException) as exc:
            raise JobError(
                f"job {job!r}: a recount row does not decode: {exc}",
                table=task.table,
                row=result.row,
            ) from exc
        rows.append(result.row)
    if total.rows != report.count("counted"):
        raise JobError(
            f"job {job!r}: its shards counted {report.count('counted')} rows but the "
            f"recounts hold {total.rows}: it was settled before (its recounts are deleted "
            "then); forget its checkpoints (CheckpointStore.forget) to recount",
            table=task.table,
        )
    summary = task.summary_of(backend)
    settled = summary.rebuild(total) if fix else summary.verify(total)
    if rows:
        backend.mutate(task.table, [Delete(row) for row in rows])
    return report, settled
