"""Repository[M]: typed reads and writes of one model over any backend (synchronous edge)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import timedelta
from typing import Any, Literal, TypeVar, cast, overload

from hmodel.backend.base import Backend
from hmodel.backend.op import create_tables_op, iterate, run
from hmodel.repository.condition import Condition
from hmodel.repository.core import OnError, RepositoryCore
from hmodel.repository.explain import Explanation, RecordingBackend, explain_result
from hmodel.repository.page import Page
from hmodel.repository.prepared import PreparedCalls
from hmodel.repository.query import Query

__all__ = ["OnError", "Repository"]

M = TypeVar("M")


class Repository(RepositoryCore[M, Backend]):
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

    _prepared: PreparedCalls | None = None

    def _calls(self) -> PreparedCalls:
        """This repository's prepared calls on its backend (a new set if it was swapped).

        ``get`` of a whole row, ``increment`` of one counter, ``save`` of an unlocked
        model and ``update`` of fields without prefixed maps run their operation's steps
        directly when no listener hears the repository (an event nobody hears is not
        built): the same requests and results as the operation run by
        :func:`~hmodel.backend.op.run`, with the backend's prepared calls and row batches
        where it has them (:class:`~hmodel.repository.prepared.PreparedCalls`) and no
        generator in between (``tests/repository/test_prepared_calls.py``).
        """
        prepared = self._prepared
        if prepared is None or prepared.backend is not self.backend:
            prepared = self._prepared = PreparedCalls(self.backend, self.table, self._all_columns)
        return prepared

    def create_table(self, *, exist_ok: bool = False) -> None:
        """Create the model's table from its declaration (one round trip).

        Raises:
            TableExistsError: The table exists and ``exist_ok`` is false.
        """
        run(create_tables_op([self.info.table], exist_ok=exist_ok), self.backend)

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
        if fields is None and as_of is None and not self._instrument.listeners:
            row = self.mapper.key_of_values(key)
            result = self._calls().reader()(row)
            return self._got(result, row, required=required, partial=False)
        return run(
            self._get_op(required=required, fields=fields, as_of=as_of, key=key), self.backend
        )

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
        return run(
            self._get_many_op(keys, fields=fields, as_of=as_of, on_error=on_error), self.backend
        )

    def get_stamped(self, rows: Sequence[bytes]) -> dict[bytes, tuple[M | None, int]]:
        """Read rows by rowkey in **one round trip**, each with its newest write stamp.

        Per rowkey: the model (``None`` for a missing row, or one that does not decode),
        and :meth:`newest_stamp` of what was read (0 for a missing row). For patterns
        that must know how new a row they read is (a secondary index's read repair).
        """
        return run(self._get_stamped_op(rows), self.backend)

    def exists(self, **key: Any) -> bool:
        """Whether the row of these key fields holds any of this model's data (one round trip).

        For a locked model the version cell alone does not count: a row whose first save
        is in flight, or that was deleted over Thrift1, does not exist.
        """
        return run(self._exists_op(key), self.backend)

    def get_fields(self, fields: Sequence[str], **key: Any) -> dict[str, Any] | None:
        """Read some fields of one row as a dict (key fields included), in one round trip.

        For projections that leave out required fields, which :meth:`get` cannot build a
        model from. ``None`` when the row has none of the fields' cells, or is a locked row
        deleted over Thrift1 (see :meth:`load`).
        """
        return run(self._get_fields_op(fields, key), self.backend)

    def history(
        self, field: str, *, limit: int | None = None, before: int | None = None, **key: Any
    ) -> list[tuple[Any, int]]:
        """A field's versions, newest first, as ``(value, timestamp)`` (F7), one round trip.

        At most ``limit`` versions, and never more than the family keeps (``VERSIONS``).
        ``before`` (exclusive) reads history older than a timestamp.
        """
        return run(self._history_op(field, limit=limit, before=before, key=key), self.backend)

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
        return iterate(self._scan_op(q, on_error, batched=True), self.backend)

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
        return run(self._page_op(size, q, token, on_error), self.backend)

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
        return iterate(self._pages_op(size, q, token, on_error), self.backend)

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
        if write_stamp is None and self._locking is None and not self._instrument.listeners:
            # _save_op's steps for an unlocked model, run directly (see _calls)
            row = self._checked_row(obj)
            ttl_ms = self.mapper.ttl_of(ttl)
            timestamp = self._write_stamp((row,))
            batch = self._batch([obj], [row], timestamp, ttl_ms)
            if batch is None:  # the mapper's mutations (maps with a prefix read first)
                write_stamp = timestamp
            else:
                cast(Any, self.backend).write_rows(self.table, batch[0])  # with row_batch
                self._identity.remember(obj, row, None)
                return obj
        return run(self._save_op(obj, ttl=ttl, write_stamp=write_stamp), self.backend)

    def save_many(self, objs: Sequence[M], *, ttl: timedelta | None = None) -> None:
        """Write several models in one round trip (see :meth:`save` for maps' extra trips).

        Every instance is validated before anything is sent. Not for models with a version
        field (each needs its own conditional write): use :meth:`save`.
        """
        run(self._save_many_op(objs, ttl=ttl), self.backend)

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
        if (
            not self._instrument.listeners
            and self._locking is None
            and ttl is None
            and write_stamp is None
            and self._update_cells(key, changes)
        ):
            return
        planned = self._update_plan(key, ttl=ttl, write_stamp=write_stamp, changes=changes)
        row, names, timestamp, mutations = planned
        if not self._instrument.listeners and not self.mapper.previous_families(names):
            # _update_write_op's steps, run directly (see _calls): one write of the cells
            batch = self._row_batch_of(row, mutations, timestamp)
            if batch is not None:
                cast(Any, self.backend).write_rows(self.table, batch)  # with row_batch
            elif mutations:
                self.backend.mutate(self.table, mutations)
            return
        run(self._update_write_op(*planned), self.backend)

    def _update_cells(self, key: Mapping[str, Any], changes: Mapping[str, Any]) -> bool:
        """Write an update of plain column fields as one row batch; ``False``: not done.

        :meth:`update`'s writes for the common case (see :meth:`Mapper.partial_cells
        <hmodel.mapping.Mapper.partial_cells>`): the same cells, stamp and TTL as
        :meth:`_update_plan` and :meth:`_row_batch_of` give, with no ``Put`` per cell.
        ``False``, with nothing written, when a change needs the general path (which
        words its errors) or the backend has no row batches.

        Raises:
            ValidationError: The key, or a value that does not encode (as the general
                path raises them).
        """
        make = getattr(self.backend, "row_batch", None)
        if make is None:
            return False
        row = self.mapper.key_of_values(key)
        planned = self.mapper.partial_cells(row, changes)
        if planned is None:
            return False
        cells, families, puts = planned
        timestamp = self._write_stamp((row,), changes)
        ttl = self.info.ttl_ms if puts else None
        if ttl is None:
            write_row = getattr(self.backend, "write_row", None)  # Thrift1: no batch at all
            if write_row is not None and write_row(self.table, row, cells, timestamp, families):
                return True
        batch = make(self.table, timestamp, ttl, families)
        if batch is None:
            return False
        batch.add_row(row, cells)
        cast(Any, self.backend).write_rows(self.table, batch)
        return True

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
        run(self._delete_op(obj, write_stamp=write_stamp, key=key), self.backend)

    def delete_many(self, keys: Sequence[Mapping[str, Any]]) -> None:
        """Delete several rows by key fields in one round trip (not for locked models)."""
        run(self._delete_many_op(keys), self.backend)

    def move(self, obj: M, **new_key: Any) -> M:
        """Change key fields explicitly (K10): a copy under the new key, then a delete.

        Rowkeys are immutable (key fields of an instance cannot be reassigned), so a move
        saves a copy of ``obj`` with the new key fields (a full :meth:`save`; for a locked
        model the new row must not exist yet) and then deletes the old row. Not atomic
        across the two rows, as HBase is not: a failure between them leaves both rows.

        Returns:
            The copy, bound to its new rowkey.
        """
        return run(self._move_op(obj, new_key), self.backend)

    # --- counters (F10) --------------------------------------------------------------

    def increment(self, key: Mapping[str, Any], **amounts: int) -> dict[str, int]:
        """Add to counter fields of one row; return their new values.

        Each counter is incremented atomically by the server (F10), which stamps it. One
        counter: one round trip. Several: one round trip for the increments and one to
        read the values back; the values read may include concurrent increments by others.
        """
        if len(amounts) == 1 and not self._instrument.listeners:
            # _increment_op's one-counter steps, run directly (see _calls)
            ((name, amount),) = amounts.items()
            row = self.mapper.key_of_values(key)
            column = self.mapper.counter_column(name, amount)
            return {name: self._calls().incrementer(column)(row, amount)}
        return run(self._increment_op(key, amounts), self.backend)

    def increment_many(self, items: Sequence[tuple[Mapping[str, Any], Mapping[str, int]]]) -> None:
        """Increment counters of many rows; each increment is atomic on its own.

        Round trips: one on the memory engine and over Thrift1 (``incrementRows``, after a
        read of the table's families the first time); over Thrift2, which has no multi-row
        increment, one ``increment`` per row (and a family check first when the rows are
        several).
        """
        run(self._increment_many_op(items), self.backend)

    # --- map fields (F6) --------------------------------------------------------------

    def put_entries(self, key: Mapping[str, Any], field: str, entries: Mapping[Any, Any]) -> None:
        """Add or overwrite entries of a map field without rewriting the row (one round trip)."""
        run(self._put_entries_op(key, field, entries), self.backend)

    def remove_entries(self, key: Mapping[str, Any], field: str, names: Sequence[Any]) -> None:
        """Delete entries of a map field by their keys (one round trip).

        The deletes are a write stamp: a later :meth:`put_entries` of this process of the
        same entry is never hidden by them.
        """
        run(self._remove_entries_op(key, field, names), self.backend)

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
        run(self._change_entries_op(key, field, put=put, remove=remove), self.backend)

    def get_entries(
        self, key: Mapping[str, Any], field: str, names: Sequence[Any] | None = None
    ) -> dict[Any, Any]:
        """Read a map field whole, or only the entries named (one round trip).

        A locked row deleted over Thrift1 has no entries (see :meth:`load`).
        """
        return run(self._get_entries_op(key, field, names), self.backend)
