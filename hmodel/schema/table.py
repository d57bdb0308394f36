"""A table declaration: name, namespace, families and table options (F1, F4, K11)."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence

import attrs

from hmodel.errors import SchemaError
from hmodel.schema.family import Family
from hmodel.schema.option import bool_option, enum_option
from hmodel.schema.split import ExplicitSplits, SplitPolicy

__all__ = ["Durability", "SplitPolicy", "Table"]

_TABLE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*\Z")
_NAMESPACE = re.compile(r"^[A-Za-z0-9_]+\Z")
_JAVA_LONG_MAX = 2**63 - 1

#: The smallest MAX_FILESIZE / MEMSTORE_FLUSHSIZE HBase's table sanity checks accept
#: (``hbase.hregion.max.filesize.limit`` and ``hbase.hregion.memstore.flush.size.limit``).
_MIN_MAX_FILESIZE = 2 * 1024 * 1024
_MIN_MEMSTORE_FLUSHSIZE = 1024 * 1024


class Durability(str, enum.Enum):
    """Write-ahead-log durability of a table (F4); HBase's ``DURABILITY`` option."""

    USE_DEFAULT = "USE_DEFAULT"
    SKIP_WAL = "SKIP_WAL"
    ASYNC_WAL = "ASYNC_WAL"
    SYNC_WAL = "SYNC_WAL"
    FSYNC_WAL = "FSYNC_WAL"


def _check_names(name: str, namespace: str | None) -> None:
    if not isinstance(name, str) or not _TABLE_NAME.match(name) or name == "zookeeper":
        raise SchemaError(
            "invalid table name: use letters, digits, '_', '-' and '.', not starting with "
            "'.' or '-', and not 'zookeeper'",
            value=name,
        )
    bad_namespace = not isinstance(namespace, str) or not _NAMESPACE.match(namespace)
    if namespace is not None and (bad_namespace or namespace == "zookeeper"):
        raise SchemaError(
            "invalid namespace: use letters, digits and '_' only, and not 'zookeeper'",
            value=namespace,
        )


def _check_families(families: tuple[Family, ...], allow_many: bool) -> None:
    if not families:
        raise SchemaError("a table needs at least one column family")
    for family in families:
        if not isinstance(family, Family):
            raise SchemaError("families must be Family declarations", value=family)
    names = [f.name for f in families]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise SchemaError(f"duplicate column family {duplicates[0]!r}", value=names)
    if len(names) > 3 and not allow_many:
        raise SchemaError(
            "more than 3 column families (F1); pass allow_many_families=True if the "
            "families are really read separately",
            value=names,
        )


def _policy(splits: Sequence[bytes] | SplitPolicy | None) -> SplitPolicy | None:
    if splits is None or isinstance(splits, SplitPolicy):
        return splits
    if isinstance(splits, (bytes, str)):
        raise SchemaError("splits must be a sequence of bytes, not a single value", value=splits)
    points = list(splits)
    return ExplicitSplits(points) if points else None


def _points(policy: SplitPolicy | None) -> tuple[bytes, ...]:
    if policy is None:
        return ()
    points = policy.points()
    if not isinstance(points, list):
        raise SchemaError("a split policy's points() must return a list of bytes", value=points)
    ExplicitSplits(points)  # same checks for third-party policies: non-empty, increasing
    return tuple(points)


def _size_option(option: str, value: int | None, minimum: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise SchemaError(f"{option} must be an integer number of bytes", value=value)
    if not minimum <= value <= _JAVA_LONG_MAX:
        raise SchemaError(
            f"{option} must be between {minimum} and {_JAVA_LONG_MAX} bytes", value=value
        )


@attrs.frozen(init=False)
class Table:
    """A table: its name, 1..n families (F1) and table-level options (F4).

    Split points are region boundaries: region *i* holds rows ``>= points[i-1]`` and
    ``< points[i]``; the first region starts at the empty key, the last ends at the end
    of the table. ``n`` split points make ``n + 1`` regions. :attr:`splits` holds the
    points as bytes; :attr:`split_policy` keeps how they were declared (a list of bytes
    becomes an :class:`~hmodel.schema.split.ExplicitSplits`), which DDL renders.

    Every option is checked when the table is declared; a bad one raises
    :class:`~hmodel.errors.SchemaError` with ``table`` set to the table's full name.

    Args:
        name: Table name without namespace (``"order"``): letters, digits, ``_``, ``-``
            and ``.``, not starting with ``.`` or ``-`` (HBase's rule, ASCII only).
        families: The column families; 1 to 3 is the rule (F1), more raise unless
            ``allow_many_families=True`` says you mean it.
        namespace: HBase namespace (letters, digits and ``_``); ``None`` means ``default``.
        splits: Explicit split points (bytes), or a :class:`SplitPolicy` such as
            ``HexSplits`` or ``SaltSplits`` from :mod:`hmodel.schema.split` (K11).
        read_only: ``READONLY``.
        durability: ``DURABILITY`` (the enum or its name).
        max_filesize: ``MAX_FILESIZE`` in bytes (region split threshold; HBase's sanity
            check wants at least 2 MiB), or ``None`` for the cluster default.
        memstore_flushsize: ``MEMSTORE_FLUSHSIZE`` in bytes (at least 1 MiB), or ``None``.
        allow_many_families: Permit more than three families (F1 warns against it).

    Raises:
        SchemaError: A bad name, no family, duplicate families, unsorted or empty split
            points, or an option out of range.
    """

    name: str
    families: tuple[Family, ...]
    namespace: str | None
    split_policy: SplitPolicy | None = attrs.field(alias="splits")
    splits: tuple[bytes, ...] = attrs.field(init=False)
    read_only: bool
    durability: Durability
    max_filesize: int | None
    memstore_flushsize: int | None
    allow_many_families: bool

    def __init__(
        self,
        name: str,
        families: Iterable[Family],
        *,
        namespace: str | None = None,
        splits: Sequence[bytes] | SplitPolicy | None = None,
        read_only: bool = False,
        durability: Durability | str = Durability.USE_DEFAULT,
        max_filesize: int | None = None,
        memstore_flushsize: int | None = None,
        allow_many_families: bool = False,
    ) -> None:
        full_name = f"{namespace}:{name}" if namespace else str(name)
        try:
            _check_names(name, namespace)
            family_tuple = tuple(families)
            _check_families(family_tuple, bool_option("allow_many_families", allow_many_families))
            policy = _policy(splits)
            points = _points(policy)
            _size_option("MAX_FILESIZE", max_filesize, _MIN_MAX_FILESIZE)
            _size_option("MEMSTORE_FLUSHSIZE", memstore_flushsize, _MIN_MEMSTORE_FLUSHSIZE)
            self.__attrs_init__(
                name,
                family_tuple,
                namespace,
                policy,
                bool_option("READONLY", read_only),
                enum_option("DURABILITY", Durability, durability),
                max_filesize,
                memstore_flushsize,
                allow_many_families,
            )
        except SchemaError as exc:
            raise SchemaError(exc.message, table=full_name, value=exc.value) from None
        object.__setattr__(self, "splits", points)

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
        raise SchemaError(f"no column family {name!r}", table=self.full_name, column=name)

    def with_families(self, families: Iterable[Family]) -> Table:
        """Return a copy of this table with ``families`` instead (F5 alterations)."""
        return attrs.evolve(self, families=tuple(families))

    def without_splits(self) -> Table:
        """Return a copy of this table with no split points (a single initial region).

        For stores that cannot pre-split at creation, such as HBase's Thrift1 API: create
        the table from this copy, then split it with the DDL of the original if needed.
        """
        return Table(
            self.name,
            self.families,
            namespace=self.namespace,
            read_only=self.read_only,
            durability=self.durability,
            max_filesize=self.max_filesize,
            memstore_flushsize=self.memstore_flushsize,
            allow_many_families=self.allow_many_families,
        )
