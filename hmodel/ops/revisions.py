"""Data revisions for ``hmodel migrate``: found in modules, shown beside the DDL changes."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

from hmodel.backend.base import Backend
from hmodel.errors import DeclarationError, InputError
from hmodel.ops.inventory import import_module
from hmodel.patterns import DataMigration, RevisionTable
from hmodel.patterns.revision import RevisionState, ordered_revisions

__all__ = ["data_migrations_of", "pending_revisions", "render_pending"]


def data_migrations_of(module: ModuleType) -> list[DataMigration[Any, Any]]:
    """The data migrations declared at the top level of ``module``, in the module's order."""
    return [value for value in vars(module).values() if isinstance(value, DataMigration)]


def pending_revisions(
    backend: Backend, modules: Sequence[str]
) -> list[tuple[DataMigration[Any, Any], RevisionState | None]]:
    """The data revisions of ``modules`` not contracted in the cluster, in revision order.

    Reads the revision table (one scan; none recorded when it does not exist).

    Raises:
        InputError: A module cannot be imported, or the revisions do not form one chain.
    """
    found: dict[str, DataMigration[Any, Any]] = {}
    for name in modules:
        for migration in data_migrations_of(import_module(name)):
            found.setdefault(migration.revision, migration)
    try:
        ordered_revisions(found.values())
        return RevisionTable(backend).pending(list(found.values()))
    except DeclarationError as exc:
        raise InputError(f"data revisions of {', '.join(modules)}: {exc}") from exc


def render_pending(pending: Sequence[tuple[DataMigration[Any, Any], RevisionState | None]]) -> str:
    """The pending data revisions as text, one line each (oldest first)."""
    if not pending:
        return "data revisions: none pending"
    lines = ["data revisions pending (run their jobs; migrate never moves data):"]
    for migration, state in pending:
        phase = "not begun" if state is None else state.phase
        note = f": {migration.description}" if migration.description else ""
        lines.append(f"  {migration.revision} [{phase}]{note}")
    return "\n".join(lines)
