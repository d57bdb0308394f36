"""Which columns a read asks for: whole families and single ``family:qualifier`` columns."""

from __future__ import annotations

import attrs

__all__ = ["ColumnKey", "Selection"]

#: A column as the engine keys it: ``(family, qualifier)``, both bytes. Sorting these tuples
#: gives HBase's column order (family, then qualifier), which sorting ``b"f:q"`` would not.
ColumnKey = tuple[bytes, bytes]


@attrs.frozen
class Selection:
    """The columns a get or scan returns; both sets empty means every column.

    Args:
        families: Families asked for whole (``b"f"``).
        columns: Single columns asked for, as ``(family, qualifier)``.
    """

    families: frozenset[bytes] = frozenset()
    columns: frozenset[ColumnKey] = frozenset()

    @property
    def everything(self) -> bool:
        """Whether no column was named, so every column is selected."""
        return not self.families and not self.columns

    def includes(self, key: ColumnKey) -> bool:
        """Whether the column ``key`` is selected."""
        return self.everything or key[0] in self.families or key in self.columns
