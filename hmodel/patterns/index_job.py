"""Index jobs: backfill (I2), verify and rebuild (I3) in resumable shards by region."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from datetime import timedelta
from typing import Any, Literal

import attrs

from hmodel.backend.base import Backend, Put, RowResult, Scan
from hmodel.backend.op import run
from hmodel.clock import Clock, system_clock
from hmodel.errors import DecodeError, ValidationError
from hmodel.patterns.index import Entry, Index
from hmodel.patterns.index_repository import IndexedRepository, parse_result
from hmodel.repository import Repository

__all__ = [
    "Job",
    "JobReport",
    "Progress",
    "Shard",
    "ShardReport",
    "plan_shards",
    "process_batch",
    "run_index_job",
    "run_job",
    "run_shard",
    "run_shard_with",
]

#: ``verify`` only counts; ``backfill`` writes missing and stale entries from the data
#: table (I2); ``rebuild`` does that and deletes orphan and stale entries too (I3).
Job = Literal["verify", "backfill", "rebuild"]
#: Called after every batch with the shard and its report so far, and once more with the
#: final report (``done=True``) when the shard is exhausted (``None``: quiet).
Progress = Callable[["Shard", "ShardReport"], None]

#: How many sample rowkeys a report keeps per kind of problem.
SAMPLES = 10


@attrs.frozen
class Shard:
    """One independent piece of an index job: one region of one table, pure data.

    Picklable (the index pickles its model class by reference, so declare models at
    module level; the clock must pickle too: :func:`~hmodel.clock.system_clock` does, by
    reference, and a :class:`~hmodel.clock.ManualClock` as a copy of its time): a worker
    process, Spark's ``mapPartitions``, Dask or Ray can run it with
    :func:`run_shard_with` and a backend factory.

    Attributes:
        job: What to do (see :data:`Job`).
        side: ``"data"``: scan data rows and check (or write) the entries they call for;
            ``"index"``: scan index rows and check (or delete) those no data row calls for.
        index: The index.
        start: First row, inclusive (``b""``: table start).
        stop: Row to stop at, exclusive (``b""``: table end).
        number: The shard's place in the job (for reports).
        clock: The clock that judges whether an unverified entry is older than the
            index's ``grace`` (``pending`` or ``stale``), exactly as readers judge it
            (:meth:`IndexedRepository.expired`): pass the clock of the application's
            store or repository. Not compared by ``==``.
        lock_lease_ms: The lock lease of the application's repositories (their
            ``lock_lease``): over Thrift1, a rebuild that fences a write in transit
            (:meth:`IndexedRepository.repair`) cannot save a row claimed by a locked save
            younger than it, and leaves its entries ``pending``.
    """

    job: Job
    side: Literal["data", "index"]
    index: Index[Any]
    start: bytes
    stop: bytes
    number: int = 0
    clock: Clock = attrs.field(default=system_clock, eq=False, repr=False)
    lock_lease_ms: int = 30_000


@attrs.frozen
class ShardReport:
    """What a shard found (and fixed) so far, and where to resume.

    Attributes:
        shard: The shard.
        rows: Rows read (data rows or index rows, by the shard's side).
        ok: Entries exactly as the data calls for, verified.
        missing: Data rows whose entry is absent (data side).
        stale: Entries that point at a data row with other values or other covering cells,
            or unverified entries older than the grace (either side).
        orphans: Entries whose data row does not exist (index side).
        pending: Unverified entries younger than the grace (writes in flight: left alone).
        duplicates: Unique values held by a row while another data row has them too.
        undecodable: Rows that do not decode (skipped).
        written: Entries written or rewritten verified.
        deleted: Entries deleted or released.
        samples: Up to 10 rowkeys per problem kind (data rowkeys for ``missing``, index
            rowkeys otherwise).
        checkpoint: The last row done: pass it back to resume after it; ``None`` before any.
        done: Whether the shard's range is exhausted.
    """

    shard: Shard
    rows: int = 0
    ok: int = 0
    missing: int = 0
    stale: int = 0
    orphans: int = 0
    pending: int = 0
    duplicates: int = 0
    undecodable: int = 0
    written: int = 0
    deleted: int = 0
    samples: dict[str, tuple[bytes, ...]] = attrs.field(factory=dict)
    checkpoint: bytes | None = None
    done: bool = False

    @property
    def problems(self) -> int:
        """``missing + stale + orphans + duplicates``: zero when the index is consistent."""
        return self.missing + self.stale + self.orphans + self.duplicates


#: Every count a shard reports, by name (:class:`ShardReport`'s count attributes).
COUNTS: tuple[str, ...] = (
    "rows",
    "ok",
    "missing",
    "stale",
    "orphans",
    "pending",
    "duplicates",
    "undecodable",
    "written",
    "deleted",
)


@attrs.frozen
class JobReport:
    """The sum of a job's shard reports.

    Attributes:
        job: The job.
        shards: The shard reports, in shard order.
        counts: Every count of :class:`ShardReport` summed, by name.
        samples: Sample rowkeys by problem kind, from every shard (at most 10 each).
    """

    job: Job
    shards: tuple[ShardReport, ...]
    counts: dict[str, int]
    samples: dict[str, tuple[bytes, ...]]

    @classmethod
    def of(cls, job: Job, reports: Iterable[ShardReport]) -> JobReport:
        """Sum ``reports``."""
        shards = tuple(sorted(reports, key=lambda r: (r.shard.side, r.shard.number)))
        counts = {name: sum(getattr(r, name) for r in shards) for name in COUNTS}
        samples: dict[str, tuple[bytes, ...]] = {}
        for report in shards:
            for kind, rows in report.samples.items():
                samples[kind] = (samples.get(kind, ()) + rows)[:SAMPLES]
        return cls(job, shards, counts, samples)

    @property
    def problems(self) -> int:
        """``missing + stale + orphans + duplicates`` over every shard."""
        return sum(self.counts[k] for k in ("missing", "stale", "orphans", "duplicates"))


def plan_shards(
    backend: Backend,
    index: Index[Any],
    job: Job,
    *,
    clock: Clock = system_clock,
    lock_lease: timedelta = timedelta(seconds=30),
) -> list[Shard]:
    """Split a job by region into shards (one or two round trips).

    One shard per region of the data table and, for ``verify`` and ``rebuild``, one per
    region of the index table. The shards are independent: run them in any order, in
    parallel, each resumable. Each carries ``clock`` (see :attr:`Shard.clock`): pass the
    clock the application's repositories use (``store.clock``), so that the job and the
    readers agree on which unverified entries are past the grace, and ``lock_lease``
    (see :attr:`Shard.lock_lease_ms`).
    """
    data_table = index.mapper.info.table.full_name
    lease = int(lock_lease.total_seconds() * 1000)
    shards = [
        Shard(job, "data", index, region.start, region.end, number, clock, lease)
        for number, region in enumerate(backend.regions(data_table))
    ]
    if job != "backfill":
        shards += [
            Shard(job, "index", index, region.start, region.end, number, clock, lease)
            for number, region in enumerate(backend.regions(index.table.full_name))
        ]
    return shards


@attrs.define
class _Tally:
    """A mutable shard report while a shard runs."""

    counts: dict[str, int] = attrs.field(factory=lambda: dict.fromkeys(COUNTS, 0))
    samples: dict[str, list[bytes]] = attrs.field(factory=dict)

    def add(self, kind: str, row: bytes | None = None) -> None:
        self.counts[kind] += 1
        if row is not None:
            found = self.samples.setdefault(kind, [])
            if len(found) < SAMPLES:
                found.append(row)

    def report(self, shard: Shard, checkpoint: bytes | None, done: bool) -> ShardReport:
        return ShardReport(
            shard,
            **self.counts,
            samples={k: tuple(v) for k, v in self.samples.items()},
            checkpoint=checkpoint,
            done=done,
        )


def run_shard(
    backend: Backend,
    shard: Shard,
    *,
    checkpoint: bytes | None = None,
    batch_size: int = 500,
    max_batches: int | None = None,
    progress: Progress | None = None,
) -> ShardReport:
    """Run one shard in batches of ``batch_size`` rows, from ``checkpoint`` on.

    Each batch is one scan fetch, one multi-get of the rows on the other side, and the
    batch's writes (one guarded write per repaired entry, see
    :meth:`IndexedRepository.repair`; one ``mutate`` for the missing entries of a
    non-unique index, written verified at the data row's newest cell timestamp so a
    concurrent save, stamped later, always wins). Safe to run while the application
    writes: entries of writes in flight (unverified, younger than the grace) are left
    alone and counted as ``pending``; "younger" by the shard's clock, as readers judge it
    (:meth:`IndexedRepository.expired` on a repository with that clock).

    Args:
        backend: Where the tables are.
        shard: What to do.
        checkpoint: The last row a previous run of this shard finished (its report's
            ``checkpoint``): resume right after it.
        batch_size: Rows per batch.
        max_batches: Stop after this many batches (the report says where: resume later).
        progress: Called after every batch with the shard and the report so far, and
            with the final report when the range is exhausted.

    Returns:
        The counts of this run (not of earlier runs resumed from), with the checkpoint.
    """
    index = shard.index
    repository = Repository(
        index.model,
        backend,
        clock=shard.clock,
        lock_lease=timedelta(milliseconds=shard.lock_lease_ms),
    )
    indexed = IndexedRepository(repository, [index])
    repo = indexed.repository
    if shard.side == "data":
        table = repo.table
        columns = repo.plan().columns
    else:
        table = index.table.full_name
        columns = (index.family,)
    start = shard.start if checkpoint is None else checkpoint + b"\x00"
    scan = Scan(start=start, stop=shard.stop, columns=columns, batch_size=batch_size)
    tally = _Tally()
    last = checkpoint
    batches = 0
    rows = backend.scan(table, scan)
    try:
        while True:
            chunk: list[RowResult] = []
            for result in rows:
                chunk.append(result)
                if len(chunk) == batch_size:
                    break
            if not chunk:
                break
            tally.counts["rows"] += len(chunk)
            if shard.side == "data":
                _data_batch(indexed, index, shard.job, chunk, tally)
            else:
                _index_batch(indexed, index, shard.job, chunk, tally)
            last = chunk[-1].row
            batches += 1
            if progress is not None:
                progress(shard, tally.report(shard, last, False))
            if len(chunk) < batch_size:
                break
            if max_batches is not None and batches >= max_batches:
                return tally.report(shard, last, False)
    finally:
        close = getattr(rows, "close", None)
        if close is not None:
            close()
    report = tally.report(shard, last, True)
    if progress is not None:
        progress(shard, report)
    return report


def run_shard_with(factory: Callable[[], Backend], shard: Shard, **options: Any) -> ShardReport:
    """Open a backend with ``factory``, run ``shard`` (see :func:`run_shard`), close it.

    What a worker process, or Spark's ``mapPartitions`` / Dask / Ray, runs per shard:
    ``factory`` and ``shard`` are all it needs, and both pickle (a module-level function
    or a ``functools.partial`` of a backend class; the shard carries its clock).
    """
    backend = factory()
    try:
        return run_shard(backend, shard, **options)
    finally:
        backend.close()


def run_index_job(
    backend: Backend,
    index: Index[Any],
    job: Job,
    *,
    clock: Clock = system_clock,
    lock_lease: timedelta = timedelta(seconds=30),
    batch_size: int = 500,
    progress: Progress | None = None,
    runner: Callable[[Sequence[Shard]], Iterable[ShardReport]] | None = None,
) -> JobReport:
    """Plan a job's shards and run them all; return the summed report.

    Args:
        backend: Where the tables are (also used to plan the shards).
        index: The index.
        job: ``"verify"``, ``"backfill"`` or ``"rebuild"``.
        clock: Judges the grace of unverified entries, as readers do: pass the clock of
            the application's store or repository (``store.clock``). Every shard carries
            it, to whatever runs it.
        lock_lease: The ``lock_lease`` of the application's repositories (see
            :attr:`Shard.lock_lease_ms`).
        batch_size: Rows per batch.
        progress: Called after every batch of every shard (``None``: quiet).
        runner: Runs the shards elsewhere, e.g. ``lambda shards: pool.map(partial(
            run_shard_with, factory), shards)`` with a process pool; default: one after the
            other here. A ``rebuild`` runs its data shards before its index shards.

    Raises:
        ValidationError: ``index`` is not an :class:`Index` (a task, say: tasks run on
            :func:`hmodel.jobs.run_job`), or ``job`` is not one of the three.
    """
    if not isinstance(index, Index):
        raise ValidationError(
            f"run_index_job takes an Index, not a {type(index).__name__}: a task "
            "(IndexTask, CopyTask, ...) runs on hmodel.jobs.run_job(backend, task, store, job=...)",
            field="index",
        )
    if job not in ("verify", "backfill", "rebuild"):
        raise ValidationError(
            "an index job is 'verify', 'backfill' or 'rebuild'", field="job", value=job
        )
    shards = plan_shards(backend, index, job, clock=clock, lock_lease=lock_lease)
    reports: list[ShardReport] = []
    for side in ("data", "index"):
        part = [s for s in shards if s.side == side]
        if not part:
            continue
        if runner is None:
            reports += [
                run_shard(backend, s, batch_size=batch_size, progress=progress) for s in part
            ]
        else:
            reports += list(runner(part))
    return JobReport.of(job, reports)


def run_job(
    backend: Backend,
    index: Index[Any],
    job: Job,
    *,
    clock: Clock = system_clock,
    lock_lease: timedelta = timedelta(seconds=30),
    batch_size: int = 500,
    progress: Progress | None = None,
    runner: Callable[[Sequence[Shard]], Iterable[ShardReport]] | None = None,
) -> JobReport:
    """Deprecated: the old name of :func:`run_index_job`, kept for one release.

    Renamed because :func:`hmodel.jobs.run_job` is another thing: the checkpointed job
    runner of any task. Calls :func:`run_index_job` with the same arguments.

    Warns:
        DeprecationWarning: Always; call :func:`run_index_job` instead.
    """
    warnings.warn(
        "hmodel.patterns.run_job is renamed run_index_job (hmodel.jobs.run_job is the "
        "checkpointed job runner); the old name goes in the next release",
        DeprecationWarning,
        stacklevel=2,
    )
    return run_index_job(
        backend,
        index,
        job,
        clock=clock,
        lock_lease=lock_lease,
        batch_size=batch_size,
        progress=progress,
        runner=runner,
    )


# --- one batch ------------------------------------------------------------------------------


def process_batch(
    indexed: IndexedRepository[Any],
    index: Index[Any],
    job: Job,
    side: Literal["data", "index"],
    chunk: Sequence[RowResult],
    *,
    counts: dict[str, int],
    samples: dict[str, list[bytes]],
) -> None:
    """Check (and fix, by ``job``) one batch of rows of one side, as :func:`run_shard` does.

    For a runner that scans and checkpoints itself (:mod:`hmodel.jobs`): ``chunk`` is the
    next rows of a scan of the data table (``side="data"``, with the columns of the
    repository's plan) or of the index table (``side="index"``, the index's family).
    The rows are not counted (``counts["rows"]`` is the caller's); every other count of
    :data:`COUNTS` is added to ``counts`` (which must hold them all), and up to 10 rowkeys
    per problem kind to ``samples``. Writes as :func:`run_shard` describes: repeating a
    batch whose writes were made is safe (it finds them made).
    """
    tally = _Tally(counts, samples)
    if side == "data":
        _data_batch(indexed, index, job, chunk, tally)
    else:
        _index_batch(indexed, index, job, chunk, tally)


def _stamp(result: RowResult) -> int:
    return max((cell.timestamp for cell in result.cells.values()), default=1)


def _data_batch(
    indexed: IndexedRepository[Any],
    index: Index[Any],
    job: Job,
    chunk: Sequence[RowResult],
    tally: _Tally,
) -> None:
    """Check (and with backfill/rebuild write) the entries the data rows call for."""
    repo = indexed.repository
    backend = indexed.backend
    wanted: list[tuple[RowResult, Any, bytes]] = []
    for result in chunk:
        try:
            # As every reader decodes a row: a locked row deleted over Thrift1, or whose
            # first save is in flight, is no row.
            obj = repo.load(result)
        except DecodeError:
            tally.add("undecodable", result.row)
            continue
        if obj is None:
            continue
        entry_row = index.row_of(obj, result.row)
        if entry_row is not None:
            wanted.append((result, obj, entry_row))
    if not wanted:
        return
    stored = {
        r.row: r
        for r in backend.get(index.table.full_name, [w[2] for w in wanted], columns=[index.family])
    }
    repair = job != "verify"
    puts: list[Put] = []
    for result, obj, entry_row in wanted:
        found = stored.get(entry_row)
        entry = _parse(index, found, tally)
        if entry is None:
            tally.add("missing", result.row)
            if repair:
                stamp = _stamp(result)
                if index.unique:
                    if indexed.put_status_if(
                        index, entry_row, None, index.status(True, stamp, result.row)
                    ):
                        tally.counts["written"] += 1
                else:
                    puts += index.entry_puts(
                        entry_row, obj, verified=True, tag=stamp, timestamp=stamp
                    )
                    tally.counts["written"] += 1
            continue
        if entry.data_row != result.row:  # a unique value whose row points elsewhere
            holder = indexed.load_rows([entry.data_row])[entry.data_row]
            if index.points_at(entry, holder):
                tally.add("duplicates", entry.row)
                continue
        if entry.verified and index.agrees(entry, obj):
            tally.counts["ok"] += 1
            continue
        if not entry.verified and not indexed.expired(index, entry.tag):
            tally.add("pending", entry.row)
            continue
        if (
            not entry.verified
            and entry.data_row == result.row
            and indexed.repository.newest_stamp(result) < entry.tag
        ):
            # The write that tagged it may still be landing its data: verify cannot judge
            # it; rebuild fences that write first (IndexedRepository.repair(fence=True)).
            deferred = indexed.stats.repair_deferred
            if repair:
                _rewrite(indexed, index, entry, obj=obj, result=result, tally=tally)
            if not repair or indexed.stats.repair_deferred > deferred:
                tally.add("pending", entry.row)
            continue
        tally.add("stale", entry.row)
        if repair:
            _rewrite(indexed, index, entry, obj=obj, result=result, tally=tally)
    if puts:
        backend.mutate(index.table.full_name, puts)


def _rewrite(
    indexed: IndexedRepository[Any],
    index: Index[Any],
    entry: Entry,
    *,
    obj: Any,
    result: RowResult,
    tally: _Tally,
) -> None:
    """Make a stale entry of a data row right, guarded by the status bytes read."""
    if entry.data_row != result.row:  # a stale unique claim of another row: take it over
        if not entry.verified:
            # Its write may still be in transit: fence that row first, as a writer's
            # takeover does (a versioned model), so the write can never land.
            holder = indexed.load_rows([entry.data_row])[entry.data_row]
            if not run(indexed._fence_op(entry, holder), indexed.backend):
                return  # that row changed, or is being saved: the next run judges it
        if indexed.put_status_if(
            index, entry.row, entry.status, index.status(True, _stamp(result), result.row)
        ):
            tally.counts["written"] += 1
        return
    stamp = indexed.repository.newest_stamp(result)
    if indexed.repair(index, entry, obj, data_stamp=stamp, fence=True):
        tally.counts["written"] += 1


def _index_batch(
    indexed: IndexedRepository[Any],
    index: Index[Any],
    job: Job,
    chunk: Sequence[RowResult],
    tally: _Tally,
) -> None:
    """Check (and with rebuild delete) entries no data row calls for."""
    entries: list[Entry] = []
    for result in chunk:
        entry = _parse(index, result, tally)
        if entry is not None:
            entries.append(entry)
    data = indexed.load_rows([e.data_row for e in entries])
    for entry in entries:
        obj = data.get(entry.data_row)
        if index.points_at(entry, obj):
            continue  # the data side judges entries that a data row calls for
        if not entry.verified and not indexed.expired(index, entry.tag):
            tally.add("pending", entry.row)
            continue
        tally.add("orphans" if obj is None else "stale", entry.row)
        if job == "rebuild" and indexed.repair(index, entry, obj):
            tally.counts["deleted"] += 1


def _parse(index: Index[Any], result: RowResult | None, tally: _Tally) -> Entry | None:
    if result is None:
        return None
    try:
        return parse_result(index, result)
    except DecodeError:
        tally.add("undecodable", result.row)
        return None
