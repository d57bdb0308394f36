"""Checks of the arguments a caller hands the engine, raising the errors HBase would."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmodel.backend.argument import (
    MAX_ROW_LENGTH,
    require_bytes,
    require_int,
    require_row,
    require_timestamp,
)
from hmodel.backend.base import split_column
from hmodel.backend.memory.selection import EVERYTHING, ColumnKey, Selection
from hmodel.backend.memory.table import SELECTION_CACHE, MemoryTable
from hmodel.errors import ColumnFamilyNotFoundError, IllegalArgumentError

__all__ = [
    "MAX_ROW_LENGTH",
    "require_bytes",
    "require_cell_column",
    "require_cell_name",
    "require_column",
    "require_int",
    "require_row",
    "require_sequence",
    "require_table_name",
    "require_timestamp",
    "selection_of",
]


def require_table_name(name: object) -> str:
    """Return ``name`` if it is a ``str`` table name.

    Raises:
        IllegalArgumentError: ``name`` is not a string.
    """
    if not isinstance(name, str):
        raise IllegalArgumentError("the table name must be a str", field="table", value=name)
    return name


def require_sequence(argument: str, value: object, *, table: str) -> Sequence[Any]:
    """Return ``value`` if it is a sequence of items (a lone ``bytes`` or ``str`` is not).

    Raises:
        IllegalArgumentError: It is not, naming ``argument``.
    """
    if isinstance(value, (bytes, bytearray, str)) or not isinstance(value, Sequence):
        raise IllegalArgumentError(
            f"{argument} must be a sequence (list or tuple)",
            table=table,
            field=argument,
            value=value,
        )
    return value


def require_column(
    table: MemoryTable, value: object, *, row: bytes | None = None, argument: str = "column"
) -> tuple[bytes, bytes | None]:
    """Return ``(family, qualifier)`` of a column ``b"f:q"`` or a bare family ``b"f"``.

    Raises:
        IllegalArgumentError: ``value`` is not bytes.
        ColumnFamilyNotFoundError: The table has no such family.
    """
    column = require_bytes(argument, value, table=table.name, row=row)
    family, qualifier = split_column(column)
    if family not in table.families:
        raise ColumnFamilyNotFoundError(
            f"no column family {family!r} in this table", table=table.name, row=row, column=column
        )
    return family, qualifier


def require_cell_column(
    table: MemoryTable, value: object, *, row: bytes | None = None, argument: str = "column"
) -> ColumnKey:
    """Return ``(family, qualifier)`` of a column that names one cell: ``b"f:q"``, not ``b"f"``.

    Raises:
        IllegalArgumentError: ``value`` is not bytes, or is a bare family.
        ColumnFamilyNotFoundError: The table has no such family.
    """
    family, qualifier = require_column(table, value, row=row, argument=argument)
    if qualifier is None:
        raise IllegalArgumentError(
            f"{argument} must be 'family:qualifier', not a bare family",
            table=table.name,
            row=row,
            column=family,
        )
    return family, qualifier


def require_cell_name(
    table: MemoryTable, value: object, *, row: bytes | None = None, argument: str = "column"
) -> bytes:
    """Like :func:`require_cell_column`, returning the column's registered ``b"f:q"`` name.

    A column seen before is recognised by one dictionary look-up; a new one is checked
    and registered with the table (:meth:`MemoryTable.register`).

    Raises:
        IllegalArgumentError: ``value`` is not bytes, or is a bare family.
        ColumnFamilyNotFoundError: The table has no such family.
    """
    if type(value) is bytes:
        name = table.registered(value)
        if name is not None:
            return name
    family, qualifier = require_cell_column(table, value, row=row, argument=argument)
    return table.register(family, qualifier)


def selection_of(table: MemoryTable, columns: object) -> Selection:
    """Parse the ``columns`` argument of a get or scan into a :class:`Selection`.

    The table remembers the selections of the last distinct ``columns`` it parsed (as a
    tuple of bytes), so a repeated read parses nothing.

    Raises:
        IllegalArgumentError: Not a sequence of bytes.
        ColumnFamilyNotFoundError: A column names an unknown family.
    """
    if not columns and isinstance(columns, (list, tuple)):
        return EVERYTHING
    cache_key = tuple(columns) if isinstance(columns, (list, tuple)) else None
    if cache_key is not None and all(type(column) is bytes for column in cache_key):
        cached = table.selections.get(cache_key)
        if cached is not None:
            return cached
    else:
        cache_key = None
    families: set[bytes] = set()
    names: set[bytes] = set()
    for column in require_sequence("columns", columns, table=table.name):
        family, qualifier = require_column(table, column)
        if qualifier is None:
            families.add(family)
        else:
            names.add(family + b":" + qualifier)
    selection = Selection(frozenset(families), frozenset(names))
    if cache_key is not None:
        if len(table.selections) >= SELECTION_CACHE:
            table.selections.clear()
        table.selections[cache_key] = selection
    return selection
