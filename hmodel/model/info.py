"""What a model declaration resolved to: its table, rowkey, and where each field is stored."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

import attrs

from hmodel.codecs import Codec, Long
from hmodel.errors import EncodeError
from hmodel.keys import Key
from hmodel.model.specifier import NO_DEFAULT
from hmodel.schema import Table

__all__ = [
    "ColumnField",
    "CounterField",
    "KeyField",
    "MapField",
    "ModelInfo",
    "StoredField",
    "VersionField",
]

#: The codec of counters and version fields: HBase's 8-byte big-endian signed long (F10).
LONG = Long()


def _column(family: str, qualifier: bytes) -> bytes:
    return family.encode() + b":" + qualifier


@attrs.frozen
class KeyField:
    """A field that lives in the rowkey, not in a column (K1).

    Attributes:
        name: The attribute name, also the key component's field name.
        python_type: The Python type the key component decodes to.
    """

    name: str
    python_type: type


@attrs.frozen
class ColumnField:
    """A field stored in one cell ``family:qualifier`` (F2), maybe with history (F7).

    Attributes:
        name: The attribute name in code (``nickname``).
        family: The family name (``"i"``).
        qualifier: The qualifier bytes (``b"n"``).
        codec: Turns the value into the cell bytes and back.
        value_type: The annotation with ``Optional`` removed (``str`` for ``str | None``).
        nullable: Whether ``None`` is allowed; ``None`` is stored as the absent cell.
        default: The default value, or :data:`~hmodel.model.specifier.NO_DEFAULT`.
        factory: A callable making the default, or ``None``.
        history: Whether older versions of the cell are meaningful (F7).
        max_bytes: Values encoding to more bytes are refused (F11); ``None``: the
            model's ``max_cell_bytes`` applies (:meth:`ModelInfo.cell_limits`).
        warn_bytes: Values encoding to more bytes are written with a warning (F11);
            ``None``: the model's ``warn_cell_bytes`` applies.
    """

    name: str
    family: str
    qualifier: bytes
    codec: Codec[Any]
    value_type: Any
    nullable: bool
    default: object = NO_DEFAULT
    factory: Callable[[], Any] | None = None
    history: bool = False
    max_bytes: int | None = None
    warn_bytes: int | None = None

    @property
    def column(self) -> bytes:
        """The column as a backend names it: ``b"i:n"``."""
        return _column(self.family, self.qualifier)

    @property
    def has_default(self) -> bool:
        """Whether a missing value can be filled in (a default, a factory, or ``None``)."""
        return self.default is not NO_DEFAULT or self.factory is not None or self.nullable

    @property
    def required(self) -> bool:
        """Whether every stored row must hold this column (no default and not nullable)."""
        return not self.has_default

    def make_default(self) -> Any:
        """Return the value of this field when none was given or stored.

        ``None`` for a nullable field without a declared default.
        """
        if self.factory is not None:
            return self.factory()
        if self.default is not NO_DEFAULT:
            return self.default
        return None


@attrs.frozen
class MapField:
    """A ``dict`` stored as one cell per entry under dynamic qualifiers (F6).

    The entry ``key`` is the column ``family:prefix<key_codec(key)>``. The map owns every
    qualifier of its family that starts with ``prefix``.

    Attributes:
        name: The attribute name (``fans``).
        family: The family name (``"f"``).
        prefix: The qualifier prefix bytes (``b""`` for a map owning the whole family).
        key_codec: Turns an entry key into the qualifier suffix and back.
        value_codec: Turns an entry value into the cell bytes and back.
        max_bytes: Entry values encoding to more bytes are refused (F11); ``None``: the
            model's ``max_cell_bytes`` applies.
        warn_bytes: Entry values encoding to more bytes are written with a warning (F11);
            ``None``: the model's ``warn_cell_bytes`` applies.
    """

    name: str
    family: str
    prefix: bytes
    key_codec: Codec[Any]
    value_codec: Codec[Any]
    max_bytes: int | None = None
    warn_bytes: int | None = None
    #: A catch-all (``extra_field``): the qualifiers no other field of the model uses.
    extra: bool = False
    #: For a catch-all: the columns of the model's other fields, which it never holds.
    claimed: frozenset[bytes] = frozenset()
    #: For a catch-all: the other maps' ``(family, prefix)``, whose entries it never holds.
    others: tuple[tuple[bytes, bytes], ...] = ()
    #: For a catch-all over every family (``family=""``): the table's families.
    families: tuple[bytes, ...] = ()

    @property
    def owns_family(self) -> bool:
        """Whether every qualifier of the family belongs to this map (``prefix`` is empty).

        Only then may a full save clear old entries with a single family delete. A
        catch-all shares its family with the model's other fields, so it never does.
        """
        return not self.prefix and not self.extra

    @property
    def family_bytes(self) -> bytes:
        """The family name as bytes (``b"f"``; ``b""`` for a catch-all over all families)."""
        return self.family.encode()

    @property
    def read_families(self) -> tuple[bytes, ...]:
        """The families a read of the whole map needs (all of them for a catch-all of all)."""
        return self.families if self.extra and not self.family else (self.family_bytes,)

    def column_for(self, key: Any) -> bytes:
        """Return the column of the entry ``key``: ``b"f:" + prefix + key_codec.encode(key)``.

        Raises:
            EncodeError: The key codec refuses ``key``, or a catch-all's key names a
                column another field uses (or, over all families, is not ``b"f:q"`` of
                a family of the table).
        """
        column = self.column_of(self.key_codec.encode(key))
        if column is None:
            raise EncodeError(
                f"map field {self.name!r} cannot hold this key: it names a column another "
                "field of the model uses, or no column of the table's families",
                value=key,
            )
        return column

    def column_of(self, suffix: bytes) -> bytes | None:
        """The column of the encoded entry key ``suffix``, or ``None`` if not this map's."""
        column = (
            suffix if self.extra and not self.family else _column(self.family, self.prefix + suffix)
        )
        return column if self.qualifier_suffix(column) == suffix else None

    def qualifier_suffix(self, column: bytes) -> bytes | None:
        """Return the encoded entry key of ``column`` if the column belongs to this map.

        A catch-all over one family gives the qualifier; over all families the whole
        column ``b"f:q"``. Either leaves out the columns of the model's other fields.
        """
        family, sep, qualifier = column.partition(b":")
        if not sep:
            return None
        if not self.extra:
            if family != self.family_bytes or not qualifier.startswith(self.prefix):
                return None
            return qualifier[len(self.prefix) :]
        if (family not in self.families) if not self.family else (family != self.family_bytes):
            return None
        if column in self.claimed or any(
            family == other and qualifier.startswith(prefix) for other, prefix in self.others
        ):
            return None
        return qualifier if self.family else column


@attrs.frozen
class CounterField:
    """An ``int`` kept as an 8-byte big-endian long and changed only by increments (F10)."""

    name: str
    family: str
    qualifier: bytes

    @property
    def column(self) -> bytes:
        """The column as a backend names it: ``b"i:v"``."""
        return _column(self.family, self.qualifier)

    @property
    def codec(self) -> Codec[int]:
        """The 8-byte big-endian long codec."""
        return LONG


@attrs.frozen
class VersionField:
    """The optimistic-locking version: an 8-byte big-endian long, 0 when never saved."""

    name: str
    family: str
    qualifier: bytes

    @property
    def column(self) -> bytes:
        """The column as a backend names it: ``b"i:_v"``."""
        return _column(self.family, self.qualifier)

    @property
    def codec(self) -> Codec[int]:
        """The 8-byte big-endian long codec."""
        return LONG


#: A model field stored in cells: a column, a map of qualifiers, a counter or a version.
StoredField = ColumnField | MapField | CounterField | VersionField


@attrs.frozen(eq=False)
class ModelInfo:
    """Everything the mapping and repository layers need to know about one model class.

    Get it with :func:`hmodel.model.model_info`.

    Attributes:
        cls: The model class.
        name: The model's name in messages (the class name unless given).
        table: The table its rows live in.
        key: The rowkey declaration.
        ttl: The default per-cell TTL of its writes (F8), or ``None``.
        key_fields: The fields held in the rowkey, in ``key.fields`` order.
        fields: The stored fields by attribute name, in declaration order.
        max_cell_bytes: The model's default ``max_bytes`` of its fields (F11).
        warn_cell_bytes: The model's default ``warn_bytes`` of its fields (F11).
        allow_monotonic_key: Why a key leading with a monotonic value is fine (K8), or
            ``False``.
        plain_init: The class builds instances with the ``__init__`` attrs generates and no
            ``__attrs_pre_init__``/``__attrs_post_init__``: a loaded row may then be turned
            into an instance by setting its slots directly (no hook would have run).
        missing: What a row without the cell of a required field reads as: ``"error"``
            (a :class:`~hmodel.errors.DecodeError` naming row and field) or ``"none"``.
    """

    cls: type[Any]
    name: str
    table: Table
    key: Key
    ttl: timedelta | None
    key_fields: tuple[KeyField, ...]
    fields: Mapping[str, StoredField]
    max_cell_bytes: int | None = None
    warn_cell_bytes: int | None = None
    allow_monotonic_key: bool | str = False
    plain_init: bool = False
    missing: str = "error"

    def __repr__(self) -> str:
        return f"ModelInfo({self.name!r}, table={self.table.full_name!r}, key={self.key!r})"

    def cell_limits(self, stored: ColumnField | MapField) -> tuple[int | None, int | None]:
        """The ``(max_bytes, warn_bytes)`` in force for a field's cells (F11).

        The field's own limits where declared, else the model's ``max_cell_bytes`` and
        ``warn_cell_bytes``; ``None`` means no limit.
        """
        return (
            self.max_cell_bytes if stored.max_bytes is None else stored.max_bytes,
            self.warn_cell_bytes if stored.warn_bytes is None else stored.warn_bytes,
        )

    @property
    def ttl_ms(self) -> int | None:
        """The default per-cell TTL in milliseconds (what a ``Put`` carries), or ``None``."""
        return None if self.ttl is None else self.ttl // timedelta(milliseconds=1)

    @property
    def columns(self) -> Mapping[str, ColumnField]:
        """The plain column fields by name, in declaration order."""
        return {n: f for n, f in self.fields.items() if isinstance(f, ColumnField)}

    @property
    def maps(self) -> Mapping[str, MapField]:
        """The map fields by name, in declaration order."""
        return {n: f for n, f in self.fields.items() if isinstance(f, MapField)}

    @property
    def counters(self) -> Mapping[str, CounterField]:
        """The counter fields by name, in declaration order (``name in info.counters``)."""
        return {n: f for n, f in self.fields.items() if isinstance(f, CounterField)}

    @property
    def version(self) -> VersionField | None:
        """The version field, if the model has one."""
        for stored in self.fields.values():
            if isinstance(stored, VersionField):
                return stored
        return None

    @property
    def version_field(self) -> str | None:
        """The name of the version field, or ``None``."""
        version = self.version
        return None if version is None else version.name

    @property
    def key_field_names(self) -> tuple[str, ...]:
        """The names of the key fields (``key.fields``)."""
        return tuple(k.name for k in self.key_fields)

    @property
    def families(self) -> tuple[str, ...]:
        """The families this model stores fields in, in table order."""
        used = {f.family for f in self.fields.values()}
        return tuple(f.name for f in self.table.families if f.name in used)
