"""Online data migrations: old layout to new, shard by shard, while the application runs."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

import attrs

from hmodel.backend.base import Delete, RowResult, Scan
from hmodel.errors import DeclarationError, DecodeError, KeyDecodeError, QueryError
from hmodel.mapping import mapper_for
from hmodel.model import model_info
from hmodel.repository import Repository, Store

__all__ = [
    "DataMigration",
    "MigratingRepository",
    "MigrationReport",
    "Migrator",
    "VerifyReport",
]

O = TypeVar("O")  # noqa: E741 -- the old model, as N is the new one
N = TypeVar("N")
T = TypeVar("T")

#: A transform's answer: one new instance, several (a record type split in two), or
#: ``None`` (the old row is dropped).
Produced = object | Iterable[object] | None

#: How many sample rowkeys a report keeps per kind.
SAMPLES = 5


def _produced(value: object) -> list[object]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [v for v in value if v is not None]
    return [value]


def _refuse_unsupported(cls: type, side: str, revision: str) -> None:
    info = model_info(cls)
    if info.counters:
        raise DeclarationError(
            f"the {side} model {cls.__name__} has counters, which a copy at the old row's "
            "stamp cannot merge with increments made meanwhile (F10); move them with a "
            "job of their own",
            table=info.table.full_name,
            field=next(iter(info.counters)),
            value=revision,
        )
    if info.version_field is not None:
        raise DeclarationError(
            f"the {side} model {cls.__name__} has a version field; a migration copies at "
            "the old row's stamp, which optimistic locking refuses",
            table=info.table.full_name,
            field=info.version_field,
            value=revision,
        )


def _copy_stamp(old: Repository[Any], result: RowResult, shared: frozenset[bytes]) -> int:
    """The stamp a copy of the old row ``result`` is written at: its newest write's.

    Within the row (``shared``: the new layout's columns and map families, which share
    the row), cells of columns the new layout also has do not count: the application
    writes them through the new layout, and a copy stamped as new as such a write would
    tie with the application's other cells of that write (a tie HBase settles by arrival).
    Only when every cell is shared does the newest of all count.
    """
    own = [
        cell.timestamp
        for column, cell in result.cells.items()
        if column not in shared and column.partition(b":")[0] not in shared
    ]
    return max(own) if own else old.newest_stamp(result)


@attrs.frozen
class DataMigration(Generic[O, N]):
    """One data revision: rows of ``old`` rewritten as rows of ``new`` by ``transform``.

    Old and new may share a table and a rowkey (a renamed qualifier, a field moved to
    another family, a changed codec) or differ in rowkey (another salt bucket count, an
    added key component) or in table. ``transform(old_obj)`` returns the new instance,
    several instances (of ``new`` and other models: a record type split in two), or
    ``None`` to drop the row. It must be pure (a re-run of a range gives the same rows).

    Neither model may have counters (F10: an increment of a row being moved would be
    hidden by the copy, or the copy by it) nor a version field.

    Args:
        revision: The revision id, unique, e.g. ``"2026_11_orders_salt16"``.
        down_revision: The revision this one follows (``None``: the first).
        old: The old layout's model.
        new: The new layout's model (what :class:`MigratingRepository` serves).
        transform: Old instance to new instance(s).
        old_key: The old layout's key fields for a new layout's key fields (a read of a
            row not moved yet looks there). By default the old key fields are taken by
            name from the new ones; needed when the old key has a field the new lacks.
        description: One line for ``hmodel migrate``.

    Raises:
        DeclarationError: A model has counters or a version field, or the old key has a
            field the new key lacks and no ``old_key`` is given.
    """

    revision: str
    down_revision: str | None
    old: type[O]
    new: type[N]
    transform: Callable[[O], Produced]
    old_key: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None
    description: str = ""

    def __attrs_post_init__(self) -> None:
        _refuse_unsupported(self.old, "old", self.revision)
        _refuse_unsupported(self.new, "new", self.revision)
        missing = set(model_info(self.old).key.fields) - set(model_info(self.new).key.fields)
        if missing and self.old_key is None:
            raise DeclarationError(
                "the old key has fields the new key lacks: give old_key= to find a row "
                "not moved yet",
                table=model_info(self.old).table.full_name,
                field=sorted(missing)[0],
                value=self.revision,
            )

    def serving(self, model: type[T]) -> DataMigration[O, T]:
        """This migration as read and written through another of its new models.

        For a record type split in two: ``MigratingRepository(store, m.serving(Other))``
        serves the other record; the revision, old model and transform are the same.
        """
        return DataMigration(
            revision=self.revision,
            down_revision=self.down_revision,
            old=self.old,
            new=model,
            transform=self.transform,
            old_key=self.old_key,
            description=self.description,
        )

    def produce(self, old_obj: O) -> list[object]:
        """The new instances of ``old_obj`` (none when the transform drops it)."""
        return _produced(self.transform(old_obj))

    def old_key_of(self, new_key: Mapping[str, Any]) -> dict[str, Any]:
        """The old layout's key fields of the row a new layout's key comes from."""
        if self.old_key is not None:
            return dict(self.old_key(new_key))
        return {name: new_key[name] for name in model_info(self.old).key.fields}


@attrs.frozen
class MigrationReport:
    """What :meth:`Migrator.migrate_range` (or :meth:`Migrator.run`) did.

    Attributes:
        read: Old rows read.
        written: New rows written (at their old row's stamp).
        deleted: Old rows deleted (delete markers at their stamp).
        dropped: Old rows the transform dropped.
        skipped: Rows of the range that are not old rows (another record type, a new
            layout row sharing the table).
        problems: Old rows that do not decode (left as they are).
        last_row: The last old rowkey done (resume after it); ``None``: none.
        samples: Rowkeys of problems, at most a few.
    """

    read: int = 0
    written: int = 0
    deleted: int = 0
    dropped: int = 0
    skipped: int = 0
    problems: int = 0
    last_row: bytes | None = None
    samples: tuple[bytes, ...] = ()

    def __add__(self, other: MigrationReport) -> MigrationReport:
        return MigrationReport(
            read=self.read + other.read,
            written=self.written + other.written,
            deleted=self.deleted + other.deleted,
            dropped=self.dropped + other.dropped,
            skipped=self.skipped + other.skipped,
            problems=self.problems + other.problems,
            last_row=other.last_row if other.last_row is not None else self.last_row,
            samples=(self.samples + other.samples)[:SAMPLES],
        )


@attrs.frozen
class VerifyReport:
    """What :meth:`Migrator.verify_range` found.

    Attributes:
        old_rows: Old rows still in the range (0 after a job that deletes them).
        ok: Old rows whose new rows equal the transform.
        missing: New rows the transform calls for that are not there.
        differs: New rows that differ from the transform and are not newer than the old
            row: a defect.
        rewritten: New rows that differ and are newer than the old row: written by the
            application since (counted apart, not a defect).
        duplicates: New rowkeys that more than one old row transforms to (the transform
            is not injective on keys: the last copy wins).
        new_rows: Rows of the new layout (:meth:`Migrator.verify` only; 0 for a range).
        new_only: New rows no old row transforms to: written by the application
            (:meth:`Migrator.verify` only).
        samples: Rowkeys of missing, differing and duplicate rows, at most a few.
    """

    old_rows: int = 0
    ok: int = 0
    missing: int = 0
    differs: int = 0
    rewritten: int = 0
    duplicates: int = 0
    new_rows: int = 0
    new_only: int = 0
    samples: tuple[bytes, ...] = ()

    @property
    def clean(self) -> bool:
        """Whether nothing is missing, different or duplicated."""
        return not (self.missing or self.differs or self.duplicates)


class MigratingRepository(Generic[O, N]):
    """The application's repository of ``new`` while a :class:`DataMigration` runs.

    **Reads** answer from the new layout first; a key with no new row is looked up in the
    old layout and transformed on the fly; a key found in neither is read from the new
    layout once more (the migrator deletes an old row only after its new row landed, so a
    row being moved is never missed). One ``get_many`` per layout per batch, never one
    per row. A new row that does not decode reads as not moved (in a migration sharing
    the row, the new layout's columns may not all be there yet).

    **Writes** go to the new layout only, with this process's write stamps, ordered after
    the old row's newest stamp ``s`` (read first), so a copy the migrator makes at ``s``,
    however late it lands, never overrides nor resurrects them (a delete marker hides
    every version ``<=`` its timestamp; a newer version wins reads). A partial
    :meth:`update` of a row not moved yet moves it first (the transform written at ``s``),
    then applies the change at a fresh stamp. A :meth:`delete` deletes both layouts (and
    first moves the other records of an old row the transform splits, so they survive).

    Args:
        store: The store of both layouts (shared write stamps).
        migration: The migration under way.
    """

    def __init__(self, store: Store, migration: DataMigration[O, N]) -> None:
        self.store = store
        self.migration = migration
        self.old: Repository[O] = store.repository(migration.old)
        self.new: Repository[N] = store.repository(migration.new)
        self._old_columns = tuple(mapper_for(migration.old).columns(None))
        self._new_columns = tuple(mapper_for(migration.new).columns(None))
        self._shared = frozenset(self._new_columns)

    # --- plumbing -------------------------------------------------------------------

    def _old_row(self, new_key: Mapping[str, Any]) -> bytes:
        return self.old.mapper.key_of_values(self.migration.old_key_of(new_key))

    def _old_rows_stamped(
        self, new_keys: Sequence[Mapping[str, Any]]
    ) -> list[tuple[bytes, O | None, int, int]]:
        """Per new key: old rowkey, old instance, copy stamp, newest stamp (one trip).

        The old instance is ``None`` for a missing row, or one that does not decode.
        """
        rows = [self._old_row(k) for k in new_keys]
        unique = list(dict.fromkeys(rows))
        results = (
            {
                r.row: r
                for r in self.store.backend.get(self.old.table, unique, columns=self._old_columns)
            }
            if unique
            else {}
        )
        answers: list[tuple[bytes, O | None, int, int]] = []
        for key, row in zip(new_keys, rows, strict=True):
            result = results.get(row)
            if result is None:
                answers.append((row, None, 0, 0))
                continue
            try:
                obj = self.old.load(result)
            except DecodeError:
                obj = None
            in_row = self.old.table == self.new.table and row == self.new.mapper.key_of_values(key)
            shared = self._shared if in_row else frozenset()
            copy = _copy_stamp(self.old, result, shared)
            answers.append((row, obj, copy, self.old.newest_stamp(result)))
        return answers

    def _before_write(self, key: Mapping[str, Any]) -> tuple[bytes, bytes, O | None, int]:
        """What a write of the new row of ``key`` must be ordered after.

        The new rowkey, the old rowkey, the old instance and the stamp of its copy. Every
        later write stamp of the new row is made greater than the old row's newest
        stamp, or, when the old row is gone (moved already, or never there), the new
        row's (read second: the migrator deletes the old row only after its copy landed,
        so a copy at ``s`` is never missed). Without the second read a writer whose clock
        is behind ``s`` would be hidden behind the copy. One or two round trips.
        """
        return self._before_writes([key])[0]

    def _before_writes(
        self, keys: Sequence[Mapping[str, Any]]
    ) -> list[tuple[bytes, bytes, O | None, int]]:
        """:meth:`_before_write` of several keys, in two round trips at most.

        One read of the old rows, then one of the new rows whose old row is gone (none
        if every old row is there).
        """
        rows = [self.new.mapper.key_of_values(k) for k in keys]
        olds = self._old_rows_stamped(keys)
        gone = list(dict.fromkeys(r for r, o in zip(rows, olds, strict=True) if o[1] is None))
        new_stamps = self.new.get_stamped(gone) if gone else {}
        answers: list[tuple[bytes, bytes, O | None, int]] = []
        for row, (old_row, old_obj, stamp, old_newest) in zip(rows, olds, strict=True):
            newest = old_newest if old_obj is not None else max(old_newest, new_stamps[row][1])
            self.store.stamps.observe(newest, rows=(row,))
            answers.append((row, old_row, old_obj, stamp))
        return answers

    def _copy(self, produced: Iterable[object], stamp: int) -> None:
        """Write instances at ``stamp`` (the old row's): what the migrator would write."""
        for obj in produced:
            self.store.repository(type(obj)).save(obj, write_stamp=stamp)

    def _mine(self, produced: Iterable[object], row: bytes) -> N | None:
        for obj in produced:
            if type(obj) is self.migration.new and self.new.mapper.rowkey(obj) == row:
                return obj
        return None

    # --- reads ----------------------------------------------------------------------

    def get(self, **key: Any) -> N | None:
        """Read one model by its new key fields (see the class for the fallback)."""
        return self.get_many([key])[0]

    def get_many(self, keys: Sequence[Mapping[str, Any]]) -> list[N | None]:
        """Read models by new key fields, aligned with ``keys``; ``None`` where none is.

        Round trips: one ``get_many`` of the new layout; if some keys have no new row,
        one of the old layout; if some have no old row either, one more of the new. A
        key whose old row is its new row (a migration within the row) is read once, both
        layouts' columns together: the row is then seen atomically, before or after a
        write, never as the old columns of one moment and the new of another (the
        layouts may share columns, which a write of the new layout changes).

        Raises:
            DecodeError: A new row read the second time does not decode.
        """
        found: list[N | None] = [None] * len(keys)
        rows = [self.new.mapper.key_of_values(k) for k in keys]
        in_row = [
            i
            for i, key in enumerate(keys)
            if self.old.table == self.new.table and self._old_row(key) == rows[i]
        ]
        if in_row:
            for i, obj in zip(in_row, self._read_in_row([rows[i] for i in in_row]), strict=True):
                found[i] = obj
        elsewhere = [i for i in range(len(keys)) if i not in set(in_row)]
        if not elsewhere:
            return found
        first = self.new.get_many([keys[i] for i in elsewhere], on_error="skip")
        missing = []
        for i, obj in zip(elsewhere, first, strict=True):
            found[i] = obj
            if obj is None:
                missing.append(i)
        if not missing:
            return found
        old = self._old_rows_stamped([keys[i] for i in missing])
        again: list[int] = []
        for i, (_, old_obj, _, _) in zip(missing, old, strict=True):
            obj = None
            if old_obj is not None:
                obj = self._mine(self.migration.produce(old_obj), rows[i])
            if obj is None:
                again.append(i)
            found[i] = obj
        if again:
            for i, obj in zip(again, self.new.get_many([keys[i] for i in again]), strict=True):
                found[i] = obj
        return found

    def get_fields(self, fields: Sequence[str], **key: Any) -> dict[str, Any] | None:
        """Read some fields of one model by its new key fields, as a dict (key fields included).

        The model is read as :meth:`get` reads it (the new layout first, else the old row
        transformed; the same round trips: the old layout's fields are needed whole to
        transform it), then projected on ``fields``. ``None`` when neither layout has it.

        Raises:
            QueryError: ``fields`` is one string.
            ValidationError: A name is no field of the new model (before any read).
        """
        if isinstance(fields, str):
            raise QueryError(
                "fields is a collection of names, not one string",
                table=self.new.table,
                field=fields,
            )
        self.new.mapper.columns(list(fields))  # unknown names are refused before any read
        obj = self.get(**key)
        if obj is None:
            return None
        return {**self.new.mapper.key_values(obj), **{f: getattr(obj, f) for f in fields}}

    def _read_in_row(self, rows: Sequence[bytes]) -> list[N | None]:
        """Rows holding both layouts, each read once with both layouts' columns."""
        columns = sorted({*self._new_columns, *self._old_columns})
        results = {
            r.row: r for r in self.store.backend.get(self.new.table, list(rows), columns=columns)
        }
        answers: list[N | None] = []
        for row in rows:
            result = results.get(row)
            obj: N | None = None
            if result is not None:
                try:
                    obj = self.new.load(result)
                except DecodeError:
                    obj = None  # not moved yet: the new layout's columns are not all there
                if obj is None:
                    old_obj = self.old.load(result)
                    if old_obj is not None:
                        obj = self._mine(self.migration.produce(old_obj), row)
            answers.append(obj)
        return answers

    def scan(self, prefix: Mapping[str, Any] | None = None, *, batch: int = 500) -> Iterator[N]:
        """Iterate the models whose new key starts with ``prefix`` (every model: ``None``).

        In the order a scan of the new layout yields them (rowkey order; for a salted key,
        K3, the merged buckets' natural-key order), rows not moved yet included. The old
        layout is walked first, its rows transformed and remembered by new rowkey; then
        the new layout is walked and merged with them: a remembered row the new layout
        also has is yielded once, from the new layout; the others, which had no new row,
        are read again by :meth:`get_many` (up to ``batch`` keys a trip, in their place
        in the order) and yielded if still there. A row moved while the scan runs is
        found in one layout or the other. Like any HBase scan it is no snapshot. Memory:
        the old rows of the prefix are held until the new layout's walk ends, and up to
        ``batch`` rows wait for a re-read at a time.
        """
        prefix = dict(prefix or {})
        old_fields = model_info(self.migration.old).key.fields
        old_prefix: dict[str, Any] = {}
        for name in old_fields:
            if name not in prefix:
                break
            old_prefix[name] = prefix[name]
        offset = self.new.plan(prefix or None).merge_offset
        waiting: dict[bytes, Mapping[str, Any]] = {}
        for old_obj in self.old.scan(old_prefix or None, on_error="skip"):
            for obj in self.migration.produce(old_obj):
                if type(obj) is not self.migration.new:
                    continue
                values = self.new.mapper.key_values(obj)
                if all(values.get(k) == v for k, v in prefix.items()):
                    waiting[self.new.mapper.rowkey(obj)] = values
        ordered = sorted(waiting.items(), key=lambda item: item[0][offset:])
        # (order key, a new row read, or None and the key of an old-only row to read again)
        pending: list[tuple[N | None, Mapping[str, Any] | None]] = []

        def flush() -> Iterator[N]:
            keys = [key for obj, key in pending if obj is None and key is not None]
            found = iter(self.get_many(keys) if keys else [])
            for obj, key in pending:
                got = next(found) if key is not None else obj
                if got is not None:
                    yield got
            pending.clear()

        # Within a row, a row not moved yet lacks the new layout's columns: it is read
        # again below, as an old row.
        same_table = self.old.table == self.new.table
        at = 0
        for new_obj in self.new.scan(prefix or None, on_error="skip" if same_table else "raise"):
            order = self.new.mapper.rowkey(new_obj)[offset:]
            while at < len(ordered) and ordered[at][0][offset:] < order:
                pending.append((None, ordered[at][1]))
                at += 1
            if at < len(ordered) and ordered[at][0][offset:] == order:
                at += 1  # moved: the new layout's row stands for it
            pending.append((new_obj, None))
            if len(pending) >= batch:
                yield from flush()
        for _, key in ordered[at:]:
            pending.append((None, key))
            if len(pending) >= batch:
                yield from flush()
        yield from flush()

    # --- writes ---------------------------------------------------------------------

    def save(self, obj: N) -> N:
        """Write the whole new instance to the new layout (two or three round trips).

        The old row's stamp is read first (and the new row's when the old row is gone),
        so this write is stamped after it whatever the clocks: a copy of the old row,
        however late, can never override it.
        """
        self._before_write(self.new.mapper.key_values(obj))
        return self.new.save(obj)

    def save_many(self, objs: Sequence[N]) -> None:
        """Write several whole new instances to the new layout, each ordered as :meth:`save`.

        Every write is stamped after its old row's newest stamp (and, where the old row is
        gone, the new row's), read first. Round trips: one get of the old rows, one of the
        new rows whose old row is gone (none if every old row is there), then one
        ``mutate`` (:meth:`Repository.save_many`). Every instance is validated before
        anything is written.

        Raises:
            ValidationError: An instance is invalid; nothing is written.
        """
        objs = list(objs)
        self._before_writes([self.new.mapper.key_values(o) for o in objs])
        self.new.save_many(objs)

    def update(self, key: Mapping[str, Any], **changes: Any) -> None:
        """Write some fields of one new row; a row not moved yet is moved first.

        Round trips: a read of the old row (and of the new when the old is gone); if the
        old row is there, the transform written at its stamp (one per new row), then the
        change at a fresh stamp, ordered after it (one).
        """
        _, _, old_obj, stamp = self._before_write(key)
        if old_obj is not None:
            self._copy(self.migration.produce(old_obj), stamp)
        self.new.update(key, **changes)

    def delete(self, **key: Any) -> None:
        """Delete a row in both layouts, with one delete marker stamp after the old row's.

        An old row the transform splits into several records has its other records moved
        first (at the old row's stamp), so deleting one of them keeps the others. Round
        trips: a read of the old row (and of the new when the old is gone), the other
        records' writes, then a delete per layout.
        """
        row, old_row, old_obj, stamp = self._before_write(key)
        if old_obj is not None:
            others = [
                o
                for o in self.migration.produce(old_obj)
                if not (type(o) is self.migration.new and self.new.mapper.rowkey(o) == row)
            ]
            self._copy(others, stamp)
        at = self.store.stamps.next(rows=(row, old_row), after=stamp)
        self.new.delete(write_stamp=at, **key)
        if (self.old.table, old_row) != (self.new.table, row):
            self.old.delete(write_stamp=at, **self.migration.old_key_of(key))


def _next_row(row: bytes) -> bytes:
    return row + b"\x00"


class Migrator(Generic[O, N]):
    """The job of a :class:`DataMigration`: every old row moved, shard by shard.

    Per old row: read with its newest write stamp ``s``; transform; write the new row(s)
    at ``s`` (never later: an application write is newer and wins); then, unless a new
    record lands on the old row itself (a migration within the row), delete the old
    model's families of the old row with delete markers at ``s``, which hide only what
    was copied. Idempotent: a re-run of a range writes the same cells at the same stamps.

    Old-code writers must be gone before the job starts (expand, deploy the
    :class:`MigratingRepository`, then migrate): an old-layout write newer than ``s``
    survives the delete and is moved by a re-run, but a write made after the range's run
    stays behind.

    Args:
        store: The store of both layouts.
        migration: The migration.
        delete_old: Delete each old row after its copy (``False``: copy only, so that
            :meth:`verify_range` can compare both layouts; a later run with ``True``
            contracts, copying again at each row's current stamp first).
        batch_size: Rows per scan round trip.
    """

    def __init__(
        self,
        store: Store,
        migration: DataMigration[O, N],
        *,
        delete_old: bool = True,
        batch_size: int = 500,
    ) -> None:
        self.store = store
        self.migration = migration
        self.delete_old = delete_old
        self.batch_size = batch_size
        self.old: Repository[O] = store.repository(migration.old)
        self.new: Repository[N] = store.repository(migration.new)
        mapper = mapper_for(migration.old)
        self._columns = tuple(mapper.columns(None))
        self._families = tuple(sorted({c.partition(b":")[0] for c in self._columns}))
        self._shared = frozenset(mapper_for(migration.new).columns(None))

    def _lands_here(self, produced: Iterable[object], row: bytes) -> bool:
        """Whether a new record lands on the old row itself (a migration within the row)."""
        for obj in produced:
            repo: Repository[Any] = self.store.repository(type(obj))
            if (repo.table, repo.mapper.rowkey(obj)) == (self.old.table, row):
                return True
        return False

    def _old_rows(self, start: bytes, stop: bytes) -> Iterator[RowResult]:
        scan = Scan(start=start, stop=stop, columns=self._columns, batch_size=self.batch_size)
        return self.store.backend.scan(self.old.table, scan)

    def _load(self, result: RowResult) -> tuple[O | None, str]:
        try:
            obj = self.old.load(result)
        except KeyDecodeError:
            return None, "skipped"
        except DecodeError:
            return None, "problem"
        if obj is None or self.old.mapper.rowkey(obj) != result.row:
            return None, "skipped"  # another layout's row that happens to decode
        return obj, "ok"

    @property
    def columns(self) -> tuple[bytes, ...]:
        """What a scan of the old table must read for :meth:`migrate_rows`."""
        return tuple(self._columns)

    def migrate_range(self, start: bytes, stop: bytes) -> MigrationReport:
        """Move the old rows of ``[start, stop)`` (old layout rowkeys; ``b""``: no bound).

        The start row is inclusive, the stop row exclusive. Round trips: one per
        ``batch_size`` rows read, one write per new row, one delete per old row.
        """
        return self.migrate_rows(self._old_rows(start, stop))

    def migrate_rows(self, rows: Iterable[RowResult]) -> MigrationReport:
        """Move the old rows among ``rows`` (read from the old table with :attr:`columns`).

        A job runner's batch step (``hmodel.jobs.MigrationTask``). Round trips: one write
        per new row, one delete per old row.
        """
        return self._move_rows(rows, write=True)

    def count_rows(self, rows: Iterable[RowResult]) -> MigrationReport:
        """What :meth:`migrate_rows` would report for ``rows``, writing nothing.

        The job runner records a batch's counts with it before the batch's writes, so a
        resumed job counts the old rows a killed run had already moved (no longer read).
        """
        return self._move_rows(rows, write=False)

    def _move_rows(self, rows: Iterable[RowResult], *, write: bool) -> MigrationReport:
        counts = dict.fromkeys(("read", "written", "deleted", "dropped", "skipped", "problems"), 0)
        samples: list[bytes] = []
        last: bytes | None = None
        for result in rows:
            last = result.row
            obj, kind = self._load(result)
            if obj is None:
                counts["problems" if kind == "problem" else "skipped"] += 1
                if kind == "problem" and len(samples) < SAMPLES:
                    samples.append(result.row)
                continue
            counts["read"] += 1
            produced = self.migration.produce(obj)
            if not produced:
                counts["dropped"] += 1
            lands_here = self._lands_here(produced, result.row)
            stamp = _copy_stamp(self.old, result, self._shared if lands_here else frozenset())
            for new_obj in produced:
                if write:
                    self.store.repository(type(new_obj)).save(new_obj, write_stamp=stamp)
                counts["written"] += 1
            if self.delete_old and not lands_here:
                if write:
                    self.store.backend.mutate(
                        self.old.table,
                        [Delete(result.row, column=f, timestamp=stamp) for f in self._families],
                    )
                counts["deleted"] += 1
        return MigrationReport(**counts, last_row=last, samples=tuple(samples))

    def run(
        self,
        *,
        resume_after: bytes | None = None,
        on_region: Callable[[MigrationReport], None] | None = None,
    ) -> MigrationReport:
        """Move every old row, region by region in key order, in this process.

        ``resume_after``: the ``last_row`` of an earlier report (of a run that stopped):
        the job starts after it. ``on_region`` is told each region's report (save its
        ``last_row`` as a checkpoint). The shard entry point for a job runner is
        :meth:`migrate_range` over the regions of the old table.
        """
        total = MigrationReport(last_row=resume_after)
        for region in self.store.backend.regions(self.old.table):
            start = region.start
            if resume_after is not None:
                if region.end and region.end <= resume_after:
                    continue
                start = max(start, _next_row(resume_after))
            report = self.migrate_range(start, region.end)
            if on_region is not None:
                on_region(report)
            total = total + report
        return total

    def verify_range(self, start: bytes, stop: bytes) -> VerifyReport:
        """Compare the old rows of ``[start, stop)`` with their new rows (read only).

        Per old row: the transform's new rows read back (one ``get_many`` per model and
        batch) and compared: equal, missing, newer (written by the application since: the
        new row's stamp is past the old row's) or different. New rowkeys produced twice
        in the range are duplicates.
        """
        return self.verify_rows(self._old_rows(start, stop))

    def verify_rows(self, rows: Iterable[RowResult]) -> VerifyReport:
        """:meth:`verify_range` of the old rows among ``rows`` (a job runner's batch step).

        Duplicates are found among ``rows`` only.
        """
        counts = dict.fromkeys(("old_rows", "ok", "missing", "differs", "rewritten"), 0)
        samples: list[bytes] = []
        produced_rows: set[tuple[str, bytes]] = set()
        duplicates = 0
        batch: list[tuple[int, object]] = []

        def check() -> None:
            by_type: dict[type, list[tuple[int, object]]] = {}
            for stamp, obj in batch:
                by_type.setdefault(type(obj), []).append((stamp, obj))
            for cls, items in by_type.items():
                repo: Repository[Any] = self.store.repository(cls)
                rows = [repo.mapper.rowkey(obj) for _, obj in items]
                stored = repo.get_stamped(rows)
                for (stamp, obj), row in zip(items, rows, strict=True):
                    found, found_stamp = stored[row]
                    if found is None:
                        kind = "missing"
                    elif found == obj:
                        kind = "ok"
                    elif found_stamp > stamp:
                        kind = "rewritten"
                    else:
                        kind = "differs"
                    counts[kind] += 1
                    if kind in ("missing", "differs") and len(samples) < SAMPLES:
                        samples.append(row)
            batch.clear()

        for result in rows:
            obj, _ = self._load(result)
            if obj is None:
                continue
            counts["old_rows"] += 1
            produced = self.migration.produce(obj)
            in_row = self._lands_here(produced, result.row)
            stamp = _copy_stamp(self.old, result, self._shared if in_row else frozenset())
            for new_obj in produced:
                repo: Repository[Any] = self.store.repository(type(new_obj))
                key = (repo.table, repo.mapper.rowkey(new_obj))
                if key in produced_rows:
                    duplicates += 1
                    if len(samples) < SAMPLES:
                        samples.append(key[1])
                    continue
                produced_rows.add(key)
                batch.append((stamp, new_obj))
            if len(batch) >= self.batch_size:
                check()
        check()
        return VerifyReport(**counts, duplicates=duplicates, samples=tuple(samples))

    def verify(self) -> VerifyReport:
        """:meth:`verify_range` over the whole old table, and the new layout counted.

        ``new_rows``: the new layout's rows; ``new_only``: those no old row transforms to
        (written by the application, or moved by a job that deleted the old rows).
        """
        found = self.verify_range(b"", b"")
        produced: set[bytes] = set()
        for result in self._old_rows(b"", b""):
            obj, _ = self._load(result)
            if obj is None:
                continue
            for new_obj in self.migration.produce(obj):
                if type(new_obj) is self.migration.new:
                    produced.add(self.new.mapper.rowkey(new_obj))
        new_rows = new_only = 0
        for new_obj in self.new.scan():
            new_rows += 1
            new_only += self.new.mapper.rowkey(new_obj) not in produced
        return attrs.evolve(found, new_rows=new_rows, new_only=new_only)
