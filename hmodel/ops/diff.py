"""Schema diff: what differs between two declarations of tables, and the shell statements (F5)."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from hmodel.errors import InputError
from hmodel.schema import Family, Table, alter_statements, create_statement
from hmodel.schema.ddl import binary_literal

__all__ = ["Difference", "TableDiff", "diff_table", "diff_tables", "with_splits_of"]

_FAMILY_FIELDS = tuple(a.name for a in attrs.fields(Family) if a.name != "name")
_TABLE_FIELDS = ("read_only", "durability", "max_filesize", "memstore_flushsize")


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    enum_value = getattr(value, "value", None)
    return str(enum_value if enum_value is not None else value)


@attrs.frozen
class Difference:
    """One way a table's current declaration differs from the wanted one.

    Attributes:
        table: The table's full name.
        what: ``"table"`` (missing or extra), ``"family"`` (added or removed),
            ``"family option"``, ``"table option"`` or ``"splits"``.
        name: The family or option concerned (``"o"``, ``"o.VERSIONS"``, ``"DURABILITY"``).
        before: The current value, ``None`` when absent.
        after: The wanted value, ``None`` when it goes away.
        destructive: Whether applying it drops data (a family deleted).
    """

    table: str
    what: str
    name: str
    before: str | None
    after: str | None
    destructive: bool = False

    def __str__(self) -> str:
        change = f"{self.before} -> {self.after}"
        if self.before is None:
            change = f"added ({self.after})" if self.after else "added"
        elif self.after is None:
            change = f"removed (was {self.before})"
        warning = "  [drops data]" if self.destructive else ""
        return f"{self.what} {self.name}: {change}{warning}"


@attrs.frozen
class TableDiff:
    """The differences of one table and the statements that reconcile them.

    Attributes:
        table: The table's full name.
        differences: What differs, families first, then table options and splits.
        statements: HBase shell statements turning the current table into the wanted
            one (``create``; or ``disable``/``alter``/``enable``; or ``split``).
        notes: What the statements cannot do (e.g. merging regions, a table only the
            current side has, which is never dropped).
    """

    table: str
    differences: tuple[Difference, ...]
    statements: tuple[str, ...]
    notes: tuple[str, ...] = ()

    @property
    def destructive(self) -> bool:
        """Whether a statement would drop data."""
        return any(d.destructive for d in self.differences)


def _family_differences(name: str, current: Table, wanted: Table) -> list[Difference]:
    found = []
    now = {f.name: f for f in current.families}
    for family in wanted.families:
        before = now.get(family.name)
        if before is None:
            found.append(Difference(name, "family", family.name, None, "new"))
            continue
        for option in _FAMILY_FIELDS:
            old, new = getattr(before, option), getattr(family, option)
            if old != new:
                label = f"{family.name}.{option.upper()}"
                found.append(Difference(name, "family option", label, _show(old), _show(new)))
    wanted_names = {f.name for f in wanted.families}
    found += [
        Difference(name, "family", f.name, "present", None, destructive=True)
        for f in current.families
        if f.name not in wanted_names
    ]
    return found


def diff_table(current: Table | None, wanted: Table | None) -> TableDiff:
    """Compare one table as it is (``current``) with its declaration (``wanted``).

    A table only ``wanted`` has gets its ``create`` statement; a table only ``current``
    has gets a note, never a ``drop``. Split points that ``wanted`` adds become ``split``
    statements (one per point, on the live table); points it removes need region merges,
    which are noted, not scripted.

    Raises:
        InputError: Both are ``None``, or they name different tables.
    """
    if current is None and wanted is None:
        raise InputError("diff_table needs at least one table")
    if current is not None and wanted is not None and current.full_name != wanted.full_name:
        raise InputError(f"{current.full_name!r} and {wanted.full_name!r} are different tables")
    if current is None:
        assert wanted is not None
        name = wanted.full_name
        return TableDiff(
            name,
            (Difference(name, "table", name, None, "declared"),),
            (create_statement(wanted),),
        )
    name = current.full_name
    if wanted is None:
        return TableDiff(
            name,
            (Difference(name, "table", name, "present", None),),
            (),
            (f"table {name!r} is not declared; it is left alone (drop it by hand if meant)",),
        )
    differences = _family_differences(name, current, wanted)
    for option in _TABLE_FIELDS:
        old, new = getattr(current, option), getattr(wanted, option)
        if old != new:
            differences.append(
                Difference(name, "table option", option.upper(), _show(old), _show(new))
            )
    statements = alter_statements(current, with_splits_of(wanted, current))
    notes: list[str] = []
    added = sorted(set(wanted.splits) - set(current.splits))
    removed = sorted(set(current.splits) - set(wanted.splits))
    if added or removed:
        differences.append(
            Difference(
                name,
                "splits",
                "SPLITS",
                f"{len(current.splits) + 1} regions",
                f"{len(wanted.splits) + 1} regions",
            )
        )
        statements += [f"split '{name}', {binary_literal(point)}" for point in added]
        if removed:
            notes.append(
                f"{len(removed)} split points of {name!r} are not declared: merge those "
                "regions (merge_region) if the layout should follow"
            )
    return TableDiff(name, tuple(differences), tuple(statements), tuple(notes))


def with_splits_of(wanted: Table, current: Table) -> Table:
    """``wanted`` with ``current``'s split points, for :func:`alter_statements`."""
    return Table(
        wanted.name,
        wanted.families,
        namespace=wanted.namespace,
        splits=list(current.splits) or None,
        read_only=wanted.read_only,
        durability=wanted.durability,
        max_filesize=wanted.max_filesize,
        memstore_flushsize=wanted.memstore_flushsize,
        allow_many_families=wanted.allow_many_families,
    )


def diff_tables(current: Iterable[Table], wanted: Iterable[Table]) -> list[TableDiff]:
    """Compare two sets of tables by full name; return the tables that differ, by name."""
    now = {t.full_name: t for t in current}
    then = {t.full_name: t for t in wanted}
    diffs = [diff_table(now.get(name), then.get(name)) for name in sorted(now.keys() | then.keys())]
    return [d for d in diffs if d.differences]
