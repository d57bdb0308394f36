"""Which columns a read asks for: whole families and single ``family:qualifier`` columns."""

from __future__ import annotations

__all__ = ["EVERYTHING", "ColumnKey", "Selection"]

#: A column as the engine orders it: ``(family, qualifier)``, both bytes. Sorting these
#: tuples gives HBase's column order (family, then qualifier), which sorting ``b"f:q"``
#: would not (``b"a1:x" < b"a:x"``, but family ``a`` comes before ``a1``).
ColumnKey = tuple[bytes, bytes]


class Selection:
    """The columns a get or scan returns; both sets empty means every column.

    Immutable once made; the engine caches one per distinct ``columns`` argument.

    Args:
        families: Families asked for whole (``b"f"``).
        names: Single columns asked for, as ``b"f:q"``.
    """

    __slots__ = ("everything", "families", "names")

    def __init__(
        self, families: frozenset[bytes] = frozenset(), names: frozenset[bytes] = frozenset()
    ) -> None:
        self.families = families
        self.names = names
        self.everything = not families and not names

    def includes(self, name: bytes, family: bytes) -> bool:
        """Whether the column ``name`` (``b"f:q"``, of ``family``) is selected."""
        return self.everything or family in self.families or name in self.names

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Selection):
            return NotImplemented
        return (self.families, self.names) == (other.families, other.names)

    def __hash__(self) -> int:
        return hash((self.families, self.names))

    def __repr__(self) -> str:
        return f"Selection(families={set(self.families)!r}, names={set(self.names)!r})"


#: The selection of a read that names no column.
EVERYTHING = Selection()
