"""Puts and deletes checked against a table, then applied to its rows as HBase applies them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import attrs

from hmodel.backend.base import Cell, Delete, Put
from hmodel.backend.memory.argument import (
    MAX_ROW_LENGTH,
    require_bytes,
    require_cell_name,
    require_column,
    require_int,
    require_row,
    require_timestamp,
)
from hmodel.backend.memory.counter import LONG_MAX
from hmodel.backend.memory.store import StoredRow
from hmodel.backend.memory.table import MemoryTable
from hmodel.backend.memory.version import Stored, make_cell, make_version
from hmodel.errors import IllegalArgumentError

__all__ = [
    "EngineMutation",
    "PlannedDelete",
    "PlannedPut",
    "VersionDelete",
    "apply_delete",
    "apply_put",
    "apply_puts",
    "plan_delete",
    "plan_mutations",
    "plan_put",
    "resolve_latest",
    "round_trip_groups",
]


@attrs.frozen
class VersionDelete:
    """Delete single versions, as HBase's ``Delete.addColumn`` and ``addFamilyVersion`` do.

    Not in the :class:`~hmodel.backend.base.Backend` protocol (which deletes ranges of
    versions): the engine takes it in :meth:`MemoryBackend.mutate` and
    :meth:`MemoryBackend.check_and_mutate`, for the fake Thrift2 server's
    ``DELETE_COLUMN`` and ``DELETE_FAMILY_VERSION``.

    Args:
        row: The rowkey.
        column: ``b"f:q"`` places a ``Delete`` marker, which masks the version of that
            column at exactly ``timestamp``; a bare family ``b"f"`` places a
            ``DeleteFamilyVersion`` marker, which masks every column's version at
            exactly ``timestamp``. Versions at other timestamps, older or newer, stay.
        timestamp: The timestamp masked. ``None`` (a column only) means the newest
            visible version of the column when the call lands, before the call's puts
            (HBase's ``prepareDeleteTimestamps``); ``n`` such deletes of one column in
            one call mask its ``n`` newest; with fewer visible, the marker is stamped
            "now", masking only a version written at that millisecond.
    """

    row: bytes
    column: bytes
    timestamp: int | None = None


#: What the engine's writes take: the protocol's puts and deletes, and single-version deletes.
EngineMutation = Put | Delete | VersionDelete


#: A checked put: ``(row, registered column name, value, timestamp, ttl)``; a timestamp
#: ``None`` means "now". A plain tuple: checking builds one per put.
PlannedPut = tuple[bytes, bytes, bytes, int | None, int | None]


class PlannedDelete(NamedTuple):
    """A checked delete; ``family`` is ``None`` for a whole row, ``qualifier`` for a family.

    ``single``: a :class:`VersionDelete` (the version at ``timestamp`` only).
    """

    row: bytes
    family: bytes | None
    qualifier: bytes | None
    timestamp: int | None
    single: bool = False


def round_trip_groups(mutations: Sequence[object]) -> int:
    """How many round trips ``mutations`` cost: one per distinct ``(timestamp, ttl)`` pair.

    Deletes carry no TTL, so a delete shares a trip with the puts of its timestamp and no
    TTL. Objects that are not mutations count as nothing; checking them is left to
    :func:`plan_mutations`.
    """
    return len(
        {
            (mutation.timestamp, mutation.ttl if isinstance(mutation, Put) else None)
            for mutation in mutations
            if isinstance(mutation, (Put, Delete, VersionDelete))
        }
    )


def plan_put(table: MemoryTable, put: object, *, row: bytes | None = None) -> PlannedPut:
    """Check one put against ``table``; with ``row`` given, the put must be on that row.

    Raises:
        IllegalArgumentError: Not a :class:`Put`, a field of the wrong type or out of
            range, a bare family as its column, or another row than ``row``.
        ColumnFamilyNotFoundError: Its column names an unknown family.
    """
    if type(put) is not Put and not isinstance(put, Put):
        raise IllegalArgumentError("expected a Put", table=table.name, value=put)
    checked_row = put.row
    if type(checked_row) is not bytes or not checked_row or len(checked_row) > MAX_ROW_LENGTH:
        checked_row = require_row(checked_row, table=table.name)
    if row is not None:
        _same_row(table, checked_row, row)
    column = put.column
    name = table.registered(column) if type(column) is bytes else None
    if name is None:
        name = require_cell_name(table, column, row=checked_row)
    value = put.value
    if type(value) is not bytes:
        value = require_bytes("value", value, table=table.name, row=checked_row)
    timestamp = put.timestamp
    if timestamp is not None and (type(timestamp) is not int or not 0 <= timestamp < LONG_MAX):
        timestamp = require_timestamp("timestamp", timestamp, table=table.name, row=checked_row)
    ttl = None
    if put.ttl is not None:
        ttl = require_int(
            "ttl", put.ttl, table=table.name, row=checked_row, minimum=0, maximum=LONG_MAX
        )
    return (checked_row, name, value, timestamp, ttl)


def plan_delete(table: MemoryTable, delete: object, *, row: bytes | None = None) -> PlannedDelete:
    """Check one delete against ``table``; with ``row`` given, it must be on that row.

    Raises:
        IllegalArgumentError: Not a :class:`Delete`, a field of the wrong type or out of
            range, or another row than ``row``.
        ColumnFamilyNotFoundError: Its column names an unknown family.
    """
    if not isinstance(delete, (Delete, VersionDelete)):
        raise IllegalArgumentError("expected a Delete", table=table.name, value=delete)
    checked_row = require_row(delete.row, table=table.name)
    _same_row(table, checked_row, row)
    timestamp = require_timestamp("timestamp", delete.timestamp, table=table.name, row=checked_row)
    single = isinstance(delete, VersionDelete)
    if delete.column is None:
        if single:
            raise IllegalArgumentError(
                "a VersionDelete names a column or a family", table=table.name, row=checked_row
            )
        return PlannedDelete(checked_row, None, None, timestamp)
    family, qualifier = require_column(table, delete.column, row=checked_row)
    if single and qualifier is None and timestamp is None:
        raise IllegalArgumentError(
            "a VersionDelete of a whole family needs a timestamp",
            table=table.name,
            row=checked_row,
            column=delete.column,
        )
    return PlannedDelete(checked_row, family, qualifier, timestamp, single)


def _same_row(table: MemoryTable, row: bytes, expected: bytes | None) -> None:
    if expected is not None and row != expected:
        raise IllegalArgumentError(
            "the mutation must be on the row that is checked",
            table=table.name,
            row=expected,
            value=row,
        )


def plan_mutations(
    table: MemoryTable,
    mutations: Sequence[EngineMutation],
    groups: set[tuple[int | None, int | None]] | None = None,
) -> tuple[list[PlannedPut], list[PlannedDelete]]:
    """Check every mutation first, so that a bad one leaves the table untouched.

    Args:
        table: The table written.
        mutations: The puts and deletes.
        groups: If given, receives each mutation's ``(timestamp, ttl)`` as
            :func:`round_trip_groups` counts them (saving that function's pass).

    Returns:
        The puts and the deletes, each in the order given.
    """
    puts: list[PlannedPut] = []
    deletes: list[PlannedDelete] = []
    registered = table.registered_names
    seen: set[tuple[int | None, int | None]] = set() if groups is None else groups
    group = seen.add
    for mutation in mutations:
        if type(mutation) is Put:
            # The common put, checked inline: a known column, bytes, no TTL.
            row, column, value, timestamp = (
                mutation.row,
                mutation.column,
                mutation.value,
                mutation.timestamp,
            )
            name = registered.get(column) if type(column) is bytes else None
            if (
                name is not None
                and type(row) is bytes
                and 0 < len(row) <= MAX_ROW_LENGTH
                and type(value) is bytes
                and mutation.ttl is None
                and (timestamp is None or (type(timestamp) is int and 0 <= timestamp < LONG_MAX))
            ):
                puts.append((row, name, value, timestamp, None))
                group((timestamp, None))
            else:
                puts.append(plan_put(table, mutation))
                group((mutation.timestamp, mutation.ttl))
        elif isinstance(mutation, (Delete, VersionDelete)):
            deletes.append(plan_delete(table, mutation))
            group((mutation.timestamp, None))
        elif isinstance(mutation, Put):
            puts.append(plan_put(table, mutation))
            group((mutation.timestamp, mutation.ttl))
        else:
            raise IllegalArgumentError(
                "a mutation is a Put, a Delete or a VersionDelete",
                table=table.name,
                field="mutations",
                value=mutation,
            )
    return puts, deletes


def apply_put(table: MemoryTable, put: PlannedPut, *, now: int) -> None:
    """Store ``put``, stamped ``now`` if it has no timestamp. The caller holds the lock."""
    apply_puts(table, [put], now=now)


def apply_puts(table: MemoryTable, puts: Sequence[PlannedPut], *, now: int) -> None:
    """Store ``puts`` in order, each stamped ``now`` if it has no timestamp.

    The engine's one bulk-put entry point: :meth:`MemoryBackend.mutate` calls it with
    what :func:`plan_mutations` checked, and a caller that builds rows without ``Put``
    objects calls it the same way, under ``table.lock``, with tuples
    ``(row, name, value, timestamp, ttl)`` (:data:`PlannedPut`) that meet the same
    checks: ``row`` non-empty ``bytes`` of at most 32,767 bytes, ``name`` the object
    :meth:`MemoryTable.registered` (or ``register``) returns for ``b"f:q"``, ``value``
    ``bytes``, ``timestamp`` ``None`` or an ``int`` in ``[0, 2**63 - 1)``, ``ttl``
    ``None`` or milliseconds in the same range. Nothing is checked here.

    A new row is built whole from its consecutive puts while their columns ascend
    (:meth:`MemoryTable.add_row`, told whether all its versions are plain cells); a
    stored row is opened once for its consecutive puts and settled after them.
    """
    keeps = table.keeps
    orders = table.orders
    shapes = table.shapes
    lookup = table.rows.get
    last: bytes | None = None
    stored: StoredRow | None = None  # the open row ``last``, if it is a stored row
    fresh: list[bytes] = []  # the columns of the new row ``last``
    fresh_versions: list[Stored] = []
    cells = True  # every version of ``fresh_versions`` is a plain Cell
    for row, name, value, timestamp, ttl in puts:
        version = (
            make_cell(value, now if timestamp is None else timestamp)
            if ttl is None
            else make_version(now if timestamp is None else timestamp, value, ttl)
        )
        if fresh:
            if row == last and orders[fresh[-1]] < orders[name]:
                fresh.append(name)
                fresh_versions.append(version)
                if ttl is not None:
                    cells = False
                continue
            table.add_row(last, tuple(fresh), fresh_versions, cells=cells)  # type: ignore[arg-type]
            fresh, fresh_versions = [], []
        elif stored is not None and row != last:
            table.settle(last, stored)  # type: ignore[arg-type]
            stored = None
        if stored is None:
            last = row
            data = lookup(row)
            if data is None:
                fresh.append(name)
                fresh_versions.append(version)
                cells = ttl is None
                continue
            if (
                type(data) is not StoredRow
                and type(version) is Cell
                and table.put_plain(row, data, name, version)
            ):
                continue  # still plain: the next put of the row looks it up again
            stored = table.open_row(row)
        stored.put(name, version, keeps[name], orders, shapes)
    if fresh:
        table.add_row(last, tuple(fresh), fresh_versions, cells=cells)  # type: ignore[arg-type]
    elif stored is not None:
        table.settle(last, stored)  # type: ignore[arg-type]


def resolve_latest(
    table: MemoryTable, deletes: Sequence[PlannedDelete], *, now: int
) -> list[PlannedDelete]:
    """``deletes`` with each single-version delete without a timestamp stamped.

    The ``n``-th such delete of a column is stamped with the ``n``-th newest version of
    it visible now (read as a ``Get`` of that column reads it), or ``now`` if there are
    fewer: HBase's ``HRegion.prepareDeleteTimestamps``. Call it before the puts of the
    same call are applied. The caller holds the lock.
    """
    counts: dict[tuple[bytes, bytes], int] = {}
    resolved: list[PlannedDelete] = []
    for delete in deletes:
        if delete.single and delete.timestamp is None and delete.qualifier is not None:
            assert delete.family is not None  # a qualifier comes with its family
            name = table.register(delete.family, delete.qualifier)
            seen = counts[delete.row, name] = counts.get((delete.row, name), 0) + 1
            versions = table.row_versions(delete.row, name, before=None, now=now)
            stamp = versions[seen - 1].timestamp if len(versions) >= seen else now
            resolved.append(delete._replace(timestamp=stamp))
        else:
            resolved.append(delete)
    return resolved


def apply_delete(table: MemoryTable, delete: PlannedDelete, *, now: int) -> None:
    """Place the delete markers of ``delete`` (at ``now`` if it has no timestamp).

    A whole-row delete places a ``DeleteFamily`` marker in every family; a single-version
    delete a ``Delete`` or ``DeleteFamilyVersion`` marker (stamp those without a
    timestamp with :func:`resolve_latest` first). The caller holds the lock.
    """
    timestamp = now if delete.timestamp is None else delete.timestamp
    stored = table.open_row(delete.row)
    if delete.single:
        assert delete.family is not None  # plan_delete refuses a single whole-row delete
        if delete.qualifier is None:
            stored.delete_family_version(delete.family, timestamp)
        else:
            stored.delete_version(table.register(delete.family, delete.qualifier), timestamp)
    elif delete.family is None:
        for family in table.families:
            stored.delete_family(family, timestamp)
    elif delete.qualifier is None:
        stored.delete_family(delete.family, timestamp)
    else:
        name = table.register(delete.family, delete.qualifier)
        stored.delete_column(name, timestamp)
    table.settle(delete.row, stored)
