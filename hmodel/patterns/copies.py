"""Denormalised copies (R3, R7): fields of one model copied into rows of another, kept in sync."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

import attrs

from hmodel.backend.base import Delete, Mutation, Put, RowResult
from hmodel.backend.op import Call, Op, backoff_op, iterate, run
from hmodel.errors import ConflictError, DeclarationError, ValidationError
from hmodel.patterns.guard import Outcome, RowGuard
from hmodel.patterns.storelike import END, StoreLike, pull
from hmodel.repository import Query, Repository, Store, execute_op
from hmodel.repository.core import RepositoryCore

__all__ = ["Copy", "CopyCore", "CopyReport", "StaleCopy"]

S = TypeVar("S")
T = TypeVar("T")

#: How often one copy is read again after a concurrent change before giving up.
ATTEMPTS = 20


@attrs.frozen
class CopyReport:
    """What a sync or a repair did.

    Attributes:
        examined: Copies found for the source(s).
        touched: Copies rewritten.
        round_trips: Backend requests the whole operation made.
        vanished: Copies deleted by another writer while this one ran (not re-created).
        orphans: From the target side only: copies whose source row does not exist (left
            as they are, and listed by :meth:`Copy.verify_targets`).
    """

    examined: int
    touched: int
    round_trips: int
    vanished: int = 0
    orphans: int = 0


@attrs.frozen
class StaleCopy:
    """A copy whose fields differ from its source's.

    Attributes:
        copy: The copy as stored.
        differences: Per copy field, ``(stored value, source value)``; the source value
            is ``None`` when the source row does not exist.
        source_found: Whether the source row exists (``False``: an orphan copy, found
            from the target side only).
    """

    copy: Any
    differences: Mapping[str, tuple[Any, Any]]
    source_found: bool = True


@attrs.frozen
class _Version:
    """A source's copied fields as stored: per target field, the value and its stamp."""

    values: Mapping[str, Any]
    stamps: Mapping[str, int]


class CopyCore(Generic[S, T]):
    """The declaration and sans-I/O operations of a copy, shared by both edges (R3, R7).

    Not used directly: :class:`Copy` (over a :class:`~hmodel.repository.Store`) and
    :class:`hmodel.aio.AsyncCopy` (over an :class:`~hmodel.aio.AsyncStore`) run its
    operations; see :class:`Copy` for the arguments and what a copy promises.
    """

    def __init__(
        self,
        store: StoreLike,
        source: type[S],
        target: type[T],
        *,
        fields: Mapping[str, str],
        locate: Callable[[S], Query | Iterable[T]],
        source_of: Callable[[T], Mapping[str, Any] | None] | None = None,
        batch_size: int = 100,
    ) -> None:
        self.store = store
        self.source: RepositoryCore[S, Any] = store.repository(source)
        self.target: RepositoryCore[T, Any] = store.repository(target)
        self.fields = dict(fields)
        self.locate = locate
        self.source_of = source_of
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise DeclarationError("batch_size is an int >= 1", value=batch_size)
        self.batch_size = batch_size
        for copied, original in self.fields.items():
            for repository, name in ((self.target, copied), (self.source, original)):
                info = repository.info
                if name not in info.columns and name not in info.key_field_names:
                    raise DeclarationError(
                        f"{info.name} has no plain field {name!r} to copy",
                        table=info.table.full_name,
                        field=name,
                    )
            if copied in self.target.info.key_field_names:
                raise DeclarationError(
                    f"{copied!r} is a key field of {self.target.info.name}: keys never "
                    "change (K10), so a copy cannot live there",
                    table=self.target.table,
                    field=copied,
                )
        self._locked = self.target.info.version_field is not None
        self._target_guard = RowGuard(store.backend, self.target.mapper)
        self._source_guard = RowGuard(store.backend, self.source.mapper)
        self._columns = {name: self.target.mapper.column_of(name) for name in self.fields}
        originals = [o for o in self.fields.values() if o in self.source.info.columns]
        self._source_columns = sorted(
            {*self._source_guard.required, *(self.source.mapper.column_of(o) for o in originals)}
        )
        self._ttl = self.target.mapper.ttl_of(None)

    # --- values -------------------------------------------------------------------------

    def values(self, source: S) -> dict[str, Any]:
        """The copied fields' values for ``source``, by target field name."""
        return {copied: getattr(source, original) for copied, original in self.fields.items()}

    def fill(self, target: T, source: S) -> T:
        """Set the copied fields of a target instance from ``source`` (before saving it)."""
        for name, value in self.values(source).items():
            setattr(target, name, value)
        return target

    def _copies_op(self, source: S) -> Op[None]:
        """The stream operation of ``copies``: yields the stored copies of ``source``."""
        located = self._located_op(source)
        try:
            while True:
                item = yield from pull(located)
                if item is END:
                    return
                yield item[1]
        finally:
            located.close()

    def _located_op(self, source: S) -> Op[None]:
        """Stream: the copies of ``source`` with their rows as read, ``(row, copy)``."""
        where = self.locate(source)
        if isinstance(where, Query):
            rows = execute_op(self.target.plan(query=where))
            try:
                while True:
                    item = yield from pull(rows)
                    if item is END:
                        return
                    result = item[1]
                    copy = self.target.load(result)
                    if copy is not None:
                        yield result, copy
            finally:
                rows.close()
        found = list(where)
        for item in found:
            if not isinstance(item, self.target.model):
                raise ValidationError(
                    f"locate() gave a {type(item).__name__}, not a {self.target.info.name}",
                    table=self.target.table,
                )
        yield from self._read_targets_op(found)

    def _read_targets_op(self, targets: Sequence[T]) -> Op[None]:
        """Stream: ``targets`` read again, whole (one ``get`` per batch), deleted ones left out."""
        columns = self.target.plan(fields=None).columns
        for start in range(0, len(targets), self.batch_size):
            chunk = targets[start : start + self.batch_size]
            rows = [self.target.mapper.rowkey(t) for t in chunk]
            found = yield Call("get", (self.target.table, rows), {"columns": columns})
            for result in found:
                copy = self.target.load(result)
                if copy is not None:
                    yield result, copy

    def _read_sources_op(self, rows: Sequence[bytes]) -> Op[dict[bytes, _Version]]:
        """The stored copied fields of the source rows (one ``get``); missing rows left out."""
        if not rows:
            return {}
        found = yield Call(
            "get",
            (self.source.table, list(dict.fromkeys(rows))),
            {"columns": self._source_columns},
        )
        versions: dict[bytes, _Version] = {}
        mapper = self.source.mapper
        for result in found:
            if not self._source_guard.exists(result):
                continue
            newest = max(cell.timestamp for cell in result.cells.values())
            key = mapper.info.key.decode(result.row)
            values: dict[str, Any] = {}
            stamps: dict[str, int] = {}
            for copied, original in self.fields.items():
                if original in key:
                    values[copied], stamps[copied] = key[original], newest
                    continue
                cell = result.cells.get(mapper.column_of(original))
                if cell is None:  # None: deleted by the save that set it, stamped <= newest
                    values[copied], stamps[copied] = None, newest
                else:
                    values[copied] = mapper.decode_cell(original, cell.value, row=result.row)
                    stamps[copied] = cell.timestamp
            versions[result.row] = _Version(values, stamps)
        return versions

    def _read_source_op(self, source: S) -> Op[_Version | None]:
        row = self.source.mapper.rowkey(source)
        versions = yield from self._read_sources_op([row])
        return versions.get(row)

    # --- rewriting ----------------------------------------------------------------------

    def _mutations(self, result: RowResult, version: _Version, *, elevate: bool) -> list[Mutation]:
        """The writes that make the copy ``result`` show ``version``; none when it does.

        Each copied cell takes its source cell's stamp. A stored cell with the source's
        bytes is left, whatever its stamp (a source saved again unchanged rewrites no
        copy), and so is a cell the source deleted that is not stored; one that differs
        at the source's very stamp is rewritten at it (the later of two puts at one
        timestamp shows). With
        ``elevate`` a stored cell that differs and is strictly newer than the source's (a
        target save that raced a source change) is overwritten at a stamp after it;
        without, it is left. The stamps written are observed (the store's write stamps),
        so a later save of the copy by this process is stamped after them.
        """
        mutations: list[Mutation] = []
        row = result.row
        for name, value in version.values.items():
            column = self._columns[name]
            stamp = version.stamps[name]
            stored = result.cells.get(column)
            if value is None:
                if stored is None:
                    continue
                if stored.timestamp > stamp:
                    if not elevate:
                        continue
                    stamp = self._after(row, stored.timestamp)
                mutations.append(Delete(row, column, stamp))
                continue
            data = self.target.mapper.encode_value(name, value)
            if stored is not None and stored.value == data:
                continue
            if stored is not None and stored.timestamp > stamp:
                if not elevate:
                    continue
                stamp = self._after(row, stored.timestamp)
            # A stored cell at the source's very stamp (the target saved in the source's
            # millisecond) is rewritten at that stamp: of two puts at one timestamp HBase
            # shows the later arrival, so the copy converges to the source.
            mutations.append(Put(row, column, data, stamp, self._ttl))
        written = [m.timestamp for m in mutations if m.timestamp is not None]
        if written:  # this process's later writes of the copy are stamped after these
            self.store.stamps.observe(max(written), rows=(row,))
        return mutations

    def _after(self, row: bytes, timestamp: int) -> int:
        return self.store.stamps.next(after=timestamp, rows=(row,))

    def _differ(self, result: RowResult, version: _Version) -> bool:
        """Whether the copy ``result`` shows other values than ``version`` (stamps aside)."""
        for name, value in version.values.items():
            stored = result.cells.get(self._columns[name])
            if value is None:
                if stored is not None:
                    return True
            elif stored is None or stored.value != self.target.mapper.encode_value(name, value):
                return True
        return False

    def _rewrite_op(self, pairs: Op[None], *, elevate: bool) -> Op[tuple[int, int, int]]:
        """Rewrite the copies ``pairs`` yields as they come; ``(examined, touched, vanished)``.

        ``pairs`` is a stream operation of ``(row, copy, source version)``.
        """
        examined = touched = vanished = 0
        batch: list[tuple[bytes, list[Mutation]]] = []
        guard = self._target_guard

        def flush() -> Op[None]:
            nonlocal touched, vanished
            outcomes = yield from guard._write_many_op(batch)
            gone = sum(outcome is Outcome.GONE for outcome in outcomes.values())
            vanished += gone
            touched += len(outcomes) - gone
            batch.clear()

        try:
            while True:
                item = yield from pull(pairs)
                if item is END:
                    break
                result, copy, version = item
                examined += 1
                if self._locked:
                    outcome = yield from self._rewrite_locked_op(copy, version)
                    touched += outcome is Outcome.APPLIED
                    vanished += outcome is Outcome.GONE
                    continue
                mutations = self._mutations(result, version, elevate=elevate)
                if not mutations:
                    continue
                if not guard.atomic:
                    batch.append((result.row, mutations))
                    if len(batch) >= self.batch_size:
                        yield from flush()
                    continue
                outcome = yield from self._write_guarded_op(
                    result, mutations, version, elevate=elevate
                )
                touched += outcome is Outcome.APPLIED
                vanished += outcome is Outcome.GONE
        finally:
            pairs.close()
        if batch:
            yield from flush()
        return examined, touched, vanished

    def _write_guarded_op(
        self, result: RowResult, mutations: list[Mutation], version: _Version, *, elevate: bool
    ) -> Op[Outcome]:
        """One copy by ``check_and_mutate``; a changed row is read again and retried."""
        for _ in range(ATTEMPTS):
            outcome = yield from self._target_guard._write_op(result, mutations)
            if outcome is not Outcome.CHANGED:
                return outcome
            fresh = yield from self._target_guard._read_op(
                result.row, self.target.plan(fields=None).columns
            )
            if fresh is None or not self._target_guard.exists(fresh):
                return Outcome.GONE
            result = fresh
            mutations = self._mutations(result, version, elevate=elevate)
            if not mutations:
                return Outcome.APPLIED
        raise ConflictError(
            f"this copy changed {ATTEMPTS} times while it was being rewritten: run repair",
            table=self.target.table,
            row=result.row,
        )

    def _rewrite_locked_op(self, copy: T, version: _Version) -> Op[Outcome]:
        """One copy of a versioned target, through its repository's checked save.

        A save refused (``ConflictError``: the copy changed, or over Thrift1 another
        writer's save of it is in progress within its lease) pauses (:func:`backoff_op`,
        jittered, at most ``BACKOFF_CAP_MS``), reads the copy again and retries, up to
        ``ATTEMPTS`` times: the other writer's claim, write and commit get time to land.
        """
        current: T | None = copy
        for attempt in range(ATTEMPTS):
            if current is None:
                return Outcome.GONE
            wanted = version.values
            if all(getattr(current, name) == value for name, value in wanted.items()):
                return Outcome.CHANGED  # nothing to write: not counted as touched
            for name, value in wanted.items():
                setattr(current, name, value)
            try:
                yield from self.target._save_op(current, ttl=None, write_stamp=None)
            except ConflictError:  # changed, or another save in progress: wait, read again
                yield from backoff_op(attempt + 1)
                key = self.target.mapper.key_values(current)
                current = yield from self.target._get_op(
                    required=False, fields=None, as_of=None, key=key
                )
                continue
            return Outcome.APPLIED
        raise ConflictError(
            f"this copy changed {ATTEMPTS} times while it was being rewritten: run repair",
            table=self.target.table,
            row=self.target.mapper.rowkey(copy),
        )

    @staticmethod
    def _versioned(located: Op[None], version: _Version) -> Op[None]:
        """Stream: each ``(row, copy)`` of ``located`` with ``version``."""
        try:
            while True:
                item = yield from pull(located)
                if item is END:
                    return
                yield (*item, version)
        finally:
            located.close()

    def _sync_op(self, source: S, *, elevate: bool) -> Op[tuple[int, int, int]]:
        """Sync the copies of ``source`` from its stored version; redo if it changed meanwhile.

        A sync that wrote a copy reads the source again (one ``get``) and, if it changed
        since, syncs again from the new version: copies equal to the source are left at
        their older stamps, so a late sync's older value is not hidden under them; the
        late sync itself puts the newer value back. A sync that wrote nothing (every
        copy equal) is done without the read, unless the target is versioned.
        """
        version = yield from self._read_source_op(source)
        for _ in range(ATTEMPTS):
            if version is None:
                return 0, 0, 0
            pairs = self._versioned(self._located_op(source), version)
            counts = yield from self._rewrite_op(pairs, elevate=elevate)
            if not self._locked and counts[1] == 0:
                return counts
            again = yield from self._read_source_op(source)
            if again == version:
                return counts
            version = again
        raise ConflictError(
            f"the source changed {ATTEMPTS} times while its copies were rewritten",
            table=self.source.table,
            row=self.source.mapper.rowkey(source),
        )

    def _report_op(self, source: S) -> Op[CopyReport]:
        """The operation of ``sync``."""
        before = self.store.backend.round_trips
        examined, touched, vanished = yield from self._sync_op(source, elevate=False)
        return CopyReport(
            examined, touched, self.store.backend.round_trips - before, vanished=vanished
        )

    def _save_op(self, source: S) -> Op[CopyReport]:
        """The operation of ``save``: the source's save, then its sync."""
        before = self.store.backend.round_trips
        yield from self.source._save_op(source, ttl=None, write_stamp=None)
        report = yield from self._report_op(source)
        return attrs.evolve(report, round_trips=self.store.backend.round_trips - before)

    # --- checking -----------------------------------------------------------------------

    def _differences(self, copy: T, wanted: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
        return {
            name: (getattr(copy, name), value)
            for name, value in wanted.items()
            if getattr(copy, name) != value
        }

    def _source_of(self, source: object) -> S:
        """``source`` if it is an instance of the source model (an argument of ``sources``).

        Raises:
            ValidationError: It is not, naming the argument ``sources``.
        """
        if not isinstance(source, self.source.model):
            raise ValidationError(
                f"sources holds a {type(source).__name__}, not a {self.source.info.name}",
                table=self.source.table,
                field="sources",
            )
        return source

    def _verify_op(self, sources: Iterable[S]) -> Op[list[StaleCopy]]:
        """The operation of ``verify``."""
        stale: list[StaleCopy] = []
        for source in map(self._source_of, sources):
            wanted = self.values(source)
            copies = self._copies_op(source)
            while True:
                copy = yield from pull(copies)
                if copy is END:
                    break
                differences = self._differences(copy, wanted)
                if differences:
                    stale.append(StaleCopy(copy, differences))
        return stale

    def _repair_op(self, sources: Iterable[S]) -> Op[CopyReport]:
        """The operation of ``repair``."""
        before = self.store.backend.round_trips
        examined = touched = vanished = 0
        for source in map(self._source_of, sources):
            e, t, v = yield from self._sync_op(source, elevate=True)
            examined, touched, vanished = examined + e, touched + t, vanished + v
        return CopyReport(
            examined, touched, self.store.backend.round_trips - before, vanished=vanished
        )

    # --- from the target side -----------------------------------------------------------

    def _targets_op(self, targets: Iterable[T] | None, partial: list[RowResult]) -> Op[None]:
        """Stream: every target row (or those given), ``(row, copy)``.

        Rows holding only copied cells are put in ``partial`` instead.
        """
        if targets is not None:
            yield from self._read_targets_op(list(targets))
            return
        rows = execute_op(self.target.plan(fields=None))
        try:
            while True:
                item = yield from pull(rows)
                if item is END:
                    return
                result = item[1]
                if not self.target.mapper.matches(result.row):
                    continue  # another record type sharing the table (R1)
                if not self._target_guard.exists(result) and self._only_copied(result):
                    partial.append(result)  # left by a Thrift1 writer that died
                    continue
                copy = self.target.load(result)
                if copy is not None:
                    yield result, copy
        finally:
            rows.close()

    def _only_copied(self, result: RowResult) -> bool:
        """Whether the row holds copied cells only: a copy written after its row's delete."""
        copied = set(self._columns.values())
        return all(column in copied for column in result.cells)

    def _with_sources_op(self, targets: Iterable[T] | None, partial: list[RowResult]) -> Op[None]:
        """Stream: every target (or those given) with its source version, read by batches."""
        if self.source_of is None:
            raise ValidationError(
                "checking copies from the target side needs source_of= (a copy's source "
                "key fields) in Copy(...)",
                table=self.target.table,
            )
        source_of = self.source_of
        batch: list[tuple[RowResult, T, bytes | None]] = []

        def flush() -> Op[None]:
            versions = yield from self._read_sources_op(
                [row for _, _, row in batch if row is not None]
            )
            for result, copy, row in batch:
                yield result, copy, None if row is None else versions.get(row)
            batch.clear()

        found = self._targets_op(targets, partial)
        try:
            while True:
                item = yield from pull(found)
                if item is END:
                    break
                result, copy = item
                key = source_of(copy)
                if key is None:
                    continue  # no source: nothing to copy
                batch.append((result, copy, self.source.mapper.key_of_values(key)))
                if len(batch) >= self.batch_size:
                    yield from flush()
        finally:
            found.close()
        yield from flush()

    def _verify_targets_op(self, targets: Iterable[T] | None) -> Op[list[StaleCopy]]:
        """The operation of ``verify_targets``."""
        stale: list[StaleCopy] = []
        partial: list[RowResult] = []
        checked = self._with_sources_op(targets, partial)
        while True:
            item = yield from pull(checked)
            if item is END:
                break
            result, copy, version = item
            if version is None:
                orphan = {name: (getattr(copy, name), None) for name in self.fields}
                stale.append(StaleCopy(copy, orphan, source_found=False))
            elif self._differ(result, version):
                stale.append(StaleCopy(copy, self._differences(copy, version.values)))
        for result in partial:
            key = self.target.mapper.info.key.decode(result.row)
            stale.append(StaleCopy(key, {}, source_found=False))
        return stale

    def _repair_targets_op(self, targets: Iterable[T] | None) -> Op[CopyReport]:
        """The operation of ``repair_targets``."""
        before = self.store.backend.round_trips
        orphans = 0
        partial: list[RowResult] = []
        pairs: list[tuple[RowResult, T, _Version]] = []
        checked = self._with_sources_op(targets, partial)
        while True:
            item = yield from pull(checked)
            if item is END:
                break
            if item[2] is None:
                orphans += 1
            else:
                pairs.append(item)
        examined, touched, vanished = yield from self._rewrite_op(_items(pairs), elevate=True)
        undo: list[Mutation] = [
            Delete(result.row, column, cell.timestamp)
            for result in partial
            for column, cell in result.cells.items()
        ]
        if undo:
            yield Call("mutate", (self.target.table, undo))
        vanished += len(partial)
        return CopyReport(
            examined + orphans,
            touched,
            self.store.backend.round_trips - before,
            vanished=vanished,
            orphans=orphans,
        )


def _items(items: Sequence[Any]) -> Op[None]:
    """A stream operation yielding ``items`` (no request)."""
    yield from items


class Copy(CopyCore[S, T]):
    """Fields of ``target`` rows that copy fields of a ``source`` model (R3, R7).

    Data is copied where it is read: the ship-to city into every line item of an order
    (R3), the buyer's attributes into the order table (R7), so a read needs no second
    lookup. The copy is declared once: which target fields copy which source fields, and
    how to find a source's copies (a key prefix of the target, a server-side condition,
    or any function, e.g. an index query). :meth:`fill` sets the copied fields of a new
    target instance; :meth:`sync` rewrites every copy of a changed source; :meth:`verify`
    and :meth:`verify_targets` find stale copies, :meth:`repair` and
    :meth:`repair_targets` rewrite them.

    **What a copy promises under concurrency.** HBase has no cross-row transaction:
    between the source's save and the copies' rewrite, readers see the new source and
    old copies. Then:

    * *Copies converge to the newest source version by write stamp.* A copied cell is
      written with the timestamp of the source cell it copies (read back from the source
      row: the source's save stamp), never with the time of the copying. HBase shows the
      version with the greatest timestamp whatever the order of arrival, so a late
      ``sync`` holding an older source value writes a version that stays hidden under
      the newer one. Two writers ``A`` (older stamp) and ``B``: whichever of their
      backend calls interleave, the copy ends showing ``B``'s value, because ``B``'s
      sync either writes ``B``'s cell (newest stamp) or finds it already there (same
      bytes, a stamp at least the source's), and ``A``'s write cannot hide it.
      A ``None`` source field is copied as a delete marker at its source's stamp, on
      every sync (a skipped marker would let an older value in flight show).
    * *Copies never create rows.* The rewrite applies only to a row that exists (see
      :class:`~hmodel.patterns.guard.RowGuard`): on the memory engine and Thrift2 one
      ``check_and_mutate`` per copy checks a cell read from the row in the same atomic
      operation, so a copy deleted before the write is not brought back, and a delete
      after it masks the copied cells like every other. Over Thrift1 (no atomic
      check-and-mutate) the cells are written, the rows read back, and the cells of rows
      found deleted are deleted again: a reader in between, or a crash there, can meet a
      row holding only the copied cells; :meth:`verify_targets` (with
      ``on_error="skip"`` scans) finds it.
    * *A target's own save is a write like any other.* If it writes the copied fields, it
      is stamped when it is made, so it wins over every source version stamped before it:
      a target saved with copied values read before the source changed stays stale until
      a repair. :meth:`sync` leaves such a copy (its cell is strictly newer than the
      source's; a target cell stamped in the source's very millisecond is rewritten, the
      later of two puts at one timestamp showing, so a target saved and then its source
      changed within one millisecond still converges);
      :meth:`repair` and :meth:`repair_targets` rewrite it at a stamp after the stale
      cell. Fill copied fields from a freshly read source (:meth:`fill`), or give the
      target a version field: its copies are then rewritten through its optimistic
      locking (below), and a target save racing a sync fails with ``ConflictError``.
    * *A versioned (locked) target* is rewritten through its repository's ``save`` with
      the version check (a ``check_and_mutate``, or Thrift1's claim protocol): read the
      copy, compare with the source, save; a conflict reads the copy again. After the
      copies, the source is read again and the sync starts over if it changed, so a sync
      holding an older value that commits after a newer sync finished sees the change
      and rewrites.
    * A delete of a copy applied after its rewrite but stamped before the source version
      it copies (a deleter whose clock is behind the source writer's by more than the
      time between them) masks the copy's other cells, not the copied ones: the row is
      left partial. This is HBase's clock-skew limit for every writer
      (``docs/repository.md``, "What a write guarantees").

    Every method runs the operation :class:`CopyCore` defines (sans-I/O, see
    :mod:`hmodel.backend.op`); :class:`hmodel.aio.AsyncCopy` runs the same ones from an
    asyncio event loop.

    Args:
        store: Where both models live.
        source: The model copied from.
        target: The model holding the copies.
        fields: Per target field, the source field it copies (same value type).
        locate: Given a source instance, where its copies are: a
            :class:`~hmodel.repository.Query` on the target, or an iterable of target
            instances.
        source_of: Given a copy, its source's key fields (``None``: it has none), for
            :meth:`verify_targets` and :meth:`repair_targets`.
        batch_size: Over Thrift1, copies rewritten per ``mutate`` (and read back per
            ``get``); elsewhere each copy is one ``check_and_mutate``.

    Raises:
        DeclarationError: Unknown fields, a key field as a copy (keys never change, K10),
            or a counter/version field.
    """

    source: Repository[S]
    target: Repository[T]

    def __init__(
        self,
        store: Store,
        source: type[S],
        target: type[T],
        *,
        fields: Mapping[str, str],
        locate: Callable[[S], Query | Iterable[T]],
        source_of: Callable[[T], Mapping[str, Any] | None] | None = None,
        batch_size: int = 100,
    ) -> None:
        super().__init__(
            store,
            source,
            target,
            fields=fields,
            locate=locate,
            source_of=source_of,
            batch_size=batch_size,
        )

    def copies(self, source: S) -> Iterator[T]:
        """The stored copies of ``source``, found as declared."""
        return iterate(self._copies_op(source), self.store.backend)

    def sync(self, source: S) -> CopyReport:
        """Rewrite every copy of ``source`` whose fields differ (call after saving it).

        The values copied are the source's as stored when the sync starts (one ``get``),
        each written at its source cell's timestamp, so the newest source version wins
        at every copy whatever the order the syncs land in. A copy whose cell is already
        the source's (same bytes, a stamp at least the source's), or newer than it, is
        left; a copy deleted meanwhile is not re-created (counted in ``vanished``). A
        source that no longer exists rewrites nothing.

        Round trips: the source's ``get``, the copies' read (a scan, or a ``get`` of the
        instances ``locate`` gives), then one ``check_and_mutate`` per copy rewritten
        (memory engine, Thrift2) or, over Thrift1, a ``mutate`` and a ``get`` per
        ``batch_size`` copies. A versioned target: one checked save per copy rewritten,
        and one more ``get`` of the source at the end.

        Raises:
            ConflictError: A copy (or, with a versioned target, the source) kept changing
                through every attempt; the copies written stay written.
        """
        return run(self._report_op(source), self.store.backend)

    def save(self, source: S) -> CopyReport:
        """Save ``source`` with its repository, then :meth:`sync` its copies.

        The report's round trips include the source's save.
        """
        return run(self._save_op(source), self.store.backend)

    def verify(self, sources: Iterable[S]) -> list[StaleCopy]:
        """The copies of ``sources`` whose copied fields differ from the source's.

        Only copies that ``locate`` finds for one of ``sources`` are checked; a copy no
        source locates any more is found from the target side (:meth:`verify_targets`).

        Raises:
            ValidationError: ``sources`` holds something not a source instance
                (``None``, say), naming the argument.
        """
        return run(self._verify_op(sources), self.store.backend)

    def repair(self, sources: Iterable[S]) -> CopyReport:
        """Rewrite every stale copy of ``sources`` from the sources as stored now.

        As :meth:`sync`, and a copy whose cell is newer than its source's but differs (a
        target's save that raced a source change) is rewritten at a stamp after it.

        Raises:
            ValidationError: ``sources`` holds something not a source instance.
        """
        return run(self._repair_op(sources), self.store.backend)

    def verify_targets(self, targets: Iterable[T] | None = None) -> list[StaleCopy]:
        """From the target side: every copy (or those given) checked against its source.

        Finds what :meth:`verify` cannot: a copy that no source locates any more (its
        source was re-assigned or deleted), and a copy left stale by a target save that
        raced a source change. Each copy's source is the one ``source_of`` names; copies
        for which it gives ``None`` are skipped. A copy whose source row does not exist
        is listed with ``source_found=False`` (an orphan). A row holding nothing but
        copied cells (over Thrift1, a copy written after its row's delete by a writer that
        died before undoing it) is listed with its key values as ``copy``, no
        differences and ``source_found=False``; :meth:`repair_targets` deletes it.

        Round trips: one scan of the target's rows (the model's range only) or a ``get``
        per ``batch_size`` copies given, and a ``get`` of their sources per batch.

        Raises:
            ValidationError: ``source_of`` was not given to the constructor.
        """
        return run(self._verify_targets_op(targets), self.store.backend)

    def repair_targets(self, targets: Iterable[T] | None = None) -> CopyReport:
        """From the target side: rewrite every stale copy (or those given) from its source.

        As :meth:`repair`, for the copies :meth:`verify_targets` checks. Orphans (no
        source row) are left and counted in ``orphans``; rows holding only copied cells
        are deleted (each cell at its own timestamp) and counted in ``vanished``.

        Raises:
            ValidationError: ``source_of`` was not given to the constructor.
            ConflictError: A copy kept changing through every attempt.
        """
        return run(self._repair_targets_op(targets), self.store.backend)
