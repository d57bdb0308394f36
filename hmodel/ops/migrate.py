"""Schema migration over a live cluster (F5): compare, then create or alter, dry run first."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

import attrs

from hmodel.backend.base import Scan
from hmodel.errors import MigrationRefusedError
from hmodel.ops.diff import Difference, TableDiff, diff_table, with_splits_of
from hmodel.schema import Table

__all__ = ["LiveSchema", "Migration", "current_tables", "migrate"]


class LiveSchema(Protocol):
    """What a migration needs of a backend: HBase's Thrift2 admin calls (``Thrift2Backend``)."""

    def table_exists(self, name: str) -> bool:
        """Whether the table exists."""
        ...

    def describe_table(self, name: str) -> Table:
        """The table as the cluster stores it: families, every option, split points."""
        ...

    def create_table(self, table: Table) -> None:
        """Create ``table`` with its families, options and split points."""
        ...

    def alter_table(self, table: Table, *, dry_run: bool = False) -> list[str]:
        """Bring the stored table to ``table`` (split points excepted); the statements."""
        ...

    def scan(self, table: str, scan: Scan) -> Iterable[object]:
        """Rows of a scan (a migration reads at most one row per dropped family)."""
        ...


@attrs.frozen
class Migration:
    """What a migration of one table found and did.

    Attributes:
        diff: The differences and the HBase shell statements of the change.
        applied: Whether a change was made (``False`` for a dry run, or when only split
            points differ, which a migration never changes).
        dropped_with_data: Families the change drops that hold cells.
        left: The differences still there afterwards: every one of a dry run; with
            ``apply``, the split points (they need region splits or merges, which the
            statements list and the migration does not make).
    """

    diff: TableDiff
    applied: bool
    dropped_with_data: tuple[str, ...] = ()
    left: tuple[Difference, ...] = ()


def current_tables(backend: LiveSchema, wanted: Iterable[Table]) -> list[Table]:
    """The stored declarations of the ``wanted`` tables that exist (one call each)."""
    return [
        backend.describe_table(t.full_name) for t in wanted if backend.table_exists(t.full_name)
    ]


def _holds_cells(backend: LiveSchema, table: str, family: str) -> bool:
    rows = backend.scan(table, Scan(columns=(family.encode(),), limit=1))
    return any(True for _ in rows)


def migrate(
    backend: LiveSchema,
    wanted: Sequence[Table],
    *,
    apply: bool = False,
    allow_drop: bool = False,
    step: Callable[[Iterable[Table]], Iterable[Table]] = lambda tables: tables,
) -> list[Migration]:
    """Bring the live tables to the declarations ``wanted`` (F5); a dry run by default.

    Per declared table: a missing one is created (with its split points); an existing one
    is compared with what the cluster stores (:meth:`LiveSchema.describe_table`) and, when
    they differ, altered one call per change (add, modify or delete a family, modify the
    table options), online as HBase 2 does. Split points are never changed (that needs
    region splits or merges; the differences say so). Tables that exist but are not
    declared are left alone. Tables that match are not reported.

    Args:
        backend: A backend with HBase's Thrift2 admin calls (``Thrift2Backend``).
        wanted: The declared tables.
        apply: Make the changes; ``False`` (the default) only reports them.
        allow_drop: Let a change delete a family that holds cells (its cells are lost).
            Dropping an empty family needs no permission.
        step: Wraps the loop over the tables (a progress display).

    Returns:
        One :class:`Migration` per table that differs, in the order given; its
        ``left`` lists what still differs (split points, with ``apply``).

    Raises:
        MigrationRefusedError: With ``apply``, a family holding cells would be dropped
            and ``allow_drop`` is false. Nothing of that table is changed; the tables
            before it are migrated.
    """
    done: list[Migration] = []
    for table in step(wanted):
        name = table.full_name
        stored = backend.describe_table(name) if backend.table_exists(name) else None
        diff = diff_table(stored, table)
        if not diff.differences:
            continue
        if stored is None:
            if apply:
                backend.create_table(table)
            done.append(Migration(diff, applied=apply, left=() if apply else diff.differences))
            continue
        kept = {f.name for f in table.families}
        dropped = [f.name for f in stored.families if f.name not in kept]
        with_data = tuple(f for f in dropped if _holds_cells(backend, name, f))
        target = with_splits_of(table, stored)
        changes = target.families != stored.families or any(
            getattr(target, o) != getattr(stored, o)
            for o in ("read_only", "durability", "max_filesize", "memstore_flushsize")
        )
        if apply and with_data and not allow_drop:
            raise MigrationRefusedError(
                f"migrating {name!r} would drop families holding cells: "
                f"{', '.join(with_data)}; pass allow_drop (--allow-drop) to drop them",
                table=name,
                value=list(with_data),
            )
        if apply and changes:
            backend.alter_table(target)
        left = tuple(d for d in diff.differences if not apply or d.what == "splits")
        done.append(
            Migration(diff, applied=apply and changes, dropped_with_data=with_data, left=left)
        )
    return done
