"""What a job is made of: a task, its shards, their counts and the summed report."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, runtime_checkable

import attrs

from hmodel.backend.base import Backend, RowResult
from hmodel.errors import ConflictError, HModelError

__all__ = [
    "SAMPLES",
    "CheckpointConflictError",
    "JobError",
    "JobReport",
    "Shard",
    "ShardReport",
    "ShardWork",
    "Tally",
    "Target",
    "Task",
]

#: How many sample rowkeys a report keeps per kind of count.
SAMPLES = 10


class JobError(HModelError):
    """A job cannot run as asked: an unknown job id, a plan that changed, a shard that failed."""


class CheckpointConflictError(ConflictError):
    """Another runner advanced the same shard's checkpoint first: this run stops there.

    Raised when two runners of one shard race (e.g. a worker presumed dead that was only
    slow, and its retry): the checkpoint is written with a check-and-put of the record
    read, so only one of them advances it, and the loser stops without counting its
    batch. Run the job again to resume from what the winner recorded.
    """


@attrs.frozen
class Target:
    """A key range a task wants scanned: one region of one table, before any split.

    Attributes:
        table: The table's full name.
        start: First row, inclusive (``b""``: table start).
        stop: Row to stop at, exclusive (``b""``: table end).
        phase: Targets of a lower phase all finish before any of a higher one starts
            (an index rebuild repairs the data side, phase 0, before the index side).
        part: The task's name for the kind of range (e.g. ``"data"`` or ``"index"``).
    """

    table: str
    start: bytes
    stop: bytes
    phase: int = 0
    part: str = ""


@attrs.frozen
class Shard:
    """One independent, resumable piece of a job: a key range of one table. Pure data.

    Attributes:
        job: The job id (checkpoints are kept per job id and shard number).
        number: The shard's number in the job's plan, from 0.
        table: The table scanned.
        start: First row, inclusive (``b""``: table start).
        stop: Row to stop at, exclusive (``b""``: table end).
        phase: See :attr:`Target.phase`.
        part: See :attr:`Target.part`.
    """

    job: str
    number: int
    table: str
    start: bytes
    stop: bytes
    phase: int = 0
    part: str = ""


@attrs.define
class Tally:
    """A shard's counts and samples while it runs (mutable; what a task's batch adds to).

    Attributes:
        counts: Count by kind. The runner keeps ``"rows"`` (rows read); a task adds its
            own kinds (``"written"``, ``"skipped"``, ``"stale"``...).
        samples: Up to :data:`SAMPLES` rowkeys per kind, in the order found.
    """

    counts: dict[str, int] = attrs.field(factory=dict)
    samples: dict[str, list[bytes]] = attrs.field(factory=dict)

    def add(self, kind: str, row: bytes | None = None, amount: int = 1) -> None:
        """Count ``amount`` of ``kind``; keep ``row`` as a sample while there are fewer than 10."""
        self.counts[kind] = self.counts.get(kind, 0) + amount
        if row is not None:
            found = self.samples.setdefault(kind, [])
            if len(found) < SAMPLES:
                found.append(row)


class ShardWork(Protocol):
    """A task's work on one shard, opened in the process that runs it."""

    @property
    def columns(self) -> Sequence[bytes]:
        """What the shard's scan reads (``b"f:q"`` columns or ``b"f"`` families; empty: all)."""
        ...  # pragma: no cover

    def batch(self, rows: Sequence[RowResult], tally: Tally) -> None:
        """Process the next rows of the shard's scan, counting into ``tally``.

        A batch may be processed again after a crash (the checkpoint is written after
        it): its writes must be idempotent (a repeated batch finds them made).

        A work may also define ``resume(last: bytes | None) -> None``: the runner calls
        it once, before the first batch, with the shard's recorded last row (``None``:
        from the shard's start), so a work can key what it writes per batch by where the
        batch's scan starts (a batch run again starts there again).
        """
        ...  # pragma: no cover


@runtime_checkable
class Task(Protocol):
    """What a job does: picklable, so any executor can ship it to its workers.

    Declare tasks (and the models they use) at module level so they pickle by reference.
    """

    @property
    def name(self) -> str:
        """What the task does, for reports and progress (e.g. ``"copy sync"``)."""
        ...  # pragma: no cover

    @property
    def problems(self) -> tuple[str, ...]:
        """The count kinds that are problems: a report's ``problems`` sums them.

        Only what is still wrong once the task ran: what a repairing task fixes (the
        missing entries an index backfill writes) is its input, not a problem.
        """
        ...  # pragma: no cover

    def plan(self, backend: Backend) -> list[Target]:
        """The key ranges to scan (usually one per region, from ``backend.regions``)."""
        ...  # pragma: no cover

    def open(self, backend: Backend, shard: Shard) -> ShardWork:
        """Prepare to process ``shard``'s rows on ``backend`` (in the worker)."""
        ...  # pragma: no cover


@attrs.frozen
class ShardReport:
    """A shard's counts so far: of every run of it, resumed ones included.

    Attributes:
        shard: The shard.
        counts: Count by kind (``"rows"`` read, and the task's own kinds).
        samples: Up to 10 rowkeys per kind.
        last: The last row done (``None`` before any): a resumed run starts after it.
        done: Whether the shard's range is exhausted.
    """

    shard: Shard
    counts: Mapping[str, int] = attrs.field(factory=dict)
    samples: Mapping[str, tuple[bytes, ...]] = attrs.field(factory=dict)
    last: bytes | None = None
    done: bool = False

    @property
    def rows(self) -> int:
        """Rows read (what a progress bar counts)."""
        return self.counts.get("rows", 0)


@attrs.frozen
class JobReport:
    """A job's shard reports summed.

    Attributes:
        job: The job id.
        task: The task's name.
        shards: Every shard's report, in shard order.
        counts: Every count summed, by kind.
        samples: Up to 10 rowkeys per kind, from the shards in order.
        problem_kinds: The kinds :attr:`problems` sums (the task's ``problems``).
    """

    job: str
    task: str
    shards: tuple[ShardReport, ...]
    counts: Mapping[str, int]
    samples: Mapping[str, tuple[bytes, ...]]
    problem_kinds: tuple[str, ...] = ()

    @classmethod
    def of(
        cls, job: str, task: str, reports: Iterable[ShardReport], problems: Sequence[str] = ()
    ) -> JobReport:
        """Sum ``reports``."""
        shards = tuple(sorted(reports, key=lambda r: r.shard.number))
        counts: dict[str, int] = {}
        samples: dict[str, tuple[bytes, ...]] = {}
        for report in shards:
            for kind, count in report.counts.items():
                counts[kind] = counts.get(kind, 0) + count
            for kind, rows in report.samples.items():
                samples[kind] = (samples.get(kind, ()) + tuple(rows))[:SAMPLES]
        return cls(job, task, shards, counts, samples, tuple(problems))

    @property
    def done(self) -> bool:
        """Whether every shard is done."""
        return all(r.done for r in self.shards)

    @property
    def rows(self) -> int:
        """Rows read over every shard."""
        return self.counts.get("rows", 0)

    @property
    def problems(self) -> int:
        """The problem kinds' counts summed: zero when the job found nothing wrong."""
        return sum(self.counts.get(kind, 0) for kind in self.problem_kinds)

    def count(self, kind: str) -> int:
        """One count (0 when never counted)."""
        return self.counts.get(kind, 0)
