"""Reading what ``hmodel inspect`` infers from: a live table's families and its first N rows."""

from __future__ import annotations

import attrs

from hmodel.backend.base import Backend, RowResult, Scan
from hmodel.errors import InputError
from hmodel.schema import Family

__all__ = ["TableSample", "sample_table"]


@attrs.frozen
class TableSample:
    """A table's descriptor and sampled rows (newest version of each cell).

    Attributes:
        table: The table name as the backend names it.
        families: Its column families with their options, from the server's descriptor.
        rows: The sampled rows, in key order.
    """

    table: str
    families: dict[str, Family]
    rows: tuple[RowResult, ...]


def sample_table(
    backend: Backend, table: str, *, limit: int = 1000, prefix: bytes | None = None
) -> TableSample:
    """Read ``table``'s families and its first ``limit`` rows (those starting ``prefix``).

    One scan, in key order, from the table's first row (or ``prefix``'s); nothing is
    written.

    Raises:
        InputError: ``limit`` is below 1.
        BackendError: The table does not exist or the backend fails.
    """
    if limit < 1:
        raise InputError("--sample must be at least 1", value=limit)
    families = backend.describe_families(table)
    scan = Scan.prefix(prefix, limit=limit) if prefix else Scan(limit=limit)
    rows = tuple(backend.scan(table, scan))
    return TableSample(table, dict(families), rows)
