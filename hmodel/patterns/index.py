"""Secondary index declarations and the bytes of their rows (I1, I2, I3)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Generic, TypeVar

import attrs

from hmodel.backend.base import Put
from hmodel.errors import DeclarationError, KeyDecodeError
from hmodel.keys import Bytes, Int, Key, Nullable, Salt, Str, Timestamp, ValueComponent
from hmodel.mapping import Mapper, mapper_for
from hmodel.schema.table import Table

__all__ = [
    "ROW_FIELD",
    "STATUS_QUALIFIER",
    "UNVERIFIED",
    "VERIFIED",
    "Entry",
    "Index",
]

M = TypeVar("M")

#: The name of the index key's last component, the data rowkey (non-unique indexes).
ROW_FIELD = "_row"
#: The qualifier of the status cell of every index row.
STATUS_QUALIFIER = b"_s"
#: First byte of the status cell of an entry readers may serve without the data row.
VERIFIED = b"\x01"
#: First byte of the status cell of an entry a write has not confirmed yet.
UNVERIFIED = b"\x00"
#: The shortest ``grace`` an index takes, in milliseconds (a write gives up past half).
MIN_GRACE_MS = 100


def _default_component(name: str, value_type: Any) -> ValueComponent[Any]:
    """The order-preserving key component for a field of ``value_type``."""
    if value_type is bool:
        raise DeclarationError(
            "index a bool through an explicit component, e.g. Int(name, size=1)", field=name
        )
    if value_type is str:
        return Str(name)
    if value_type is int:
        return Int(name, size=8)
    if value_type is bytes:
        return Bytes(name)
    if value_type is dt.datetime:
        return Timestamp(name)
    raise DeclarationError(
        f"no default key component for a {getattr(value_type, '__name__', value_type)} "
        "field: pass one (Str, Int, Bytes, Timestamp, ...) in on=",
        field=name,
    )


@attrs.frozen
class Entry:
    """One index row as read: where it is, what it points to and its status.

    Attributes:
        row: The index rowkey.
        values: The indexed values, by field name (decoded from the rowkey).
        data_row: The rowkey of the data row it points to.
        verified: Whether the status cell says verified.
        tag: The write stamp of the write that last wrote the status cell.
        status: The status cell's bytes exactly as stored (what a guarded write compares).
        cells: The entry's other cells (covering values), by qualifier.
        newest: The newest timestamp among the row's cells as read (0: not known); a
            repair writes at ``max(tag, newest)`` so that it is not hidden.
    """

    row: bytes
    values: Mapping[str, Any]
    data_row: bytes
    verified: bool
    tag: int
    status: bytes
    cells: Mapping[bytes, bytes]
    newest: int = 0

    @property
    def stamp(self) -> int:
        """The timestamp a repair of this entry writes at: ``max(tag, newest)``."""
        return max(self.tag, self.newest)


@attrs.frozen(init=False)
class Index(Generic[M]):
    r"""A secondary index of a model on one or more of its fields (I1).

    The index lives in its own table. A **non-unique** index row is keyed
    ``[salt][v1][v2]...[data rowkey]``: each indexed value encoded with its
    order-preserving key component (``Str`` escaped and terminated by ``00 00``, ``Int``
    big-endian with the sign bit flipped, ...), then the data rowkey as a variable-width
    ``Bytes`` component (its ``00`` bytes written ``00 FF``, ended by ``00 00``), so rows of
    one value sort by data rowkey and a value range is one contiguous byte range per salt
    bucket. A **unique** index row is keyed ``[salt][v1][v2]...`` alone: one row per value,
    claimed by a conditional write; its data rowkey is in the status cell.

    Every index row has a status cell ``<family>:_s``:

    * non-unique: 9 bytes, ``01`` (verified) or ``00`` (unverified), then the 8-byte
      big-endian write stamp of the write that wrote it (its *tag*); the cell's HBase
      timestamp is that tag too;
    * unique: the same 9 bytes followed by the data rowkey; ``b""`` means released.

    A covering field ``f`` adds a cell ``<family>:f`` holding the field's cell bytes as
    the data row stores them (its codec's encoding), so a covering query needs no data
    row read. A ``None`` indexed value has no index row (the index is sparse).

    Example:
        ``Index(Order, on=["status"], table=Table("order_by_status", [Family("x")]),
        covering=["total"], salt=8)``

    Args:
        model: The model class.
        on: The indexed fields, most significant first: field names (the component is
            chosen from the field type: ``str`` -> ``Str``, ``int`` -> ``Int(size=8)``,
            ``bytes`` -> ``Bytes``, ``datetime`` -> ``Timestamp``) or key components
            named after fields (``Descending(Int("total", size=4))``).
        table: The index table; its first family (or ``family``) holds the cells.
        name: The index's name (default: the table name).
        covering: Further fields stored in each index row (I1 covering index).
        unique: At most one row per indexed value (:class:`~hmodel.errors.UniqueViolationError`).
        salt: Salt buckets (K3): an ``int`` salts a non-unique index by the data rowkey
            (one hot value spreads over the buckets; a query fans out and merges) and a
            unique index by the values (a lookup reads one bucket); or a :class:`Salt`
            naming fields of the index key (``"_row"`` is the data rowkey).
        family: The family of the index cells (default: the table's first family).
        nulls: Index ``None`` too: every indexed component is wrapped in
            :class:`~hmodel.keys.Nullable` (``00`` for ``None``, ``01`` + the value), so
            ``find(index, {"field": None})`` finds the rows without a value. Without it
            the index is sparse: a row with a ``None`` indexed value has no entry. Not
            for unique indexes (one row without a value would hold "no value").
        grace: How long an unverified entry is taken for a write in flight: readers and
            jobs repair it (rewrite it verified, or delete it) only when it is older.
            A writer stalled longer than this between its first and last write may see
            its entry repaired away (the lease limitation of every client-side protocol).
            Ages count from the entry's tag, a write stamp: stamps run ahead of the
            clock by a millisecond per write made within one millisecond, so after a
            burst of writes an entry counts as in flight for longer (never shorter). At
            least 100 ms: a write gives up before its data write once half of it has
            passed (:class:`~hmodel.errors.LeaseExpiredError`).

    Raises:
        DeclarationError: An unknown, key, map or counter field, no field, a component
            not named after a field, a covering field that is also indexed, a salt a
            unique index cannot compute from its values, or ``nulls`` on a unique index.
    """

    model: type[M]
    name: str
    on: tuple[str, ...]
    components: tuple[ValueComponent[Any], ...]
    table: Table
    family: bytes
    covering: tuple[str, ...]
    unique: bool
    key: Key
    grace_ms: int
    nulls: bool

    def __init__(
        self,
        model: type[M],
        on: Sequence[str | ValueComponent[Any]],
        table: Table,
        *,
        name: str | None = None,
        covering: Sequence[str] = (),
        unique: bool = False,
        salt: int | Salt | None = None,
        family: str | None = None,
        grace: timedelta = timedelta(seconds=30),
        nulls: bool = False,
    ) -> None:
        mapper = mapper_for(model)
        info = mapper.info
        if isinstance(on, str) or not on:
            raise DeclarationError("on= lists at least one field", value=on)
        components: list[ValueComponent[Any]] = []
        for item in on:
            if isinstance(item, str):
                column = info.columns.get(item)
                if column is None:
                    raise DeclarationError(
                        f"{info.name} has no plain column field {item!r} to index", field=item
                    )
                components.append(_default_component(item, column.value_type))
            elif isinstance(item, ValueComponent):
                if item.name not in info.columns:
                    raise DeclarationError(
                        f"{info.name} has no plain column field {item.name!r} to index",
                        field=item.name,
                    )
                components.append(item)
            else:
                raise DeclarationError("on= takes field names or key components", value=item)
        if nulls:
            if unique:
                raise DeclarationError(
                    "a unique index does not index None (nulls=True): leave None values "
                    "out of it (the default)",
                    table=table.full_name,
                )
            components = [c if isinstance(c, Nullable) else Nullable(c) for c in components]
        names = tuple(c.name for c in components)
        if isinstance(covering, str):
            raise DeclarationError("covering= is a collection of field names", value=covering)
        for field_name in covering:
            if field_name not in info.columns:
                raise DeclarationError(
                    f"{info.name} has no plain column field {field_name!r} to cover",
                    field=field_name,
                )
            if field_name in names or field_name == STATUS_QUALIFIER.decode():
                raise DeclarationError("a covering field is not indexed", field=field_name)
        if unique and covering:
            raise DeclarationError(
                "a unique index is one claimed cell per value: read the row by the lookup "
                "instead of covering fields",
                table=table.full_name,
            )
        if not table.families:
            raise DeclarationError("an index table needs a family", table=table.full_name)
        family_name = family if family is not None else table.families[0].name
        table.family(family_name)  # raises SchemaError for an unknown family
        salt_component: Salt | None
        if salt is None or isinstance(salt, Salt):
            salt_component = salt
        elif isinstance(salt, int) and not isinstance(salt, bool):
            salt_component = Salt(*(names if unique else (ROW_FIELD,)), buckets=salt)
        else:
            raise DeclarationError("salt= is a number of buckets or a Salt", value=salt)
        parts: list[Any] = [] if salt_component is None else [salt_component]
        parts.extend(components)
        if not unique:
            parts.append(Bytes(ROW_FIELD))
        try:
            key = Key(*parts)
        except DeclarationError as exc:
            raise DeclarationError(
                f"index key: {exc.message}", table=table.full_name, field=exc.field
            ) from None
        grace_ms = int(grace.total_seconds() * 1000)
        if grace_ms < MIN_GRACE_MS:
            raise DeclarationError(
                f"grace must be at least {MIN_GRACE_MS} ms: a write gives up once half of it "
                "has passed before its data write (docs/indexes.md, stalls longer than the "
                "grace)",
                table=table.full_name,
                value=grace,
            )
        self.__attrs_init__(
            model,
            name or table.full_name,
            names,
            tuple(components),
            table,
            family_name.encode(),
            tuple(covering),
            bool(unique),
            key,
            grace_ms,
            bool(nulls),
        )

    # --- bytes ------------------------------------------------------------------------

    @property
    def mapper(self) -> Mapper[M]:
        """The model's mapper."""
        return mapper_for(self.model)

    @property
    def status_column(self) -> bytes:
        """``<family>:_s``."""
        return self.family + b":" + STATUS_QUALIFIER

    def covering_column(self, field_name: str) -> bytes:
        """``<family>:<field name>``: the index cell of a covering field."""
        return self.family + b":" + field_name.encode()

    @property
    def salt_width(self) -> int:
        """Bytes of salt at the front of every index rowkey (0: unsalted)."""
        salt = self.key.salt
        return 0 if salt is None else salt.nbytes

    def values_of(self, obj: M) -> dict[str, Any] | None:
        """The indexed values of ``obj``, or ``None`` when one is ``None`` (no entry).

        With ``nulls`` every row has an entry: ``None`` values are indexed too.
        """
        values = {name: getattr(obj, name) for name in self.on}
        if self.nulls:
            return values
        return None if any(v is None for v in values.values()) else values

    def entry_row(self, values: Mapping[str, Any], data_row: bytes) -> bytes:
        """The index rowkey of ``values`` for the data row ``data_row``.

        Raises:
            KeyEncodeError: A value does not encode with its component.
        """
        if self.unique:
            return self.key.encode(values)
        return self.key.encode({**values, ROW_FIELD: data_row})

    def row_of(self, obj: M, data_row: bytes) -> bytes | None:
        """The index rowkey ``obj`` (stored at ``data_row``) has, or ``None`` (a ``None`` value)."""
        values = self.values_of(obj)
        return None if values is None else self.entry_row(values, data_row)

    def covering_cells(self, obj: M) -> dict[bytes, bytes]:
        """The covering cells of ``obj`` by column; a ``None`` field has no cell."""
        mapper = self.mapper
        cells: dict[bytes, bytes] = {}
        for field_name in self.covering:
            value = getattr(obj, field_name)
            if value is not None:
                cells[self.covering_column(field_name)] = mapper.encode_value(field_name, value)
        return cells

    @staticmethod
    def status(verified: bool, tag: int, data_row: bytes = b"") -> bytes:
        """The status cell: ``01``/``00``, the 8-byte big-endian tag, then (unique) the data row."""
        return (VERIFIED if verified else UNVERIFIED) + tag.to_bytes(8, "big") + data_row

    def entry_puts(
        self, row: bytes, obj: M, *, verified: bool, tag: int, timestamp: int
    ) -> list[Put]:
        """The puts writing a whole non-unique entry: status and covering cells at ``timestamp``."""
        puts = [Put(row, self.status_column, self.status(verified, tag), timestamp)]
        puts.extend(Put(row, c, v, timestamp) for c, v in self.covering_cells(obj).items())
        return puts

    def parse(self, row: bytes, cells: Mapping[bytes, bytes], newest: int = 0) -> Entry | None:
        """Read an index row; ``None`` for a released unique row or one without a status.

        Raises:
            KeyDecodeError: The rowkey or status cell is not this index's.
        """
        status = cells.get(self.status_column)
        if not status:
            return None
        if len(status) < 9 or status[:1] not in (VERIFIED, UNVERIFIED):
            raise KeyDecodeError("not an index status cell", row=row, value=status)
        values = self.key.decode(row)
        data_row = status[9:] if self.unique else values.pop(ROW_FIELD)
        prefix = self.family + b":"
        return Entry(
            row=row,
            values=values,
            data_row=data_row,
            verified=status[:1] == VERIFIED,
            tag=int.from_bytes(status[1:9], "big"),
            status=status,
            cells={
                c[len(prefix) :]: v
                for c, v in cells.items()
                if c.startswith(prefix) and c != self.status_column
            },
            newest=newest,
        )

    def points_at(self, entry: Entry, obj: M | None) -> bool:
        """Whether the data row ``obj`` (read at ``entry.data_row``) has the entry's values.

        ``None`` (no data row) never does. Covering cells are not compared.
        """
        if obj is None or self.mapper.rowkey(obj) != entry.data_row:
            return False
        return self.row_of(obj, entry.data_row) == entry.row

    def agrees(self, entry: Entry, obj: M | None) -> bool:
        """Whether ``entry`` is exactly the entry the data row ``obj`` calls for.

        :meth:`points_at`, and for a covering index the same covering cells.
        """
        if obj is None or not self.points_at(entry, obj):
            return False
        if not self.covering:
            return True
        prefix_len = len(self.family) + 1
        wanted = {c[prefix_len:]: v for c, v in self.covering_cells(obj).items()}
        return wanted == dict(entry.cells)
