"""Checks of the arguments a caller hands the engine, raising the errors HBase would."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmodel.backend.argument import require_bytes
from hmodel.backend.base import split_column
from hmodel.backend.memory.counter import LONG_MAX
from hmodel.backend.memory.selection import ColumnKey, Selection
from hmodel.backend.memory.table import MemoryTable
from hmodel.errors import ColumnFamilyNotFoundError, IllegalArgumentError

__all__ = [
    "MAX_ROW_LENGTH",
    "require_bytes",
    "require_cell_column",
    "require_column",
    "require_int",
    "require_row",
    "require_sequence",
    "require_table_name",
    "require_timestamp",
    "selection_of",
]

#: HBase's longest rowkey: ``Short.MAX_VALUE`` bytes.
MAX_ROW_LENGTH = 32_767


def require_table_name(name: object) -> str:
    """Return ``name`` if it is a ``str`` table name.

    Raises:
        IllegalArgumentError: ``name`` is not a string.
    """
    if not isinstance(name, str):
        raise IllegalArgumentError("the table name must be a str", field="table", value=name)
    return name


def require_row(value: object, *, table: str, argument: str = "row") -> bytes:
    """Return ``value`` if it is a rowkey: bytes, 1 to 32767 of them (HBase's limits).

    Raises:
        IllegalArgumentError: Not bytes, empty, or too long.
    """
    row = require_bytes(argument, value, table=table)
    if not row or len(row) > MAX_ROW_LENGTH:
        raise IllegalArgumentError(
            f"a rowkey is 1 to {MAX_ROW_LENGTH} bytes long, got {len(row)}",
            table=table,
            field=argument,
            value=row,
        )
    return row


def require_int(
    argument: str,
    value: object,
    *,
    table: str,
    row: bytes | None = None,
    minimum: int | None = None,
    maximum: int | None = None,
) -> int:
    """Return ``value`` if it is an ``int`` (not a ``bool``) within ``[minimum, maximum]``.

    Raises:
        IllegalArgumentError: Wrong type or out of range, naming ``argument``.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalArgumentError(
            f"{argument} must be an int", table=table, row=row, field=argument, value=value
        )
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise IllegalArgumentError(
            f"{argument} must be within [{minimum}, {maximum}]",
            table=table,
            row=row,
            field=argument,
            value=value,
        )
    return value


def require_timestamp(
    argument: str, value: object, *, table: str, row: bytes | None = None
) -> int | None:
    """Return ``value`` if it is ``None`` or a timestamp HBase accepts: ``0 <= ts < 2**63 - 1``.

    ``Long.MAX_VALUE`` itself is HBase's ``LATEST_TIMESTAMP`` ("now"), so it is refused.
    """
    if value is None:
        return None
    return require_int(argument, value, table=table, row=row, minimum=0, maximum=LONG_MAX - 1)


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


def selection_of(table: MemoryTable, columns: object) -> Selection:
    """Parse the ``columns`` argument of a get or scan into a :class:`Selection`.

    Raises:
        IllegalArgumentError: Not a sequence of bytes.
        ColumnFamilyNotFoundError: A column names an unknown family.
    """
    families: set[bytes] = set()
    cells: set[ColumnKey] = set()
    for column in require_sequence("columns", columns, table=table.name):
        family, qualifier = require_column(table, column)
        if qualifier is None:
            families.add(family)
        else:
            cells.add((family, qualifier))
    return Selection(frozenset(families), frozenset(cells))
