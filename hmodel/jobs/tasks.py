"""The patterns' bulk operations as tasks: indexes, copies, relations, data migrations."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any, Literal

import attrs

from hmodel.backend.base import Backend, RowResult
from hmodel.clock import Clock, system_clock
from hmodel.errors import DecodeError
from hmodel.jobs.model import Shard, ShardWork, Tally, Target
from hmodel.patterns import (
    Copy,
    Index,
    IndexedRepository,
    MigrationReport,
    Migrator,
    Relation,
    process_batch,
)
from hmodel.patterns.index_job import COUNTS, Job
from hmodel.repository import Repository

__all__ = ["CopyTask", "IndexTask", "MigrationTask", "RelationTask"]


def _regions(backend: Backend, table: str, phase: int = 0, part: str = "") -> list[Target]:
    return [Target(table, r.start, r.end, phase, part) for r in backend.regions(table)]


# --- indexes ------------------------------------------------------------------------------


@attrs.frozen
class _IndexWork:
    indexed: IndexedRepository[Any]
    index: Index[Any]
    job: Job
    side: Literal["data", "index"]
    columns: Sequence[bytes]

    def batch(self, rows: Sequence[RowResult], tally: Tally) -> None:
        for name in COUNTS:
            tally.counts.setdefault(name, 0)
        process_batch(
            self.indexed,
            self.index,
            self.job,
            self.side,
            rows,
            counts=tally.counts,
            samples=tally.samples,
        )


@attrs.frozen
class IndexTask:
    """An index job (I2 backfill, I3 verify and rebuild) as a task of the runner.

    The data table's regions are phase 0 (``part="data"``: each data row's entry is
    checked, and written when missing or stale); for ``verify`` and ``rebuild`` the index
    table's regions are phase 1 (``part="index"``: entries no data row calls for are
    counted, and deleted by ``rebuild``). The counts are those of
    :class:`~hmodel.patterns.index_job.ShardReport` (``ok``, ``missing``, ``stale``,
    ``orphans``, ``pending``, ``duplicates``, ``undecodable``, ``written``, ``deleted``);
    the problems of ``verify`` are ``missing``, ``stale``, ``orphans`` and ``duplicates``;
    ``backfill`` and ``rebuild`` write the missing and stale entries (and ``rebuild``
    deletes the orphans): those are their input, not findings, so only ``duplicates``
    (unique values two rows hold, which no job decides) is a problem of theirs. Each batch
    works as :func:`~hmodel.patterns.index_job.run_shard`'s, so it is safe while the
    application writes.

    Attributes:
        index: The index (its model declared at module level, so the task pickles).
        job: ``"verify"``, ``"backfill"`` or ``"rebuild"``.
        clock: The clock of the application's repositories (judges the grace).
        lock_lease_ms: The application repositories' lock lease.
    """

    index: Index[Any]
    job: Job
    clock: Clock = attrs.field(default=system_clock, eq=False)
    lock_lease_ms: int = 30_000

    @property
    def problems(self) -> tuple[str, ...]:
        """What is left wrong after the job: every inconsistency for ``verify``, else duplicates."""
        if self.job == "verify":
            return ("missing", "stale", "orphans", "duplicates")
        return ("duplicates",)

    @property
    def name(self) -> str:
        """``"index <job> <index name>"``."""
        return f"index {self.job} {self.index.name}"

    def plan(self, backend: Backend) -> list[Target]:
        """The data table's regions, then (verify, rebuild) the index table's."""
        targets = _regions(backend, self.index.mapper.info.table.full_name, 0, "data")
        if self.job != "backfill":
            targets += _regions(backend, self.index.table.full_name, 1, "index")
        return targets

    def open(self, backend: Backend, shard: Shard) -> ShardWork:
        """The batch step of ``shard``'s side."""
        repository = Repository(
            self.index.model,
            backend,
            clock=self.clock,
            lock_lease=timedelta(milliseconds=self.lock_lease_ms),
        )
        indexed = IndexedRepository(repository, [self.index])
        if shard.part == "data":
            columns: Sequence[bytes] = indexed.repository.plan().columns
            return _IndexWork(indexed, self.index, self.job, "data", columns)
        return _IndexWork(indexed, self.index, self.job, "index", (self.index.family,))


# --- copies -------------------------------------------------------------------------------


@attrs.frozen
class _CopyWork:
    copy: Copy[Any, Any]
    job: str
    columns: Sequence[bytes]

    def batch(self, rows: Sequence[RowResult], tally: Tally) -> None:
        source = self.copy.source
        sources: list[Any] = []
        for result in rows:
            if not source.mapper.matches(result.row):
                tally.add("skipped")
                continue
            try:
                obj = source.load(result)
            except DecodeError:
                tally.add("undecodable", result.row)
                continue
            if obj is not None:
                sources.append(obj)
        tally.add("sources", amount=len(sources))
        if self.job == "verify":
            for stale in self.copy.verify(sources):
                tally.add("stale", self.copy.target.mapper.rowkey(stale.copy))
            return
        if self.job == "sync":
            for obj in sources:
                report = self.copy.sync(obj)
                tally.add("examined", amount=report.examined)
                tally.add("written", amount=report.touched)
                tally.add("vanished", amount=report.vanished)
            return
        report = self.copy.repair(sources)
        tally.add("examined", amount=report.examined)
        tally.add("written", amount=report.touched)
        tally.add("vanished", amount=report.vanished)


@attrs.frozen
class CopyTask:
    """Copies (R3, R7) synced, verified or repaired over the source table's shards.

    Each shard reads source rows (of the copy's source model only: other record types
    sharing the table are counted ``skipped``) and, per batch: ``verify`` counts the
    stale copies the sources locate (``stale``, samples are the copies' rowkeys);
    ``sync`` runs :meth:`~hmodel.patterns.Copy.sync` per source and ``repair``
    :meth:`~hmodel.patterns.Copy.repair` per batch (``examined``, ``written``,
    ``vanished``). Copies no source locates are found from the target side
    (:meth:`~hmodel.patterns.Copy.verify_targets`), not by this task.

    Attributes:
        copy_of: Builds the :class:`~hmodel.patterns.Copy` on a worker's backend (a
            module-level function: it must pickle), e.g. ``lambda b: Copy(Store(b), ...)``
            written as a ``def``.
        job: ``"verify"``, ``"sync"`` or ``"repair"``.
    """

    copy_of: Callable[[Backend], Copy[Any, Any]]
    job: Literal["verify", "sync", "repair"]

    @property
    def problems(self) -> tuple[str, ...]:
        """``stale`` for ``verify``; none for ``sync`` and ``repair``, which rewrite them."""
        return ("stale",) if self.job == "verify" else ()

    @property
    def name(self) -> str:
        """``"copy <job>"``."""
        return f"copy {self.job}"

    def plan(self, backend: Backend) -> list[Target]:
        """The source table's regions."""
        return _regions(backend, self.copy_of(backend).source.table, 0, "source")

    def open(self, backend: Backend, shard: Shard) -> ShardWork:
        """The batch step over source rows."""
        copy = self.copy_of(backend)
        return _CopyWork(copy, self.job, copy.source.plan().columns)


# --- relations ----------------------------------------------------------------------------


@attrs.frozen
class _RelationWork:
    relation: Relation[Any, Any]
    job: str
    columns: Sequence[bytes]

    def batch(self, rows: Sequence[RowResult], tally: Tally) -> None:
        left = self.relation.left
        ids = []
        for result in rows:
            if not left.mapper.matches(result.row):
                tally.add("skipped")
                continue
            try:
                ids.append(left.mapper.info.key.decode(result.row))
            except DecodeError:
                tally.add("undecodable", result.row)
        found = self.relation.verify(ids)
        for link in found:
            tally.add("one_sided", left.mapper.key_of_values(dict(link.left)))
        if self.job == "repair" and found:
            tally.add("written", amount=self.relation.repair(found))


@attrs.frozen
class RelationTask:
    """A relation's (R6) one-sided links verified or repaired over the left side's shards.

    Each batch of left rows is checked with :meth:`~hmodel.patterns.Relation.verify`
    (those left rows and the right rows they name or that name them): ``one_sided``
    counts the links found on one side only (samples: the left rowkeys); ``repair``
    completes them (:meth:`~hmodel.patterns.Relation.repair`, ``written``). A right row
    naming a left row that names no right row of it is found only if some left row of
    the batch names that right row: run a second task with the relation's sides swapped
    to check from the right side too.

    Attributes:
        relation_of: Builds the :class:`~hmodel.patterns.Relation` on a worker's backend
            (a module-level function: it must pickle).
        job: ``"verify"`` or ``"repair"``.
    """

    relation_of: Callable[[Backend], Relation[Any, Any]]
    job: Literal["verify", "repair"]

    @property
    def problems(self) -> tuple[str, ...]:
        """``one_sided`` for ``verify``; none for ``repair``, which completes those links."""
        return ("one_sided",) if self.job == "verify" else ()

    @property
    def name(self) -> str:
        """``"relation <job>"``."""
        return f"relation {self.job}"

    def plan(self, backend: Backend) -> list[Target]:
        """The left side's table's regions."""
        return _regions(backend, self.relation_of(backend).left.table, 0, "left")

    def open(self, backend: Backend, shard: Shard) -> ShardWork:
        """The batch step over left rows (only their key is read)."""
        relation = self.relation_of(backend)
        columns = relation.left.plan(fields=[relation.left_field]).columns
        return _RelationWork(relation, self.job, columns)


# --- data migrations ----------------------------------------------------------------------


@attrs.frozen
class _MigrationWork:
    migrator: Migrator[Any, Any]
    job: Literal["migrate", "verify"]
    columns: Sequence[bytes]

    def batch(self, rows: Sequence[RowResult], tally: Tally) -> None:
        if self.job == "verify":
            found = self.migrator.verify_rows(rows)
            for kind in ("old_rows", "ok", "missing", "differs", "rewritten", "duplicates"):
                tally.add(kind, amount=getattr(found, kind))
            for row in found.samples:
                tally.add("samples", row, amount=0)
            return
        _tally_moved(self.migrator.migrate_rows(rows), tally)


def _tally_moved(done: MigrationReport, tally: Tally) -> None:
    for kind in ("read", "written", "deleted", "dropped", "skipped"):
        tally.add(kind, amount=getattr(done, kind))
    tally.add("problems", amount=done.problems)
    for row in done.samples:
        tally.add("problems", row, amount=0)


@attrs.frozen
class _MovingWork(_MigrationWork):
    """A migration deleting its old rows: each batch counted before it moves them."""

    def count(self, rows: Sequence[RowResult], tally: Tally) -> None:
        _tally_moved(self.migrator.count_rows(rows), tally)


@attrs.frozen
class MigrationTask:
    """An online data migration's job (F5; ``docs/migrations.md``) as a task of the runner.

    Shards over the old layout's table. ``"migrate"`` moves each old row of a batch with
    :meth:`~hmodel.patterns.Migrator.migrate_rows` (new rows written at the old row's
    stamp, then the old row deleted at it, unless the migrator copies only): counts
    ``read``, ``written``, ``deleted``, ``dropped``, ``skipped``, **``problems``** (old rows
    that do not decode; samples their rowkeys). ``"verify"`` compares with
    :meth:`~hmodel.patterns.Migrator.verify_rows`: ``old_rows``, ``ok``, **``missing``**,
    **``differs``**, ``rewritten`` (newer application writes), **``duplicates``** (within a
    batch); samples under ``samples``. A batch run again after a killed worker is
    idempotent: its copies land at the same stamps. A migration that deletes its old
    rows counts each batch before moving it (the runner's pending batch, see
    :func:`~hmodel.jobs.run_shard`), so the old rows a killed run had moved, no longer
    read, are still counted once.

    Attributes:
        migrator_of: Builds the :class:`~hmodel.patterns.Migrator` on a worker's backend
            (a module-level function: it must pickle).
        job: ``"migrate"`` or ``"verify"``.
    """

    migrator_of: Callable[[Backend], Migrator[Any, Any]]
    job: Literal["migrate", "verify"] = "migrate"

    @property
    def name(self) -> str:
        """``"migration <job>"``."""
        return f"migration {self.job}"

    @property
    def problems(self) -> tuple[str, ...]:
        """``problems`` for a migrate job; ``missing``, ``differs``, ``duplicates`` for verify."""
        return ("missing", "differs", "duplicates") if self.job == "verify" else ("problems",)

    def plan(self, backend: Backend) -> list[Target]:
        """The old layout's table's regions."""
        return _regions(backend, self.migrator_of(backend).old.table, 0, "old")

    def open(self, backend: Backend, shard: Shard) -> ShardWork:
        """The batch step over old rows."""
        migrator = self.migrator_of(backend)
        moves = self.job == "migrate" and migrator.delete_old
        return (_MovingWork if moves else _MigrationWork)(migrator, self.job, migrator.columns)
