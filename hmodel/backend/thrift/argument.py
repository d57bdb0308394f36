"""Checks of the bytes arguments a Thrift1 request carries, before anything is sent."""

from __future__ import annotations

from collections.abc import Iterable

from hmodel.backend.argument import require_bytes
from hmodel.errors import ColumnFamilyNotFoundError, IllegalArgumentError

__all__ = ["read_columns", "require_bytes", "require_cell_column", "require_each"]


def require_each(argument: str, values: Iterable[object], *, table: str | None) -> list[bytes]:
    """Return ``values`` as a list if each is ``bytes`` (see :func:`require_bytes`).

    Values that are exactly ``bytes`` pass on a type test alone (a repository's column
    list, on every read); any other value goes through :func:`require_bytes`.
    """
    listed = list(values)
    for value in listed:
        if type(value) is not bytes:
            return [require_bytes(argument, value, table=table) for value in listed]
    return listed  # type: ignore[return-value]  # every value is exactly bytes


def require_cell_column(
    column: object, *, table: str | None, row: bytes | None, what: str
) -> bytes:
    """Return ``column`` if it is ``b"family:qualifier"`` with a non-empty family.

    A bare family is refused: Thrift1 servers read it as the empty qualifier for writes
    and as the whole family for reads, so it is ambiguous here.

    Raises:
        IllegalArgumentError: Not bytes, or not ``family:qualifier``, naming ``what``.
        ColumnFamilyNotFoundError: The family part is empty.
    """
    checked = require_bytes("column", column, table=table, row=row)
    family, colon, _ = checked.partition(b":")
    if not colon:
        raise IllegalArgumentError(
            f"{what} needs a column b'family:qualifier'", table=table, row=row, column=checked
        )
    if not family:  # what HBase answers: no family has an empty name
        raise ColumnFamilyNotFoundError(
            "no column family b'' in this table", table=table, row=row, column=checked
        )
    return checked


def read_columns(columns: list[bytes]) -> list[bytes]:
    """A read's ``b"f:q"`` columns and ``b"f"`` families as the Thrift1 server must get them.

    The server adds them to its ``Get``/``Scan`` in order, and HBase's reads are
    order-dependent: ``addFamily`` then ``addColumn`` of that family reads only the column
    (``[f, f:q]`` reads ``f:q``). The protocol's columns are a set, so whole families are
    sent after the single columns: a family then always means the whole family.
    """
    families = [c for c in columns if b":" not in c]
    if not families or len(families) == len(columns):
        return columns
    return [c for c in columns if b":" in c] + families
