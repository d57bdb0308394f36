"""Repository[M]: typed reads and writes of one model over any backend."""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator, Mapping, Sequence
from datetime import timedelta
from typing import Any, Generic, TypeVar

import attrs

from hmodel.backend.base import Backend, Cell, Delete, Increment, Mutation, Put, RowResult
from hmodel.clock import Clock, system_clock
from hmodel.errors import (
    ConflictError,
    HModelError,
    KeyDecodeError,
    NotFoundError,
    QueryError,
    TableExistsError,
    ValidationError,
)
from hmodel.mapping import Mapper
from hmodel.repository.condition import Condition, FieldColumn
from hmodel.repository.event import Listener, QueryEvent
from hmodel.repository.page import Page, Position, TokenCodec
from hmodel.repository.plan import KeySpan, ScanPlan, execute
from hmodel.repository.version import VersionCell

__all__ = ["Repository"]

M = TypeVar("M")

#: The default page-token key: random, shared by the repositories of one process.
_PROCESS_SECRET = os.urandom(32)


@attrs.frozen
class _Read:
    """What a repository remembers of an instance it returned."""

    row: bytes  # its rowkey: key fields cannot change (K10)
    version: bytes | None  # the version cell as read (None: absent or not locked)
    partial: bool = False  # read with fields=: a full save would delete the rest


class _Loaded:
    """What a repository remembers of the instances it returned, by object identity.

    Models are mutable and unhashable, so entries are keyed by ``id`` and dropped when the
    object is garbage-collected.
    """

    def __init__(self) -> None:
        self._entries: dict[int, _Read] = {}

    def remember(
        self, obj: object, row: bytes, version: bytes | None, *, partial: bool = False
    ) -> None:
        key = id(obj)
        if key not in self._entries:
            weakref.finalize(obj, self._entries.pop, key, None)
        self._entries[key] = _Read(row, version, partial)

    def recall(self, obj: object) -> _Read | None:
        return self._entries.get(id(obj))

    def forget(self, obj: object) -> None:
        self._entries.pop(id(obj), None)


class Repository(Generic[M]):
    """Reads and writes instances of one model; hides every byte (K1, K3, F6-F10, R8, I4).

    Every method states its round trips. Writes carry an explicit timestamp from the
    repository's clock, so one save's cells share one timestamp and time-travel reads
    (``as_of``) see whole saves.

    Args:
        model: A class declared with :func:`hmodel.model.model`.
        backend: Any :class:`~hmodel.backend.base.Backend`; swap the memory engine for
            Thrift by passing another one.
        clock: Epoch-millisecond clock for write timestamps and lock leases.
        token_secret: HMAC key for page tokens. Processes that accept each other's tokens
            must share it; the default is random per process (tokens then survive
            repositories built per request, but not a restart or another process).
        listeners: Callables told of a :class:`QueryEvent` after every call.
        scan_batch_size: Rows per round trip of scans.
        lock_lease: How long a half-finished locked save blocks other writers (see
            :meth:`save`).
    """

    def __init__(
        self,
        model: type[M],
        backend: Backend,
        *,
        clock: Clock = system_clock,
        token_secret: bytes | None = None,
        listeners: Sequence[Listener] = (),
        scan_batch_size: int = 1000,
        lock_lease: timedelta = timedelta(seconds=30),
    ) -> None:
        self.model = model
        self.backend = backend
        self.mapper: Mapper[M] = Mapper(model)
        self.info = self.mapper.info
        self.table = self.info.table.full_name
        self._clock = clock
        self._tokens = TokenCodec(token_secret or _PROCESS_SECRET)
        self._listeners = list(listeners)
        self._batch_size = scan_batch_size
        self._loaded = _Loaded()
        self._version: VersionCell | None = None
        if self.info.version_field is not None:
            self._version = VersionCell(
                self.mapper.column_of(self.info.version_field),
                lease_ms=int(lock_lease.total_seconds() * 1000),
            )

    # --- plumbing -------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> None:
        """Tell ``listener`` of every later call's :class:`QueryEvent`."""
        self._listeners.append(listener)

    def _emit(self, operation: str, before: int, **details: Any) -> None:
        if self._listeners:
            event = QueryEvent(
                operation,
                self.table,
                round_trips=self.backend.round_trips - before,
                **details,
            )
            for listener in self._listeners:
                listener(event)

    def create_table(self, *, exist_ok: bool = False) -> None:
        """Create the model's table from its declaration (one round trip).

        Raises:
            TableExistsError: The table exists and ``exist_ok`` is false.
        """
        try:
            self.backend.create_table(self.info.table)
        except TableExistsError:
            if not exist_ok:
                raise

    def _ttl_ms(self, ttl: timedelta | None) -> int | None:
        chosen = ttl if ttl is not None else self.info.ttl
        if chosen is None:
            return None
        ms = int(chosen.total_seconds() * 1000)
        if ms <= 0:
            raise ValidationError("ttl must be positive", table=self.table, value=chosen)
        return ms

    def _columns(self, fields: Sequence[str] | None) -> tuple[bytes, ...]:
        """The columns and families to read.

        The model's own (never other models' cells sharing the row), or those of
        ``fields`` plus the version column.
        """
        if fields is None:
            return tuple(self.mapper.columns(None))
        columns = list(self.mapper.columns(list(fields)))
        if self._version is not None and self._version.column not in columns:
            columns.append(self._version.column)
        return tuple(columns)

    def _projection(self, fields: Sequence[str] | None) -> Sequence[str] | None:
        """Check that a model can be built from ``fields``: every field left out has a default.

        Raises:
            QueryError: A required field is left out (use :meth:`get_fields` for arbitrary
                projections).
        """
        if fields is None:
            return None
        if isinstance(fields, str):
            raise QueryError("fields is a collection of names, not one string", field=fields)
        chosen = set(fields)
        for name, column in self.info.columns.items():
            if name not in chosen and column.required:
                raise QueryError(
                    f"cannot build a {self.model.__name__} without its required field "
                    f"{name!r}: read it too, or use get_fields() for a dict of some fields",
                    table=self.table,
                    field=name,
                )
        return fields

    def _load(self, result: RowResult, *, partial: bool = False) -> M:
        if self._version is None:
            obj = self.mapper.from_row(result)
            self._loaded.remember(obj, result.row, None, partial=partial)
            return obj
        # The version cell may hold a pending marker, which only VersionCell reads.
        column = self._version.column
        raw = result.value(column)
        cells = {c: cell for c, cell in result.cells.items() if c != column}
        obj = self.mapper.from_row(RowResult(result.row, cells))
        number = self._version.number(raw, table=self.table, row=result.row)
        object.__setattr__(obj, self.info.version_field or "", number)
        self._loaded.remember(obj, result.row, raw, partial=partial)
        return obj

    def _load_if_mine(self, result: RowResult, *, partial: bool = False) -> M | None:
        """Load a scanned row, or ``None`` if its key is another record type's (R1)."""
        try:
            return self._load(result, partial=partial)
        except KeyDecodeError:
            return None

    # --- reads ----------------------------------------------------------------------

    def get(
        self,
        *,
        required: bool = False,
        fields: Sequence[str] | None = None,
        as_of: int | None = None,
        **key: Any,
    ) -> M | None:
        """Read one model by its key fields, in one round trip.

        Args:
            required: Raise :class:`~hmodel.errors.NotFoundError` instead of returning
                ``None`` when the row does not exist.
            fields: Read only these fields; the others take their defaults, so every field
                left out must have one (QueryError otherwise: see :meth:`get_fields`). A
                row holding none of the fields' cells reads as missing.
            as_of: Time travel (F7, F9): the row as it was at this epoch-ms timestamp
                (inclusive).
            **key: Every key field, e.g. ``user_id="u1"``.
        """
        row = self.mapper.key_of(**key)
        fields = self._projection(fields)
        before_rt = self.backend.round_trips
        results = self.backend.get(
            self.table,
            [row],
            columns=self._columns(fields),
            before=None if as_of is None else as_of + 1,
        )
        self._emit("get", before_rt, rows=(row,), results=len(results))
        if not results:
            if required:
                raise NotFoundError("no such row", table=self.table, row=row)
            return None
        return self._load(results[0], partial=fields is not None)

    def get_many(
        self,
        keys: Sequence[Mapping[str, Any]],
        *,
        fields: Sequence[str] | None = None,
        as_of: int | None = None,
    ) -> list[M | None]:
        """Read several models in **one round trip**; ``None`` where a row does not exist.

        The result is aligned with ``keys``.
        """
        rows = [self.mapper.key_of(**k) for k in keys]
        fields = self._projection(fields)
        if not rows:
            return []
        before_rt = self.backend.round_trips
        results = self.backend.get(
            self.table,
            rows,
            columns=self._columns(fields),
            before=None if as_of is None else as_of + 1,
        )
        self._emit("get_many", before_rt, rows=tuple(rows), results=len(results))
        found = {r.row: r for r in results}
        partial = fields is not None
        return [self._load(found[row], partial=partial) if row in found else None for row in rows]

    def exists(self, **key: Any) -> bool:
        """Whether the row of these key fields holds any of this model's cells (one round trip)."""
        row = self.mapper.key_of(**key)
        before_rt = self.backend.round_trips
        found = bool(self.backend.get(self.table, [row], columns=self._columns(None)))
        self._emit("exists", before_rt, rows=(row,), results=int(found))
        return found

    def get_fields(self, fields: Sequence[str], **key: Any) -> dict[str, Any] | None:
        """Read some fields of one row as a dict (key fields included), in one round trip.

        For projections that leave out required fields, which :meth:`get` cannot build a
        model from. ``None`` when the row has none of the fields' cells.
        """
        row = self.mapper.key_of(**key)
        if isinstance(fields, str):
            raise QueryError("fields is a collection of names, not one string", field=fields)
        columns = self.mapper.columns(list(fields))
        before_rt = self.backend.round_trips
        results = self.backend.get(self.table, [row], columns=columns)
        self._emit("get_fields", before_rt, rows=(row,), results=len(results))
        if not results:
            return None
        return self.mapper.decode_fields(results[0], fields)

    def history(
        self, field: str, *, limit: int | None = None, before: int | None = None, **key: Any
    ) -> list[tuple[Any, int]]:
        """A field's versions, newest first, as ``(value, timestamp)`` (F7), one round trip.

        At most ``limit`` versions, and never more than the family keeps (``VERSIONS``).
        ``before`` (exclusive) reads history older than a timestamp.
        """
        row = self.mapper.key_of(**key)
        column = self.mapper.column_of(field)
        family = self.info.table.family(column.partition(b":")[0].decode())
        wanted = family.versions if limit is None else min(limit, family.versions)
        if wanted < 1:
            raise QueryError("limit must be >= 1", table=self.table, field=field, value=limit)
        before_rt = self.backend.round_trips
        cells = self.backend.get_versions(
            self.table, row, column, max_versions=wanted, before=before
        )
        self._emit("history", before_rt, rows=(row,), results=len(cells))
        return [(self._decode_cell(field, column, row, c), c.timestamp) for c in cells]

    def _decode_cell(self, field: str, column: bytes, row: bytes, cell: Cell) -> Any:
        return self.mapper.decode_cell(field, cell.value, row=row)

    # --- scans ----------------------------------------------------------------------

    def plan(
        self,
        prefix: Mapping[str, Any] | None = None,
        *,
        low: Any = None,
        high: Any = None,
        low_inclusive: bool = True,
        high_inclusive: bool = False,
        reverse: bool = False,
        fields: Sequence[str] | None = None,
        where: Condition | None = None,
    ) -> ScanPlan:
        """Derive the byte ranges, columns and filter of a scan, without any I/O (explain).

        Args:
            prefix: Values of a leading subset of the key fields (K1), e.g. all orders of
                one customer: ``{"customer_id": "c1"}``. Empty: the whole table.
            low: Logical lower bound on the key field that follows the prefix.
            high: Logical upper bound on that field.
            low_inclusive: Whether ``low`` itself is included.
            high_inclusive: Whether ``high`` itself is included.
            reverse: Highest keys first.
            fields: Read only these fields.
            where: A server-side :class:`Condition` on non-key fields (I4).

        Raises:
            QueryError: Unknown fields, or a condition on a key field.
        """
        ranges = self.mapper.info.key.ranges(
            dict(prefix or {}),
            low=low,
            high=high,
            low_inclusive=low_inclusive,
            high_inclusive=high_inclusive,
        )
        filter_bytes = None
        if where is not None:
            key_fields = set(self.info.key.fields) & where.fields()
            if key_fields:
                raise QueryError(
                    "conditions apply to non-key fields; bound key fields with prefix/low/high",
                    table=self.table,
                    field=sorted(key_fields)[0],
                )
            filter_bytes = where.render(self._resolve)
        spans = tuple(KeySpan(r.start, r.stop) for r in ranges)
        columns = self._columns(fields)
        if where is not None and fields is not None:  # the filter must see what it tests
            columns = tuple(dict.fromkeys(columns + self._columns(sorted(where.fields()))))
        return ScanPlan(
            table=self.table,
            spans=spans,
            columns=columns,
            filter=filter_bytes,
            reverse=reverse,
            merge_offset=self.mapper.salt_width if len(spans) > 1 else 0,
        )

    def _resolve(self, name: str) -> FieldColumn:
        try:
            column = self.mapper.column_of(name)
            codec = self.mapper.codec_of(name)
        except HModelError as exc:
            raise QueryError(
                f"cannot filter on {name!r}: {exc.message}", table=self.table, field=name
            ) from exc
        family, _, qualifier = column.partition(b":")
        return FieldColumn(family, qualifier, codec.encode, bool(getattr(codec, "ordered", False)))

    def scan(
        self,
        prefix: Mapping[str, Any] | None = None,
        *,
        limit: int | None = None,
        **options: Any,
    ) -> Iterator[M]:
        """Iterate models by key range: all arguments as for :meth:`plan`, plus ``limit``.

        A salted key (K3, I5) is scanned bucket by bucket and merged into one stream in
        natural-key order (reverse order for ``reverse=True``). One round trip per bucket
        to open, plus one per ``scan_batch_size`` rows. Rows of other record types that share
        the range (R1) are skipped.
        """
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 0
        ):
            raise QueryError("limit must be an int >= 0", table=self.table, value=limit)
        self._projection(options.get("fields"))
        plan = self.plan(prefix, **options)
        return self._iterate(plan, limit, partial=options.get("fields") is not None)

    def _iterate(self, plan: ScanPlan, limit: int | None, *, partial: bool) -> Iterator[M]:
        before_rt = self.backend.round_trips
        count = 0
        # The limit counts models, not rows: rows of other record types (R1) are skipped.
        rows = execute(self.backend, plan, batch_size=self._batch_size, expected=limit)
        try:
            if limit == 0:
                return
            for _, result in rows:
                obj = self._load_if_mine(result, partial=partial)
                if obj is not None:
                    count += 1
                    yield obj
                    if count == limit:
                        return
        finally:
            rows.close()
            self._emit("scan", before_rt, plan=plan.describe(), results=count)

    def page(
        self,
        size: int,
        prefix: Mapping[str, Any] | None = None,
        *,
        token: str | None = None,
        **options: Any,
    ) -> Page[M]:
        """One page of at most ``size`` models and a token for the next (R8).

        Arguments as for :meth:`plan`. Pass ``next_token`` back with the **same** query to
        get exactly the following rows; it holds a position per salt bucket, so it resumes
        fan-out and reverse scans too. Round trips: per bucket an open and one or two fetches
        of about ``2 * size / buckets`` rows (over Thrift also a close); a key without a
        salt: an open and one fetch.

        Raises:
            TokenError: The token was altered, or belongs to another query.
        """
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise QueryError("page size must be an int >= 1", table=self.table, value=size)
        self._projection(options.get("fields"))
        partial = options.get("fields") is not None
        plan = self.plan(prefix, **options)
        fingerprint = plan.fingerprint()
        positions = (
            self._tokens.decode(token, fingerprint, len(plan.spans))
            if token is not None
            else [Position() for _ in plan.spans]
        )
        before_rt = self.backend.round_trips
        items: list[M] = []
        last: dict[int, bytes] = {}
        # One model more than the page tells whether anything follows; rows of other
        # record types (R1) are skipped but still advance their span's position.
        rows = execute(self.backend, plan, positions, batch_size=size + 1, expected=size + 1)
        extra = False
        try:
            for index, result in rows:
                obj = self._load_if_mine(result, partial=partial)
                if obj is None:
                    last[index] = result.row
                    continue
                if len(items) == size:
                    extra = True
                    break
                last[index] = result.row
                items.append(obj)
        finally:
            rows.close()
        self._emit("page", before_rt, plan=plan.describe(), results=len(items))
        if not extra:
            return Page(items, None)
        new_positions = [Position(last.get(i, p.last_row), p.done) for i, p in enumerate(positions)]
        return Page(items, self._tokens.encode(fingerprint, new_positions))

    def pages(
        self, size: int, prefix: Mapping[str, Any] | None = None, **options: Any
    ) -> Iterator[Page[M]]:
        """Iterate pages of ``size`` until the scan is exhausted (see :meth:`page`)."""
        token: str | None = None
        while True:
            page = self.page(size, prefix, token=token, **options)
            if page.items:
                yield page
            if page.next_token is None:
                return
            token = page.next_token

    # --- writes ---------------------------------------------------------------------

    def _checked_row(self, obj: M) -> bytes:
        if not isinstance(obj, self.model):
            raise ValidationError(
                f"expected a {self.model.__name__}, got {type(obj).__name__}", table=self.table
            )
        row = self.mapper.rowkey(obj)
        loaded = self._loaded.recall(obj)
        if loaded is not None and loaded.row != row:
            raise ValidationError(
                "key fields of a loaded model changed; rowkeys are immutable (K10): "
                "use Repository.move() to delete the old row and insert the new one",
                table=self.table,
                row=loaded.row,
                value=row,
            )
        if loaded is not None and loaded.partial:
            raise ValidationError(
                "this instance was read with fields=, so a full save would delete the "
                "fields it did not read; write the changed fields with update()",
                table=self.table,
                row=row,
            )
        return row

    def save(self, obj: M, *, ttl: timedelta | None = None) -> M:
        """Write the whole model (all fields but counters), and return it.

        Fields set to ``None`` are deleted; a map field replaces the stored map. One round
        trip (two when a map field owns a family: its old entries are cleared by a family
        delete one millisecond older than the new cells). Counters are never written here:
        use :meth:`increment`.

        With a version field (optimistic locking), the save succeeds only if the stored
        version is the one this object was read with (0: the row must not exist), and
        bumps the version; otherwise :class:`~hmodel.errors.ConflictError`. It takes three
        round trips: a check-and-put turns the version cell into a *pending* marker (so
        nobody else can save, and readers' saves of what they read meanwhile fail), the
        data is written with the new version as its timestamp, and a second check-and-put
        commits the version. New versions are ``max(now, read version + 1)``, so a writer
        that takes over a row whose save stalled past ``lock_lease`` always writes newer
        cells than the stalled save: a late write can never overwrite a later one.

        Args:
            obj: The model instance.
            ttl: Per-cell TTL of this write (F8); the model's ``ttl`` by default.

        Raises:
            ValidationError: A field has the wrong type, a required field is missing, or
                key fields of a loaded model changed (K10). Nothing is written.
            ConflictError: The version check failed. Nothing is written.
        """
        row = self._checked_row(obj)
        ttl_ms = self._ttl_ms(ttl)
        before_rt = self.backend.round_trips
        if self._version is None:
            timestamp = self._clock()
            mutations = self.mapper.to_mutations(obj, timestamp=timestamp, ttl_ms=ttl_ms, row=row)
            self.backend.mutate(self.table, mutations)
            self._loaded.remember(obj, row, None)
        else:
            mutations = self._locked_save(obj, row, ttl_ms)
        self._emit("save", before_rt, rows=(row,), results=len(mutations))
        return obj

    def _claim(self, obj: M, row: bytes, now: int) -> tuple[int, int, bytes]:
        """Check-and-put the version cell from the version read to a pending marker.

        Returns ``(version read, new version, marker)``. Raises ConflictError.
        """
        assert self._version is not None and self.info.version_field is not None
        current = getattr(obj, self.info.version_field)
        loaded = self._loaded.recall(obj)
        expected = loaded.version if loaded is not None else self._version.encode(current)
        self._version.check_not_pending(expected, now, table=self.table, row=row)
        # Taking over a stalled save: write newer cells than it ever could.
        stalled = self._version.claimed(expected) or 0
        new = max(now, (current or 0) + 1, stalled + 1)
        marker = self._version.pending(current or 0, new)
        if not self.backend.check_and_put(
            self.table, row, self._version.column, expected, Put(row, self._version.column, marker)
        ):
            raise ConflictError(
                f"{self.model.__name__} was changed by another writer since version {current}",
                table=self.table,
                row=row,
                field=self.info.version_field,
            )
        return current, new, marker

    def _locked_save(self, obj: M, row: bytes, ttl_ms: int | None) -> list[Mutation]:
        assert self._version is not None and self.info.version_field is not None
        _, new, marker = self._claim(obj, row, self._clock())
        mutations = self.mapper.to_mutations(obj, timestamp=new, ttl_ms=ttl_ms, row=row)
        self.backend.mutate(self.table, mutations)
        committed = self._version.encode(new)
        if not self.backend.check_and_put(
            self.table,
            row,
            self._version.column,
            marker,
            Put(row, self._version.column, committed or b""),
        ):
            raise ConflictError(
                "this save stalled past the lock lease and another writer took the row over; "
                "its cells are older than the new writer's and stay hidden",
                table=self.table,
                row=row,
                field=self.info.version_field,
            )
        setattr(obj, self.info.version_field, new)
        self._loaded.remember(obj, row, committed)
        return mutations

    def save_many(self, objs: Sequence[M], *, ttl: timedelta | None = None) -> None:
        """Write several models in one round trip (two with a map owning its family).

        Every instance is validated before anything is sent. Not for models with a version
        field (each needs its own check-and-put): use :meth:`save`.
        """
        if self._version is not None:
            raise ValidationError(
                "save_many cannot check versions; save locked models one by one",
                table=self.table,
            )
        timestamp = self._clock()
        ttl_ms = self._ttl_ms(ttl)
        rows = [self._checked_row(o) for o in objs]
        mutations = [
            m
            for o, row in zip(objs, rows, strict=True)
            for m in self.mapper.to_mutations(o, timestamp=timestamp, ttl_ms=ttl_ms, row=row)
        ]
        before_rt = self.backend.round_trips
        if mutations:
            self.backend.mutate(self.table, mutations)
        for obj, row in zip(objs, rows, strict=True):
            self._loaded.remember(obj, row, None)
        self._emit("save_many", before_rt, rows=tuple(rows), results=len(mutations))

    def update(
        self, key: Mapping[str, Any], *, ttl: timedelta | None = None, **changes: Any
    ) -> None:
        """Write only the named fields of one row, without reading it (one round trip).

        ``None`` deletes a field. Key fields cannot change (K10); counters change through
        :meth:`increment`; locked models through :meth:`save`.

        Raises:
            ValidationError: Unknown or key fields, wrong types. Nothing is written.
        """
        if self._version is not None:
            raise ValidationError(
                "partial updates would bypass the version check; use save()",
                table=self.table,
            )
        timestamp = self._clock()
        mutations = self.mapper.to_partial_mutations(
            dict(key), changes, timestamp=timestamp, ttl_ms=self._ttl_ms(ttl)
        )
        before_rt = self.backend.round_trips
        self.backend.mutate(self.table, mutations)
        self._emit("update", before_rt, rows=(self.mapper.key_of(**key),), results=len(mutations))

    def delete(self, obj: M | None = None, /, **key: Any) -> None:
        """Delete a row, given a model instance or its key fields (one round trip).

        For a model with a version field, pass the instance: the delete then succeeds only
        if the stored version is the one read, else ConflictError (three round trips: the
        claim of the version cell, the row delete, the delete of the claim).
        """
        if obj is not None:
            if key:
                raise ValidationError("pass an instance or key fields, not both", table=self.table)
            row = self._checked_row(obj)
        else:
            row = self.mapper.key_of(**key)
        before_rt = self.backend.round_trips
        timestamp = self._clock()
        if self._version is not None:
            if obj is None:
                raise ValidationError(
                    "a locked model is deleted through its instance (the version is checked)",
                    table=self.table,
                )
            _, timestamp, _ = self._claim(obj, row, timestamp)
        self.backend.mutate(self.table, [Delete(row, timestamp=timestamp)])
        if self._version is not None:
            # The claim was stamped by the server's clock; delete it by the server's clock
            # too, after the data, so no pending marker outlives the row.
            self.backend.mutate(self.table, [Delete(row, self._version.column)])
        if obj is not None:
            self._loaded.forget(obj)
        self._emit("delete", before_rt, rows=(row,), results=1)

    def delete_many(self, keys: Sequence[Mapping[str, Any]]) -> None:
        """Delete several rows by key fields in one round trip (not for locked models)."""
        if self._version is not None:
            raise ValidationError("locked models are deleted one by one", table=self.table)
        rows = [self.mapper.key_of(**k) for k in keys]
        timestamp = self._clock()
        before_rt = self.backend.round_trips
        if rows:
            self.backend.mutate(self.table, [Delete(r, timestamp=timestamp) for r in rows])
        self._emit("delete_many", before_rt, rows=tuple(rows), results=len(rows))

    def move(self, obj: M, **new_key: Any) -> M:
        """Change key fields explicitly (K10): a copy under the new key, then a delete.

        Rowkeys are immutable (key fields of an instance cannot be reassigned), so a move
        saves a copy of ``obj`` with the new key fields (a full :meth:`save`; for a locked
        model the new row must not exist yet) and then deletes the old row. Not atomic
        across the two rows, as HBase is not: a failure between them leaves both rows.

        Returns:
            The copy, bound to its new rowkey.
        """
        unknown = set(new_key) - set(self.info.key.fields)
        if unknown:
            raise ValidationError(
                "move() changes key fields only", table=self.table, field=sorted(unknown)[0]
            )
        old_row = self._checked_row(obj)
        changes = dict(new_key)
        if self.info.version_field is not None:
            changes[self.info.version_field] = 0
        moved = attrs.evolve(obj, **changes)  # type: ignore[misc]
        if self.mapper.rowkey(moved) == old_row:
            return obj
        if self._version is not None:
            self.save(moved)
            self.delete(obj)
        else:
            self.save(moved)
            self.delete(**self.mapper.key_values(obj))
        return moved

    # --- counters (F10) --------------------------------------------------------------

    def increment(self, key: Mapping[str, Any], **amounts: int) -> dict[str, int]:
        """Add to counter fields of one row; return their new values.

        Each counter is incremented atomically by the server (F10). One counter: one round
        trip. Several: one round trip for the increments and one to read the values back;
        the values read may include concurrent increments by others.
        """
        row = self.mapper.key_of(**key)
        if not amounts:
            raise ValidationError("name at least one counter to increment", table=self.table)
        columns = {name: self._counter_column(name, amount) for name, amount in amounts.items()}
        before_rt = self.backend.round_trips
        if len(amounts) == 1:
            ((name, amount),) = amounts.items()
            value = self.backend.increment(self.table, row, columns[name], amount)
            self._emit("increment", before_rt, rows=(row,), results=1)
            return {name: value}
        self.backend.increment_many(
            self.table, [Increment(row, columns[n], a) for n, a in amounts.items()]
        )
        results = self.backend.get(self.table, [row], columns=list(columns.values()))
        self._emit("increment", before_rt, rows=(row,), results=len(amounts))
        values = results[0] if results else RowResult(row, {})
        return {
            name: self._decode_cell(name, column, row, values.cells[column])
            if column in values.cells
            else 0
            for name, column in columns.items()
        }

    def increment_many(self, items: Sequence[tuple[Mapping[str, Any], Mapping[str, int]]]) -> None:
        """Increment counters of many rows in one round trip; each increment is atomic."""
        increments = [
            Increment(self.mapper.key_of(**key), self._counter_column(name, amount), amount)
            for key, amounts in items
            for name, amount in amounts.items()
        ]
        before_rt = self.backend.round_trips
        if increments:
            self.backend.increment_many(self.table, increments)
        self._emit(
            "increment_many",
            before_rt,
            rows=tuple(dict.fromkeys(i.row for i in increments)),
            results=len(increments),
        )

    def _counter_column(self, name: str, amount: int) -> bytes:
        if name not in self.info.counters:
            raise ValidationError("not a counter field", table=self.table, field=name)
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise ValidationError(
                "increments are integers", table=self.table, field=name, value=amount
            )
        if not -(2**63) <= amount < 2**63:
            raise ValidationError("increment out of the 64-bit range", field=name, value=amount)
        return self.mapper.column_of(name)

    # --- map fields (F6) --------------------------------------------------------------

    def put_entries(self, key: Mapping[str, Any], field: str, entries: Mapping[Any, Any]) -> None:
        """Add or overwrite entries of a map field without rewriting the row (one round trip)."""
        timestamp = self._clock()
        mutations = self.mapper.map_put(dict(key), field, entries, timestamp=timestamp)
        before_rt = self.backend.round_trips
        self.backend.mutate(self.table, mutations)
        self._emit(
            "put_entries", before_rt, rows=(self.mapper.key_of(**key),), results=len(mutations)
        )

    def remove_entries(self, key: Mapping[str, Any], field: str, names: Sequence[Any]) -> None:
        """Delete entries of a map field by their keys (one round trip)."""
        timestamp = self._clock()
        mutations = self.mapper.map_delete(dict(key), field, names, timestamp=timestamp)
        before_rt = self.backend.round_trips
        self.backend.mutate(self.table, mutations)
        self._emit(
            "remove_entries", before_rt, rows=(self.mapper.key_of(**key),), results=len(mutations)
        )

    def get_entries(
        self, key: Mapping[str, Any], field: str, names: Sequence[Any] | None = None
    ) -> dict[Any, Any]:
        """Read a map field whole, or only the entries named (one round trip)."""
        row = self.mapper.key_of(**key)
        columns = self.mapper.map_columns(field, names)
        before_rt = self.backend.round_trips
        results = self.backend.get(self.table, [row], columns=columns)
        self._emit("get_entries", before_rt, rows=(row,), results=len(results))
        if not results:
            return {}
        return self.mapper.map_entries(field, results[0])
