"""Where a job records its plan and each shard's progress, so a killed job resumes."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import attrs

from hmodel.backend.base import Backend, Delete, Put, Scan
from hmodel.errors import TableExistsError, TableNotFoundError, ValidationError
from hmodel.jobs.model import JobError, Shard
from hmodel.schema import Family, Table

__all__ = [
    "JOBS_TABLE",
    "Checkpoint",
    "CheckpointStore",
    "DirectoryCheckpoints",
    "Pending",
    "Plan",
    "TableCheckpoints",
]

#: The table :class:`TableCheckpoints` keeps its records in by default.
JOBS_TABLE = "hmodel_jobs"

_JOB_ID = re.compile(r"[A-Za-z0-9_.\-]{1,200}")


def check_job_id(job: str) -> None:
    """Refuse a job id that is not 1-200 letters, digits, ``_``, ``.`` or ``-``.

    Raises:
        ValidationError: Naming the id.
    """
    if not isinstance(job, str) or not _JOB_ID.fullmatch(job):
        raise ValidationError(
            "a job id is 1-200 ASCII letters, digits, '_', '.' or '-'", field="job", value=job
        )


@attrs.frozen
class Pending:
    """A batch counted before its writes were made (a task's work with ``count``).

    Attributes:
        last: The batch's last row (inclusive).
        counts: What the batch counts, ``"rows"`` included.
        samples: Its samples by kind.
        done: Whether the batch ended the shard's range.
    """

    last: bytes
    counts: Mapping[str, int] = attrs.field(factory=dict)
    samples: Mapping[str, tuple[bytes, ...]] = attrs.field(factory=dict)
    done: bool = False

    def encode(self) -> dict[str, Any]:
        """The batch as JSON values (rows in hex)."""
        return {
            "last": self.last.hex(),
            "counts": dict(sorted(self.counts.items())),
            "samples": {k: [r.hex() for r in v] for k, v in sorted(self.samples.items())},
            "done": self.done,
        }

    @classmethod
    def decode(cls, raw: Mapping[str, Any]) -> Pending:
        """Read what :meth:`encode` gave."""
        return cls(
            bytes.fromhex(raw["last"]),
            dict(raw["counts"]),
            {k: tuple(bytes.fromhex(r) for r in v) for k, v in raw["samples"].items()},
            raw["done"],
        )


@attrs.frozen
class Checkpoint:
    """One shard's progress as recorded: its counts and its last row, written together.

    Attributes:
        job: The job id.
        number: The shard's number.
        last: The last row done (``None``: none yet).
        counts: Every count of every batch done, by kind.
        samples: Up to 10 rowkeys per kind.
        done: Whether the shard's range is exhausted.
        seq: How many times the record was advanced (``1`` for the first record).
        pending: The batch after :attr:`last` whose counts were recorded before its
            writes (``None``: none); a resumed run redoes its writes and takes its
            counts from here (see :func:`~hmodel.jobs.run_shard`).
    """

    job: str
    number: int
    last: bytes | None = None
    counts: Mapping[str, int] = attrs.field(factory=dict)
    samples: Mapping[str, tuple[bytes, ...]] = attrs.field(factory=dict)
    done: bool = False
    seq: int = 0
    pending: Pending | None = None

    def encode(self) -> bytes:
        """The record as JSON bytes (rows in hex; ``pending`` only when set)."""
        extra = {} if self.pending is None else {"pending": self.pending.encode()}
        return json.dumps(
            {
                "job": self.job,
                "number": self.number,
                "last": None if self.last is None else self.last.hex(),
                "counts": dict(sorted(self.counts.items())),
                "samples": {k: [r.hex() for r in v] for k, v in sorted(self.samples.items())},
                "done": self.done,
                "seq": self.seq,
                **extra,
            },
            separators=(",", ":"),
        ).encode()

    @classmethod
    def decode(cls, data: bytes) -> Checkpoint:
        """Read a record :meth:`encode` wrote."""
        raw = json.loads(data)
        return cls(
            raw["job"],
            raw["number"],
            None if raw["last"] is None else bytes.fromhex(raw["last"]),
            dict(raw["counts"]),
            {k: tuple(bytes.fromhex(r) for r in v) for k, v in raw["samples"].items()},
            raw["done"],
            raw["seq"],
            None if raw.get("pending") is None else Pending.decode(raw["pending"]),
        )


@attrs.frozen
class Plan:
    """A job as first planned: its shards, and its task's name and problem kinds.

    Attributes:
        job: The job id.
        shards: The shards, by number.
        task: The task's name.
        problems: The task's problem kinds.
    """

    job: str
    shards: tuple[Shard, ...]
    task: str = ""
    problems: tuple[str, ...] = ()

    def encode(self) -> bytes:
        """The plan as JSON bytes (rows in hex)."""
        return json.dumps(
            {
                "job": self.job,
                "task": self.task,
                "problems": list(self.problems),
                "shards": [
                    [s.number, s.table, s.start.hex(), s.stop.hex(), s.phase, s.part]
                    for s in self.shards
                ],
            },
            separators=(",", ":"),
        ).encode()

    @classmethod
    def decode(cls, data: bytes) -> Plan:
        """Read a plan :meth:`encode` wrote."""
        raw = json.loads(data)
        job = raw["job"]
        shards = tuple(
            Shard(job, number, table, bytes.fromhex(start), bytes.fromhex(stop), phase, part)
            for number, table, start, stop, phase, part in raw["shards"]
        )
        return cls(job, shards, raw["task"], tuple(raw["problems"]))


class CheckpointStore(Protocol):
    """Where a job's plan and its shards' checkpoints are kept. Picklable.

    Every method is atomic per record: :meth:`record_plan` keeps the first plan recorded
    for a job id, and :meth:`advance` replaces a shard's record only if it is still the
    one the caller read (compare-and-set), so two runners of one shard cannot both
    advance it.
    """

    def bind(self, backend: Backend) -> CheckpointStore:
        """This store, using ``backend`` where it needs one (in the process running a shard)."""
        ...  # pragma: no cover

    def record_plan(self, plan: Plan) -> Plan:
        """Record ``plan`` unless one is recorded for its job; return the recorded one."""
        ...  # pragma: no cover

    def plan(self, job: str) -> Plan | None:
        """``job``'s recorded plan (``None``: no such job)."""
        ...  # pragma: no cover

    def load(self, job: str, number: int) -> Checkpoint | None:
        """Shard ``number``'s record (``None``: never advanced)."""
        ...  # pragma: no cover

    def advance(self, previous: Checkpoint | None, new: Checkpoint) -> bool:
        """Replace ``previous`` (``None``: no record) with ``new``; ``False`` if it changed."""
        ...  # pragma: no cover

    def forget(self, job: str) -> None:
        """Remove ``job``'s plan and records (a later run with the id starts afresh)."""
        ...  # pragma: no cover


class DirectoryCheckpoints:
    """Checkpoints as JSON files in a local directory: for jobs on one machine.

    ``<directory>/<job>/plan.json`` holds the plan and ``<job>/<number>.json`` each
    shard's record, replaced atomically (written aside, then renamed) under an exclusive
    ``flock`` of ``<job>/.lock``. Worker processes of one machine may share it; machines
    that do not share the directory must use :class:`TableCheckpoints`.

    Args:
        directory: Where the files go (created when needed).
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def __repr__(self) -> str:
        return f"DirectoryCheckpoints({str(self.directory)!r})"

    def bind(self, backend: Backend) -> DirectoryCheckpoints:
        """This store (it needs no backend)."""
        return self

    def _dir(self, job: str) -> Path:
        check_job_id(job)
        path = self.directory / job
        path.mkdir(parents=True, exist_ok=True)
        return path

    @contextlib.contextmanager
    def _locked(self, job: str) -> Iterator[Path]:
        path = self._dir(job)
        with (path / ".lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield path
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        aside = path.with_suffix(f".{os.getpid()}.tmp")
        with aside.open("wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        aside.replace(path)

    def record_plan(self, plan: Plan) -> Plan:
        """See :meth:`CheckpointStore.record_plan`."""
        with self._locked(plan.job) as path:
            recorded = path / "plan.json"
            if recorded.exists():
                return Plan.decode(recorded.read_bytes())
            self._write(recorded, plan.encode())
            return plan

    def plan(self, job: str) -> Plan | None:
        """See :meth:`CheckpointStore.plan`."""
        check_job_id(job)
        recorded = self.directory / job / "plan.json"
        return Plan.decode(recorded.read_bytes()) if recorded.exists() else None

    def load(self, job: str, number: int) -> Checkpoint | None:
        """See :meth:`CheckpointStore.load`."""
        check_job_id(job)
        path = self.directory / job / f"{number}.json"
        return Checkpoint.decode(path.read_bytes()) if path.exists() else None

    def advance(self, previous: Checkpoint | None, new: Checkpoint) -> bool:
        """See :meth:`CheckpointStore.advance`."""
        with self._locked(new.job) as path:
            if self.load(new.job, new.number) != previous:
                return False
            self._write(path / f"{new.number}.json", new.encode())
            return True

    def forget(self, job: str) -> None:
        """See :meth:`CheckpointStore.forget`."""
        with self._locked(job) as path:
            for child in path.iterdir():
                if child.name != ".lock":
                    child.unlink()


def job_row(job: str, number: int | None = None, generation: int = 0) -> bytes:
    r"""The rowkey of a record of job ``job`` in a job table.

    ``<job>\x00``, then for a shard its number (4 bytes, big endian) and, past the
    first generation, the generation (4 bytes).

    Raises:
        ValidationError: ``job`` is not a valid job id.
    """
    check_job_id(job)
    tail = b"" if number is None else number.to_bytes(4, "big")
    if number is not None and generation:
        tail += generation.to_bytes(4, "big")
    return job.encode() + b"\x00" + tail


def create_if_missing(backend: Backend, table: str, family: str) -> None:
    """Create ``table`` with one ``family`` of one version, unless it exists."""
    if not backend.table_exists(table):
        with contextlib.suppress(TableExistsError):  # another runner created it first
            backend.create_table(Table(table, [Family(family, versions=1)]))


class TableCheckpoints:
    r"""Checkpoints in an HBase table of their own: for jobs whose workers span machines.

    Per job id, a plan row ``<job>\x00`` and one row per shard (``<job>\x00``, 4 bytes of
    the shard number, big endian, then for every generation but the first 4 bytes of the
    generation), each one JSON cell ``c:state``. Every record is changed by one
    ``check_and_put`` comparing the whole cell with what was read (HBase's
    ``checkAndMutate``: atomic on the row), so the counts and the last row are written
    together and two runners of one shard cannot both advance it. The table (one family
    ``c``, one version) is created by the first write if missing.

    No record is ever deleted and written again under the same key: HBase hides a put
    stamped in the same millisecond as a delete marker of its row (the delete wins the
    tie), so a job forgotten and run again at once would lose its new plan. Instead
    :meth:`forget` turns the plan row into a "forgotten" record of its generation (a
    compare-and-set), the next :meth:`record_plan` starts the next generation, whose shard
    rows have keys of their own, and the old generation's shard rows are deleted.

    Picklable: the backend is not pickled; each worker binds its own (:meth:`bind`).

    Args:
        backend: Where the table is (``None``: bound later, in the worker).
        table: The table's name.
    """

    family = b"c"
    column = b"c:state"

    def __init__(self, backend: Backend | None = None, table: str = JOBS_TABLE) -> None:
        self.backend = backend
        self.table = table
        self._generations: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"TableCheckpoints(table={self.table!r})"

    def __getstate__(self) -> dict[str, Any]:
        return {"table": self.table}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.backend = None
        self.table = state["table"]
        self._generations = {}

    def bind(self, backend: Backend) -> TableCheckpoints:
        """This store's table on ``backend``."""
        return TableCheckpoints(backend, self.table)

    def _backend(self) -> Backend:
        if self.backend is None:
            raise JobError("TableCheckpoints used before bind(backend)", table=self.table)
        return self.backend

    _row = staticmethod(job_row)

    def _get(self, row: bytes) -> bytes | None:
        try:
            found = self._backend().get(self.table, [row], columns=[self.column])
        except TableNotFoundError:
            return None
        return found[0].value(self.column) if found else None

    def _create(self) -> None:
        create_if_missing(self._backend(), self.table, self.family.decode())

    def _check_and_put(self, row: bytes, expected: bytes | None, value: bytes) -> bool:
        put = Put(row, self.column, value)
        try:
            return self._backend().check_and_put(self.table, row, self.column, expected, put)
        except TableNotFoundError:
            self._create()
            return self._backend().check_and_put(self.table, row, self.column, expected, put)

    def _head(self, job: str) -> tuple[bytes | None, int, Plan | None]:
        """The plan row as read: its bytes, its generation, and the live plan if any.

        A generation's plan is ``{"generation": g, "plan": ...}``; a forgotten one
        ``{"generation": g, "forgotten": true}`` (the next plan is ``g + 1``).
        """
        raw = self._get(self._row(job))
        if raw is None:
            return None, 0, None
        try:
            head = json.loads(raw)
            generation = int(head["generation"])
            plan = None if head.get("forgotten") else Plan.decode(head["plan"].encode())
        except (ValueError, KeyError, TypeError) as exc:
            raise JobError(
                f"job {job!r}'s plan record does not decode: {exc}",
                table=self.table,
                row=self._row(job),
            ) from exc
        self._generations[job] = generation if plan is not None else generation + 1
        return raw, generation, plan

    def _generation(self, job: str) -> int:
        if job not in self._generations:
            self._head(job)
        return self._generations.get(job, 0)

    def record_plan(self, plan: Plan) -> Plan:
        """See :meth:`CheckpointStore.record_plan`."""
        for _ in range(8):
            raw, generation, recorded = self._head(plan.job)
            if recorded is not None:
                return recorded
            nxt = 0 if raw is None else generation + 1
            head = {"generation": nxt, "plan": plan.encode().decode()}
            value = json.dumps(head, separators=(",", ":")).encode()
            self._check_and_put(self._row(plan.job), raw, value)
        raise JobError(  # pragma: no cover - eight forgets racing one record
            f"job {plan.job!r}'s plan kept changing as it was recorded", table=self.table
        )

    def plan(self, job: str) -> Plan | None:
        """See :meth:`CheckpointStore.plan`."""
        return self._head(job)[2]

    def load(self, job: str, number: int) -> Checkpoint | None:
        """See :meth:`CheckpointStore.load`."""
        data = self._get(self._row(job, number, self._generation(job)))
        return None if data is None else Checkpoint.decode(data)

    def advance(self, previous: Checkpoint | None, new: Checkpoint) -> bool:
        """See :meth:`CheckpointStore.advance`."""
        expected = None if previous is None else previous.encode()
        row = self._row(new.job, new.number, self._generation(new.job))
        return self._check_and_put(row, expected, new.encode())

    def forget(self, job: str) -> None:
        """See :meth:`CheckpointStore.forget`: the plan row marked forgotten, shard rows deleted."""
        backend = self._backend()
        if not backend.table_exists(self.table):
            return
        last = -1  # the newest generation forgotten
        for _ in range(8):
            raw, generation, plan = self._head(job)
            if raw is None:
                break
            if plan is None:
                last = generation
                break
            marker = json.dumps({"generation": generation, "forgotten": True}).encode()
            if self._check_and_put(self._row(job), raw, marker):
                last = generation
                self._generations[job] = generation + 1
                break
        head = self._row(job)
        # Shard rows of the generations forgotten: their keys are never written again,
        # so deleting them cannot hide a later write (a newer generation's rows, which a
        # run may be writing already, are left).
        rows = [
            r.row
            for r in backend.scan(self.table, Scan.prefix(head, columns=(self.column,)))
            if r.row != head and int.from_bytes(r.row[len(head) + 4 :] or b"\0", "big") <= last
        ]
        if rows:
            backend.mutate(self.table, [Delete(row) for row in rows])
