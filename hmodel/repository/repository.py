"""Repository[M]: typed reads and writes of one model over any backend."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import timedelta
from typing import Any, Generic, Literal, TypeVar, overload

import attrs

from hmodel.backend.base import (
    Backend,
    Cell,
    Delete,
    Increment,
    Mutation,
    Put,
    RowResult,
    newest_timestamp,
)
from hmodel.clock import Clock, WriteStamps, stamps_for, system_clock
from hmodel.errors import (
    DecodeError,
    HModelError,
    KeyDecodeError,
    NotFoundError,
    QueryError,
    TableExistsError,
    ValidationError,
)
from hmodel.keys import Key
from hmodel.mapping import Mapper, mapper_for
from hmodel.model import model_infos_for
from hmodel.repository.condition import Condition, FieldColumn
from hmodel.repository.event import Listener
from hmodel.repository.explain import Explanation, RecordingBackend, explain_result
from hmodel.repository.identity import IdentityMap
from hmodel.repository.instrument import Instrument
from hmodel.repository.locking import Locking
from hmodel.repository.page import Page, Position, TokenCodec
from hmodel.repository.pager import paginate
from hmodel.repository.plan import KeySpan, ScanPlan, execute, stream
from hmodel.repository.query import Query
from hmodel.repository.version import VersionCell

__all__ = ["OnError", "Repository"]


M = TypeVar("M")

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


def _check_on_error(on_error: object, table: str) -> None:
    if on_error not in ("raise", "skip") and not callable(on_error):
        raise QueryError(
            'on_error is "raise", "skip" or a function taking the DecodeError',
            table=table,
            value=on_error,
        )


class Repository(Generic[M]):
    """Reads and writes instances of one model; hides every byte (K1, K3, F6-F10, R8, I4).

    Every method states its round trips. Every write carries an explicit timestamp from
    the repository's :class:`~hmodel.clock.WriteStamps` (a hybrid logical clock shared by
    every repository on the same clock): strictly increasing within the process, so a
    delete this process issued (a ``None`` field, a replaced map, a deleted row) never
    hides a later write of the same process, even within one millisecond or on a frozen
    clock. One save's cells share one timestamp, so time-travel reads (``as_of``) see
    whole saves. ``docs/repository.md`` states what each write guarantees per backend.

    Args:
        model: A class declared with :func:`hmodel.model.model`.
        backend: Any :class:`~hmodel.backend.base.Backend`; swap the memory engine for
            Thrift by passing another one.
        clock: Epoch-millisecond clock the write stamps follow (and lock leases).
        stamps: The write stamps to use; default: the process's stamps for ``clock``.
        token_secret: HMAC key for page tokens. Processes that accept each other's tokens
            must share it; the default is random per process and shared by every
            repository, store and indexed repository of the process (tokens then survive
            objects built per request, but not a restart or another process).
        listeners: Callables told of a :class:`QueryEvent` after every call.
        scan_batch_size: Rows per round trip of scans.
        lock_lease: Over Thrift1 only: how long a half-finished locked save blocks other
            writers (see :meth:`save`).
    """

    def __init__(
        self,
        model: type[M],
        backend: Backend,
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
        self._instrument = Instrument(self.table, backend, listeners)
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
                backend, self.mapper, self._version, self._stamps, self._identity
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
        newest = newest_timestamp(result.cells, self._skip)
        if newest and newest >= self._clock():  # else observe() has nothing to do
            self._stamps.observe(newest, rows=(result.row,))
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

    def explain(self, call: Callable[[Repository[M]], object]) -> Explanation:
        """The backend calls ``call`` would make on this repository, without making them.

        ``call`` runs against a stand-in backend with this backend's capabilities and RPC
        names, which answers as an empty table would (reads find nothing, conditional
        writes pass), so the operation takes the path it takes for a new row. A lazy
        result (a scan) is run to its end. Nothing is sent, stored or remembered.

        Example: ``repo.explain(lambda r: r.save(user)).describe()`` lists the mutate,
        and the read a prefixed map needs first.
        """
        recorder = RecordingBackend(self.backend)
        clone: Repository[M] = Repository(
            self.model,
            recorder,
            stamps=self._stamps,
            scan_batch_size=self._batch_size,
        )
        if self._version is not None:
            clone._version = self._version
        clone._identity = self._identity.copy()
        if clone._locking is not None:
            clone._locking.identity = clone._identity
            clone._locking.version = self._version or clone._locking.version
        explain_result(call(clone))
        return Explanation(tuple(recorder.calls))

    # --- reads ----------------------------------------------------------------------

    @overload
    def get(
        self,
        *,
        required: Literal[True],
        fields: Sequence[str] | None = None,
        as_of: int | None = None,
        **key: Any,
    ) -> M: ...

    @overload
    def get(
        self,
        *,
        required: bool = False,
        fields: Sequence[str] | None = None,
        as_of: int | None = None,
        **key: Any,
    ) -> M | None: ...

    def get(
        self,
        *,
        required: bool = False,
        fields: Sequence[str] | None = None,
        as_of: int | None = None,
        **key: Any,
    ) -> M | None:
        """Read one model by its key fields, in one round trip.

        Typed as returning ``M`` when ``required=True`` is written literally, ``M | None``
        otherwise.

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
        row = self.mapper.key_of_values(key)
        fields = self._projection(fields)
        with self._instrument.call("get", rows=(row,)) as call:
            results = self.backend.get(
                self.table,
                [row],
                columns=self._columns(fields),
                before=None if as_of is None else as_of + 1,
            )
            call.results = len(results)
            obj = (
                self._load(results[0], partial=fields is not None, key_encoded_here=True)
                if results
                else None
            )
            if obj is None and required:
                raise NotFoundError("no such row", table=self.table, row=row)
        return obj

    def get_many(
        self,
        keys: Sequence[Mapping[str, Any]],
        *,
        fields: Sequence[str] | None = None,
        as_of: int | None = None,
        on_error: OnError = "raise",
    ) -> list[M | None]:
        """Read several models in **one round trip**; ``None`` where a row does not exist.

        The result is aligned with ``keys``. ``on_error`` decides what a row that does not
        decode does (see :data:`OnError`): raise (the default), or read as ``None``
        (``"skip"``, or a function told of each :class:`~hmodel.errors.DecodeError`).
        """
        _check_on_error(on_error, self.table)
        key_of = self.mapper.key_of_values
        rows = [key_of(k) for k in keys]
        fields = self._projection(fields)
        if not rows:
            return []
        with self._instrument.call("get_many", rows=tuple(rows)) as call:
            results = self.backend.get(
                self.table,
                rows,
                columns=self._columns(fields),
                before=None if as_of is None else as_of + 1,
            )
            call.results = len(results)
        found = {r.row: r for r in results}
        partial = fields is not None
        loaded: list[M | None] = []
        for row in rows:
            result = found.get(row)
            if result is None:
                loaded.append(None)
                continue
            try:
                loaded.append(self._load(result, partial=partial, key_encoded_here=True))
            except DecodeError as error:
                if on_error == "raise":
                    raise
                if callable(on_error):
                    on_error(error)
                loaded.append(None)
        return loaded

    def get_stamped(self, rows: Sequence[bytes]) -> dict[bytes, tuple[M | None, int]]:
        """Read rows by rowkey in **one round trip**, each with its newest write stamp.

        Per rowkey: the model (``None`` for a missing row, or one that does not decode),
        and :meth:`newest_stamp` of what was read (0 for a missing row). For patterns
        that must know how new a row they read is (a secondary index's read repair).
        """
        unique = list(dict.fromkeys(rows))
        found: dict[bytes, tuple[M | None, int]] = dict.fromkeys(unique, (None, 0))
        if not unique:
            return found
        with self._instrument.call("get_many", rows=tuple(unique)) as call:
            results = self.backend.get(self.table, unique, columns=self._columns(None))
            call.results = len(results)
        for result in results:
            try:
                obj = self._load(result)
            except DecodeError:
                obj = None
            found[result.row] = (obj, self.newest_stamp(result))
        return found

    def exists(self, **key: Any) -> bool:
        """Whether the row of these key fields holds any of this model's data (one round trip).

        For a locked model the version cell alone does not count: a row whose first save
        is in flight, or that was deleted over Thrift1, does not exist.
        """
        row = self.mapper.key_of_values(key)
        with self._instrument.call("exists", rows=(row,)) as call:
            results = self.backend.get(self.table, [row], columns=self._columns(None))
            found = bool(results) and (
                self._locking is None or self._locking.read(results[0]) is not None
            )
            call.results = int(found)
        return found

    def get_fields(self, fields: Sequence[str], **key: Any) -> dict[str, Any] | None:
        """Read some fields of one row as a dict (key fields included), in one round trip.

        For projections that leave out required fields, which :meth:`get` cannot build a
        model from. ``None`` when the row has none of the fields' cells, or is a locked row
        deleted over Thrift1 (see :meth:`load`).
        """
        row = self.mapper.key_of_values(key)
        if isinstance(fields, str):
            raise QueryError("fields is a collection of names, not one string", field=fields)
        columns = self.mapper.columns(list(fields))
        with self._instrument.call("get_fields", rows=(row,)) as call:
            results = self.backend.get(self.table, [row], columns=self._with_version(columns))
            call.results = len(results)
        result = self._unless_deleted(results, columns)
        return None if result is None else self.mapper.decode_fields(result, fields)

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

    def history(
        self, field: str, *, limit: int | None = None, before: int | None = None, **key: Any
    ) -> list[tuple[Any, int]]:
        """A field's versions, newest first, as ``(value, timestamp)`` (F7), one round trip.

        At most ``limit`` versions, and never more than the family keeps (``VERSIONS``).
        ``before`` (exclusive) reads history older than a timestamp.
        """
        row = self.mapper.key_of_values(key)
        column = self.mapper.column_of(field)
        family = self.info.table.family(column.partition(b":")[0].decode())
        wanted = family.versions if limit is None else min(limit, family.versions)
        if wanted < 1:
            raise QueryError("limit must be >= 1", table=self.table, field=field, value=limit)
        with self._instrument.call("history", rows=(row,)) as call:
            cells = self.backend.get_versions(
                self.table, row, column, max_versions=wanted, before=before
            )
            call.results = len(cells)
        return [(self._decode_cell(field, row, c), c.timestamp) for c in cells]

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
        ranges = self.mapper.info.key.ranges(
            dict(query.prefix),
            low=query.low,
            high=query.high,
            low_inclusive=query.low_inclusive,
            high_inclusive=query.high_inclusive,
        )
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

    def scan(
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
        limit: int | None = None,
        on_error: OnError = "raise",
    ) -> Iterator[M]:
        """Iterate models by key range: a :class:`Query`, or its parts as for :meth:`plan`.

        A salted key (K3, I5) is scanned bucket by bucket and merged into one stream in
        natural-key order (reverse order for ``reverse=True``). One round trip per bucket
        to open, plus one per ``scan_batch_size`` rows. Rows of other record types that share
        the range (R1) are skipped. A row of this model that does not decode raises
        :class:`~hmodel.errors.DecodeError`, or with ``on_error`` (see :data:`OnError`) is
        skipped (and reported to the function given). ``limit`` counts models.
        """
        q = self._query(
            query,
            prefix,
            low=low,
            high=high,
            low_inclusive=low_inclusive,
            high_inclusive=high_inclusive,
            reverse=reverse,
            fields=fields,
            where=where,
            limit=limit,
        )
        _check_on_error(on_error, self.table)
        self._projection(q.fields)
        return self._iterate(self._plan(q), q.limit, on_error, partial=q.fields is not None)

    def _iterate(
        self, plan: ScanPlan, limit: int | None, on_error: OnError, *, partial: bool
    ) -> Iterator[M]:
        with self._instrument.call("scan", always=True) as call:
            call.plan = plan.describe()
            # The limit counts models, not rows: rows of other record types (R1) are skipped.
            if limit == 0:
                return
            rows = stream(self.backend, plan, batch_size=self._batch_size, expected=limit)
            load = self._load_each
            try:
                for result in rows:
                    obj = load(result, on_error, partial=partial)
                    if obj is not None:
                        call.results += 1
                        yield obj
                        if call.results == limit:
                            return
            finally:
                close = getattr(rows, "close", None)
                if close is not None:
                    close()

    def _paging(
        self, size: int, query: Query, token: str | None, on_error: OnError
    ) -> tuple[ScanPlan, str, list[Position], Callable[[RowResult], M | None], list[DecodeError]]:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise QueryError("page size must be an int >= 1", table=self.table, value=size)
        if query.limit is not None:
            raise QueryError("pages are cut by size; a limit does not apply", table=self.table)
        _check_on_error(on_error, self.table)
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

        return plan, fingerprint, positions, decode, errors

    def page(
        self,
        size: int,
        prefix: Mapping[str, Any] | None = None,
        *,
        token: str | None = None,
        query: Query | None = None,
        low: Any = None,
        high: Any = None,
        low_inclusive: bool = True,
        high_inclusive: bool = False,
        reverse: bool = False,
        fields: Sequence[str] | None = None,
        where: Condition | None = None,
        on_error: OnError = "raise",
    ) -> Page[M]:
        """One page of at most ``size`` models and a token for the next (R8).

        A :class:`Query`, or its parts as for :meth:`plan`. Pass ``next_token`` back with
        the **same** query to get exactly the following rows; it holds a position per salt
        bucket, so it resumes fan-out and reverse scans too. Round trips: per bucket an
        open and one or two fetches of about ``2 * size / buckets`` rows (over Thrift also
        a close); a key without a salt: an open and one fetch. With ``on_error="skip"``
        rows that do not decode are skipped and listed in :attr:`Page.errors`.

        Raises:
            TokenError: The token was altered, or belongs to another query.
        """
        q = self._query(
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
        plan, fingerprint, positions, decode, errors = self._paging(size, q, token, on_error)
        with self._instrument.call("page") as call:
            call.plan = plan.describe()
            # One model more than the page tells whether anything follows.
            rows = execute(self.backend, plan, positions, batch_size=size + 1, expected=size + 1)
            try:
                first = next(paginate(rows, positions, size, decode))
            finally:
                rows.close()
            call.results = len(first.items)
        token_out = None
        if first.positions is not None:
            token_out = self._tokens.encode(fingerprint, first.positions)
        return Page(first.items, token_out, tuple(errors))

    def pages(
        self,
        size: int,
        prefix: Mapping[str, Any] | None = None,
        *,
        token: str | None = None,
        query: Query | None = None,
        low: Any = None,
        high: Any = None,
        low_inclusive: bool = True,
        high_inclusive: bool = False,
        reverse: bool = False,
        fields: Sequence[str] | None = None,
        where: Condition | None = None,
        on_error: OnError = "raise",
    ) -> Iterator[Page[M]]:
        """Iterate pages of ``size`` until the scan is exhausted (see :meth:`page`).

        One scan per salt bucket serves the whole read (not one per page): each page's
        ``next_token`` still resumes right after it, in another call or process. Empty
        pages are not yielded. Round trips: per bucket an open, fetches of
        ``max(2 * size, 100)`` rows (at most ``scan_batch_size``) growing twofold each time
        up to ``scan_batch_size`` (the first page comes soon, a whole read takes few
        fetches), and over Thrift a close.
        """
        q = self._query(
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
        plan, fingerprint, positions, decode, errors = self._paging(size, q, token, on_error)
        batch = min(self._batch_size, max(2 * size, 100))
        with self._instrument.call("pages", always=True) as call:
            call.plan = plan.describe()
            rows = execute(
                self.backend, plan, positions, batch_size=batch, max_batch_size=self._batch_size
            )
            try:
                for raw in paginate(rows, positions, size, decode):
                    found = tuple(errors)
                    errors.clear()
                    if not raw.items and not found:
                        continue
                    call.results += len(raw.items)
                    token_out = None
                    if raw.positions is not None:
                        token_out = self._tokens.encode(fingerprint, raw.positions)
                    yield Page(raw.items, token_out, found)
            finally:
                rows.close()

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

    def _previous(
        self, rows: Sequence[bytes], fields: Iterable[str] | None
    ) -> dict[bytes, RowResult]:
        """Read what prefixed maps among ``fields`` hold now (one round trip; none if none).

        A map with a prefix shares its family, so its removed entries are deleted by name.
        """
        families = self.mapper.previous_families(fields)
        if not families or not rows:
            return {}
        return {r.row: r for r in self.backend.get(self.table, list(rows), columns=families)}

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
        """Reserve the write stamp of a coming :meth:`save` (or :meth:`delete`) of ``obj``.

        For patterns that write other rows in one protocol with the save (a secondary
        index's entries, I1) and need the data row's cells to carry the same timestamp
        as their own writes: pass the stamp back as ``save(obj, write_stamp=...)``. The stamp is
        ordered after every earlier write of ``obj``'s row and of ``rows``; for a locked
        model it is past the instance's version (and the stamp before it is free for a
        family clear, as in :meth:`save`). No I/O.

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

    def save(self, obj: M, *, ttl: timedelta | None = None, write_stamp: int | None = None) -> M:
        """Write the whole model (all fields but counters), and return it.

        Fields set to ``None`` are deleted and a map field's stored entries are replaced by
        the dict's, exactly. The instance is validated before the first round trip; an
        invalid one writes nothing. Counters are never written here: use :meth:`increment`.

        Round trips: one row mutation. A map with a prefix shares its family, so its old
        entries are found by a read first (+1). A map owning its family is cleared by a
        family delete one stamp older than the new entries: the same atomic row mutation on
        the memory engine and Thrift2, a second ``mutateRowsTs`` over Thrift1 (sent after
        the puts; a reader in between sees old and new entries together).

        With a version field (optimistic locking) the save succeeds only if the stored
        version is the one this instance was read with (0: the row must not exist), and
        sets a new, greater version, which is also the timestamp of every cell it writes.
        On the memory engine and Thrift2 it is one atomic ``check_and_mutate``: readers see
        the row before or after, never in between, and a refused save wrote nothing. Over
        Thrift1 it takes three round trips (claim, data, commit; see
        :class:`~hmodel.repository.locking.Locking` and ``docs/repository.md``).

        Args:
            obj: The model instance.
            ttl: Per-cell TTL of this write (F8); the model's ``ttl`` by default.
            write_stamp: The write's timestamp, reserved with :meth:`reserve_stamp` (by a
                pattern ordering its own writes with this one); a fresh stamp by default.

        Raises:
            ValidationError: A field has the wrong type, a required field is missing, or
                key fields of a loaded model changed (K10). Nothing is written.
            RowExistsError: A new locked instance (version 0) and the row exists. Nothing
                is written.
            ConflictError: The stored version is not the one read. Nothing is written.
            OutcomeUnknownError: The connection dropped during a non-idempotent step (a
                locked save), or over Thrift1 a stalled save was taken over: read the row
                before retrying.
        """
        row = self._checked_row(obj)
        ttl_ms = self.mapper.ttl_of(ttl)
        with self._instrument.call("save", rows=(row,)) as call:
            if self._locking is None:
                timestamp = self._write_stamp((row,)) if write_stamp is None else write_stamp
                mutations = self.mapper.to_mutations(
                    obj, timestamp=timestamp, ttl_ms=ttl_ms, row=row
                )
                previous = self._previous([row], None)
                self._replacing(mutations, previous, row, timestamp)
                self.backend.mutate(self.table, mutations)
                self._identity.remember(obj, row, None)
            else:
                current, expected, new = self._locking.plan_save(obj, row, at=write_stamp)
                mutations = self.mapper.to_mutations(obj, timestamp=new, ttl_ms=ttl_ms, row=row)
                previous = self._previous([row], None)
                self._replacing(mutations, previous, row, new)
                committed = self._locking.save(
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

    def save_many(self, objs: Sequence[M], *, ttl: timedelta | None = None) -> None:
        """Write several models in one round trip (see :meth:`save` for maps' extra trips).

        Every instance is validated before anything is sent. Not for models with a version
        field (each needs its own conditional write): use :meth:`save`.
        """
        if self._locking is not None:
            raise ValidationError(
                "save_many cannot check versions; save locked models one by one",
                table=self.table,
            )
        ttl_ms = self.mapper.ttl_of(ttl)
        rows = [self._checked_row(o) for o in objs]
        timestamp = self._write_stamp(rows)
        mutations: list[Mutation] = [
            m
            for o, row in zip(objs, rows, strict=True)
            for m in self.mapper.to_mutations(o, timestamp=timestamp, ttl_ms=ttl_ms, row=row)
        ]
        with self._instrument.call("save_many", rows=tuple(rows)) as call:
            previous = self._previous(rows, None)
            for row in previous:
                self._replacing(mutations, previous, row, timestamp)
            if mutations:
                self.backend.mutate(self.table, mutations)
            call.results = len(mutations)
        for obj, row in zip(objs, rows, strict=True):
            self._identity.remember(obj, row, None)

    def update(
        self,
        key: Mapping[str, Any],
        *,
        ttl: timedelta | None = None,
        write_stamp: int | None = None,
        **changes: Any,
    ) -> None:
        """Write only the named fields of one row, without reading it (one round trip).

        ``None`` deletes a field; a map field's entries are replaced exactly (a map with a
        prefix is read first: +1 round trip; see :meth:`save`). Key fields cannot change
        (K10); counters change through :meth:`increment`; locked models through
        :meth:`save`.

        ``write_stamp``: the write's timestamp, reserved with :meth:`reserve_stamp` (see
        :meth:`save`); a fresh stamp by default.

        Raises:
            ValidationError: Unknown or key fields, wrong types. Nothing is written.
        """
        if self._locking is not None:
            raise ValidationError(
                "partial updates would bypass the version check; use save()",
                table=self.table,
            )
        row = self.mapper.key_of_values(key)
        timestamp = self._write_stamp((row,), list(changes)) if write_stamp is None else write_stamp
        mutations = self.mapper.to_partial_mutations(
            dict(key), changes, timestamp=timestamp, ttl_ms=self.mapper.ttl_of(ttl)
        )
        with self._instrument.call("update", rows=(row,)) as call:
            previous = self._previous([row], list(changes))
            self._replacing(mutations, previous, row, timestamp, list(changes))
            if mutations:
                self.backend.mutate(self.table, mutations)
            call.results = len(mutations)

    def delete(
        self, obj: M | None = None, /, *, write_stamp: int | None = None, **key: Any
    ) -> None:
        """Delete a row, given a model instance or its key fields (one round trip).

        The delete marker is a write stamp: a later write of this process is never hidden
        by it (``write_stamp``: one reserved with :meth:`reserve_stamp` ``(delete=True)``).
        For a model with a version field, pass the instance: the delete succeeds only if
        the stored version is the one read, else ConflictError, with nothing
        deleted (one atomic ``check_and_mutate``; over Thrift1 a claim, the delete and a
        commit, after which the version cell stays as ``b""``, which reads as no row).
        """
        if obj is not None:
            if key:
                raise ValidationError("pass an instance or key fields, not both", table=self.table)
            row = self._checked_row(obj)
        else:
            row = self.mapper.key_of_values(key)
        with self._instrument.call("delete", rows=(row,)) as call:
            if self._locking is not None:
                if obj is None:
                    raise ValidationError(
                        "a locked model is deleted through its instance (the version is checked)",
                        table=self.table,
                    )
                self._locking.delete(obj, row, at=write_stamp)
            else:
                stamp = write_stamp or self._stamps.next(rows=(row,))
                self.backend.mutate(self.table, [Delete(row, timestamp=stamp)])
            call.results = 1
        if obj is not None:
            self._identity.forget(obj)

    def delete_many(self, keys: Sequence[Mapping[str, Any]]) -> None:
        """Delete several rows by key fields in one round trip (not for locked models)."""
        if self._locking is not None:
            raise ValidationError("locked models are deleted one by one", table=self.table)
        rows = [self.mapper.key_of(**k) for k in keys]
        with self._instrument.call("delete_many", rows=tuple(rows)) as call:
            if rows:
                timestamp = self._stamps.next(rows=rows)
                self.backend.mutate(self.table, [Delete(r, timestamp=timestamp) for r in rows])
            call.results = len(rows)

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
        self.save(moved)
        if self._locking is not None:
            self.delete(obj)
        else:
            self.delete(**self.mapper.key_values(obj))
        return moved

    # --- counters (F10) --------------------------------------------------------------

    def increment(self, key: Mapping[str, Any], **amounts: int) -> dict[str, int]:
        """Add to counter fields of one row; return their new values.

        Each counter is incremented atomically by the server (F10), which stamps it. One
        counter: one round trip. Several: one round trip for the increments and one to
        read the values back; the values read may include concurrent increments by others.
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
                value = self.backend.increment(self.table, row, columns[name], amount)
                call.results = 1
                return {name: value}
            self.backend.increment_many(
                self.table, [Increment(row, columns[n], a) for n, a in amounts.items()]
            )
            results = self.backend.get(self.table, [row], columns=list(columns.values()))
            call.results = len(amounts)
        values = results[0] if results else RowResult(row, {})
        return {
            name: self._decode_cell(name, row, values.cells[column])
            if column in values.cells
            else 0
            for name, column in columns.items()
        }

    def increment_many(self, items: Sequence[tuple[Mapping[str, Any], Mapping[str, int]]]) -> None:
        """Increment counters of many rows in one round trip; each increment is atomic."""
        key_of, column_of = self.mapper.key_of_values, self.mapper.counter_column
        increments = [
            Increment(key_of(key), column_of(name, amount), amount)
            for key, amounts in items
            for name, amount in amounts.items()
        ]
        rows = tuple(dict.fromkeys(i.row for i in increments))
        with self._instrument.call("increment_many", rows=rows) as call:
            if increments:
                self.backend.increment_many(self.table, increments)
            call.results = len(increments)

    # --- map fields (F6) --------------------------------------------------------------

    def put_entries(self, key: Mapping[str, Any], field: str, entries: Mapping[Any, Any]) -> None:
        """Add or overwrite entries of a map field without rewriting the row (one round trip)."""
        row = self.mapper.key_of_values(key)
        stamp = self._stamps.next(rows=(row,))
        mutations = self.mapper.map_put(dict(key), field, entries, timestamp=stamp)
        with self._instrument.call("put_entries", rows=(row,)) as call:
            self.backend.mutate(self.table, mutations)
            call.results = len(mutations)

    def remove_entries(self, key: Mapping[str, Any], field: str, names: Sequence[Any]) -> None:
        """Delete entries of a map field by their keys (one round trip).

        The deletes are a write stamp: a later :meth:`put_entries` of this process of the
        same entry is never hidden by them.
        """
        row = self.mapper.key_of_values(key)
        stamp = self._stamps.next(rows=(row,))
        mutations = self.mapper.map_delete(dict(key), field, names, timestamp=stamp)
        with self._instrument.call("remove_entries", rows=(row,)) as call:
            self.backend.mutate(self.table, mutations)
            call.results = len(mutations)

    def change_entries(
        self,
        key: Mapping[str, Any],
        field: str,
        *,
        put: Mapping[Any, Any] | None = None,
        remove: Sequence[Any] = (),
    ) -> None:
        """Put some entries and remove others of one row's map field in **one** mutation.

        The atomic map-entry change of R10: renaming a child ``f_a`` to ``f_b`` in a
        directory row is ``put={"f_b": ...}, remove=["f_a"]``. The puts and the deletes
        share one write stamp of the row (so a later write of this process is never
        hidden by these deletes, and these puts by an earlier one) and travel in one
        ``mutate`` call: on the memory engine and Thrift2 (``mutateRow``) one atomic row
        operation, so a reader sees the entries before or after, never in between. Over
        Thrift1 the call is one ``mutateRowsTs`` (two when the model has a TTL: the puts
        carry it, the deletes cannot), and HBase's Thrift1 server applies a call's puts
        and then its deletes as two row operations: a reader in between sees the new
        entries and the old ones together, never neither. Other entries are left alone.

        Args:
            key: Every key field of the row.
            field: The map field.
            put: Entries to add or overwrite.
            remove: Keys of the entries to delete (removing an absent entry is no error).

        Round trips: one (none when both ``put`` and ``remove`` are empty).

        Raises:
            ValidationError: Not a map field, an invalid key or entry, a key both put and
                removed (the delete would hide the put: HBase's delete wins a tie), or a
                model with a version field (the change would bypass the version check:
                use :meth:`save`). Nothing is written.
        """
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
            self.backend.mutate(self.table, mutations)
            call.results = len(mutations)

    def get_entries(
        self, key: Mapping[str, Any], field: str, names: Sequence[Any] | None = None
    ) -> dict[Any, Any]:
        """Read a map field whole, or only the entries named (one round trip).

        A locked row deleted over Thrift1 has no entries (see :meth:`load`).
        """
        row = self.mapper.key_of_values(key)
        columns = self.mapper.map_columns(field, names)
        with self._instrument.call("get_entries", rows=(row,)) as call:
            results = self.backend.get(self.table, [row], columns=self._with_version(columns))
            call.results = len(results)
        result = self._unless_deleted(results, columns)
        return {} if result is None else self.mapper.map_entries(field, result)
