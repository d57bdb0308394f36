"""A table declaration: name, namespace, families and table options (F1, F4, K11)."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

import attrs

from hmodel.errors import SchemaError
from hmodel.schema.family import Family

__all__ = ["Durability", "SplitPolicy", "Table"]

_TABLE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")


class Durability(str, enum.Enum):
    """Write-ahead-log durability of a table (F4); HBase's ``DURABILITY`` option."""

    USE_DEFAULT = "USE_DEFAULT"
    SKIP_WAL = "SKIP_WAL"
    ASYNC_WAL = "ASYNC_WAL"
    SYNC_WAL = "SYNC_WAL"
    FSYNC_WAL = "FSYNC_WAL"


@runtime_checkable
class SplitPolicy(Protocol):
    """Something that computes a table's split points (K11): see :mod:`hmodel.schema.split`."""

    def points(self) -> list[bytes]:
        """Return the split points, strictly increasing, none empty."""
        ...


def _split_points(value: Sequence[bytes] | SplitPolicy | None) -> tuple[bytes, ...]:
    if value is None:
        return ()
    if isinstance(value, SplitPolicy):
        return tuple(value.points())
    if isinstance(value, (bytes, str)):
        raise SchemaError("splits must be a sequence of bytes, not a single value", value=value)
    return tuple(value)


def _families(value: Iterable[Family]) -> tuple[Family, ...]:
    return tuple(value)


@attrs.frozen
class Table:
    """A table: its name, 1..n families (F1) and table-level options (F4).

    Split points are region boundaries: region *i* holds rows ``>= points[i-1]`` and
    ``< points[i]``; the first region starts at the empty key, the last ends at the end
    of the table. ``n`` split points make ``n + 1`` regions.

    Args:
        name: Table name without namespace (``"order"``).
        families: The column families; 1 to 3 is the rule (F1), more raise unless
            ``allow_many_families=True`` says you mean it.
        namespace: HBase namespace; ``None`` means ``default``.
        splits: Explicit split points (bytes), or a :class:`SplitPolicy` such as
            ``HexSplits`` or ``SaltSplits`` from :mod:`hmodel.schema.split` (K11).
        read_only: ``READONLY``.
        durability: ``DURABILITY``.
        max_filesize: ``MAX_FILESIZE`` in bytes (region split threshold), or ``None``.
        memstore_flushsize: ``MEMSTORE_FLUSHSIZE`` in bytes, or ``None``.
        allow_many_families: Permit more than three families (F1 warns against it).

    Raises:
        SchemaError: A bad name, no family, duplicate families, unsorted or empty split
            points, or an option out of range; the message names the table.
    """

    name: str
    families: tuple[Family, ...] = attrs.field(converter=_families)
    namespace: str | None = attrs.field(default=None, kw_only=True)
    splits: tuple[bytes, ...] = attrs.field(default=None, converter=_split_points, kw_only=True)
    read_only: bool = attrs.field(default=False, kw_only=True)
    durability: Durability = attrs.field(
        default=Durability.USE_DEFAULT, converter=Durability, kw_only=True
    )
    max_filesize: int | None = attrs.field(default=None, kw_only=True)
    memstore_flushsize: int | None = attrs.field(default=None, kw_only=True)
    allow_many_families: bool = attrs.field(default=False, kw_only=True)

    def __attrs_post_init__(self) -> None:
        try:
            self._validate()
        except SchemaError as exc:
            raise SchemaError(f"table {self.name!r}: {exc.message}", value=exc.value) from None

    def _validate(self) -> None:
        for label, name in (("table", self.name), ("namespace", self.namespace)):
            if name is not None and (not isinstance(name, str) or not _TABLE_NAME.match(name)):
                raise SchemaError(f"invalid {label} name", value=name)
        if not self.families:
            raise SchemaError("a table needs at least one column family")
        for family in self.families:
            if not isinstance(family, Family):
                raise SchemaError("families must be Family declarations", value=family)
        names = [f.name for f in self.families]
        if len(set(names)) != len(names):
            raise SchemaError("duplicate column family", value=names)
        if len(names) > 3 and not self.allow_many_families:
            raise SchemaError(
                "more than 3 column families (F1); pass allow_many_families=True if the "
                "families are really read separately",
                value=names,
            )
        for point in self.splits:
            if not isinstance(point, bytes) or not point:
                raise SchemaError("split points must be non-empty bytes", value=point)
        if any(a >= b for a, b in zip(self.splits, self.splits[1:], strict=False)):
            raise SchemaError("split points must be strictly increasing", value=self.splits)
        for label, size in (
            ("MAX_FILESIZE", self.max_filesize),
            ("MEMSTORE_FLUSHSIZE", self.memstore_flushsize),
        ):
            bad = isinstance(size, bool) or not isinstance(size, int) or size < 1
            if size is not None and bad:
                raise SchemaError(f"{label} must be a positive number of bytes", value=size)

    @property
    def full_name(self) -> str:
        """``namespace:name``, or just ``name`` in the default namespace."""
        return f"{self.namespace}:{self.name}" if self.namespace else self.name

    def family(self, name: str) -> Family:
        """Return the family called ``name``.

        Raises:
            SchemaError: The table has no such family.
        """
        for family in self.families:
            if family.name == name:
                return family
        raise SchemaError(f"table {self.full_name!r} has no column family {name!r}")

    def with_families(self, families: Iterable[Family]) -> Table:
        """Return a copy of this table with ``families`` instead (F5 alterations)."""
        return attrs.evolve(self, families=tuple(families))
