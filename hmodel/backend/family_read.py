"""Reads of ``family:qualifier`` columns sent as reads of their families.

HBase's region server reads a ``Get`` or ``Scan`` that names single columns
(``addColumn``) through its explicit column tracker, which seeks from each named column
to the next; a read of the whole family (``addFamily``) steps through the family's
cells instead. Against the kit's HBase 2.6.1, a scan of 6,000 rows of six one-letter
columns took 1.6 to 1.8 times as long with the columns named as with their family,
and 100-row multi-gets about 1.9 times (``docs/performance.md``, "Fourth round").

A backend that asks for the families must still return exactly the columns asked for
(the :class:`~hmodel.backend.base.Backend` contract), in one of two ways:

- **kept by the client** (Thrift1, whose reads carry no filter for gets): it keeps
  the cells of the wanted columns and drops a row left with none, as the server does
  for a row none of whose columns were named; this happens before a scan counts a row
  against its limit (Thrift1 applies limits in the client), so limits are exact. The
  family's other cells cross the wire;
- **kept by the server** (Thrift2 scans, whose ``TScan`` carries a filter): the scan
  sends :func:`exact_filter`, which passes exactly the wanted columns' cells, so the
  server drops the rest and the rows left with none, before its own limit. Thrift2
  gets name their columns: HBase parses a ``TGet``'s filter once per row, which cost
  more than the seeks it saved (100-row ``getMultiple``: 1.17 times the time).

A backend lets its user turn this off (``family_reads=False``) for families holding many
cells a read never wants.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from hmodel.backend.base import split_column

__all__ = ["FamilyRead", "exact_filter", "family_read"]


class FamilyRead:
    """How a read of single columns is sent: the families, and the columns to keep.

    Attributes:
        families: The families to ask for (``b"f"``, no colon), each once, in the order
            of their first column.
        keep: The columns ``b"f:q"`` the read returns; every other cell of
            ``families`` is dropped (by the client, or by the server's filter).
    """

    __slots__ = ("families", "keep")

    def __init__(self, families: list[bytes], keep: frozenset[bytes]) -> None:
        self.families = families
        self.keep = keep

    def __repr__(self) -> str:
        return f"FamilyRead(families={self.families!r}, keep={sorted(self.keep)!r})"


def family_read(columns: Sequence[bytes]) -> FamilyRead | None:
    """The family read standing for ``columns``, or ``None`` if they are sent as they are.

    Only a list of single columns is widened: ``None`` for an empty list (every column
    is read already) and for a list naming a whole family ``b"f"`` (a family read
    already; widening its neighbours would change nothing the server does per cell
    for that family, and mixing the two is order-dependent on HBase's side).

    Args:
        columns: Checked ``bytes`` columns: ``b"f:q"``, or ``b"f"`` for a family.
    """
    if not columns:
        return None
    families: dict[bytes, None] = {}
    for column in columns:
        family, colon, _ = column.partition(b":")
        if not colon:
            return None
        families[family] = None
    return FamilyRead(list(families), frozenset(columns))


def _quoted(value: bytes) -> bytes:
    """A filter-language string literal: in single quotes, each quote doubled."""
    return b"'" + value.replace(b"'", b"''") + b"'"


@functools.lru_cache(maxsize=256)
def exact_filter(keep: frozenset[bytes]) -> bytes:
    """A filter string passing exactly the cells of ``keep``'s ``b"f:q"`` columns.

    For a read that asks for the columns' families: ``QualifierFilter(=,'binary:q')``
    for each qualifier, joined by ``OR``; with columns of several families, each
    family's list is ``FamilyFilter(=,'binary:f') AND (...)`` and the families are
    joined by ``OR``. Qualifiers are in byte order, so equal sets give equal strings
    (one template per column set). Quotes in names are doubled, as HBase's filter
    language (``ParseFilter``) reads them; the bytes are otherwise sent as they are.

    Args:
        keep: Single columns ``b"f:q"`` (no bare family), at least one.
    """
    by_family: dict[bytes, list[bytes]] = {}
    for column in sorted(keep):
        family, qualifier = split_column(column)
        by_family.setdefault(family, []).append(qualifier or b"")

    def qualifiers(names: list[bytes]) -> bytes:
        return b" OR ".join(b"QualifierFilter(=," + _quoted(b"binary:" + q) + b")" for q in names)

    if len(by_family) == 1:
        [names] = by_family.values()
        return qualifiers(names)
    return b" OR ".join(
        b"(FamilyFilter(=," + _quoted(b"binary:" + family) + b") AND (" + qualifiers(names) + b"))"
        for family, names in by_family.items()
    )
