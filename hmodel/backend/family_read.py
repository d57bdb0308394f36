"""Reads of ``family:qualifier`` columns sent as reads of their families.

HBase's region server reads a ``Get`` or ``Scan`` that names single columns
(``addColumn``) through its explicit column tracker, which seeks from each named column
to the next; a read of the whole family (``addFamily``) steps through the family's
cells instead. Against the kit's HBase 2.6.1, a scan of 6,000 rows of six one-letter
columns took 1.6 to 1.8 times as long with the columns named as with their family,
and 100-row multi-gets about 1.9 times (``docs/performance.md``, "Fourth round").

A backend that asks for the families must still return exactly the columns asked for
(the :class:`~hmodel.backend.base.Backend` contract): it keeps the cells of the wanted
columns and drops a row left with none, as the server does for a row none of whose
columns were named. Dropping happens before a scan counts a row against its limit, so
limits are exact. What it costs: cells of the family that the read does not want
cross the wire and are dropped by the client, so a backend lets its user turn this
off (``family_reads=False``) for families that hold many cells a read never wants.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["FamilyRead", "family_read"]


class FamilyRead:
    """How a read of single columns is sent: the families, and the columns to keep.

    Attributes:
        families: The families to ask for (``b"f"``, no colon), each once, in the order
            of their first column.
        keep: The columns ``b"f:q"`` the read returns; every other cell of
            ``families`` is dropped by the client.
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
