"""The applied data revisions, kept in a table of their own (like alembic's version table)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from hmodel.backend.base import Backend, Put, Scan
from hmodel.clock import Clock, system_clock
from hmodel.errors import ConflictError, DeclarationError, TableExistsError, ValidationError
from hmodel.patterns.migration import DataMigration
from hmodel.schema import Family, Table

__all__ = ["PHASES", "REVISION_TABLE", "RevisionState", "RevisionTable", "ordered_revisions"]

#: The phases of a data revision, in order: the new layout created and the migrating
#: repository deployed (``expanding``), the job running (``migrating``), old and new
#: compared (``verified``), the old layout gone (``contracted``).
PHASES = ("expanding", "migrating", "verified", "contracted")

#: The revision table: one row per revision id, family ``r`` (one version kept).
REVISION_TABLE = Table("hmodel_revisions", [Family("r", versions=1)])

_PHASE = b"r:phase"
_DOWN = b"r:down"
_COUNTS = b"r:counts"


@attrs.frozen
class RevisionState:
    """A revision as the revision table records it.

    Attributes:
        revision: The revision id.
        phase: One of :data:`PHASES`.
        down_revision: The revision it follows (``None``: the first).
        times: Epoch ms at which each phase reached so far began, by phase.
        counts: The counts recorded with the last phase (a job's report).
    """

    revision: str
    phase: str
    down_revision: str | None = None
    times: Mapping[str, int] = attrs.field(factory=dict)
    counts: Mapping[str, int] = attrs.field(factory=dict)


def ordered_revisions(
    migrations: Iterable[DataMigration[Any, Any]],
) -> list[DataMigration[Any, Any]]:
    """The migrations in revision order: each after its ``down_revision``.

    Raises:
        DeclarationError: Two share a revision id, two follow the same revision (a
            branch), one follows a revision that is not declared, or no chain start.
    """
    by_id: dict[str, DataMigration[Any, Any]] = {}
    after: dict[str | None, DataMigration[Any, Any]] = {}
    for m in migrations:
        if m.revision in by_id:
            raise DeclarationError("two data migrations share a revision id", value=m.revision)
        by_id[m.revision] = m
        if m.down_revision in after:
            raise DeclarationError(
                f"revisions {after[m.down_revision].revision!r} and {m.revision!r} both "
                "follow the same revision: merge the branch",
                value=m.down_revision,
            )
        after[m.down_revision] = m
    for m in by_id.values():
        if m.down_revision is not None and m.down_revision not in by_id:
            raise DeclarationError(
                f"revision {m.revision!r} follows an undeclared revision",
                value=m.down_revision,
            )
    chain: list[DataMigration[Any, Any]] = []
    current = after.get(None)
    while current is not None:
        chain.append(current)
        current = after.get(current.revision)
    if len(chain) != len(by_id):
        raise DeclarationError("the data revisions do not form one chain from a first one")
    return chain


class RevisionTable:
    """Reads and advances the phases of data revisions in the cluster's revision table.

    Every phase change is one check-and-put of the phase cell (expected: the phase
    before), so of two runners advancing one revision from the same phase exactly one
    succeeds; the other gets :class:`~hmodel.errors.ConflictError`. The time and the
    counts of the phase are written after it, in a second round trip.

    Args:
        backend: Any backend.
        clock: Epoch-millisecond clock of the recorded times.
        table: The revision table's declaration (another name, a namespace).
    """

    def __init__(
        self, backend: Backend, *, clock: Clock = system_clock, table: Table = REVISION_TABLE
    ) -> None:
        self.backend = backend
        self.clock = clock
        self.declaration = table
        self.table = table.full_name

    def create(self) -> None:
        """Create the revision table unless it exists (one or two round trips)."""
        if self.backend.table_exists(self.table):
            return
        with contextlib.suppress(TableExistsError):
            self.backend.create_table(self.declaration)

    def _state(self, row: bytes, cells: Mapping[bytes, Any]) -> RevisionState:
        def value(column: bytes) -> bytes | None:
            cell = cells.get(column)
            return None if cell is None else bytes(cell.value)

        times = {
            p: int(v.decode()) for p in PHASES if (v := value(b"r:at_" + p.encode())) is not None
        }
        down = value(_DOWN)
        counts = value(_COUNTS)
        return RevisionState(
            revision=row.decode("ascii"),
            phase=(value(_PHASE) or b"").decode("ascii"),
            down_revision=down.decode("ascii") if down else None,
            times=times,
            counts=json.loads(counts) if counts else {},
        )

    def states(self) -> dict[str, RevisionState]:
        """Every recorded revision by id (one scan; ``{}`` without the table)."""
        if not self.backend.table_exists(self.table):
            return {}
        return {
            r.row.decode("ascii"): self._state(r.row, r.cells)
            for r in self.backend.scan(self.table, Scan())
        }

    def state(self, revision: str) -> RevisionState | None:
        """One revision's record, ``None`` when it was never begun (one round trip)."""
        row = _row(revision)
        found = self.backend.get(self.table, [row])
        return self._state(row, found[0].cells) if found else None

    def advance(
        self,
        migration: DataMigration[Any, Any],
        phase: str,
        *,
        counts: Mapping[str, int] | None = None,
    ) -> RevisionState:
        """Move ``migration`` to ``phase``, from the phase before it (two round trips).

        ``expanding`` begins a revision: its ``down_revision`` must be ``contracted`` (or
        ``None``) and the revision unrecorded. Each later phase requires the one before.

        Raises:
            ValidationError: ``phase`` is not one of :data:`PHASES`.
            ConflictError: The revision is not in the phase before (another runner
                advanced it, or it is not begun), or its down revision is not contracted.
        """
        if phase not in PHASES:
            raise ValidationError(
                f"a phase is one of {', '.join(PHASES)}", table=self.table, value=phase
            )
        row = _row(migration.revision)
        index = PHASES.index(phase)
        before = PHASES[index - 1].encode() if index else None
        if index == 0 and migration.down_revision is not None:
            down = self.state(migration.down_revision)
            if down is None or down.phase != PHASES[-1]:
                raise ConflictError(
                    f"revision {migration.revision!r} follows {migration.down_revision!r}, "
                    f"which is {'not begun' if down is None else down.phase}, not contracted",
                    table=self.table,
                    row=row,
                )
        if not self.backend.check_and_put(
            self.table, row, _PHASE, before, Put(row, _PHASE, phase.encode())
        ):
            current = self.state(migration.revision)
            now = "not begun" if current is None else repr(current.phase)
            wanted = "unrecorded" if before is None else repr(before.decode())
            raise ConflictError(
                f"revision {migration.revision!r} is {now}, not {wanted}: another runner "
                "may have advanced it",
                table=self.table,
                row=row,
            )
        puts = [Put(row, b"r:at_" + phase.encode(), str(self.clock()).encode())]
        if index == 0 and migration.down_revision is not None:
            puts.append(Put(row, _DOWN, migration.down_revision.encode()))
        if counts is not None:
            puts.append(Put(row, _COUNTS, json.dumps(dict(counts), sort_keys=True).encode()))
        self.backend.mutate(self.table, puts)
        found = self.state(migration.revision)
        assert found is not None  # written just above
        return found

    def pending(
        self, migrations: Sequence[DataMigration[Any, Any]]
    ) -> list[tuple[DataMigration[Any, Any], RevisionState | None]]:
        """The declared revisions not contracted yet, in order, each with its record."""
        states = self.states()
        return [
            (m, states.get(m.revision))
            for m in ordered_revisions(migrations)
            if states.get(m.revision) is None or states[m.revision].phase != PHASES[-1]
        ]


def _row(revision: str) -> bytes:
    if not revision or not revision.isascii() or not revision.isprintable():
        raise ValidationError(
            "a revision id is printable ASCII, not empty", table=REVISION_TABLE.name, value=revision
        )
    return revision.encode("ascii")
