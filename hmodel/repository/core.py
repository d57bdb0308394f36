"""The repository's core: its state, its planning, and its operations written once (sans-I/O).

:class:`RepositoryCore` holds what a repository of one model knows (mapper, write stamps,
identity map, instrument) and writes each operation once, as a generator of backend
requests (:mod:`hmodel.backend.op`): ``RepositoryCore._get_op`` and the others. The
synchronous :class:`~hmodel.repository.Repository` runs them with
:func:`~hmodel.backend.op.run`, the asynchronous :class:`hmodel.aio.AsyncRepository`
with :func:`~hmodel.backend.op.arun`: the logic is the same object in both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any, Generic, Literal, TypeVar, cast

import attrs

from hmodel.backend.base import (
    Cell,
    Delete,
    Increment,
    Mutation,
    Put,
    RowBatch,
    RowResult,
    family_of,
    newest_timestamp,
)
from hmodel.backend.op import Call, Items, Op
from hmodel.clock import Clock, WriteStamps, stamps_for, system_clock
from hmodel.errors import (
    DecodeError,
    HModelError,
    KeyDecodeError,
    KeyEncodeError,
    NotFoundError,
    QueryError,
    ValidationError,
)
from hmodel.keys import Key
from hmodel.mapping import Mapper, mapper_for
from hmodel.model import model_infos_for
from hmodel.repository.condition import Condition, FieldColumn
from hmodel.repository.event import Listener
from hmodel.repository.identity import IdentityMap
from hmodel.repository.instrument import Instrument
from hmodel.repository.locking import Locking
from hmodel.repository.page import Page, Position, TokenCodec
from hmodel.repository.pager import Pager, RawPage
from hmodel.repository.plan import KeySpan, ScanPlan, open_rows
from hmodel.repository.query import Query
from hmodel.repository.version import VersionCell

__all__ = ["OnError", "RepositoryCore", "check_on_error"]


M = TypeVar("M")
#: The backend type: a ``Backend`` (synchronous edge) or an ``AsyncBackend``.
B = TypeVar("B")

#: The defaults of a Query's parts: a keyword left at its default was not given.
_DEFAULTS: dict[str, Any] = {
    "low": None,
    "high": None,
    "low_inclusive": True,
    "high_inclusive": False,
    "reverse": False,
    "fields": None,
    "where": None,
    "limit": None,
}

#: What a read does with a row that does not decode: ``"raise"`` (the default), ``"skip"``
#: it, or call a function with the :class:`~hmodel.errors.DecodeError` and skip it.
OnError = Literal["raise", "skip"] | Callable[[DecodeError], None]


def check_on_error(on_error: object, table: str) -> None:
    """Refuse an ``on_error`` that is neither ``"raise"``, ``"skip"`` nor a function."""
    if on_error not in ("raise", "skip") and not callable(on_error):
        raise QueryError(
            'on_error is "raise", "skip" or a function taking the DecodeError',
            table=table,
            value=on_error,
        )


#: Rows a stream read (scans, pages) loads per :meth:`RepositoryCore._fast_rows` call:
#: enough to pay its per-call steps once for many rows, few enough that a reader who
#: stops early has not had a whole fetch (``scan_batch_size`` rows) decoded for nothing.
_CHUNK = 64


class RepositoryCore(Generic[M, B]):
    """The state, planning and sans-I/O operations shared by both repository edges.

    Not used directly: :class:`~hmodel.repository.Repository` (synchronous) and
    :class:`hmodel.aio.AsyncRepository` (asyncio) are its facades, and take its
    arguments (see :class:`~hmodel.repository.Repository`). ``backend`` is a
    :class:`~hmodel.backend.base.Backend` or an
    :class:`~hmodel.backend.aio.AsyncBackend`; the core only reads its
    ``round_trips`` and ``capabilities`` and names its methods in the requests its
    operations yield.
    """

    def __init__(
        self,
        model: type[M],
        backend: B,
        *,
        clock: Clock = system_clock,
        stamps: WriteStamps | None = None,
        token_secret: bytes | None = None,
        listeners: Sequence[Listener] = (),
        scan_batch_size: int = 1000,
        lock_lease: timedelta = timedelta(seconds=30),
    ) -> None:
        self.model = model
        self.backend = backend
        self.mapper: Mapper[M] = mapper_for(model)  # one per model class, shared
        self.info = self.mapper.info
        self.table = self.info.table.full_name
        self._stamps = stamps if stamps is not None else stamps_for(clock)
        self._clock = self._stamps.clock
        self._tokens = TokenCodec(token_secret)
        self._instrument = Instrument(self.table, cast(Any, backend), listeners)
        self._batch_size = scan_batch_size
        self._identity = IdentityMap()
        self._other_keys: list[Key] | None = None  # other record types' keys (R1), lazily
        self._all_columns = tuple(self.mapper.columns(None))
        # Cells a read does not order later writes after: counters (F10) and, over
        # Thrift1, the version cell are stamped by the server's clock, not by this layer.
        #: Columns the server stamps (counters, the version): their timestamps are not
        #: this process's to order after.
        self._skip = frozenset(
            self.mapper.column_of(n) for n in (*self.info.counters, *self._version_names())
        )
        self._version: VersionCell | None = None
        self._locking: Locking | None = None
        if self.info.version_field is not None:
            self._version = VersionCell(
                self.mapper.column_of(self.info.version_field),
                lease_ms=int(lock_lease.total_seconds() * 1000),
            )
            self._locking = Locking(
                cast(Any, backend), self.mapper, self._version, self._stamps, self._identity
            )

    # --- plumbing -------------------------------------------------------------------

    def _version_names(self) -> tuple[str, ...]:
        return () if self.info.version_field is None else (self.info.version_field,)

    @property
    def stamps(self) -> WriteStamps:
        """The write stamps of this repository's writes."""
        return self._stamps

    @property
    def tokens(self) -> TokenCodec:
        """The codec of this repository's page tokens (its ``token_secret``)."""
        return self._tokens

    def add_listener(self, listener: Listener) -> None:
        """Tell ``listener`` of every later call's :class:`QueryEvent`."""
        self._instrument.listeners.append(listener)

    def _columns(self, fields: Sequence[str] | None) -> tuple[bytes, ...]:
        """The columns and families to read.

        The model's own (never other models' cells sharing the row), or those of
        ``fields`` plus the version column.
        """
        if fields is None:
            return self._all_columns
        columns = list(self.mapper.columns(list(fields)))
        if self._version is not None and self._version.column not in columns:
            columns.append(self._version.column)
        return tuple(columns)

    def _projection(self, fields: Sequence[str] | None) -> Sequence[str] | None:
        """Check that a model can be built from ``fields``: every field left out has a default.

        Raises:
            QueryError: A required field is left out (use ``get_fields`` for arbitrary
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

    def _load(
        self, result: RowResult, *, partial: bool = False, key_encoded_here: bool = False
    ) -> M | None:
        """Build the model of a row read; ``None`` when the row holds none of its data.

        Every write this process makes afterwards is stamped after the cells read (so a
        read-modify-write is ordered after what it read, whoever wrote it); counter cells,
        and the version cell, which the server may stamp, do not count.

        Raises:
            KeyDecodeError: The rowkey is not this model's.
            DecodeError: A cell does not decode or a required field is missing.
        """
        # The generated reader gives the instance and its cells' newest stamp in one pass
        # (-1: cells no field read, looked through below); anything it cannot decide, the
        # general path below words. A stamp the clock has passed needs no observe().
        read_stamped = self.mapper.stamped_reader if self._locking is None else None
        loaded: tuple[M, int] | None = None
        if read_stamped is not None:
            try:
                loaded = read_stamped(result, not key_encoded_here)
            except Exception:  # the general path words the error
                loaded = None
        newest = -1 if loaded is None else loaded[1]
        now = self._clock()
        if newest < 0:
            newest = newest_timestamp(result.cells, self._skip, at_least=now)
        if newest and newest >= now:
            self._stamps.observe(newest, rows=(result.row,))
        if loaded is not None:
            self._identity.remember(loaded[0], result.row, None, partial=partial)
            return loaded[0]
        if self._locking is None:
            obj = self.mapper.from_row(result, key_encoded_here=key_encoded_here)
            self._identity.remember(obj, result.row, None, partial=partial)
            return obj
        read = self._locking.read(result)
        if read is None:
            return None
        data, number, raw = read
        obj = self.mapper.from_row(data, key_encoded_here=key_encoded_here)
        object.__setattr__(obj, self.info.version_field or "", number)
        self._identity.remember(obj, result.row, raw, partial=partial)
        return obj

    def _fast_rows(
        self,
        results: Sequence[RowResult],
        start: int,
        *,
        partial: bool = False,
        verify: bool = True,
        want: int | None = None,
    ) -> tuple[list[M], int]:
        """Load ``results[start:]`` a batch at a time: ``(models, index of the next row)``.

        The rows a multi-row read fetched, loaded exactly as :meth:`_load` would load each
        (the same instances, remembered alike, the same stamps observed), with the loop,
        the clock, the identity map and the stamps paid once per batch rather than per
        row. It stops before the first row the generated reader cannot decide (a row
        that does not decode, another record type's, R1): the caller loads that one
        through :meth:`_load_each` (which words the error or skips the row), then calls
        again from the row after it. So errors, ``on_error`` calls and the items before
        them come in row order, as row-by-row loading gives them.

        Args:
            results: The rows, in read order.
            start: The first row to load.
            partial: The rows were read with ``fields=`` (see :meth:`_load`).
            verify: Check each rowkey's salt and hashes (``False``: the keys were encoded
                here, as a read by key's are).
            want: Load at most this many rows (``None``: all).

        Returns:
            The models of ``results[start:stop]`` (one per row: an unlocked model's row
            always has one) and ``stop``. For a locked model nothing is loaded here
            (``([], start)``): its version cell needs :meth:`_load`'s own path.
        """
        read = self.mapper.stamped_reader if self._locking is None else None
        stop = len(results) if want is None else min(len(results), start + want)
        if read is None or start >= stop:
            return [], start
        loaded: list[M] = []
        append = loaded.append
        now = self._clock()
        recent: list[tuple[bytes, int]] = []
        skip = self._skip
        index = start
        while index < stop:
            result = results[index]
            try:
                obj, newest = read(result, verify)
            except Exception:  # _load_each's general path words it, or skips the row
                break
            if newest < 0:
                newest = newest_timestamp(result.cells, skip, at_least=now)
            if newest >= now and newest:
                recent.append((result.row, newest))
            append(obj)
            index += 1
        self._identity.remember_rows(
            loaded, [result.row for result in results[start:index]], partial=partial
        )
        for row, newest in recent:  # a stamp the clock had not passed (see _load)
            self._stamps.observe(newest, rows=(row,))
        return loaded, index

    def _load_each(
        self,
        result: RowResult,
        on_error: OnError,
        errors: list[DecodeError] | None = None,
        *,
        partial: bool = False,
    ) -> M | None:
        """Load a row of a multi-row read: ``None`` for another record type's row (R1).

        A row whose key is another model's declared on the same table is skipped. A row of
        this model that does not decode, or whose key is no declared model's (a corrupt
        key), raises, or with ``on_error`` is skipped (and reported to the function, or
        added to ``errors``).
        """
        try:
            return self._load(result, partial=partial)
        except DecodeError as error:
            if isinstance(error, KeyDecodeError) and self._another_type(result.row):
                return None
            if on_error == "raise":
                raise
            if callable(on_error):
                on_error(error)
            elif errors is not None:
                errors.append(error)
            return None

    def _another_type(self, row: bytes) -> bool:
        """Whether ``row`` is the key of another model declared on this table (R1).

        The other models' keys are looked up once and again only when none matches (a
        model declared since), not for every row of a mixed scan.
        """
        for fresh in (False, True):
            if fresh or self._other_keys is None:
                self._other_keys = [
                    info.key
                    for info in model_infos_for(self.info.table)
                    if info.cls is not self.model
                ]
            if any(key.matches(row) for key in self._other_keys):
                return True
        return False

    def newest_stamp(self, result: RowResult) -> int:
        """The newest timestamp among a row's cells that this layer stamps (0: none).

        Counter cells and the version cell, which the server may stamp, do not count: the
        value is the stamp of the newest write of the row's data as read.
        """
        return newest_timestamp(result.cells, self._skip)

    def load(self, result: RowResult, *, partial: bool = False) -> M | None:
        """Build the model of a row read by other means (a pattern's own scan).

        ``None`` when the row holds none of the model's data (a locked row deleted, or a
        first save in flight). The instance is remembered like one this repository read,
        so it can be saved (``partial``: read with only some fields, so it cannot).

        Raises:
            KeyDecodeError: The rowkey is not this model's.
            DecodeError: A cell does not decode, or a required field has no cell.
        """
        return self._load(result, partial=partial)

    def _with_version(self, columns: Sequence[bytes]) -> list[bytes]:
        """``columns`` and, for a locked model, the version column (to tell a deleted row)."""
        if self._version is None:
            return list(columns)
        column = self._version.column
        if column in columns or column.partition(b":")[0] in columns:  # a family read whole
            return list(columns)
        return [*columns, column]

    def _unless_deleted(
        self, results: Sequence[RowResult], columns: Sequence[bytes]
    ) -> RowResult | None:
        """The row read with :meth:`_with_version`, as if read with ``columns`` alone.

        ``None`` when there is no row, it holds none of ``columns``, or it is a locked row
        deleted over Thrift1 (:meth:`Locking.deleted`).
        """
        if not results:
            return None
        result = results[0]
        if self._locking is None or self._version is None:
            return result
        if self._locking.deleted(result):
            return None
        column = self._version.column
        if column in columns or column.partition(b":")[0] in columns:
            return result
        cells = {c: cell for c, cell in result.cells.items() if c != column}
        return RowResult(result.row, cells) if cells else None

    def _decode_cell(self, field: str, row: bytes, cell: Cell) -> Any:
        return self.mapper.decode_cell(field, cell.value, row=row)

    # --- scans ----------------------------------------------------------------------

    def _query(
        self, query: Query | None, prefix: Mapping[str, Any] | None, **options: Any
    ) -> Query:
        """The query of a call: ``query`` as given, or one built from the keywords."""
        given = {k: v for k, v in options.items() if v is not _DEFAULTS[k]}
        if query is not None:
            if not isinstance(query, Query):
                raise QueryError("query takes a Query", table=self.table, value=query)
            if prefix is not None or given:
                raise QueryError(
                    "pass a Query or its parts as keywords, not both", table=self.table
                )
            return query
        return Query(prefix, **given)

    def plan(
        self,
        prefix: Mapping[str, Any] | None = None,
        *,
        query: Query | None = None,
        low: Any = None,
        high: Any = None,
        low_inclusive: bool = True,
        high_inclusive: bool = False,
        reverse: bool = False,
        fields: Sequence[str] | None = None,
        where: Condition | None = None,
    ) -> ScanPlan:
        """Derive the byte ranges, columns and filter of a scan, without any I/O (explain).

        Takes a :class:`~hmodel.repository.query.Query`, or its parts as keywords:

        Args:
            prefix: Values of a leading subset of the key fields (K1), e.g. all orders of
                one customer: ``{"customer_id": "c1"}``. Empty: the whole table.
            query: The whole query instead of the keywords.
            low: Logical lower bound on the key field that follows the prefix.
            high: Logical upper bound on that field.
            low_inclusive: Whether ``low`` itself is included (default: yes).
            high_inclusive: Whether ``high`` itself is included (default: no).
            reverse: Highest keys first.
            fields: Read only these fields.
            where: A server-side :class:`Condition` on non-key fields (I4).

        Raises:
            QueryError: Unknown fields, or a condition on a key field.
        """
        return self._plan(
            self._query(
                query,
                prefix,
                low=low,
                high=high,
                low_inclusive=low_inclusive,
                high_inclusive=high_inclusive,
                reverse=reverse,
                fields=fields,
                where=where,
            )
        )

    def _plan(self, query: Query) -> ScanPlan:
        try:
            ranges = self.mapper.info.key.ranges(
                dict(query.prefix),
                low=query.low,
                high=query.high,
                low_inclusive=query.low_inclusive,
                high_inclusive=query.high_inclusive,
            )
        except KeyEncodeError as exc:  # said with the model and table, as get says it
            raise KeyEncodeError(
                f"model {self.info.name!r}: {exc.message}",
                table=self.table,
                field=exc.field,
                value=exc.value,
            ) from exc
        where, fields = query.where, query.fields
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
            reverse=query.reverse,
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

    def _paging(
        self, size: int, query: Query, token: str | None, on_error: OnError
    ) -> tuple[
        ScanPlan, str, list[Position], Callable[[RowResult], M | None], list[DecodeError], bool
    ]:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise QueryError("page size must be an int >= 1", table=self.table, value=size)
        if query.limit is not None:
            raise QueryError("pages are cut by size; a limit does not apply", table=self.table)
        check_on_error(on_error, self.table)
        self._projection(query.fields)
        plan = self._plan(query)
        fingerprint = plan.fingerprint()
        positions = (
            self._tokens.decode(token, fingerprint, len(plan.spans))
            if token is not None
            else [Position() for _ in plan.spans]
        )
        partial = query.fields is not None
        errors: list[DecodeError] = []

        def decode(result: RowResult) -> M | None:
            return self._load_each(result, on_error, errors, partial=partial)

        return plan, fingerprint, positions, decode, errors, partial

    # --- writes ---------------------------------------------------------------------

    def _checked_row(self, obj: M) -> bytes:
        if not isinstance(obj, self.model):
            raise ValidationError(
                f"expected a {self.model.__name__}, got {type(obj).__name__}", table=self.table
            )
        row = self.mapper.rowkey(obj)
        loaded = self._identity.recall(obj)
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

    def _write_stamp(self, rows: Sequence[bytes], fields: Iterable[str] | None = None) -> int:
        """The stamp of a write of ``fields`` to ``rows``, the one before it free for a clear."""
        count = 2 if self.mapper.clears_family(fields) else 1
        return self._stamps.next(count, rows=rows) + count - 1

    def _batch(
        self, objs: Sequence[M], rows: Sequence[bytes], timestamp: int, ttl_ms: int | None
    ) -> tuple[RowBatch, int] | None:
        """The full saves of ``objs`` as the backend's own row batch, and its cell count.

        ``None`` when the backend offers no batch (``row_batch`` absent or ``None``) or an
        instance needs the mapper's full path: the caller then builds the mutations. The
        batch writes exactly what ``mutate`` of those mutations would, byte for byte
        (``tests/repository/test_row_batch.py`` holds every backend's batch to it).
        """
        make = getattr(self.backend, "row_batch", None)
        if make is None:
            return None
        batch: RowBatch | None = make(self.table, timestamp, ttl_ms, self.mapper.written_families)
        if batch is None:
            return None
        count = self.mapper.fill_batch(batch, objs, rows)
        return None if count is None else (batch, count)

    def _previous(
        self, rows: Sequence[bytes], fields: Iterable[str] | None
    ) -> Op[dict[bytes, RowResult]]:
        """Read what prefixed maps among ``fields`` hold now (one round trip; none if none).

        A map with a prefix shares its family, so its removed entries are deleted by name.
        """
        families = self.mapper.previous_families(fields)
        if not families or not rows:
            return {}
        results = yield Call("get", (self.table, list(rows)), {"columns": families})
        return {r.row: r for r in results}

    def _replacing(
        self,
        mutations: list[Mutation],
        previous: Mapping[bytes, RowResult],
        row: bytes,
        timestamp: int,
        fields: Iterable[str] | None = None,
    ) -> list[Mutation]:
        """Add the deletes of prefixed-map entries that the write no longer has."""
        stored = previous.get(row)
        if stored is None:
            return mutations
        written = [m.column for m in mutations if isinstance(m, Put) and m.row == row]
        mutations.extend(
            self.mapper.stale_entries(stored, written, timestamp=timestamp, field_names=fields)
        )
        return mutations

    def reserve_stamp(self, obj: M, *, delete: bool = False, rows: Sequence[bytes] = ()) -> int:
        """Reserve the write stamp of a coming ``save`` (or ``delete``) of ``obj``.

        For patterns that write other rows in one protocol with the save (a secondary
        index's entries, I1) and need the data row's cells to carry the same timestamp
        as their own writes: pass the stamp back as ``save(obj, write_stamp=...)``. The stamp is
        ordered after every earlier write of ``obj``'s row and of ``rows``; for a locked
        model it is past the instance's version (and the stamp before it is free for a
        family clear, as in ``save``). No I/O.

        Raises:
            ValidationError: ``obj`` is not this repository's model, its key fields of a
                loaded instance changed, or its version field holds no valid version.
            ConflictError: A Thrift1 save of the row is in progress (within its lease),
                or (``delete``) a locked instance was never saved.
        """
        row = self._checked_row(obj)
        if self._locking is None:
            return self._write_stamp((row, *rows), None if not delete else ())
        if delete:
            return self._locking.plan_delete(obj, row, rows=rows)[2]
        return self._locking.plan_save(obj, row, rows=rows)[2]

    def check_stored(self, obj: M, stored: M | None) -> None:
        """Refuse early a save of a locked ``obj`` that the stored row already outdates.

        ``stored`` is the instance read from the row just now (``None``: no row). Nothing
        for a model without a version field. No I/O.

        Raises:
            RowExistsError: ``obj`` is new (version 0) and the row exists.
            ConflictError: The stored version is not ``obj``'s.
        """
        if self._locking is not None:
            self._locking.check_stored(obj, self.mapper.rowkey(obj), stored)

    # --- operations (sans-I/O: run by the facades' drivers) ----------------------------

    def _get_op(
        self, *, required: bool, fields: Sequence[str] | None, as_of: int | None, key: Any
    ) -> Op[M | None]:
        """The operation of ``get`` (one ``get`` request)."""
        row = self.mapper.key_of_values(key)
        fields = self._projection(fields)
        with self._instrument.call("get", rows=(row,)) as call:
            results = yield Call(
                "get",
                (self.table, [row]),
                {
                    "columns": self._columns(fields),
                    "before": None if as_of is None else as_of + 1,
                },
            )
            call.results = len(results)
            obj = self._got(
                results[0] if results else None, row, required=required, partial=fields is not None
            )
        return obj

    def _got(
        self, result: RowResult | None, row: bytes, *, required: bool, partial: bool
    ) -> M | None:
        """The model a ``get`` of ``row`` read (``result``: its row, ``None`` if none)."""
        obj = None if result is None else self._load(result, partial=partial, key_encoded_here=True)
        if obj is None and required:
            raise NotFoundError("no such row", table=self.table, row=row)
        return obj

    def _get_many_op(
        self,
        keys: Sequence[Mapping[str, Any]],
        *,
        fields: Sequence[str] | None,
        as_of: int | None,
        on_error: OnError,
    ) -> Op[list[M | None]]:
        """The operation of ``get_many`` (one ``get`` request; none for no keys)."""
        check_on_error(on_error, self.table)
        key_of = self.mapper.key_of_values
        rows = [key_of(k) for k in keys]
        fields = self._projection(fields)
        if not rows:
            return []
        with self._instrument.call("get_many", rows=tuple(rows)) as call:
            results = yield Call(
                "get",
                (self.table, rows),
                {
                    "columns": self._columns(fields),
                    "before": None if as_of is None else as_of + 1,
                },
            )
            call.results = len(results)
        found = {r.row: r for r in results}
        partial = fields is not None
        present = [found.get(row) for row in rows]
        hits = [result for result in present if result is not None]
        models: list[M | None] = []
        at = 0
        while at < len(hits):  # a batch at a time; a row the batch cannot load, on its own
            objs, at = self._fast_rows(hits, at, partial=partial, verify=False)
            models.extend(objs)
            if at < len(hits):
                try:
                    models.append(self._load(hits[at], partial=partial, key_encoded_here=True))
                except DecodeError as error:
                    if on_error == "raise":
                        raise
                    if callable(on_error):
                        on_error(error)
                    models.append(None)
                at += 1
        loaded = iter(models)
        return [None if result is None else next(loaded) for result in present]

    def _get_stamped_op(self, rows: Sequence[bytes]) -> Op[dict[bytes, tuple[M | None, int]]]:
        """The operation of ``get_stamped`` (one ``get`` request; none for no rows)."""
        unique = list(dict.fromkeys(rows))
        found: dict[bytes, tuple[M | None, int]] = dict.fromkeys(unique, (None, 0))
        if not unique:
            return found
        with self._instrument.call("get_many", rows=tuple(unique)) as call:
            results = yield Call("get", (self.table, unique), {"columns": self._columns(None)})
            call.results = len(results)
        for result in results:
            try:
                obj = self._load(result)
            except DecodeError:
                obj = None
            found[result.row] = (obj, self.newest_stamp(result))
        return found

    def _exists_op(self, key: Any) -> Op[bool]:
        """The operation of ``exists`` (one ``get`` request)."""
        row = self.mapper.key_of_values(key)
        with self._instrument.call("exists", rows=(row,)) as call:
            results = yield Call("get", (self.table, [row]), {"columns": self._columns(None)})
            found = bool(results) and (
                self._locking is None or self._locking.read(results[0]) is not None
            )
            call.results = int(found)
        return found

    def _save_op(self, obj: M, *, ttl: timedelta | None, write_stamp: int | None) -> Op[M]:
        """The operation of ``save``.

        One ``mutate`` request (a ``get`` first for a map with a prefix). With a version
        field: one ``check_and_mutate``, or over Thrift1 a claim, the data and a commit
        (:meth:`Locking.save_op <hmodel.repository.locking.Locking.save_op>`).
        """
        row = self._checked_row(obj)
        ttl_ms = self.mapper.ttl_of(ttl)
        with self._instrument.call("save", rows=(row,)) as call:
            if self._locking is None:
                timestamp = self._write_stamp((row,)) if write_stamp is None else write_stamp
                batch = (
                    None
                    if write_stamp is not None
                    else self._batch([obj], [row], timestamp, ttl_ms)
                )
                if batch is not None:
                    yield Call("write_rows", (self.table, batch[0]))
                    call.results = batch[1]
                    self._identity.remember(obj, row, None)
                    return obj
                mutations = self.mapper.to_mutations(
                    obj, timestamp=timestamp, ttl_ms=ttl_ms, row=row
                )
                previous = yield from self._previous([row], None)
                self._replacing(mutations, previous, row, timestamp)
                yield Call("mutate", (self.table, mutations))
                self._identity.remember(obj, row, None)
            else:
                current, expected, new = self._locking.plan_save(obj, row, at=write_stamp)
                mutations = self.mapper.to_mutations(obj, timestamp=new, ttl_ms=ttl_ms, row=row)
                previous = yield from self._previous([row], None)
                self._replacing(mutations, previous, row, new)
                committed = yield from self._locking.save_op(
                    row,
                    current=current,
                    expected=expected,
                    new=new,
                    mutations=mutations,
                    ttl_ms=ttl_ms,
                )
                setattr(obj, self.info.version_field or "", new)
                self._identity.remember(obj, row, committed)
            call.results = len(mutations)
        return obj

    def _fence_op(self, row: bytes, tag: int) -> Op[bool]:
        """Fence an absent row of a locked model against its writes stamped ``tag`` or before.

        See :meth:`Locking.fence_op <hmodel.repository.locking.Locking.fence_op>` (a
        unique index's claim takeover, I1). ``False`` for a model without a version
        field: nothing to fence with.
        """
        if self._locking is None:
            return False
        fenced: bool = yield from self._locking.fence_op(row, tag)
        return fenced

    def _save_many_op(self, objs: Sequence[M], *, ttl: timedelta | None) -> Op[None]:
        """The operation of ``save_many`` (one ``mutate``; a ``get`` first for prefixed maps)."""
        if self._locking is not None:
            raise ValidationError(
                "save_many cannot check versions; save locked models one by one",
                table=self.table,
            )
        ttl_ms = self.mapper.ttl_of(ttl)
        rows = [self._checked_row(o) for o in objs]
        timestamp = self._write_stamp(rows)
        batch = self._batch(objs, rows, timestamp, ttl_ms)
        if batch is not None:
            with self._instrument.call("save_many", rows=tuple(rows)) as call:
                if batch[1]:
                    yield Call("write_rows", (self.table, batch[0]))
                call.results = batch[1]
            for obj, row in zip(objs, rows, strict=True):
                self._identity.remember(obj, row, None)
            return
        mutations: list[Mutation] = [
            m
            for o, row in zip(objs, rows, strict=True)
            for m in self.mapper.to_mutations(o, timestamp=timestamp, ttl_ms=ttl_ms, row=row)
        ]
        with self._instrument.call("save_many", rows=tuple(rows)) as call:
            previous = yield from self._previous(rows, None)
            for row in previous:
                self._replacing(mutations, previous, row, timestamp)
            if mutations:
                yield Call("mutate", (self.table, mutations))
            call.results = len(mutations)
        for obj, row in zip(objs, rows, strict=True):
            self._identity.remember(obj, row, None)

    def _row_to_delete(self, obj: M | None, key: Mapping[str, Any]) -> bytes:
        """The rowkey ``delete`` is given: an instance's or the key fields'."""
        if obj is not None:
            if key:
                raise ValidationError("pass an instance or key fields, not both", table=self.table)
            return self._checked_row(obj)
        return self.mapper.key_of_values(key)

    def _delete_op(self, obj: M | None, *, write_stamp: int | None, key: Any) -> Op[None]:
        """The operation of ``delete``: one ``mutate``.

        With a version field, see
        :meth:`Locking.delete_op <hmodel.repository.locking.Locking.delete_op>`.
        """
        row = self._row_to_delete(obj, key)
        with self._instrument.call("delete", rows=(row,)) as call:
            if self._locking is not None:
                if obj is None:
                    raise ValidationError(
                        "a locked model is deleted through its instance (the version is checked)",
                        table=self.table,
                    )
                yield from self._locking.delete_op(obj, row, at=write_stamp)
            else:
                stamp = write_stamp or self._stamps.next(rows=(row,))
                yield Call("mutate", (self.table, [Delete(row, timestamp=stamp)]))
            call.results = 1
        if obj is not None:
            self._identity.forget(obj)

    def _delete_many_op(self, keys: Sequence[Mapping[str, Any]]) -> Op[None]:
        """The operation of ``delete_many`` (one ``mutate``; none for no keys)."""
        if self._locking is not None:
            raise ValidationError("locked models are deleted one by one", table=self.table)
        rows = [self.mapper.key_of(**k) for k in keys]
        with self._instrument.call("delete_many", rows=tuple(rows)) as call:
            if rows:
                timestamp = self._stamps.next(rows=rows)
                yield Call("mutate", (self.table, [Delete(r, timestamp=timestamp) for r in rows]))
            call.results = len(rows)

    def _increment_op(
        self, key: Mapping[str, Any], amounts: Mapping[str, int]
    ) -> Op[dict[str, int]]:
        """The operation of ``increment``.

        One ``increment`` request; for several counters ``increment_many`` and a ``get``.
        """
        row = self.mapper.key_of_values(key)
        if not amounts:
            raise ValidationError("name at least one counter to increment", table=self.table)
        columns = {
            name: self.mapper.counter_column(name, amount) for name, amount in amounts.items()
        }
        with self._instrument.call("increment", rows=(row,)) as call:
            if len(amounts) == 1:
                ((name, amount),) = amounts.items()
                value = yield Call("increment", (self.table, row, columns[name], amount))
                call.results = 1
                return {name: value}
            yield Call(
                "increment_many",
                (self.table, [Increment(row, columns[n], a) for n, a in amounts.items()]),
            )
            results = yield Call("get", (self.table, [row]), {"columns": list(columns.values())})
            call.results = len(amounts)
        values = results[0] if results else RowResult(row, {})
        return {
            name: self._decode_cell(name, row, values.cells[column])
            if column in values.cells
            else 0
            for name, column in columns.items()
        }

    def _scan_op(self, query: Query, on_error: OnError, *, batched: bool = False) -> Op[None]:
        """The stream operation of ``scan``: yields the models (see ``Repository.scan``).

        The query is checked when this is called, before any request. ``batched``: the
        models come as :class:`~hmodel.backend.op.Items` (for the edges' drivers only).
        """
        check_on_error(on_error, self.table)
        self._projection(query.fields)
        return self._scan_models(
            self._plan(query), query.limit, on_error, query.fields is not None, batched=batched
        )

    def _scan_models(
        self,
        plan: ScanPlan,
        limit: int | None,
        on_error: OnError,
        partial: bool,
        *,
        batched: bool = False,
    ) -> Op[None]:
        with self._instrument.call("scan", always=True) as call:
            call.plan = plan.describe()
            # The limit counts models, not rows: rows of other record types (R1) are skipped.
            if limit == 0:
                return
            cursor = yield from open_rows(plan, batch_size=self._batch_size, expected=limit)
            fast, load = self._fast_rows, self._load_each
            while True:
                results = yield from cursor.results()
                if not results:
                    break
                index, count = 0, len(results)
                while index < count:
                    want = _CHUNK if limit is None else min(_CHUNK, limit - call.results)
                    end = min(count, index + want)
                    objs, index = fast(results, index, partial=partial, want=want)
                    if batched:
                        if objs:
                            call.results += len(objs)
                            yield Items(objs)
                    else:
                        for obj in objs:
                            call.results += 1
                            yield obj
                    if index < end:  # a row the batch could not load: decode (or skip) it
                        one = load(results[index], on_error, partial=partial)
                        index += 1
                        if one is not None:
                            call.results += 1
                            yield one
                    if call.results == limit:
                        yield from cursor.close()
                        return
            yield from cursor.close()

    def _page_op(
        self, size: int, query: Query, token: str | None, on_error: OnError
    ) -> Op[Page[M]]:
        """The operation of ``page``: one page and the token of the next (R8).

        The query and the token are checked when this is called, before any request.
        """
        plan, fingerprint, positions, decode, errors, _ = self._paging(size, query, token, on_error)
        return self._one_page(size, plan, fingerprint, positions, decode, errors)

    def _one_page(  # noqa: PLR0917 -- _paging's parts
        self,
        size: int,
        plan: ScanPlan,
        fingerprint: str,
        positions: list[Position],
        decode: Callable[[RowResult], M | None],
        errors: list[DecodeError],
    ) -> Op[Page[M]]:
        with self._instrument.call("page") as call:
            call.plan = plan.describe()
            # One model more than the page tells whether anything follows.
            cursor = yield from open_rows(plan, positions, batch_size=size + 1, expected=size + 1)
            pager = Pager(positions, size, decode)
            first: RawPage[M] | None = None
            while first is None:
                rows = yield from cursor.batch()
                if not rows:
                    first = pager.end()
                    break
                for index, result in rows:
                    first = pager.add(index, result)
                    if first is not None:
                        break
            yield from cursor.close()
            call.results = len(first.items)
        token_out = None
        if first.positions is not None:
            token_out = self._tokens.encode(fingerprint, first.positions)
        return Page(first.items, token_out, tuple(errors))

    def _pages_op(self, size: int, query: Query, token: str | None, on_error: OnError) -> Op[None]:
        """The stream operation of ``pages``: yields each non-empty :class:`Page`.

        The query and the token are checked when this is called, before any request.
        """
        plan, fingerprint, positions, decode, errors, partial = self._paging(
            size, query, token, on_error
        )
        return self._pages(size, plan, fingerprint, positions, decode, errors, partial=partial)

    def _pages(  # noqa: PLR0917 -- _paging's parts
        self,
        size: int,
        plan: ScanPlan,
        fingerprint: str,
        positions: list[Position],
        decode: Callable[[RowResult], M | None],
        errors: list[DecodeError],
        *,
        partial: bool,
    ) -> Op[None]:
        batch = min(self._batch_size, max(2 * size, 100))
        with self._instrument.call("pages", always=True) as call:
            call.plan = plan.describe()
            cursor = yield from open_rows(
                plan, positions, batch_size=batch, max_batch_size=self._batch_size
            )
            pager = Pager(positions, size, decode)
            while True:
                rows = yield from cursor.batch()
                if not rows:
                    break
                results = [pair[1] for pair in rows]
                at, count = 0, len(results)
                while at < count:
                    end = min(count, at + _CHUNK)
                    objs, stop = self._fast_rows(results, at, partial=partial, want=_CHUNK)
                    for full in pager.add_decoded(rows[at:stop], objs):
                        page = self._page_of(full, errors, fingerprint, call)
                        if page is not None:
                            yield page
                    if stop < end:  # a row the batch could not load: decode (or skip) it
                        raw = pager.add(*rows[stop])
                        stop += 1
                        if raw is not None:
                            page = self._page_of(raw, errors, fingerprint, call)
                            if page is not None:
                                yield page
                    at = stop
            page = self._page_of(pager.end(), errors, fingerprint, call)
            if page is not None:
                yield page
            yield from cursor.close()

    def _page_of(
        self, raw: RawPage[M], errors: list[DecodeError], fingerprint: str, call: Any
    ) -> Page[M] | None:
        """The :class:`Page` of ``raw`` with the errors found since the last; ``None``: empty."""
        found = tuple(errors)
        errors.clear()
        if not raw.items and not found:
            return None
        call.results += len(raw.items)
        positions = raw.positions
        if positions is None:
            return Page(raw.items, None, found)
        encode = self._tokens.encode
        # The token is made only if the caller reads it (most readers of pages() do not).
        return Page(raw.items, None, found, resume=lambda: encode(fingerprint, positions))

    # --- partial writes, projections, versions, counters of many rows -----------------

    def _update_op(
        self,
        key: Mapping[str, Any],
        *,
        ttl: timedelta | None,
        write_stamp: int | None,
        changes: Mapping[str, Any],
    ) -> Op[None]:
        """The operation of ``update``: one ``mutate`` (a ``get`` first for a prefixed map).

        Everything is checked before the first request: a locked model, the key, the fields
        and their values (nothing is written on a ``ValidationError``).
        """
        planned = self._update_plan(key, ttl=ttl, write_stamp=write_stamp, changes=changes)
        return self._update_write_op(*planned)

    def _update_plan(
        self,
        key: Mapping[str, Any],
        *,
        ttl: timedelta | None,
        write_stamp: int | None,
        changes: Mapping[str, Any],
    ) -> tuple[bytes, list[str], int, list[Mutation]]:
        """``update``'s checks, stamp and mutations: ``(row, fields, timestamp, mutations)``.

        Raises:
            ValidationError: A locked model, the key, the fields or their values.
        """
        if self._locking is not None:
            raise ValidationError(
                "partial updates would bypass the version check; use save()",
                table=self.table,
            )
        row = self.mapper.key_of_values(key)
        names = list(changes)
        timestamp = self._write_stamp((row,), names) if write_stamp is None else write_stamp
        mutations = self.mapper.to_partial_mutations(
            dict(key), dict(changes), timestamp=timestamp, ttl_ms=self.mapper.ttl_of(ttl)
        )
        return row, names, timestamp, mutations

    def _update_write_op(
        self, row: bytes, names: list[str], timestamp: int, mutations: list[Mutation]
    ) -> Op[None]:
        """The writes of a planned ``update`` (see :meth:`_update_plan`)."""
        with self._instrument.call("update", rows=(row,)) as call:
            previous = yield from self._previous([row], names)
            self._replacing(mutations, previous, row, timestamp, names)
            if mutations:
                yield Call("mutate", (self.table, mutations))
            call.results = len(mutations)

    def _row_batch_of(
        self, row: bytes, mutations: Sequence[Mutation], timestamp: int
    ) -> RowBatch | None:
        """``mutations`` of one row as the backend's row batch, or ``None``.

        Only puts and column deletes of ``row`` at ``timestamp`` with one ttl (what a
        partial update of fields without maps writes) fit a batch, which writes what
        ``mutate`` of them would (see :meth:`_batch`); anything else, or a backend without
        ``row_batch``, gives ``None``.
        """
        make = getattr(self.backend, "row_batch", None)
        if make is None or not mutations:
            return None
        cells: list[tuple[bytes, bytes | None]] = []
        families = set()
        ttls = set()
        for mutation in mutations:
            if mutation.row != row or mutation.timestamp != timestamp:
                return None
            if isinstance(mutation, Put) and type(mutation) is Put:
                column = mutation.column
                cells.append((column, mutation.value))
                ttls.add(mutation.ttl)
            elif type(mutation) is Delete and mutation.column and b":" in mutation.column:
                column = mutation.column
                cells.append((column, None))
            else:
                return None
            families.add(family_of(column))
        if len(ttls) > 1:
            return None
        batch: RowBatch | None = make(
            self.table, timestamp, next(iter(ttls), None), frozenset(families)
        )
        if batch is not None:
            batch.add_row(row, cells)
        return batch

    def _get_fields_op(
        self, fields: Sequence[str], key: Mapping[str, Any]
    ) -> Op[dict[str, Any] | None]:
        """The operation of ``get_fields`` (one ``get`` request)."""
        row = self.mapper.key_of_values(key)
        if isinstance(fields, str):
            raise QueryError("fields is a collection of names, not one string", field=fields)
        columns = self.mapper.columns(list(fields))
        with self._instrument.call("get_fields", rows=(row,)) as call:
            results = yield Call(
                "get", (self.table, [row]), {"columns": self._with_version(columns)}
            )
            call.results = len(results)
        result = self._unless_deleted(results, columns)
        return None if result is None else self.mapper.decode_fields(result, fields)

    def _history_op(
        self, field: str, *, limit: int | None, before: int | None, key: Mapping[str, Any]
    ) -> Op[list[tuple[Any, int]]]:
        """The operation of ``history`` (one ``get_versions`` request, F7)."""
        row = self.mapper.key_of_values(key)
        column = self.mapper.column_of(field)
        family = self.info.table.family(column.partition(b":")[0].decode())
        wanted = family.versions if limit is None else min(limit, family.versions)
        if wanted < 1:
            raise QueryError("limit must be >= 1", table=self.table, field=field, value=limit)
        with self._instrument.call("history", rows=(row,)) as call:
            cells = yield Call(
                "get_versions",
                (self.table, row, column),
                {"max_versions": wanted, "before": before},
            )
            call.results = len(cells)
        return [(self._decode_cell(field, row, c), c.timestamp) for c in cells]

    def _increment_many_op(
        self, items: Sequence[tuple[Mapping[str, Any], Mapping[str, int]]]
    ) -> Op[None]:
        """The operation of ``increment_many`` (one ``increment_many``; none for no items)."""
        key_of, column_of = self.mapper.key_of_values, self.mapper.counter_column
        increments = [
            Increment(key_of(key), column_of(name, amount), amount)
            for key, amounts in items
            for name, amount in amounts.items()
        ]
        rows = tuple(dict.fromkeys(i.row for i in increments))
        with self._instrument.call("increment_many", rows=rows) as call:
            if increments:
                yield Call("increment_many", (self.table, increments))
            call.results = len(increments)

    # --- map fields (F6, R10) ---------------------------------------------------------

    def _put_entries_op(
        self, key: Mapping[str, Any], field: str, entries: Mapping[Any, Any]
    ) -> Op[None]:
        """The operation of ``put_entries`` (one ``mutate`` request)."""
        row = self.mapper.key_of_values(key)
        stamp = self._stamps.next(rows=(row,))
        mutations = self.mapper.map_put(dict(key), field, entries, timestamp=stamp)
        with self._instrument.call("put_entries", rows=(row,)) as call:
            yield Call("mutate", (self.table, mutations))
            call.results = len(mutations)

    def _remove_entries_op(
        self, key: Mapping[str, Any], field: str, names: Sequence[Any]
    ) -> Op[None]:
        """The operation of ``remove_entries`` (one ``mutate`` request)."""
        row = self.mapper.key_of_values(key)
        stamp = self._stamps.next(rows=(row,))
        mutations = self.mapper.map_delete(dict(key), field, names, timestamp=stamp)
        with self._instrument.call("remove_entries", rows=(row,)) as call:
            yield Call("mutate", (self.table, mutations))
            call.results = len(mutations)

    def _change_entries_op(
        self,
        key: Mapping[str, Any],
        field: str,
        *,
        put: Mapping[Any, Any] | None,
        remove: Sequence[Any],
    ) -> Op[None]:
        """The operation of ``change_entries`` (one ``mutate``; none when nothing changes)."""
        if self._locking is not None:
            raise ValidationError(
                "changing map entries would bypass the version check; use save()",
                table=self.table,
                field=field,
            )
        row = self.mapper.key_of_values(key)
        stamp = self._stamps.next(rows=(row,))
        mutations = self.mapper.map_change(
            dict(key), field, {} if put is None else put, remove, timestamp=stamp
        )
        if not mutations:
            return
        with self._instrument.call("change_entries", rows=(row,)) as call:
            yield Call("mutate", (self.table, mutations))
            call.results = len(mutations)

    def _get_entries_op(
        self, key: Mapping[str, Any], field: str, names: Sequence[Any] | None
    ) -> Op[dict[Any, Any]]:
        """The operation of ``get_entries`` (one ``get`` request)."""
        row = self.mapper.key_of_values(key)
        columns = self.mapper.map_columns(field, names)
        with self._instrument.call("get_entries", rows=(row,)) as call:
            results = yield Call(
                "get", (self.table, [row]), {"columns": self._with_version(columns)}
            )
            call.results = len(results)
        result = self._unless_deleted(results, columns)
        return {} if result is None else self.mapper.map_entries(field, result)

    # --- moves (K10) ------------------------------------------------------------------

    def _move_op(self, obj: M, new_key: Mapping[str, Any]) -> Op[M]:
        """The operation of ``move``: the ``save`` of a copy, then the ``delete`` of ``obj``.

        Both are the very operations of ``save`` and ``delete`` (and report their events).
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
        yield from self._save_op(moved, ttl=None, write_stamp=None)
        if self._locking is not None:
            yield from self._delete_op(obj, write_stamp=None, key={})
        else:
            yield from self._delete_op(None, write_stamp=None, key=self.mapper.key_values(obj))
        return moved
