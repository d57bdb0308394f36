"""Optimistic locking (version fields): atomic where the backend can, claimed over Thrift1."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmodel.backend.base import Backend, Delete, Mutation, Put, RowResult
from hmodel.backend.op import Call, Op
from hmodel.clock import WriteStamps
from hmodel.errors import (
    BackendError,
    ConflictError,
    ConnectionLostError,
    OutcomeUnknownError,
    RowExistsError,
)
from hmodel.mapping import Mapper
from hmodel.mapping.tombstone import no_row
from hmodel.repository.identity import IdentityMap
from hmodel.repository.version import VersionCell

__all__ = ["Locking"]

#: What a backend needs for the atomic protocol.
ATOMIC = "check_and_mutate"
#: Checks an insert (or a fence) makes over a fence that keeps changing before giving up.
_FENCE_ATTEMPTS = 4


class Locking:
    """Saves and deletes of one locked model, and how readers see its version.

    Two protocols, chosen by the backend's capabilities (``docs/repository.md`` compares
    them):

    * **atomic** (``check_and_mutate``: the memory engine, HBase's Thrift2 API): one round
      trip compares the version cell with the version read and, in the same atomic row
      operation, writes the data cells and the new version. Readers see the row before or
      after, never in between; a refused save has changed nothing.

    In both, data cells carry the new version as their timestamp. Thrift1 can only write
    the version cell with the server's time, so its deletes leave the version cell as
    ``b""`` (which reads as "no row", and which an insert expecting no version accepts)
    instead of deleting it. Write one locked model through one protocol: a Thrift1 and an
    atomic writer on one table would compare server and client stamps of the version cell.
    * **claimed** (HBase's Thrift1 API, whose ``checkAndPut`` carries one cell): a
      check-and-put turns the version cell into a pending marker (the claim), one
      ``mutateRowsTs`` writes the data (HBase's Thrift1 handler applies its puts, then its
      deletes, as two row operations: a reader may briefly see the new version with a
      field set to ``None`` still holding its old value), a second check-and-put commits
      the version. Readers see the version the save started from until its data is there,
      and the new one after. A claim blocks other writers for ``lease_ms``.

    Args:
        backend: Where to write.
        mapper: The model's mapper.
        version: The version cell.
        stamps: Write stamps; a new version is a stamp past the version read.
        identity: The repository's identity map (what each instance was read as).
    """

    def __init__(
        self,
        backend: Backend,
        mapper: Mapper[Any],
        version: VersionCell,
        stamps: WriteStamps,
        identity: IdentityMap,
    ) -> None:
        self.backend = backend
        self.mapper = mapper
        self.version = version
        self.stamps = stamps
        self.identity = identity
        self.table = mapper.info.table.full_name
        self.field = mapper.info.version_field or ""
        # Whether a save may leave no data cell: every plain field may be None (maps and
        # counters may be empty too). Otherwise every row this library wrote holds one.
        self._may_be_empty = all(f.nullable for f in mapper.info.columns.values())
        #: What an insert over a refused check reads (the version column among them).
        self._columns = mapper.columns(None)

    @property
    def atomic(self) -> bool:
        """Whether the backend has the atomic check-and-mutate."""
        return ATOMIC in self.backend.capabilities

    # --- reads --------------------------------------------------------------------------

    def deleted(self, result: RowResult) -> bool:
        """Whether ``result`` (read with the version column) is deleted over Thrift1 or fenced.

        Its version cell is ``b""`` or a fence (:class:`VersionCell`): whatever other
        cells the row holds, it is no row.
        """
        return no_row(result.value(self.version.column))

    def read(self, result: RowResult) -> tuple[RowResult, int, bytes | None] | None:
        """Split a row into its data cells, the version a reader sees, and the cell's bytes.

        The one place every read of a locked model (get, get_many, scans, pages, record
        types, index reads, index jobs) decides whether a row exists. ``None`` when:

        * the version cell is ``b""``: the row was deleted over Thrift1 (its version cell
          stays as that tombstone). Any other cell left in the row (an entry put by
          :meth:`~hmodel.repository.Repository.put_entries` or a counter incremented after
          the delete, a cell of an older release's delete) does not bring the row back;
        * the version cell is a fence (``b"F"`` + tag): a unique index's writer fenced the
          row against a write that may still land (:meth:`fence_op`);
        * the row holds no data cell and its version cell is a Thrift1 claim: a first
          save whose data is not there yet, or a delete whose data deletes landed
          before its tombstone (a save setting every field to ``None`` reads so too
          until it commits);
        * the row holds no data cell and the model has a field that may not be ``None``:
          no save wrote such a row. Over Thrift1 it is an insert stamped before another
          writer's delete that landed after it: its data cells stay hidden behind the
          delete marker, while its version cell, stamped by the server, shows.

        A committed version with no data cell, of a model whose every plain field may be
        ``None``, is a row saved with every value field ``None``: it exists, its fields
        ``None``. (Over Thrift1 the hidden insert above reads so too for such a model:
        the version it wrote, with no value.)
        """
        column = self.version.column
        raw = result.value(column)
        if raw is None:
            return result, 0, None
        if self.deleted(result):
            return None
        cells = {c: cell for c, cell in result.cells.items() if c != column}
        if not cells and (len(raw) != 8 or not self._may_be_empty):
            return None  # a claim, or a row no save wrote, with no data cell (see above)
        number = self.version.number(raw, cells, table=self.table, row=result.row)
        return RowResult(result.row, cells), number, raw

    # --- writes -------------------------------------------------------------------------

    def _expected(self, obj: object, row: bytes) -> tuple[int, bytes | None]:
        current = self.version.check(getattr(obj, self.field), table=self.table, field=self.field)
        loaded = self.identity.recall(obj)
        if loaded is not None and loaded.row == row:
            return current, loaded.version
        return current, self.version.encode(current)

    def _refused(self, expected: bytes | None, current: int, row: bytes) -> ConflictError:
        if expected is None:
            return RowExistsError(
                f"{self.mapper.info.name} already exists: this new instance (version 0) "
                "was not saved over it",
                table=self.table,
                row=row,
                field=self.field,
            )
        return ConflictError(
            f"{self.mapper.info.name} was changed or deleted by another writer since "
            f"version {current}; nothing was written: read it again and retry",
            table=self.table,
            row=row,
            field=self.field,
        )

    def plan_save(
        self, obj: object, row: bytes, *, at: int | None = None, rows: Sequence[bytes] = ()
    ) -> tuple[int, bytes | None, int]:
        """Check the instance's version and choose the new one, without any I/O.

        Args:
            obj: The instance to save.
            row: Its rowkey.
            at: A stamp reserved earlier by this method for this save (a pattern that
                orders its own writes with the save's, e.g. a secondary index); taken as
                the new version when it is still greater than the version read.
            rows: Further rows whose stamps the new version must follow (reservation).

        Returns:
            ``(version read, bytes expected in the version cell, new version)``; the
            save's cells take the new version as their timestamp, and the stamp before
            it is free for deletes that must hide only older cells (a map's family).

        Raises:
            ValidationError: The version field holds no valid version.
            ConflictError: A Thrift1 save of this row is in progress (within its lease).
        """
        current, expected = self._expected(obj, row)
        self.version.check_not_pending(expected, self.stamps.clock(), table=self.table, row=row)
        claim = self.version.claim_of(expected)
        floor = max(current, claim[1] if claim else 0)
        if at is not None and at > floor:
            return current, expected, at
        count = 2 if self.mapper.clears_family() else 1
        first = self.stamps.next(count, after=floor, rows=(row, *rows))
        return current, expected, first + count - 1

    def plan_delete(
        self, obj: object, row: bytes, *, at: int | None = None, rows: Sequence[bytes] = ()
    ) -> tuple[int, bytes, int]:
        """Check a delete of ``obj`` can start and choose its stamp, without any I/O.

        ``at`` and ``rows`` as for :meth:`plan_save`.

        Returns:
            ``(version read, bytes expected in the version cell, the delete's stamp)``.

        Raises:
            ValidationError: The version field holds no valid version.
            ConflictError: The instance was never saved (version 0), or a Thrift1 save
                of this row is in progress (within its lease).
        """
        current, expected = self._expected(obj, row)
        if expected is None:
            raise ConflictError(
                f"this {self.mapper.info.name} was never saved (version 0): nothing to delete",
                table=self.table,
                row=row,
                field=self.field,
            )
        self.version.check_not_pending(expected, self.stamps.clock(), table=self.table, row=row)
        claim = self.version.claim_of(expected)
        floor = max(current, claim[1] if claim else 0)
        if at is not None and at > floor:
            return current, expected, at
        return current, expected, self.stamps.next(after=floor, rows=(row, *rows))

    def check_stored(self, obj: object, row: bytes, stored: object | None) -> None:
        """Refuse, before any write, a save of ``obj`` whose version ``stored`` already outdates.

        ``stored`` is the instance read from the row just now (``None``: no row). A
        pattern that writes other rows before the save (a secondary index) calls this
        first, so that a save bound to fail its version check writes nothing at all.

        Raises:
            RowExistsError: ``obj`` is new (version 0) and the row exists.
            ConflictError: The stored version is not ``obj``'s.
        """
        current = self.version.check(getattr(obj, self.field), table=self.table, field=self.field)
        held = 0 if stored is None else getattr(stored, self.field)
        if held != current:
            raise self._refused(None if current == 0 else b"", current, row)

    def save_op(
        self,
        row: bytes,
        *,
        current: int,
        expected: bytes | None,
        new: int,
        mutations: Sequence[Mutation],
        ttl_ms: int | None,
    ) -> Op[bytes]:
        """Write ``mutations`` (stamped ``new``) if the version cell still holds ``expected``.

        A sans-I/O operation (:mod:`hmodel.backend.op`): both repository edges run it.

        Returns:
            The committed version cell's bytes.

        Raises:
            RowExistsError: A new instance (version 0) and the row exists. Nothing written.
            ConflictError: The stored version is not the one read. Nothing written.
            OutcomeUnknownError: Thrift1 only: the save stalled past the lease and another
                writer took the row over after its data landed, or the connection dropped
                during a non-idempotent step; read the row before retrying.
        """
        committed = self.version.encode(new) or b""
        if self.atomic:
            # The version cell takes the save's stamp, like its data; taking over a Thrift1
            # claim (a server-stamped marker) it takes the server's time, to be newer.
            taking_over = self.version.claim_of(expected) is not None
            stamp = Put(row, self.version.column, committed, None if taking_over else new, ttl_ms)
            if expected is None:
                # An insert: the row holds no version, so there is nothing for the deletes
                # of None fields and of maps' old entries to remove; and HBase 2.2's
                # checkAndMutate refuses an "absent" check with deletes (its checkAndPut
                # carries the puts alone, atomically).
                mutations = [m for m in mutations if isinstance(m, Put)]
            checked = expected
            for _ in range(_FENCE_ATTEMPTS):
                applied = yield Call(
                    "check_and_mutate",
                    (self.table, row, self.version.column, checked, [*mutations, stamp]),
                )
                if applied:
                    return committed
                checked = yield from self._over_fence_op(row, expected, new)
                if checked is None:
                    break
            raise self._refused(expected, current, row)
        marker = self.version.pending(current, new)
        column = self.version.column
        checked = expected
        for _ in range(_FENCE_ATTEMPTS):
            claimed = yield Call(
                "check_and_put",
                (self.table, row, column, checked, Put(row, column, marker, ttl=ttl_ms)),
            )
            if claimed:
                break
            checked = yield from self._over_fence_op(row, expected, new)
            if checked is None:
                break
        if not claimed:
            raise self._refused(expected, current, row)
        yield from self._write_claimed(row, checked, marker, mutations)
        done = yield Call(
            "check_and_put",
            (self.table, row, column, marker, Put(row, column, committed, ttl=ttl_ms)),
        )
        if not done:
            raise OutcomeUnknownError(
                "this save stalled past the lock lease and another writer took the row "
                "over after its data was written; over Thrift1 whether that writer read "
                "this save's data cannot be known: read the row before retrying",
                table=self.table,
                row=row,
                field=self.field,
            )
        return committed

    def _over_fence_op(self, row: bytes, expected: bytes | None, new: int) -> Op[bytes | None]:
        """After a refused check: the version cell an insert stamped ``new`` may replace.

        Only an insert (``expected`` ``None``) replaces anything, and only a row that
        reads as absent (:meth:`read`) although its version cell is there:

        * a fence whose tag is older than ``new`` (the write the fence was put against,
          stamped at that tag or before, stays refused);
        * a committed version with no data cell, of a model with a field that may not be
          ``None``: no save wrote it (over Thrift1, an insert hidden behind a later
          delete), and without this no insert could ever recreate the row.

        One ``get`` of the model's columns; ``None`` when the cell holds anything else
        (the row exists, a newer fence, a claim): the save is refused. The caller's next
        check is against the exact bytes returned, so a change meanwhile refuses it.
        """
        if expected is not None:
            return None
        column = self.version.column
        found = yield Call("get", (self.table, [row]), {"columns": self._columns})
        if not found:
            return None
        result: RowResult = found[0]
        raw = result.value(column)
        tag = self.version.fence_of(raw)
        if tag is not None:
            return raw if tag < new else None
        # A committed version (not a claim: a save in flight) on a row that reads as absent.
        return raw if raw is not None and len(raw) == 8 and self.read(result) is None else None

    def fence_op(self, row: bytes, tag: int) -> Op[bool]:
        """Fence a row that reads as absent against every write of it stamped ``tag`` or before.

        For a unique index (I1) taking over the claim, tagged ``tag``, of a write that
        may still land: the row's version cell becomes the fence ``b"F" + tag``
        (:class:`VersionCell`) by a check-and-put from the bytes read, so that write's
        check (the cell absent for an insert, its version read for an update) fails.
        The row still reads as absent. Atomic backends stamp the fence ``tag``, so any
        later insert (stamped past it) replaces it visibly; Thrift1 stamps it with the
        server's time. One ``get`` and one conditional write per attempt.

        Returns:
            Whether the row is fenced (``True`` also for a fence of ``tag`` or later
            already there); ``False`` when the row holds a committed version (it exists
            now: the caller reads it again) or the cell kept changing.

        Raises:
            ConflictError: Over Thrift1, a save of the row is in progress (within its
                lease): the fence cannot be put before it ends.
        """
        column = self.version.column
        for _ in range(_FENCE_ATTEMPTS):
            found = yield Call("get", (self.table, [row]), {"columns": [column]})
            raw = found[0].value(column) if found else None
            fenced = self.version.fence_of(raw)
            if fenced is not None and fenced >= tag:
                return True
            if raw is not None and len(raw) == 8:
                return False  # a committed version: the row exists now (that write landed?)
            self.version.check_not_pending(raw, self.stamps.clock(), table=self.table, row=row)
            value = self.version.fence(tag)
            if self.atomic:
                applied = yield Call(
                    "check_and_mutate",
                    (self.table, row, column, raw or None, [Put(row, column, value, tag)]),
                )
            else:
                applied = yield Call(
                    "check_and_put", (self.table, row, column, raw or None, Put(row, column, value))
                )
            if applied:
                return True
        return False

    def _write_claimed(
        self, row: bytes, expected: bytes | None, marker: bytes, mutations: Sequence[Mutation]
    ) -> Op[None]:
        """The data step of a claimed save; releases the claim if nothing was applied."""
        try:
            yield Call("mutate", (self.table, mutations))
        except ConnectionLostError as lost:
            raise OutcomeUnknownError(
                "the data write of this locked save failed after its claim: it may or may "
                f"not have been applied ({lost.message}); the row stays claimed until the "
                "lock lease ends: read it before retrying",
                table=self.table,
                row=row,
                field=self.field,
            ) from lost
        except BackendError:
            # Refused by the server: nothing of the data was applied. Give the row back.
            column = self.version.column
            yield Call(
                "check_and_put",
                (self.table, row, column, marker, Put(row, column, expected or b"")),
            )
            raise

    def _entries_beside(self, row: bytes) -> Op[RowResult | None]:
        """The prefixed-map entries in the version cell's family (one ``get``; none if none).

        Read under the delete's claim: no locked save of the row can add any meanwhile.
        """
        family = self.version.column.partition(b":")[0]
        if family not in self.mapper.previous_families():
            return None
        found = yield Call("get", (self.table, [row]), {"columns": [family]})
        return found[0] if found else None

    def delete_op(self, obj: object, row: bytes, *, at: int | None = None) -> Op[None]:
        """Delete the row if its version is the one ``obj`` was read with.

        A sans-I/O operation (:mod:`hmodel.backend.op`): both repository edges run it.

        ``at``: a stamp reserved earlier with :meth:`plan_delete` (see :meth:`plan_save`).

        Atomic: one ``check_and_mutate`` deleting the whole row. Over Thrift1: a claim,
        a read of the prefixed-map entries sharing the version cell's family (only for a
        model that has such a map), one ``mutateRowsTs`` deleting every cell but the
        version cell, and a commit that leaves the version cell as ``b""``, which every
        read takes for "no row" whatever other cells the row still holds.

        Raises:
            ConflictError: The stored version is not the one read (or the row is gone).
            OutcomeUnknownError: Thrift1 only, as in :meth:`save_op`.
        """
        current, expected, stamp = self.plan_delete(obj, row, at=at)
        column = self.version.column
        if self.atomic:
            applied = yield Call(
                "check_and_mutate",
                (self.table, row, column, expected, [Delete(row, timestamp=stamp)]),
            )
            if not applied:
                raise self._refused(expected, current, row)
            return
        # Thrift1: the version cell is server-stamped, so it is never deleted (a delete at
        # our stamp might not mask it); it is set to b"", which reads as "no row" and
        # which an insert's check (expected None) accepts. Its family cannot be deleted
        # whole, so the entries of prefixed maps sharing it are read and deleted by name.
        marker = self.version.pending(current, stamp)
        claimed = yield Call(
            "check_and_put", (self.table, row, column, expected, Put(row, column, marker))
        )
        if not claimed:
            raise self._refused(expected, current, row)
        beside = yield from self._entries_beside(row)
        deletes = self.mapper.delete_except(row, column, stamp, beside)
        yield from self._write_claimed(row, expected, marker, deletes)
        done = yield Call("check_and_put", (self.table, row, column, marker, Put(row, column, b"")))
        if not done:
            raise OutcomeUnknownError(
                "this delete stalled past the lock lease and another writer took the row "
                "over: read the row before retrying",
                table=self.table,
                row=row,
                field=self.field,
            )
