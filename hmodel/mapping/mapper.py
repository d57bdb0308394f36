"""The pure translation between a model's instances and the cells of its rows (F2, F6-F10, K10)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import timedelta
from typing import Any, Generic, TypeVar

import attrs

from hmodel.backend.argument import MAX_ROW_LENGTH
from hmodel.backend.base import Delete, Mutation, Put, RowBatch, RowResult, family_of
from hmodel.codecs import Codec
from hmodel.errors import (
    CodecError,
    DeclarationError,
    DecodeError,
    KeyEncodeError,
    NotFoundError,
    ValidationError,
)
from hmodel.keys.compiled import CompiledKey
from hmodel.mapping.fast import (
    ANY_TYPE,
    FULL,
    attribute_tuple,
    cell_writer,
    instance_builder,
    read_plan,
    row_reader,
    row_writer,
    write_plan,
)
from hmodel.mapping.tombstone import no_row
from hmodel.mapping.value import decode_value, encode_value
from hmodel.model import (
    ColumnField,
    CounterField,
    MapField,
    ModelInfo,
    StoredField,
    VersionField,
    model_info,
)
from hmodel.model.annotation import check_value, describe
from hmodel.model.info import LONG
from hmodel.model.limits import check_cell_size

__all__ = ["Mapper", "mapper_for"]

M = TypeVar("M")

# The cached mapper lives on the model class itself, so it goes away with the class (a weak
# mapping from class to mapper would never release it: the mapper refers to its class).
_CACHE = "__hmodel_mapper__"


def mapper_for(cls: type[M]) -> Mapper[M]:
    """Return the (cached) :class:`Mapper` of the model class ``cls``.

    Raises:
        DeclarationError: ``cls`` is not a model.
    """
    mapper = vars(cls).get(_CACHE)
    if not isinstance(mapper, Mapper):
        mapper = Mapper(cls)
        setattr(cls, _CACHE, mapper)
    return mapper


@attrs.frozen
class _Write:
    """Where and how one save or partial update writes: row, timestamp, TTL, stored row."""

    row: bytes
    timestamp: int
    ttl: int | None
    previous: RowResult | None


class Mapper(Generic[M]):
    """Turns instances of one model into mutations, and rows back into instances.

    Pure: it builds :class:`~hmodel.backend.base.Put` and
    :class:`~hmodel.backend.base.Delete` objects and reads
    :class:`~hmodel.backend.base.RowResult` objects, but never talks to a backend. Every
    method validates all of its input before returning anything, so a rejected instance
    yields no mutation at all.

    What a save writes:

    * a column field: one ``Put`` of its encoded value; ``None`` (for an ``Optional``
      field) a ``Delete`` of the column at ``timestamp`` (nothing is put in that column,
      so it masks only older values, and it shares the puts' timestamp so the whole save
      travels in one ``mutateRowsTs`` round trip);
    * a map field (F6): one ``Put`` per entry; a map that owns its whole family (no
      prefix) also gets a ``Delete`` of the family at ``timestamp - 1``, so entries removed
      from the dict disappear. A map with a prefix shares its family, so a family delete
      would clear other fields: its removed entries are only deleted when the stored row
      is passed as ``previous`` (see :attr:`save_needs_previous`);
    * counters (F10) and the version field: never; the repository increments counters
      and sets the version with a check-and-put.

    Args:
        cls: The model class.

    Raises:
        DeclarationError: ``cls`` is not a model.
    """

    def __init__(self, cls: type[M]) -> None:
        self.cls = cls
        self.info: ModelInfo = model_info(cls)
        self._table = self.info.table.full_name
        self._versioned = self.info.version_field is not None
        self._by_column: dict[bytes, StoredField] = {
            f.column: f for f in self.info.fields.values() if not isinstance(f, MapField)
        }
        self._maps = tuple(self.info.maps.values())
        self._key = CompiledKey(self.info.key)
        self._key_names = self.info.key_field_names
        self._key_types = tuple((f.name, f.python_type) for f in self.info.key_fields)
        self._key_getter = attribute_tuple(self._key_names)
        self._rowkey_of = self._key.attribute_encoder(dict(self._key_types))
        self._read_plan = read_plan(self.info)
        self._counters = {name: f.column for name, f in self.info.counters.items()}
        #: The map fields owning their family: a write of one clears the family first.
        self._clearing = frozenset(n for n, m in self.info.maps.items() if m.owns_family)
        self._write_steps, self._written = write_plan(self.info)
        builder = instance_builder(self.info)
        self._build = builder or (lambda values: cls(**values))
        self._reader = (
            None
            if builder is None  # the class's own hooks must run: no generated reader
            else row_reader(self.info, self._key, self._read_plan, self._decode_field)
        )
        #: The columns whose cells the server stamps (counters, F10; the version cell).
        self.server_stamped = frozenset(
            self.column_of(name)
            for name in (*self.info.counters, *filter(None, [self.info.version_field]))
        )
        #: ``reader(result, verify) -> (instance, newest)``: the generated reader, which
        #: also gives the newest timestamp of the cells outside :attr:`server_stamped`
        #: (-1: cells it did not read are there); ``None`` where there is no generated
        #: reader. It may raise anything: :meth:`from_row` then words the error.
        self.stamped_reader: Callable[[RowResult, bool], tuple[M, int]] | None = (
            None
            if builder is None
            else row_reader(
                self.info,
                self._key,
                self._read_plan,
                self._decode_field,
                stamped=self.server_stamped,
            )
        )
        #: The fields :meth:`partial_cells` writes: column fields (no counter, version
        #: or map field), by name.
        self._partial_plan: dict[str, ColumnField] = {
            name: stored
            for name, stored in self.info.fields.items()
            if type(stored) is ColumnField and name not in self.info.key_field_names
        }
        self._writer = row_writer(self._write_steps, Put, Delete)
        self._cells = cell_writer(self._write_steps)
        #: The families a full save writes (every written field's column's family).
        self.written_families = frozenset(
            family_of(step[1]) for step in self._write_steps if isinstance(step, tuple)
        )

    def __repr__(self) -> str:
        return f"Mapper({self.info.name})"

    # --- errors -----------------------------------------------------------------------------

    def _invalid(
        self, message: str, *, field: str | None = None, value: Any = None
    ) -> ValidationError:
        return ValidationError(
            f"model {self.info.name!r}: {message}", table=self._table, field=field, value=value
        )

    # --- rowkeys ----------------------------------------------------------------------------

    def key_of(self, **key_fields: Any) -> bytes:
        """Return the rowkey of the row with these key field values (K1).

        Raises:
            ValidationError: A key field is missing, unknown, of the wrong type or does not
                encode (too long, out of range); the error names the field.
        """
        return self.key_of_values(key_fields)

    def key_of_values(self, key_fields: Mapping[str, Any]) -> bytes:
        """Return the rowkey of these key field values, given as a mapping (see :meth:`key_of`).

        Raises:
            ValidationError: Not a mapping; a key field missing, unknown, of the wrong type
                or not encoding.
        """
        if type(key_fields) is dict and len(key_fields) == len(self._key_types):
            try:
                for name, kind in self._key_types:
                    if type(key_fields[name]) is not kind:
                        break
                else:
                    return self._key.encode(key_fields)
            except (KeyError, KeyEncodeError):
                pass  # the full path below words the error
        if not isinstance(key_fields, Mapping):
            raise self._invalid("key values must map key field names to values", value=key_fields)
        return self._checked_key(key_fields)

    def _checked_key(self, key_fields: Mapping[str, Any]) -> bytes:
        names = self.info.key_field_names
        for name, value in key_fields.items():
            if name not in names:
                raise self._invalid(
                    f"{name!r} is not a key field (the key fields: {', '.join(names)})",
                    field=name,
                    value=value,
                )
        for key_field in self.info.key_fields:
            if key_field.name not in key_fields:
                raise self._invalid(f"missing key field {key_field.name!r}", field=key_field.name)
            value = key_fields[key_field.name]
            if not check_value(value, key_field.python_type):
                raise self._invalid(
                    f"key field {key_field.name!r} takes {describe(key_field.python_type)}, "
                    f"not {type(value).__name__}",
                    field=key_field.name,
                    value=value,
                )
        try:
            return self.info.key.encode(key_fields)
        except KeyEncodeError as error:
            raise self._invalid(
                f"the key does not encode: {error.message}", field=error.field, value=error.value
            ) from error

    def _row(self, key_values: Mapping[str, Any]) -> bytes:
        return self.key_of_values(key_values)

    def key_values(self, instance: M) -> dict[str, Any]:
        """Return the key field values of ``instance``, by name."""
        self._check_instance(instance)
        return dict(zip(self._key_names, self._key_getter(instance), strict=True))

    def rowkey(self, instance: M) -> bytes:
        """Return the rowkey of ``instance``.

        Raises:
            ValidationError: ``instance`` is not of this model, or a key field does not
                encode.
        """
        if type(instance) is self.cls:
            try:
                return self._rowkey_of(instance)
            except Exception:  # the full path below words the error
                pass
        return self.key_of_values(self.key_values(instance))

    def matches(self, row: bytes) -> bool:
        """Whether ``row`` is a rowkey of this model (tells record types apart, R1)."""
        return self._key.matches(row)

    # --- columns ----------------------------------------------------------------------------

    def field(self, field_name: str) -> StoredField:
        """Return the stored field called ``field_name``.

        Raises:
            ValidationError: No such stored field (key fields are not stored in columns).
        """
        found = self.info.fields.get(field_name)
        if found is None:
            if field_name in self.info.key_field_names:
                raise self._invalid(
                    f"{field_name!r} is a key field: it lives in the rowkey, not in a column",
                    field=field_name,
                )
            raise self._invalid(f"no field {field_name!r}", field=field_name)
        return found

    def column_of(self, field_name: str) -> bytes:
        """Return the column ``b"f:q"`` of a column, counter or version field.

        Raises:
            ValidationError: Unknown field, a key field, or a map field (its entries each
                have a column: see :meth:`map_column`).
        """
        return self._single(field_name).column

    def map_column(self, field_name: str, key: Any) -> bytes:
        """Return the column of the entry ``key`` of map field ``field_name`` (F6).

        Raises:
            ValidationError: Not a map field, or ``key`` does not encode.
        """
        found = self._map(field_name)
        return self._entry_column(found, key)

    def map_columns(self, field_name: str, keys: Iterable[Any] | None = None) -> list[bytes]:
        """Return what to read for a map field: some entries' columns, or its whole family.

        Args:
            field_name: The map field.
            keys: The entry keys wanted; ``None``: all entries, which needs the whole
                family (a read cannot select by qualifier prefix; :meth:`map_entries`
                keeps only the map's own columns).

        Raises:
            ValidationError: Not a map field, or a key does not encode.
        """
        owner = self._map(field_name)
        if keys is None:
            return list(owner.read_families)
        if isinstance(keys, str | bytes):
            raise self._invalid(
                "keys must be a collection of entry keys, not one key", field=owner.name
            )
        return [self._entry_column(owner, key) for key in keys]

    def codec_of(self, field_name: str) -> Codec[Any]:
        """Return the codec of a column, counter or version field (``Long`` for the latter).

        Raises:
            ValidationError: Unknown, key or map field.
        """
        return self._single(field_name).codec

    @property
    def salt_width(self) -> int:
        """Bytes at the start of every rowkey up to and including the salt bucket (K3, I5).

        Rows of different buckets compare in key order from this offset on, which is how
        per-bucket scans are merged. 0 for a key without a ``Salt``.

        Raises:
            DeclarationError: A variable-width component precedes the salt, so the offset
                differs between rows.
        """
        key = self.info.key
        if key.salt is None:
            return 0
        width = 0
        for component in key.components:
            if component.fixed_width is None:
                raise DeclarationError(
                    f"model {self.info.name!r}: {component.name!r} precedes the salt and has "
                    "no fixed width, so buckets start at different offsets",
                    table=self._table,
                    field=component.name,
                )
            width += component.fixed_width
            if component is key.salt:
                return width
        raise AssertionError("unreachable: the salt is one of the key's components")

    def field_of(self, column: bytes) -> str | None:
        """Return the field stored in ``column`` (``b"f:q"``, or a bare family of a map).

        Columns of map entries give the map; a bare family gives the map owning it.
        ``None`` for a column no field of this model uses.
        """
        found = self._by_column.get(column)
        if found is not None:
            return found.name
        for owner in self._maps:
            if owner.qualifier_suffix(column) is not None:
                return owner.name
            if owner.owns_family and column == owner.family_bytes:
                return owner.name
        return None

    def columns(self, field_names: Iterable[str] | None = None) -> list[bytes]:
        """Return what to read for some fields: columns ``b"f:q"`` and whole families ``b"f"``.

        A map field needs its whole family (a read cannot select by qualifier prefix); a
        column inside a family that is read whole is left out, because HBase would
        otherwise narrow the family read to that one column. Key fields need no column.
        The result is sorted and free of duplicates.

        Args:
            field_names: The fields to read; ``None``: every stored field.

        Returns:
            The columns and families. An empty list means no column is needed (only key
            fields were asked for); note that a backend read with no columns reads all.

        Raises:
            ValidationError: An unknown field name.
        """
        families: set[bytes] = set()
        columns: set[bytes] = set()
        for stored in self._select(field_names):
            if isinstance(stored, MapField):
                families.update(stored.read_families)
            else:
                columns.add(stored.column)
        kept = {c for c in columns if c.partition(b":")[0] not in families}
        return sorted(families | kept)

    def _select(self, field_names: Iterable[str] | None) -> list[StoredField]:
        if field_names is None:
            return list(self.info.fields.values())
        if isinstance(field_names, str):
            raise self._invalid("field names must be a collection of names, not one string")
        return [self.field(name) for name in field_names if name not in self.info.key_field_names]

    def _single(self, field_name: str) -> ColumnField | CounterField | VersionField:
        found = self.field(field_name)
        if isinstance(found, MapField):
            raise self._invalid(
                f"map field {field_name!r} has one column per entry: use map_column()",
                field=field_name,
            )
        return found

    def _map(self, field_name: str) -> MapField:
        found = self.field(field_name)
        if not isinstance(found, MapField):
            raise self._invalid(f"{field_name!r} is not a map field", field=field_name)
        return found

    # --- writes -----------------------------------------------------------------------------

    @property
    def save_needs_previous(self) -> bool:
        """Whether :meth:`to_mutations` needs the stored row to delete removed map entries.

        True when a map field has a prefix (it shares its family with other fields, so a
        family delete cannot clear its old entries).
        """
        return any(not m.owns_family for m in self._maps)

    def previous_families(self, field_names: Iterable[str] | None = None) -> list[bytes]:
        """The families to read before writing these fields so that maps really replace.

        A map with a prefix shares its family, so its removed entries can only be deleted
        by name: the stored row (these families of it) must be read first and passed as
        ``previous``. Empty when no such map is among the fields (``None``: all fields).
        """
        chosen = (
            self.info.maps.values()
            if field_names is None
            else [
                stored
                for name in field_names
                if isinstance(stored := self.info.fields.get(name), MapField)
            ]
        )
        return sorted({f for m in chosen if not m.owns_family for f in m.read_families})

    def clears_family(self, field_names: Iterable[str] | None = None) -> bool:
        """Whether writing these fields deletes a family one millisecond before the write.

        True when a map owning its family is among them (``None``: all fields): its
        ``Delete`` of the family is stamped ``timestamp - 1``, so the caller must reserve
        that stamp too (see :meth:`hmodel.clock.WriteStamps.next`).
        """
        if not self._clearing:
            return False
        return field_names is None or not self._clearing.isdisjoint(field_names)

    def stale_entries(
        self,
        previous: RowResult,
        written: Iterable[bytes],
        *,
        timestamp: int,
        field_names: Iterable[str] | None = None,
    ) -> list[Delete]:
        """Deletes of the prefixed-map entries stored in ``previous`` but not ``written``.

        Args:
            previous: The row as stored, read with :meth:`previous_families`.
            written: The columns the save or update puts.
            timestamp: The deletes' timestamp (the save's: they mask older versions only).
            field_names: The map fields replaced; ``None``: all of them.
        """
        names = None if field_names is None else set(field_names)
        owners = [
            m
            for m in self.info.maps.values()
            if not m.owns_family and (names is None or m.name in names)
        ]
        kept = set(written)
        return [
            Delete(previous.row, column, timestamp)
            for column in previous.cells
            if column not in kept and any(m.qualifier_suffix(column) is not None for m in owners)
        ]

    def delete_except(
        self, row: bytes, keep: bytes, timestamp: int, previous: RowResult | None = None
    ) -> list[Delete]:
        """Deletes of every cell of the model's row at ``timestamp``, except column ``keep``.

        Families other than ``keep``'s are deleted whole; in ``keep``'s family, each of the
        model's columns, and the prefixed-map entries found in ``previous`` (read with
        :meth:`previous_families`; without it those entries stay).
        """
        family = keep.partition(b":")[0]
        deletes = [
            Delete(row, f.name.encode(), timestamp)
            for f in self.info.table.families
            if f.name.encode() != family
        ]
        for stored in self.info.fields.values():
            if isinstance(stored, MapField) or stored.column == keep:
                continue
            if stored.column.partition(b":")[0] == family:
                deletes.append(Delete(row, stored.column, timestamp))
        if previous is not None:
            written = ()
            deletes.extend(
                d
                for d in self.stale_entries(previous, written, timestamp=timestamp)
                if d.column is not None and d.column.partition(b":")[0] == family
            )
        return deletes

    def to_mutations(
        self,
        instance: M,
        *,
        timestamp: int,
        ttl_ms: int | None = None,
        previous: RowResult | None = None,
        row: bytes | None = None,
    ) -> list[Mutation]:
        """Return the mutations of a full save of ``instance``, all on its row.

        Puts for every column field that is not ``None`` and for every map entry; deletes
        at ``timestamp`` for ``None`` fields and for entries removed from a prefixed map,
        and at ``timestamp - 1`` for maps owning their family (see the class docstring).
        Counters and the version field are not written.

        Args:
            instance: The instance to save.
            timestamp: The timestamp of every put, epoch milliseconds (>= 1).
            ttl_ms: Per-cell TTL of the puts in milliseconds (F8); default: the model's
                ``ttl``, or none.
            previous: The row as stored now, if read: entries of prefixed maps found in it
                but not in the instance are deleted. Without it such entries stay.
            row: ``rowkey(instance)``, when the caller computed it already (saves the
                key encoding; the caller vouches that it is this instance's rowkey).

        Raises:
            ValidationError: ``instance`` is not of this model, a required field is
                ``None``, a value is of the wrong type or does not encode, a key field
                does not encode, or ``timestamp``/``ttl_ms`` is invalid. Nothing is
                returned then.
        """
        self._check_instance(instance)
        if row is None:
            row = self.rowkey(instance)
        ttl = self._ttl(ttl_ms)
        self._check_timestamp(timestamp)
        if self._writer is not None:
            try:
                return self._writer(instance, row, timestamp, ttl)
            except Exception:  # the loop below words the error, or warns (F11)
                pass
        write = _Write(row, timestamp, ttl, previous)
        mutations: list[Mutation] = []
        for step, value in zip(self._write_steps, self._written(instance), strict=True):
            if not isinstance(step, tuple):  # a map
                mutations.extend(self._field_mutations(write, step, value))
                continue
            _, column, encode, exact, bound, stored = step
            if value is None or (type(value) is not exact and exact is not ANY_TYPE):
                mutations.extend(self._field_mutations(write, stored, value))
                continue
            try:
                data = encode(value)
            except CodecError:  # the full path words it
                mutations.extend(self._field_mutations(write, stored, value))
                continue
            if len(data) > bound:
                self._check_size(stored, row, column, data)
            mutations.append(Put(row, column, data, timestamp, ttl))
        return mutations

    def fill_batch(
        self, batch: RowBatch, instances: Iterable[M], rows: Iterable[bytes]
    ) -> int | None:
        """Add the full saves of ``instances`` to ``batch``, each on its row; the cells added.

        The cells are exactly the mutations :meth:`to_mutations` returns for each instance
        at the batch's timestamp and ttl (a put per column field that is not ``None``, a
        column delete per ``None`` one), made by the compiled writer without a ``Put`` per
        cell. ``None`` as soon as one instance needs the full path (a map field, a value
        of another class than the annotation's, a required field ``None``, a cell over its
        F11 bound, a rowkey out of bounds): the batch is then partly filled, to be thrown
        away for :meth:`to_mutations`, which words the error or takes the long way.

        Args:
            batch: A batch from the backend's ``row_batch`` (validated timestamp and ttl).
            instances: Instances of this model (their type already checked).
            rows: Each instance's rowkey, in the same order (the caller vouches for them).
        """
        cells_of = self._cells
        if cells_of is None or self._maps:
            return None
        add = batch.add_row
        count = 0
        try:
            for instance, row in zip(instances, rows, strict=True):
                if not 0 < len(row) <= MAX_ROW_LENGTH:
                    return None
                cells = cells_of(instance)
                add(row, cells)
                count += len(cells)
        except Exception:  # the full path decides, and words any error
            return None
        return count

    def to_partial_mutations(
        self,
        key_values: Mapping[str, Any],
        changes: Mapping[str, Any],
        *,
        timestamp: int,
        ttl_ms: int | None = None,
        previous: RowResult | None = None,
    ) -> list[Mutation]:
        """Return the mutations that set only the named fields of one row.

        Each change is written as a full save writes that field (``None`` deletes; a map
        replaces the whole map). Other fields are left untouched.

        Args:
            key_values: The key field values of the row.
            changes: New values by field name.
            timestamp: The timestamp of every put, epoch milliseconds (>= 1).
            ttl_ms: Per-cell TTL of the puts in milliseconds; default: the model's ``ttl``.
            previous: The row as stored now, for prefixed maps (as in :meth:`to_mutations`).

        Raises:
            ValidationError: An unknown field; a key field (K10: a key never changes, save
                a copy under the new key and delete the old row); a counter (use an
                increment, F10); the version field (the repository manages it); or an
                invalid value, key, ``timestamp`` or ``ttl_ms``.
        """
        row = self._row(key_values)
        if not isinstance(changes, Mapping):
            raise self._invalid("changes must map field names to values", value=changes)
        ttl = self._ttl(ttl_ms)
        self._check_timestamp(timestamp)
        write = _Write(row, timestamp, ttl, previous)
        mutations: list[Mutation] = []
        for name, value in changes.items():
            if name in self.info.key_field_names:
                raise self._invalid(
                    f"key field {name!r} cannot be updated (K10, keys are immutable): save a "
                    "copy under the new key and delete the old row",
                    field=name,
                    value=value,
                )
            stored = self.field(name)
            if isinstance(stored, CounterField):
                raise self._invalid(
                    f"counter {name!r} is only changed by increments (F10)", field=name, value=value
                )
            if isinstance(stored, VersionField):
                raise self._invalid(
                    f"version field {name!r} is managed by the repository's optimistic locking",
                    field=name,
                    value=value,
                )
            mutations.extend(self._field_mutations(write, stored, value))
        return mutations

    def partial_cells(
        self, row: bytes, changes: Mapping[str, Any]
    ) -> tuple[list[tuple[bytes, bytes | None]], frozenset[bytes], bool] | None:
        """:meth:`to_partial_mutations`' cells, when every change is a plain column's.

        For an update of column fields only (no key, counter, version or map field, and
        ``None`` only for a nullable one), the cells the mutations would write, without a
        ``Put`` per cell: ``(cells, families, puts)``, ``cells`` as ``(column, value)``
        pairs in ``changes``' order (``None``: a delete of the column), ``families`` the
        families they touch and ``puts`` whether any is a put. The values are encoded and
        size-checked as :meth:`to_partial_mutations` does, in the same order, so an invalid
        value raises the same error. ``None`` when a change needs the full path (which
        words any error about the field itself), and for no change at all.

        Raises:
            ValidationError: A value that does not encode, or is too large (F11).
        """
        plan = self._partial_plan
        steps = []
        for name, value in changes.items():
            stored = plan.get(name)
            if stored is None or (value is None and not stored.nullable):
                return None
            steps.append((stored, value))
        if not steps:
            return None
        cells: list[tuple[bytes, bytes | None]] = []
        families = set()
        puts = False
        info = self.info
        for stored, value in steps:
            column = stored.column
            families.add(stored.family.encode())
            if value is None:
                cells.append((column, None))
                continue
            data = encode_value(info, stored.name, stored.codec, value, expected=stored.value_type)
            self._check_size(stored, row, column, data)
            cells.append((column, data))
            puts = True
        return cells, frozenset(families), puts

    def map_put(
        self,
        key_values: Mapping[str, Any],
        map_field_name: str,
        entries: Mapping[Any, Any],
        *,
        timestamp: int | None = None,
        ttl_ms: int | None = None,
    ) -> list[Put]:
        """Return puts adding or replacing single entries of a map field (F6).

        Other entries are left alone: ``map_put(k, "fans", {"u2": "mutual"})`` is one put
        of ``f:u2``.

        Args:
            key_values: The key field values of the row.
            map_field_name: The map field.
            entries: The entries to write.
            timestamp: The puts' timestamp; ``None``: the server's time.
            ttl_ms: Per-cell TTL in milliseconds; default: the model's ``ttl``.

        Raises:
            ValidationError: Not a map field, or an invalid key, entry, timestamp or TTL.
        """
        row = self._row(key_values)
        owner = self._map(map_field_name)
        ttl = self._ttl(ttl_ms)
        if timestamp is not None:
            self._check_timestamp(timestamp)
        return self._entry_puts(row, owner, entries, timestamp, ttl)

    def map_delete(
        self,
        key_values: Mapping[str, Any],
        map_field_name: str,
        keys: Iterable[Any],
        *,
        timestamp: int | None = None,
    ) -> list[Delete]:
        """Return deletes removing single entries of a map field (F6).

        Args:
            key_values: The key field values of the row.
            map_field_name: The map field.
            keys: The entry keys to remove.
            timestamp: Delete the versions up to this timestamp (inclusive); ``None``:
                every version stored so far.

        Raises:
            ValidationError: Not a map field, or an invalid key or timestamp.
        """
        row = self._row(key_values)
        owner = self._map(map_field_name)
        if timestamp is not None:
            self._check_timestamp(timestamp)
        if isinstance(keys, str | bytes):
            raise self._invalid(
                "keys must be a collection of entry keys, not one key", field=owner.name
            )
        return [Delete(row, self._entry_column(owner, key), timestamp) for key in keys]

    def map_change(
        self,
        key_values: Mapping[str, Any],
        map_field_name: str,
        put: Mapping[Any, Any],
        remove: Iterable[Any],
        *,
        timestamp: int,
    ) -> list[Mutation]:
        """Return the puts of ``put`` then the deletes of ``remove``, all at ``timestamp``.

        One change of one row's map (R10: a rename is one entry put and one removed), to
        send in one mutation. Puts carry the model's TTL; deletes carry none.

        Raises:
            ValidationError: Not a map field, an invalid key, entry or timestamp, or an
                entry both put and removed (a delete at the puts' timestamp would hide the
                put: HBase's delete wins a tie).
        """
        puts = self.map_put(key_values, map_field_name, put, timestamp=timestamp)
        names = list(remove) if not isinstance(remove, str | bytes) else remove
        deletes = self.map_delete(key_values, map_field_name, names, timestamp=timestamp)
        both = {p.column for p in puts} & {d.column for d in deletes}
        if both:
            name = next(n for n, d in zip(names, deletes, strict=True) if d.column in both)
            raise self._invalid(
                "an entry is both put and removed in one change; its delete would hide "
                "its put (HBase's delete wins a tie): put it, or remove it",
                field=map_field_name,
                value=name,
            )
        return [*puts, *deletes]

    def counter_column(self, field_name: str, amount: object) -> bytes:
        """Return the column of counter ``field_name`` for an increment by ``amount`` (F10).

        Raises:
            ValidationError: Not a counter field, or ``amount`` is not an int of the
                64-bit range.
        """
        column = self._counters.get(field_name)
        if column is not None and type(amount) is int and -(2**63) <= amount < 2**63:
            return column
        if field_name not in self.info.counters:
            raise ValidationError("not a counter field", table=self._table, field=field_name)
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise ValidationError(
                "increments are integers", table=self._table, field=field_name, value=amount
            )
        if not -(2**63) <= amount < 2**63:
            raise ValidationError(
                "increment out of the 64-bit range",
                table=self._table,
                field=field_name,
                value=amount,
            )
        return self.column_of(field_name)

    def encode_value(self, field_name: str, value: Any) -> bytes:
        """Return the cell bytes of ``value`` for a column, counter or version field.

        For conditions and check-and-put: the expected bytes of a cell.

        Raises:
            ValidationError: Unknown or map field, or the value does not encode.
        """
        stored = self._single(field_name)
        expected = stored.value_type if isinstance(stored, ColumnField) else int
        return encode_value(self.info, stored.name, stored.codec, value, expected=expected)

    def _field_mutations(self, write: _Write, stored: StoredField, value: Any) -> list[Mutation]:
        if isinstance(stored, MapField):
            return self._map_mutations(write, stored, value)
        assert isinstance(stored, ColumnField)
        if value is None:
            if not stored.nullable:
                raise self._invalid(
                    f"field {stored.name!r} is required ({describe(stored.value_type)}), not None",
                    field=stored.name,
                )
            return [Delete(write.row, stored.column, write.timestamp)]
        data = encode_value(self.info, stored.name, stored.codec, value, expected=stored.value_type)
        self._check_size(stored, write.row, stored.column, data)
        return [Put(write.row, stored.column, data, write.timestamp, write.ttl)]

    def _map_mutations(self, write: _Write, owner: MapField, entries: Any) -> list[Mutation]:
        puts = self._entry_puts(write.row, owner, entries, write.timestamp, write.ttl)
        mutations: list[Mutation] = list(puts)
        if owner.owns_family:
            mutations.append(Delete(write.row, owner.family_bytes, write.timestamp - 1))
        elif write.previous is not None:
            mutations.extend(
                self.stale_entries(
                    write.previous,
                    [put.column for put in puts],
                    timestamp=write.timestamp,
                    field_names=[owner.name],
                )
            )
        return mutations

    def _entry_puts(
        self,
        row: bytes,
        owner: MapField,
        entries: Any,
        timestamp: int | None,
        ttl: int | None,
    ) -> list[Put]:
        if not isinstance(entries, Mapping):
            raise self._invalid(
                f"map field {owner.name!r} takes a dict, not {type(entries).__name__}",
                field=owner.name,
                value=entries,
            )
        puts: list[Put] = []
        for key, value in entries.items():
            column = self._entry_column(owner, key)
            data = encode_value(self.info, owner.name, owner.value_codec, value, what="map value")
            self._check_size(owner, row, column, data)
            puts.append(Put(row, column, data, timestamp, ttl))
        return puts

    def _check_size(
        self, stored: ColumnField | MapField, row: bytes, column: bytes, data: bytes
    ) -> None:
        """Refuse or warn about an oversized cell value (F11), before any write."""
        max_bytes, warn_bytes = self.info.cell_limits(stored)
        check_cell_size(
            data,
            max_bytes=max_bytes,
            warn_bytes=warn_bytes,
            model=self.info.name,
            field=stored.name,
            table=self.info.table.full_name,
            row=row,
            column=column,
        )

    def _entry_column(self, owner: MapField, key: Any) -> bytes:
        suffix = encode_value(self.info, owner.name, owner.key_codec, key, what="map key")
        if not owner.extra:
            return owner.family_bytes + b":" + owner.prefix + suffix
        column = owner.column_of(suffix)
        if column is None:
            raise self._invalid(
                f"catch-all {owner.name!r} cannot hold {suffix!r}: another field of the model "
                "uses that column, or it is no column of the table's families",
                field=owner.name,
                value=key,
            )
        return column

    def _check_instance(self, instance: object) -> None:
        if not isinstance(instance, self.cls):
            raise self._invalid(
                f"expected a {self.cls.__qualname__} instance, not {type(instance).__name__}",
                value=instance,
            )

    def _check_timestamp(self, timestamp: object) -> None:
        if isinstance(timestamp, bool) or not isinstance(timestamp, int) or timestamp < 1:
            raise self._invalid(
                "timestamp must be a positive int of epoch milliseconds", value=timestamp
            )

    def ttl_of(self, ttl: timedelta | None) -> int | None:
        """The per-cell TTL in milliseconds of a write given ``ttl`` (F8).

        ``None`` takes the model's declared ``ttl`` (or no TTL). This is the one place
        that decides TTL defaults for repositories and units of work.

        Raises:
            ValidationError: ``ttl`` is not a timedelta, or not positive.
        """
        if ttl is None:
            return self.info.ttl_ms
        if not isinstance(ttl, timedelta):
            raise self._invalid("ttl is a datetime.timedelta", value=ttl)
        ms = int(ttl.total_seconds() * 1000)
        if ms <= 0:
            raise self._invalid("ttl must be positive", value=ttl)
        return ms

    def _ttl(self, ttl_ms: object) -> int | None:
        if ttl_ms is None:
            return self.info.ttl_ms
        if isinstance(ttl_ms, bool) or not isinstance(ttl_ms, int) or ttl_ms < 1:
            raise self._invalid("ttl_ms must be a positive int of milliseconds (F8)", value=ttl_ms)
        return ttl_ms

    # --- reads ------------------------------------------------------------------------------

    def deleted(self, result: RowResult) -> bool:
        """Whether ``result`` is a versioned model's row deleted over Thrift1, or fenced: no row.

        Thrift1 has no check-and-delete, so a versioned (optimistically locked) row is
        deleted there by a check-and-put of ``b""`` into its version cell, and the cell
        stays as that tombstone. A unique index's writer taking over the claim of a write
        that may still land fences that write's row: its version cell holds ``b"F"`` and
        an 8-byte tag (see ``docs/indexes.md``). Whatever other cells the row holds, the
        repository's reads treat either as absent, and so does :meth:`from_row`. Always
        ``False`` for a model without a version field.
        """
        name = self.info.version_field
        return name is not None and no_row(result.value(self.column_of(name)))

    def from_row(self, result: RowResult, *, key_encoded_here: bool = False) -> M:
        """Return the instance stored in ``result``.

        Key fields are decoded from the rowkey; each column with its field's codec; a
        missing ``Optional`` column is ``None``, a missing column with a default takes the
        default; map fields gather the cells of their family and prefix; counters and the
        version read as 0 when absent. Columns no field uses are ignored.

        A row deleted over Thrift1 (a versioned model's version cell left as the tombstone
        ``b""``) or fenced (see :meth:`deleted`) is no row:
        :class:`~hmodel.errors.NotFoundError`, as the repository's reads treat it as absent.
        Check :meth:`deleted` first (or read with :meth:`Repository.load
        <hmodel.repository.Repository.load>`, ``None`` for it) to tell without the exception.

        Args:
            result: The row.
            key_encoded_here: The rowkey is one this mapper encoded from key fields (a get
                by key), so its salt and hashes are not checked again.

        Raises:
            KeyDecodeError: The rowkey is not a key of this model.
            DecodeError: A cell does not decode (corrupt, or written by another codec), or
                a required column is missing; the error names the column and the field.
            NotFoundError: The row was deleted over Thrift1 or fenced (:meth:`deleted`),
                naming the table and the row.
        """
        if self._versioned and self.deleted(result):
            raise NotFoundError(
                f"{self.info.name} was deleted over Thrift1 or fenced (its version cell "
                f"is {result.value(self.column_of(self.info.version_field or ''))!r}): no row",
                table=self._table,
                row=result.row,
            )
        reader = self._reader
        if reader is not None:
            try:
                read: M = reader(result, not key_encoded_here)
                return read
            except Exception:  # the full path below words the error
                pass
        values = self._key.decode(result.row, verify=not key_encoded_here)
        cells = result.cells
        for name, column, decode, absent, stored in self._read_plan:
            cell = cells.get(column) if column is not None else None
            if cell is None:
                values[name] = self._decode_field(result, stored) if absent is FULL else absent
                continue
            try:
                values[name] = decode(cell.value)  # type: ignore[misc]
            except CodecError:  # the full path names the model, field, row and column
                values[name] = self._decode_field(result, stored)
        built: M = self._build(values)
        return built

    def decode_fields(
        self, result: RowResult, field_names: Iterable[str] | None = None
    ) -> dict[str, Any]:
        """Return the values of some fields of the row ``result``, by name (a projection).

        The key fields are always included. Decoding works as in :meth:`from_row`.

        Args:
            result: The row, read with at least :meth:`columns` of the same fields.
            field_names: The fields wanted; ``None``: all.

        Raises:
            ValidationError: An unknown field name.
            KeyDecodeError: The rowkey is not a key of this model.
            DecodeError: A cell does not decode, or a required column is missing.
        """
        selected = self._select(field_names)
        values: dict[str, Any] = self._key.decode(result.row)
        for stored in selected:
            values[stored.name] = self._decode_field(result, stored)
        return values

    def decode_cell(self, field_name: str, data: bytes, *, row: bytes = b"") -> Any:
        """Return the value of one cell of a column, counter or version field.

        For reading the history of a ``history=True`` field (F7) from cell versions.

        Raises:
            ValidationError: Unknown or map field.
            DecodeError: The bytes do not decode.
        """
        stored = self._single(field_name)
        return decode_value(
            self.info, field_name, stored.codec, data, row=row, column=stored.column
        )

    def map_entries(self, field_name: str, result: RowResult) -> dict[Any, Any]:
        """Return the entries of a map field found in the row ``result`` (F6).

        Cells of other fields are ignored, so ``result`` may hold the whole family.

        Raises:
            ValidationError: Not a map field.
            DecodeError: An entry's key or value does not decode (names the column).
        """
        return self._decode_map(result, self._map(field_name))

    def _decode_field(self, result: RowResult, stored: StoredField) -> Any:
        if isinstance(stored, MapField):
            return self._decode_map(result, stored)
        cell = result.cells.get(stored.column)
        if isinstance(stored, CounterField | VersionField):
            if cell is None:
                return 0
            return decode_value(
                self.info, stored.name, LONG, cell.value, row=result.row, column=stored.column
            )
        if cell is None:
            if stored.required and self.info.missing == "none":
                return None  # declared: sparse rows read a missing field as None
            if stored.required:
                raise DecodeError(
                    f"model {self.info.name!r}: the row has no cell for required field "
                    f"{stored.name!r}; such a row arises when map entries or counters are "
                    "written to a row that was never saved or was deleted (they create "
                    "cells without the rest of the row), or when another program wrote it",
                    table=self._table,
                    row=result.row,
                    column=stored.column,
                    field=stored.name,
                )
            return stored.make_default()
        return decode_value(
            self.info, stored.name, stored.codec, cell.value, row=result.row, column=stored.column
        )

    def _decode_map(self, result: RowResult, owner: MapField) -> dict[Any, Any]:
        entries: dict[Any, Any] = {}
        for column, cell in result.cells.items():
            suffix = owner.qualifier_suffix(column)
            if suffix is None:
                continue
            key = decode_value(
                self.info,
                owner.name,
                owner.key_codec,
                suffix,
                row=result.row,
                column=column,
                what="map key",
            )
            entries[key] = decode_value(
                self.info,
                owner.name,
                owner.value_codec,
                cell.value,
                row=result.row,
                column=column,
                what="map value",
            )
        return entries
