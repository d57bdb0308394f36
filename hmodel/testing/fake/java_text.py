"""The text of HBase's own exception messages for hmodel errors the fake servers answer."""

from __future__ import annotations

from hmodel.errors import ColumnFamilyNotFoundError, HModelError

__all__ = ["server_text"]


def server_text(exc: HModelError) -> str:
    """What HBase 2.6's exception says where a client could match its wording.

    An unknown family reads ``Column family <name> does not exist in region <region> in
    table '<table>'`` (``HRegion.checkFamily``; the fake's one region per split is named
    ``<table>,,0.0``), then hmodel's own message in brackets; every other error is
    hmodel's message.
    """
    if isinstance(exc, ColumnFamilyNotFoundError) and exc.column is not None and exc.table:
        column = exc.column if isinstance(exc.column, bytes) else exc.column.encode()
        family = column.partition(b":")[0].decode("utf-8", "replace")
        return (
            f"Column family {family} does not exist in region {exc.table},,0.0 in table "
            f"'{exc.table}' [{exc}]"
        )
    return str(exc)
