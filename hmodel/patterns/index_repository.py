"""IndexedRepository: saves and deletes that keep secondary indexes consistent (I1)."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import timedelta
from typing import Any, Generic, TypeVar, cast

import attrs

from hmodel.backend.argument import MAX_ROW_LENGTH
from hmodel.backend.base import Backend, Delete, Mutation, Put, RowResult, prefix_stop
from hmodel.backend.op import Call, Op, create_tables_op, iterate, run
from hmodel.errors import (
    ClaimLostError,
    ConflictError,
    DecodeError,
    HModelError,
    LeaseExpiredError,
    NotFoundError,
    QueryError,
    UniqueViolationError,
    ValidationError,
)
from hmodel.keys import Bytes, Nullable, Str
from hmodel.keys.modifier import PRESENT
from hmodel.patterns.index import Entry, Index
from hmodel.repository import KeySpan, Page, Repository, ScanPlan, open_rows
from hmodel.repository.core import RepositoryCore
from hmodel.repository.page import Position, TokenCodec

__all__ = ["IndexStats", "IndexedRepository", "parse_result"]

M = TypeVar("M")
#: The backend type: a ``Backend`` (synchronous edge) or an ``AsyncBackend``.
B = TypeVar("B")

#: Claim attempts on a contended unique value before giving up with ConflictError.
_CLAIM_ATTEMPTS = 5


def parse_result(index: Index[Any], result: RowResult) -> Entry | None:
    """:meth:`Index.parse` of a row as read, with its newest cell timestamp.

    Raises:
        DecodeError: Not a row of this index.
    """
    cells = {c: cell.value for c, cell in result.cells.items()}
    newest = max((cell.timestamp for cell in result.cells.values()), default=0)
    return index.parse(result.row, cells, newest)


def _claim_of(index: Index[Any], entry_row: bytes, status: bytes | None) -> Entry | None:
    """The claim a unique row's status bytes hold; ``None`` for none, or a released row."""
    return index.parse(entry_row, {index.status_column: status}) if status else None


@attrs.frozen
class _Claim:
    """A unique value's row one write owns (status ``00 + tag + data row``).

    Attributes:
        index: The unique index.
        entry_row: The value's row.
        previous: The status bytes the write replaced (``None``: absent or released),
            given back if the write writes no data.
        releasing: The row's old value (released at step 3), not its new one (verified).
    """

    index: Index[Any]
    entry_row: bytes
    previous: bytes | None
    releasing: bool


@attrs.define
class IndexStats:
    """What readers and writers of an :class:`IndexedRepository` did, counted (thread-safe).

    Attributes:
        served_from_index: Verified entries a covering read served without the data row.
        served_from_data: Entries served after reading their data row.
        skipped: Entries a read skipped: the data row is gone or holds other values.
        repaired_verified: Unverified entries older than ``grace`` a read rewrote verified.
        repaired_deleted: Unverified entries older than ``grace`` a read deleted.
        guard_refused: Step-3 writes a guard refused (another write superseded the entry,
            or a repair removed it): nothing was written by them.
        reasserted: Entries of committed writes written again (unverified) because a read
            repair had removed them while the write stalled past the grace.
        repair_failed: Read repairs that failed (a backend error): the read still
            answered; the entry stays for a later repair.
        repair_deferred: Entries a read repair left unverified because the data row it
            read was older than the entry's tag (see :meth:`IndexedRepository.repair`).
        fenced: Data rows the rebuild job saved again (same values, a new version) to
            fence a write in transit before verifying its entry.
        hidden_inserts: Inserts of a model with a version field whose data row, read
            back, did not show them (a concurrent delete with a later stamp hides them):
            their entries were left unverified and their claims given back.
        superseded: Saves that found a claim of their new value gone at commit because
            a later write of the same row, reading their data, had taken it over: they
            returned normally (no ``ClaimLostError``).
    """

    served_from_index: int = 0
    served_from_data: int = 0
    skipped: int = 0
    repaired_verified: int = 0
    repaired_deleted: int = 0
    guard_refused: int = 0
    reasserted: int = 0
    repair_failed: int = 0
    repair_deferred: int = 0
    fenced: int = 0
    hidden_inserts: int = 0
    superseded: int = 0
    _lock: threading.Lock = attrs.field(factory=threading.Lock, repr=False, eq=False)

    def add(self, name: str, amount: int = 1) -> None:
        """Add ``amount`` to the counter ``name``."""
        with self._lock:
            setattr(self, name, getattr(self, name) + amount)

    def as_dict(self) -> dict[str, int]:
        """The counters by name."""
        return {
            f.name: getattr(self, f.name)
            for f in attrs.fields(type(self))
            if not f.name.startswith("_")
        }


class IndexedRepositoryCore(Generic[M, B]):
    """The state, planning and sans-I/O operations both indexed repository edges share (I1).

    Not used directly: :class:`IndexedRepository` (synchronous) and
    :class:`hmodel.aio.AsyncIndexedRepository` (asyncio) are its facades and take its
    arguments. Each I/O method of theirs is one operation here (``_save_op``,
    ``_page_op``, ``_repair_op``...), a generator of backend requests
    (:mod:`hmodel.backend.op`) that runs the data repository's own operations with
    ``yield from``: the write protocol, the claims and the read repair are written once.
    See :class:`IndexedRepository` for the protocol.

    Raises:
        ValidationError: An index of another model, or two indexes with one name.
    """

    def __init__(
        self,
        repository: RepositoryCore[M, B],
        indexes: Sequence[Index[M]],
        *,
        token_secret: bytes | None = None,
    ) -> None:
        self.repository = repository
        self.backend: B = repository.backend
        self.stamps = repository.stamps
        self.indexes: dict[str, Index[M]] = {}
        for index in indexes:
            if index.model is not repository.model:
                raise ValidationError(
                    f"index {index.name!r} is on {index.model.__name__}, not on "
                    f"{repository.model.__name__}",
                    table=index.table.full_name,
                )
            if index.name in self.indexes:
                raise ValidationError("two indexes share a name", value=index.name)
            self.indexes[index.name] = index
        self.stats = IndexStats()
        self._tokens = repository.tokens if token_secret is None else TokenCodec(token_secret)

    # --- plumbing (no I/O) ------------------------------------------------------------------

    @property
    def atomic(self) -> bool:
        """Whether step 3 is guarded by ``check_and_mutate`` (the backend has it)."""
        capabilities: frozenset[str] = cast(Any, self.backend).capabilities
        return "check_and_mutate" in capabilities

    def index(self, name: str | Index[M]) -> Index[M]:
        """The index called ``name``, or ``name`` itself if it is one of this repository's.

        Raises:
            QueryError: No such index.
        """
        if isinstance(name, Index):
            found = self.indexes.get(name.name)
            if found is None or found != name:
                raise QueryError("this index is not one of this repository's", value=name.name)
            return found
        found = self.indexes.get(name)
        if found is None:
            raise QueryError("no such index", value=name)
        return found

    def expired(self, index: Index[M], tag: int) -> bool:
        """Whether an entry tagged ``tag`` is older than the index's grace (not in flight)."""
        return self.stamps.clock() - tag > index.grace_ms

    def _create_tables_op(self, *, exist_ok: bool) -> Op[None]:
        """Create the data table and every index table (one ``create_table`` each).

        Raises:
            TableExistsError: A table exists and ``exist_ok`` is false.
        """
        tables = [self.repository.info.table, *(i.table for i in self.indexes.values())]
        return create_tables_op(tables, exist_ok=exist_ok)

    def _unique(self) -> list[Index[M]]:
        return [i for i in self.indexes.values() if i.unique]

    def _entry_rows(self, obj: M, row: bytes) -> dict[str, bytes]:
        """Per index name, the entry rowkey ``obj`` (at ``row``) has; none for a ``None`` value.

        Raises:
            ValidationError: A value does not encode, or the rowkey is too long for HBase.
        """
        rows: dict[str, bytes] = {}
        for name, index in self.indexes.items():
            try:
                entry_row = index.row_of(obj, row)
            except HModelError as exc:
                raise ValidationError(
                    f"index {name!r}: {exc.message}",
                    table=index.table.full_name,
                    row=row,
                    field=exc.field,
                ) from exc
            if entry_row is None:
                continue
            if len(entry_row) > MAX_ROW_LENGTH:
                raise ValidationError(
                    f"index {name!r}: the entry's rowkey would be {len(entry_row)} bytes, "
                    f"over HBase's {MAX_ROW_LENGTH}: index a shorter value",
                    table=index.table.full_name,
                    row=row,
                    field=index.on[0] if len(index.on) == 1 else None,
                )
            rows[name] = entry_row
        return rows

    def _claim_rows(
        self, new_rows: Mapping[str, bytes], old_rows: Mapping[str, bytes]
    ) -> list[bytes]:
        """The unique rows a write touches (their stamps order its tag too)."""
        names = [i.name for i in self._unique()]
        return [r for rows in (new_rows, old_rows) for n, r in rows.items() if n in names]

    def _check_lease(self, row: bytes, tag: int) -> None:
        """Before the data write: abandon a write already half a grace old (its lease).

        Readers repair an unverified entry, and writers take a claim over, only once it
        is older than its index's grace. A write that sends its data write no later than
        half the grace after its tag has it landed by then, provided a request lands
        within the other half (keep the Thrift timeouts below it). A write that stalled
        longer is abandoned here, before its data write, so a stall never lets a reader
        act on a write that is still to land.

        Raises:
            LeaseExpiredError: More than half the shortest grace passed since the tag;
                no data was written (the claims are given back by the caller).
        """
        if not self.indexes:
            return
        grace = min(i.grace_ms for i in self.indexes.values())
        if self.stamps.clock() - tag > grace // 2:
            raise LeaseExpiredError(
                f"this write stalled for more than half the index grace ({grace} ms) before "
                "its data write, so readers may already treat it as dead; nothing of its "
                "data was written: read the row and retry",
                table=self.repository.table,
                row=row,
            )

    def _covered(self, index: Index[M], entry: Entry) -> dict[str, Any]:
        repo = self.repository
        fields: dict[str, Any] = dict(repo.info.key.decode(entry.data_row))
        fields.update(entry.values)
        for name in index.covering:
            raw = entry.cells.get(name.encode())
            fields[name] = None if raw is None else repo.mapper.decode_cell(name, raw)
        return fields

    def _fields_of(self, index: Index[M], obj: M) -> dict[str, Any]:
        repo = self.repository
        fields = repo.mapper.key_values(obj)
        for name in (*index.on, *index.covering):
            fields[name] = getattr(obj, name)
        return fields

    # --- queries (no I/O) -------------------------------------------------------------------

    def plan(
        self,
        index: str | Index[M],
        values: Mapping[str, Any] | None = None,
        *,
        startswith: str | bytes | None = None,
        low: Any = None,
        high: Any = None,
        low_inclusive: bool = True,
        high_inclusive: bool = False,
        reverse: bool = False,
    ) -> ScanPlan:
        """The index scan of a query, without any I/O (``describe()`` explains it).

        Args:
            index: The index, by name or as the object.
            values: Values of a leading run of the indexed fields (equality).
            startswith: A prefix of the next indexed field, when it is a variable-width
                ``Str`` or ``Bytes``: the rows whose value starts with it.
            low: Lower bound of the next indexed field (logical, inclusive by default).
            high: Upper bound of the next indexed field (exclusive by default).
            low_inclusive: Whether ``low`` is included.
            high_inclusive: Whether ``high`` is included.
            reverse: Highest values first.

        Raises:
            QueryError: Unknown index or fields, ``startswith`` with bounds or on another
                kind of field, or values that do not encode.
        """
        found = self.index(index)
        prefix = dict(values or {})
        if startswith is not None and (low is not None or high is not None):
            raise QueryError("startswith cannot be combined with low/high", value=startswith)
        try:
            ranges = found.key.ranges(
                prefix,
                low=low,
                high=high,
                low_inclusive=low_inclusive,
                high_inclusive=high_inclusive,
            )
        except HModelError as exc:
            raise QueryError(
                f"index {found.name!r}: {exc.message}", field=exc.field, value=exc.value
            ) from exc
        spans = [KeySpan(r.start, r.stop) for r in ranges]
        if startswith is not None:
            position = len(prefix)
            if position >= len(found.components):
                raise QueryError("startswith needs an indexed field after values", value=prefix)
            component = found.components[position]
            lead = b""
            if isinstance(component, Nullable):
                component, lead = component.component, PRESENT
            if not isinstance(component, Str | Bytes) or component.width is not None:
                raise QueryError(
                    "startswith needs a variable-width Str or Bytes field",
                    field=component.name,
                )
            try:
                head = lead + component.stem(startswith)
            except HModelError as exc:
                raise QueryError(exc.message, field=component.name, value=startswith) from exc
            spans = [KeySpan(s.start + head, prefix_stop(s.start + head)) for s in spans]
        return ScanPlan(
            table=found.table.full_name,
            spans=tuple(spans),
            columns=(found.family,),
            reverse=reverse,
            merge_offset=found.salt_width if len(spans) > 1 else 0,
        )

    def explain(
        self, index: str | Index[M], values: Mapping[str, Any] | None = None, **bounds: Any
    ) -> str:
        """What a query sends: the index scan, then one multi-get of the data rows per page."""
        plan = self.plan(index, values, **bounds)
        return (
            f"index {self.index(index).name!r}: {plan.describe()}\n"
            f"then per page: one get_many of {self.repository.table!r} for the entries' data "
            "rows (a covering query: only for unverified entries)"
        )

    # --- small operations -------------------------------------------------------------------

    def _load_rows_op(self, rows: Sequence[bytes]) -> Op[dict[bytes, M | None]]:
        """The operation of :meth:`IndexedRepository.load_rows` (one ``get``; none if no rows)."""
        repo = self.repository
        unique = list(dict.fromkeys(rows))
        keys: list[dict[str, Any]] = []
        decodable: list[bytes] = []
        found: dict[bytes, M | None] = dict.fromkeys(unique)
        for row in unique:
            try:
                keys.append(repo.info.key.decode(row))
                decodable.append(row)
            except DecodeError:
                continue
        if keys:
            loaded = yield from repo._get_many_op(keys, fields=None, as_of=None, on_error="skip")
            for row, obj in zip(decodable, loaded, strict=True):
                found[row] = obj
        return found

    def _read_status_op(self, index: Index[M], row: bytes) -> Op[bytes | None]:
        statuses = yield from self._read_statuses_op(index, [row])
        return statuses.get(row)

    def _read_statuses_op(self, index: Index[M], rows: Sequence[bytes]) -> Op[dict[bytes, bytes]]:
        got = yield Call(
            "get", (index.table.full_name, list(rows)), {"columns": [index.status_column]}
        )
        found: dict[bytes, bytes] = {}
        for result in got:
            value = result.value(index.status_column)
            if value is not None:
                found[result.row] = value
        return found

    def _put_status_if_op(
        self, index: Index[M], row: bytes, expected: bytes | None, value: bytes
    ) -> Op[bool]:
        """The operation of :meth:`IndexedRepository.put_status_if` (one ``check_and_put``)."""
        column = index.status_column
        applied: bool = yield Call(
            "check_and_put",
            (index.table.full_name, row, column, expected, Put(row, column, value)),
        )
        return applied

    def _guarded_op(
        self, index: Index[M], row: bytes, status: bytes, writes: list[Mutation]
    ) -> Op[bool]:
        """Apply ``writes`` to one entry row if its status is still ``status`` (see class)."""
        if self.atomic:
            applied: bool = yield Call(
                "check_and_mutate",
                (index.table.full_name, row, index.status_column, status, writes),
            )
            if not applied:
                self.stats.add("guard_refused")
            return applied
        yield Call("mutate", (index.table.full_name, writes))
        return True

    # --- writes -----------------------------------------------------------------------------

    def _save_op(self, obj: M, ttl: timedelta | None) -> Op[M]:
        """The operation of :meth:`IndexedRepository.save`."""
        repo = self.repository
        row = repo.mapper.rowkey(obj)
        repo.mapper.to_mutations(obj, timestamp=1, row=row)  # validates; writes nothing
        new_rows = self._entry_rows(obj, row)
        current = yield from repo._get_op(
            required=False, fields=None, as_of=None, key=repo.mapper.key_values(obj)
        )
        yield from self._write_op(
            obj,
            row,
            new_rows,
            current,
            lambda tag: repo._save_op(obj, ttl=ttl, write_stamp=tag),
        )
        return obj

    def _update_op(
        self, key: Mapping[str, Any], ttl: timedelta | None, changes: Mapping[str, Any]
    ) -> Op[M]:
        """The operation of :meth:`IndexedRepository.update`."""
        repo = self.repository
        current: M | None = yield from repo._get_op(
            required=False, fields=None, as_of=None, key=dict(key)
        )
        if current is None:
            raise NotFoundError(f"no {repo.info.name} to update", table=repo.table, value=dict(key))
        for name in changes:
            if name in repo.info.key_field_names:
                raise ValidationError(
                    f"{name!r} is a key field: keys never change (K10)",
                    table=repo.table,
                    field=name,
                )
            if name not in repo.info.fields:
                raise ValidationError(
                    f"{repo.info.name} has no field {name!r}", table=repo.table, field=name
                )
        changed = copy.copy(current)
        for name, value in changes.items():
            setattr(changed, name, value)
        if repo.info.version_field is not None:
            saved: M = yield from self._save_op(changed, ttl)
            return saved
        row = repo.mapper.rowkey(changed)
        repo.mapper.to_mutations(changed, timestamp=1, row=row)  # validates; writes nothing
        new_rows = self._entry_rows(changed, row)
        yield from self._write_op(
            changed,
            row,
            new_rows,
            current,
            lambda tag: repo._update_op(dict(key), ttl=ttl, write_stamp=tag, changes=changes),
        )
        return changed

    def _write_op(
        self,
        obj: M,
        row: bytes,
        new_rows: Mapping[str, bytes],
        current: M | None,
        write: Callable[[int], Op[Any]],
    ) -> Op[None]:
        """The protocol of a save around ``write(tag)``, the data write's operation."""
        repo = self.repository
        repo.check_stored(obj, current)
        old_rows = {} if current is None else self._entry_rows(current, row)
        tag = repo.reserve_stamp(obj, rows=self._claim_rows(new_rows, old_rows))
        claims = yield from self._own_op(new_rows, old_rows, row, tag)
        try:
            yield from self._unverify_op(new_rows, old_rows, obj, tag)
            self._check_lease(row, tag)
        except HModelError:
            yield from self._restore_op(claims, row, tag)  # no data was written
            raise
        try:
            yield from write(tag)
        except (ConflictError, ValidationError) as refused:
            lost = yield from self._restore_op(claims, row, tag)  # the write wrote nothing
            taken = None
            if lost and isinstance(refused, ConflictError):
                taken = yield from self._taken_op(lost, row)
            if taken is not None:
                # This write stalled past the grace; a writer of another row took the
                # value over and fenced this row first, which is why its check failed.
                raise UniqueViolationError(
                    f"unique index {taken.index.name!r}: this write stalled past the grace "
                    "and another row took the value over, fencing this write; nothing was "
                    "written",
                    table=taken.index.table.full_name,
                    row=row,
                ) from refused
            raise
        if current is None:
            shows = yield from self._insert_shows_op(obj)
            if not shows:
                # Hidden behind a later delete marker (or already superseded): the data
                # row does not hold this write's values, so nothing of it is verified.
                yield from self._restore_op(claims, row, tag)
                self.stats.add("hidden_inserts")
                return
        yield from self._commit_op(new_rows, old_rows, claims, obj, row, tag)

    def _insert_shows_op(self, obj: M) -> Op[bool]:
        """Whether the data row shows the insert of ``obj`` just written (one ``get``).

        Only for a model with a version field, whose insert is conditional on the row
        being absent: an insert stamped before another writer created the row and a
        third deleted it finds the row absent when it lands, and its cells stay hidden
        behind the delete marker, which has the later stamp (HBase hides every cell
        stamped at or before a delete marker, whatever the order of arrival). The row
        then shows no row, or another write's version, instead of this insert's; over
        Thrift1, whose version cell the server stamps, it may show this insert's version
        with none of its values (a model whose every field may be ``None``), so the row
        must also show the values the entries hold. A model
        without a version field writes without a check, and its covering reads are exact
        for one writer per row only (see ``docs/indexes.md``): no read.
        """
        if self.repository.info.version_field is None:
            return True
        stored = yield from self._holding_op(obj)
        return stored is not None and all(
            self._fields_of(index, stored) == self._fields_of(index, obj)
            for index in self.indexes.values()
        )

    def _delete_op(self, obj: M) -> Op[None]:
        """The operation of :meth:`IndexedRepository.delete`."""
        repo = self.repository
        row = repo.mapper.rowkey(obj)
        current = yield from repo._get_op(
            required=False, fields=None, as_of=None, key=repo.mapper.key_values(obj)
        )
        old_rows = {} if current is None else self._entry_rows(current, row)
        tag = repo.reserve_stamp(obj, delete=True, rows=self._claim_rows({}, old_rows))
        claims = yield from self._own_op({}, old_rows, row, tag)
        try:
            yield from self._unverify_op({}, old_rows, None, tag)
            self._check_lease(row, tag)
        except HModelError:
            yield from self._restore_op(claims, row, tag)
            raise
        try:
            yield from repo._delete_op(obj, write_stamp=tag, key={})
        except (ConflictError, ValidationError):
            yield from self._restore_op(claims, row, tag)
            raise
        yield from self._commit_op({}, old_rows, claims, None, row, tag)

    def _own_op(
        self,
        new_rows: Mapping[str, bytes],
        old_rows: Mapping[str, bytes],
        row: bytes,
        tag: int,
    ) -> Op[list[_Claim]]:
        """Step 1 of the unique indexes: make this write the owner of every value it touches.

        The new value's row and, when it changes, the old value's row are set to
        ``00 + tag + row`` by check-and-puts from the bytes read, so only this write may
        verify or release them. A value held by another row, a claim of another row
        in flight, or a claim of another write of this row in flight refuses the write
        (after giving back what it took). An old value no longer this row's is left.

        Raises:
            UniqueViolationError: A value is held or being claimed by another row.
            ConflictError: Another write of this row holds one of the values in flight,
                or a value's row kept changing.
        """
        owned: list[_Claim] = []
        try:
            for index in self._unique():
                wanted = [(r, False) for n, r in new_rows.items() if n == index.name]
                old = old_rows.get(index.name)
                if old is not None and old != new_rows.get(index.name):
                    wanted.append((old, True))
                if not wanted:
                    continue
                statuses = yield from self._read_statuses_op(index, [r for r, _ in wanted])
                for entry_row, releasing in wanted:
                    claim = yield from self._take_op(
                        index, entry_row, statuses.get(entry_row), row, tag, releasing
                    )
                    if claim is not None:
                        owned.append(claim)
        except HModelError:
            yield from self._restore_op(owned, row, tag)
            raise
        return owned

    def _take_op(  # noqa: PLR0917 -- one claim row's whole state, all needed
        self,
        index: Index[M],
        entry_row: bytes,
        status: bytes | None,
        row: bytes,
        tag: int,
        releasing: bool,
    ) -> Op[_Claim | None]:
        """Own one claim row (see :meth:`_own_op`); ``None`` when there is nothing to own."""
        mine = index.status(False, tag, row)
        for _ in range(_CLAIM_ATTEMPTS):
            entry = _claim_of(index, entry_row, status)
            if entry is None:
                if releasing:
                    return None  # released already: nothing of this row's to give back
            elif entry.data_row != row:
                if releasing:
                    return None  # another row took the value over: not this row's any more
                holders = yield from self._load_rows_op([entry.data_row])
                if index.points_at(entry, holders[entry.data_row]):
                    raise UniqueViolationError(
                        f"unique index {index.name!r}: the value is held by another row",
                        table=index.table.full_name,
                        row=entry.data_row,
                        value=dict(entry.values),
                    )
                if not entry.verified and not self.expired(index, entry.tag):
                    raise UniqueViolationError(
                        f"unique index {index.name!r}: another write is claiming the value",
                        table=index.table.full_name,
                        row=entry.data_row,
                        value=dict(entry.values),
                    )
                # An expired claim of another row: its write may still be in transit.
                # Fence that row first (a versioned model), so the write can never land;
                # a write too late to land its own data fences nothing.
                if not entry.verified:
                    self._check_lease(row, tag)
                if not entry.verified and not (
                    yield from self._fence_op(entry, holders[entry.data_row])
                ):
                    status = yield from self._read_status_op(index, entry_row)
                    continue  # that row changed (its write landed?): judge it again
            elif not entry.verified and not self.expired(index, entry.tag):
                raise ConflictError(
                    f"unique index {index.name!r}: another save or delete of this row is "
                    "changing the value; nothing was written: read the row and retry",
                    table=index.table.full_name,
                    row=row,
                    value=dict(entry.values),
                )
            taken = yield from self._put_status_if_op(index, entry_row, status or None, mine)
            if taken:
                return _Claim(index, entry_row, status or None, releasing)
            status = yield from self._read_status_op(index, entry_row)
        raise ConflictError(
            f"unique index {index.name!r}: the value's row kept changing; retry",
            table=index.table.full_name,
            row=entry_row,
        )

    def _restore_op(self, claims: Sequence[_Claim], row: bytes, tag: int) -> Op[list[_Claim]]:
        """Give back claims of a write that wrote no data: each to the bytes it replaced.

        Best effort: a claim this write no longer owns is left; a failure leaves the
        claim unverified, and readers release it after the grace (its data row does not
        hold the value). So does a cancelled task (asyncio): nothing is given back.

        Returns:
            The claims of new values this write no longer owned (taken over).
        """
        lost: list[_Claim] = []
        for claim in claims:
            index = claim.index
            try:
                given = yield from self._put_status_if_op(
                    index, claim.entry_row, index.status(False, tag, row), claim.previous or b""
                )
            except HModelError:
                continue
            if not given and not claim.releasing:
                lost.append(claim)
        return lost

    def _taken_op(self, lost: Sequence[_Claim], row: bytes) -> Op[_Claim | None]:
        """The first of ``lost`` (claims a refused write no longer owned) another row holds."""
        for claim in lost:
            index = claim.index
            status = yield from self._read_status_op(index, claim.entry_row)
            entry = _claim_of(index, claim.entry_row, status)
            if entry is not None and entry.data_row != row:
                return claim
        return None

    def _unverify_op(
        self,
        new_rows: Mapping[str, bytes],
        old_rows: Mapping[str, bytes],
        new: M | None,
        tag: int,
    ) -> Op[None]:
        """Step 1 of the non-unique indexes: new entries unverified, old ones re-marked."""
        by_table: dict[str, list[Mutation]] = {}
        for name, index in self.indexes.items():
            if index.unique:
                continue
            new_row = new_rows.get(name)
            old_row = old_rows.get(name)
            writes = by_table.setdefault(index.table.full_name, [])
            if new is not None and new_row is not None:
                writes.extend(
                    index.entry_puts(new_row, new, verified=False, tag=tag, timestamp=tag)
                )
            if old_row is not None and old_row != new_row:
                writes.append(Put(old_row, index.status_column, index.status(False, tag), tag))
        for table, writes in by_table.items():
            if writes:
                yield Call("mutate", (table, writes))

    def _commit_op(  # noqa: PLR0917 -- the write's whole state, all needed
        self,
        new_rows: Mapping[str, bytes],
        old_rows: Mapping[str, bytes],
        claims: Sequence[_Claim],
        new: M | None,
        row: bytes,
        tag: int,
    ) -> Op[None]:
        """Step 3: verify the new entries, delete the old ones, verify or release the claims.

        A new non-unique entry whose guarded verification is refused because it is gone
        (a read repair removed it while this write stalled past the grace) is written
        again, unverified, at a fresh stamp: the committed data row always has its entry.

        Raises:
            ClaimLostError: A claim of this write's new value was taken over (the data row
                was written).
        """
        plain: dict[str, list[Mutation]] = {}
        for name, index in self.indexes.items():
            if index.unique:
                continue
            new_row = new_rows.get(name)
            old_row = old_rows.get(name)
            unverified = index.status(False, tag)
            verify: list[Mutation] = []
            if new_row is not None:
                verify = [Put(new_row, index.status_column, index.status(True, tag), tag)]
            drop: list[Mutation] = []
            if old_row is not None and old_row != new_row:
                drop = [Delete(old_row, timestamp=tag)]
            if self.atomic:
                verified = new_row is None or (
                    yield from self._guarded_op(index, new_row, unverified, verify)
                )
                if not verified and new_row is not None and new is not None:
                    yield from self._reassert_op(index, new_row, new, row, tag)
                if old_row is not None and drop:
                    yield from self._drop_old_op(index, old_row, drop, tag)
            else:
                plain.setdefault(index.table.full_name, []).extend(verify + drop)
        for table, writes in plain.items():
            if writes:
                yield Call("mutate", (table, writes))
        if not self.atomic and new is not None:
            yield from self._recheck_op(new_rows, new, row, tag)
        lost: _Claim | None = None
        for claim in claims:
            index = claim.index
            mine = index.status(False, tag, row)
            owned = index.status(True, tag, row)
            if claim.releasing:
                released = yield from self._put_status_if_op(index, claim.entry_row, mine, b"")
                if not released:
                    # A read repair may have verified it at this write's tag: still ours.
                    yield from self._put_status_if_op(index, claim.entry_row, owned, b"")
                continue
            if (yield from self._put_status_if_op(index, claim.entry_row, mine, owned)):
                continue
            # A read repair verifies it at this write's tag once the data row has landed:
            # the claim is then still this write's.
            status = yield from self._read_status_op(index, claim.entry_row)
            if status == owned:
                continue
            self.stats.add("guard_refused")
            holder = _claim_of(index, claim.entry_row, status)
            if holder is not None and holder.data_row == row:
                continue  # another write of this row took it over: the value stays this row's
            lost = claim
        if lost is not None and new is not None and (yield from self._superseded_op(new)):
            self.stats.add("superseded")
            lost = None
        if lost is not None:
            raise ClaimLostError(
                f"unique index {lost.index.name!r}: this write stalled past the grace after "
                "its last check and its claim on the value was taken over; the data row WAS "
                "written and another row may hold the value: read both and change one",
                table=lost.index.table.full_name,
                row=row,
            )

    def _superseded_op(self, obj: M) -> Op[bool]:
        """Whether a later write of ``obj``'s row replaced this save's (one ``get``).

        Asked only when a claim of this save's new value is gone at commit. Another row
        takes a claim over only after fencing this row, which makes this save's data
        write fail; so a save that landed and lost its claim was followed by a later
        write of its own row (a claim of its own row needs no fence), which read this
        save's data and released or took the value. The row then holds another version
        (or none): the value is that write's business, and this save returns normally.
        A model without a version field cannot tell: ``False``.
        """
        if self.repository.info.version_field is None:
            return False
        return (yield from self._holding_op(obj)) is None

    def _holding_op(self, obj: M) -> Op[M | None]:
        """The row of ``obj`` read back (one ``get``) if it holds ``obj``'s version.

        ``None`` when the row is gone or holds another version. Only for a model with a
        version field.
        """
        repo = self.repository
        name = repo.info.version_field or ""
        stored = yield from repo._get_op(
            required=False, fields=None, as_of=None, key=repo.mapper.key_values(obj)
        )
        if stored is None or getattr(stored, name) != getattr(obj, name):
            return None
        return stored

    def _drop_old_op(
        self, index: Index[M], old_row: bytes, drop: list[Mutation], tag: int
    ) -> Op[None]:
        """Step 3 of an old entry: delete it, guarded by this write's tag.

        The entry holds ``00 + tag`` (re-marked at step 1), or ``01 + tag`` if this write
        stalled past the grace and a read repair, reading the data row before the data
        write landed, verified it again (a repair keeps the entry's tag): only this write
        ever writes its tag, so that entry is still this write's to delete. Any other
        status is a later write's: left.
        """
        if (yield from self._guarded_op(index, old_row, index.status(False, tag), drop)):
            return
        if (yield from self._read_status_op(index, old_row)) == index.status(True, tag):
            yield Call(
                "check_and_mutate",
                (
                    index.table.full_name,
                    old_row,
                    index.status_column,
                    index.status(True, tag),
                    drop,
                ),
            )

    def _reassert_op(
        self, index: Index[M], entry_row: bytes, new: M, row: bytes, tag: int
    ) -> Op[None]:
        """Write a committed row's entry again (unverified) if a repair removed it."""
        status = yield from self._read_status_op(index, entry_row)
        if status:
            entry = index.parse(entry_row, {index.status_column: status})
            if entry is not None and entry.tag >= tag:
                return  # this write's entry, or a later write's: the row is indexed
        fresh = self.stamps.next(rows=[row])
        yield Call(
            "mutate",
            (
                index.table.full_name,
                index.entry_puts(entry_row, new, verified=False, tag=fresh, timestamp=fresh),
            ),
        )
        self.stats.add("reasserted")

    def _recheck_op(self, new_rows: Mapping[str, bytes], new: M, row: bytes, tag: int) -> Op[None]:
        """Over Thrift1: after a stall past half the grace, write again a removed entry.

        Thrift1's step 3 is guarded by timestamps alone, so a write cannot learn from it
        that a read repair removed its entry; it reads the entries back instead, only when
        it is late enough for a repair to have happened (see :meth:`_commit_op`).
        """
        for name, index in self.indexes.items():
            entry_row = new_rows.get(name)
            if index.unique or entry_row is None:
                continue
            if self.stamps.clock() - tag > index.grace_ms // 2:
                yield from self._reassert_op(index, entry_row, new, row, tag)

    # --- reads ------------------------------------------------------------------------------

    def _pages_op(
        self,
        index: str | Index[M],
        size: int,
        values: Mapping[str, Any] | None,
        *,
        covering: bool,
        bounds: Mapping[str, Any],
    ) -> Op[None]:
        """The stream operation of ``pages``: yields each non-empty :class:`Page`."""
        token: str | None = None
        while True:
            items, token = yield from self._page_op(
                index, size, values, token, covering=covering, bounds=bounds
            )
            if items:
                yield Page(items, token)
            if token is None:
                return

    def _find_op(
        self,
        index: str | Index[M],
        values: Mapping[str, Any] | None,
        limit: int | None,
        bounds: Mapping[str, Any],
    ) -> Op[list[M]]:
        """The operation of :meth:`IndexedRepository.find`."""
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 1
        ):
            raise QueryError("limit must be an int >= 1", value=limit)
        found: list[M] = []
        size = 1000 if limit is None else min(limit, 1000)
        token: str | None = None
        while True:
            items, token = yield from self._page_op(
                index, size, values, token, covering=False, bounds=bounds
            )
            for obj in items:
                found.append(obj)
                if len(found) == limit:
                    return found
            if token is None:
                return found

    def _get_unique_op(self, index: str | Index[M], values: Mapping[str, Any]) -> Op[M | None]:
        """The operation of :meth:`IndexedRepository.get_unique`."""
        found = self.index(index)
        if not found.unique:
            raise QueryError("get_unique reads a unique index", value=index)
        if set(values) != set(found.on):
            raise QueryError(
                f"get_unique of index {found.name!r} takes exactly its fields {list(found.on)}",
                table=found.table.full_name,
                value=sorted(values),
            )
        items, _ = yield from self._page_op(index, 1, values, None, covering=False, bounds={})
        return items[0] if items else None

    def _page_op(
        self,
        index: str | Index[M],
        size: int,
        values: Mapping[str, Any] | None,
        token: str | None,
        *,
        covering: bool,
        bounds: Mapping[str, Any],
    ) -> Op[tuple[list[Any], str | None]]:
        """One page's items and the next page's token (``None``: the query is exhausted)."""
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise QueryError("page size must be an int >= 1", value=size)
        found = self.index(index)
        plan = self.plan(index, values, **bounds)
        fingerprint = plan.fingerprint() + ("c" if covering else "m")
        positions = (
            self._tokens.decode(token, fingerprint, len(plan.spans))
            if token is not None
            else [Position() for _ in plan.spans]
        )
        items: list[Any] = []
        last: dict[int, bytes] = {}
        extra = False
        cursor = yield from open_rows(plan, positions, batch_size=size + 1, expected=size + 1)
        # The rows fetched and not taken yet (popped from the end), in key order.
        fetched: list[tuple[int, RowResult]] = []
        exhausted = False
        while not extra:
            batch: list[tuple[int, RowResult]] = []
            while len(batch) < size + 1 - len(items):
                if not fetched:
                    if exhausted:
                        break
                    fetched = yield from cursor.batch()
                    if not fetched:
                        exhausted = True
                        break
                    fetched.reverse()
                batch.append(fetched.pop())
            if not batch:
                break
            resolved = yield from self._resolve_op(found, [r for _, r in batch], covering=covering)
            for (span, result), served in zip(batch, resolved, strict=True):
                if served is None:
                    last[span] = result.row
                    continue
                if len(items) == size:
                    extra = True
                    break
                items.append(served)
                last[span] = result.row
        yield from cursor.close()
        if not extra:
            return items, None
        new = [Position(last.get(i, p.last_row), p.done) for i, p in enumerate(positions)]
        return items, self._tokens.encode(fingerprint, new)

    def _resolve_op(
        self, index: Index[M], results: Sequence[Any], *, covering: bool
    ) -> Op[list[Any]]:
        """The operation of :meth:`IndexedRepository.resolve`."""
        entries: list[Entry | None] = []
        for result in results:
            try:
                entries.append(parse_result(index, result))
            except DecodeError:
                entries.append(None)
        needed = [e.data_row for e in entries if e is not None and not (covering and e.verified)]
        data = yield from self.repository._get_stamped_op(needed)
        served: list[Any] = []
        for entry in entries:
            if entry is None:
                served.append(None)
                continue
            if covering and entry.verified:
                self.stats.add("served_from_index")
                served.append(self._covered(index, entry))
                continue
            obj, stamp = data.get(entry.data_row, (None, 0))
            ok = index.points_at(entry, obj)
            if not entry.verified and self.expired(index, entry.tag):
                try:
                    yield from self._repair_op(index, entry, obj, data_stamp=stamp, fence=False)
                except HModelError:
                    self.stats.add("repair_failed")  # best effort: answer all the same
            if not ok or obj is None:
                self.stats.add("skipped")
                served.append(None)
                continue
            self.stats.add("served_from_data")
            served.append(self._fields_of(index, obj) if covering else obj)
        return served

    def _repair_op(
        self,
        index: Index[M],
        entry: Entry,
        obj: M | None,
        *,
        data_stamp: int | None,
        fence: bool,
    ) -> Op[bool]:
        """The operation of :meth:`IndexedRepository.repair`."""
        holds = obj is not None and index.points_at(entry, obj)
        older = data_stamp is not None and data_stamp < entry.tag
        if older and not (fence and (yield from self._fence_op(entry, obj))):
            self.stats.add("repair_deferred")
            return False
        if index.unique:
            if holds:
                applied = yield from self._put_status_if_op(
                    index, entry.row, entry.status, index.status(True, entry.tag, entry.data_row)
                )
                name = "repaired_verified"
            else:
                applied = yield from self._put_status_if_op(index, entry.row, entry.status, b"")
                name = "repaired_deleted"
        elif holds and obj is not None:
            writes: list[Mutation] = list(
                index.entry_puts(
                    entry.row, obj, verified=True, tag=entry.tag, timestamp=entry.stamp
                )
            )
            present = index.covering_cells(obj)
            writes.extend(
                Delete(entry.row, index.covering_column(f), timestamp=entry.stamp)
                for f in index.covering
                if index.covering_column(f) not in present
            )
            applied = yield from self._guarded_op(index, entry.row, entry.status, writes)
            name = "repaired_verified"
        else:
            applied = yield from self._guarded_op(
                index, entry.row, entry.status, [Delete(entry.row, timestamp=entry.stamp)]
            )
            name = "repaired_deleted"
        if applied:
            self.stats.add(name)
        return applied

    def _fence_op(self, entry: Entry, obj: M | None) -> Op[bool]:
        """Make the write that tagged ``entry`` unable to land, if it has not: whether done.

        A model with a version field is saved again as read (``obj``, same values) with
        a new version past the entry's tag: a write still in transit with the version
        it read then fails its check (``ConflictError``, nothing written), and the data
        row is newer than the tag. A row read at a version past the tag needs nothing:
        that write's check fails already. A row that reads as absent (``obj`` ``None``:
        the write may be an insert in transit) gets a fence in its version cell
        (``b"F"`` + the tag, :meth:`Repository.save` replaces it on the next insert), which
        an insert's check refuses. Refused (that write, or another, landed): ``False``.
        A model without a version field has nothing to fence its writes with, and its
        covering reads are exact only for one writer per row (``docs/indexes.md``):
        ``True``, the entry is judged from the row read (as for a missing row). Over
        Thrift1 a save of the row in progress (within its lease) cannot be fenced:
        ``False``.
        """
        repo = self.repository
        name = repo.info.version_field
        if name is None:
            return True  # nothing to fence with
        if obj is None:
            try:
                fenced: bool = yield from repo._fence_op(entry.data_row, entry.tag)
            except ConflictError:
                return False  # over Thrift1, a save of that row in progress
            if fenced:
                self.stats.add("fenced")
            return fenced
        if getattr(obj, name) >= entry.tag:
            return True  # a version past the tag: that write's check fails already
        stamp = self.stamps.next(rows=[entry.data_row], after=entry.tag)
        try:
            yield from repo._save_op(obj, ttl=None, write_stamp=stamp)
        except (ConflictError, ValidationError):
            return False
        self.stats.add("fenced")
        return True


class IndexedRepository(IndexedRepositoryCore[M, Backend]):
    """A repository whose saves and deletes maintain secondary indexes, and their queries (I1).

    HBase has no cross-row transactions, and a writer can die between any two writes. The
    write protocol is Apache Phoenix's consistent global indexes (PHOENIX-5156) adapted
    to a client library: index rows carry a verified/unverified status, and the data row
    is the truth.

    A save of a row whose stored values are ``old`` (read first: one ``get``) with a new
    write stamp ``t`` (the *tag*):

    1. writes the new entries **unverified** (status ``00`` + ``t``, covering cells, all at
       HBase timestamp ``t``), and re-marks the old entries unverified at ``t`` (one
       ``mutate`` per index table); a unique index instead takes over the rows of its new
       and old values with check-and-puts to ``00 + t + data rowkey``, so only this write
       may verify or release them (refused: :class:`~hmodel.errors.UniqueViolationError`,
       or :class:`~hmodel.errors.ConflictError` for another write of the same row);
    2. writes the data row (:meth:`Repository.save`, optimistic locking included),
       stamped ``t`` as well, so the data row a reader sees is always the one of the
       write with the greatest tag, whose entries no other write's marker hides;
    3. marks the new entries verified (status ``01`` + ``t`` at timestamp ``t``) and deletes
       the old ones with a delete marker at ``t`` (it hides versions ``<= t`` only).

    A delete re-marks the row's entries unverified, deletes the data row, then deletes
    the entries. Step 3 is guarded: with ``check_and_mutate`` (memory engine, Thrift2)
    each write applies only if the status cell still holds this write's ``00 + t``; over
    Thrift1 the timestamps alone guard it (a later write's cells are stamped later, so a
    slow writer's verification at ``t`` stays hidden behind them). Unique claims are only
    ever changed by check-and-puts comparing the exact claim bytes, on every backend.

    Readers serve verified entries of a covering query from the index row alone; every
    other entry is checked against its data row (one ``get_many`` round trip per page):
    an entry whose data row has other values is skipped. Unverified entries older than
    the index's ``grace`` are read-repaired (rewritten verified from the data row, or
    deleted, with the same guards); younger ones belong to writes that may be in flight
    and are only checked.

    What a reader can therefore see: the data row's values, never an entry's; a
    committed write's entry is written before its data row and removed only after a
    later data write, so it is never missed. See ``docs/indexes.md`` for the exact
    guarantees per backend and for what concurrent writers of one row need (a version
    field, for covering queries).

    Args:
        repository: The data repository; its write stamps order the index writes.
        indexes: The indexes of its model.
        token_secret: HMAC key for page tokens; default: the repository's.

    Raises:
        ValidationError: An index of another model, or two indexes with one name.
    """

    repository: Repository[M]

    def __init__(
        self,
        repository: Repository[M],
        indexes: Sequence[Index[M]],
        *,
        token_secret: bytes | None = None,
    ) -> None:
        super().__init__(repository, indexes, token_secret=token_secret)

    def create_tables(self, *, exist_ok: bool = False) -> None:
        """Create the data table and every index table (one round trip each).

        Raises:
            TableExistsError: A table exists and ``exist_ok`` is false.
        """
        run(self._create_tables_op(exist_ok=exist_ok), self.backend)

    def load_rows(self, rows: Sequence[bytes]) -> dict[bytes, M | None]:
        """The models stored at data rowkeys ``rows`` (``None``: missing or undecodable).

        One ``get_many`` round trip (none for no rows).
        """
        return run(self._load_rows_op(rows), self.backend)

    def put_status_if(
        self, index: Index[M], row: bytes, expected: bytes | None, value: bytes
    ) -> bool:
        """Check-and-put the status cell of a unique row; whether it was applied.

        The put carries no timestamp (Thrift1's ``checkAndPut`` stamps it with the
        server's time): unique rows are only ever changed by these exact comparisons.
        """
        return run(self._put_status_if_op(index, row, expected, value), self.backend)

    # --- writes -----------------------------------------------------------------------------

    def save(self, obj: M, *, ttl: timedelta | None = None) -> M:
        """Save ``obj`` and keep every index consistent (see the class for the protocol).

        Everything that can be refused without I/O is checked first (the instance, every
        index rowkey, the version), so a save refused for those reasons writes nothing.
        Round trips: one ``get`` of the stored row; per unique index table one ``get`` of
        its claim rows and a check-and-put per claim (new value, and the old one when it
        changes); one ``mutate`` per non-unique index table (step 1); the save itself (see
        :meth:`Repository.save`); for an insert of a model with a version field one
        ``get`` of the row written (an insert a concurrent delete hides behind its later
        stamp is never verified: its entries stay unverified, its claims are given back,
        ``stats.hidden_inserts``); then per new non-unique entry one ``check_and_mutate``
        (one ``mutate`` per table over Thrift1) and per claim a check-and-put.

        Raises:
            ValidationError: The instance is invalid, or an index rowkey of it does not
                encode or is longer than HBase's 32,767 bytes; nothing is written.
            UniqueViolationError: A unique value is held by another row, or being claimed
                by a write of another row, or (a model with a version field) this save
                stalled past the grace and a writer of another row took its claim over,
                fencing this row first; nothing is written.
            ConflictError: Optimistic locking refused the save, or another save or delete
                of this row holding one of its unique values is in flight; no data, no
                claim and no verified entry was written (a version conflict found only at
                the data write leaves unverified entries, which readers skip and repair).
            ClaimLostError: Only for a model without a version field, which has nothing
                to fence a write with: the data row was written, but this save stalled
                past the grace and a unique claim it held was taken over by another row
                (see docs/indexes.md).
        """
        return run(self._save_op(obj, ttl), self.backend)

    def update(self, key: Mapping[str, Any], *, ttl: timedelta | None = None, **changes: Any) -> M:
        """Change some fields of one row and keep every index consistent; return the row.

        The stored row is read (one ``get``: the indexes need its old values) and the
        changes applied to it. A model with a version field is then saved whole with the
        version read (:meth:`save`: a concurrent change is a ``ConflictError``); any other
        writes only the changed fields (:meth:`Repository.update`, stamped with the
        write's tag), so fields another writer changes meanwhile are kept. Round trips as
        for :meth:`save`.

        Raises:
            NotFoundError: No row has this key.
            ValidationError: An unknown or key field (keys never change, K10), a wrong
                type; nothing is written.
            UniqueViolationError, ConflictError, ClaimLostError: As for :meth:`save`.
        """
        return run(self._update_op(key, ttl, changes), self.backend)

    def delete(self, obj: M) -> None:
        """Delete ``obj``'s row and its index entries (see the class for the protocol).

        For a model with a version field the stored version must be ``obj``'s
        (:meth:`Repository.delete`). Round trips: a ``get``; per unique index table a
        ``get`` and a check-and-put per claim; one ``mutate`` per non-unique index table;
        the delete; then the entries' deletes (a ``check_and_mutate`` each; one ``mutate``
        over Thrift1) and the claims' releases.

        Raises:
            ConflictError: Optimistic locking refused the delete, or another save or
                delete of this row holding one of its unique values is in flight; the
                data row and the claims stay (old entries are left unverified, repaired
                by readers).
        """
        run(self._delete_op(obj), self.backend)

    # --- reads ------------------------------------------------------------------------------

    def page(
        self,
        index: str | Index[M],
        size: int,
        values: Mapping[str, Any] | None = None,
        *,
        token: str | None = None,
        **bounds: Any,
    ) -> Page[M]:
        """One page of at most ``size`` models found through ``index``, and a resume token.

        Arguments as for :meth:`plan`. Models come in index order (value, then data
        rowkey). Round trips: the index scan (per salt bucket an open and a fetch of about
        ``2 * size / buckets`` entries), then **one** ``get_many`` for the page's data
        rows; entries that were skipped (data row gone or changed) are replaced by a
        further fetch and ``get_many``. Pass ``next_token`` back with the same query.

        Raises:
            TokenError: The token was altered or belongs to another query.
        """
        op = self._page_op(index, size, values, token, covering=False, bounds=bounds)
        items, next_token = run(op, self.backend)
        return Page(items, next_token)

    def page_covered(
        self,
        index: str | Index[M],
        size: int,
        values: Mapping[str, Any] | None = None,
        *,
        token: str | None = None,
        **bounds: Any,
    ) -> Page[dict[str, Any]]:
        """A page of dicts (key, indexed and covering fields) answered from the index rows.

        Verified entries are served without reading the data table; unverified ones are
        checked against their data rows (one ``get_many`` for those of the page). Arguments
        as for :meth:`page`.
        """
        op = self._page_op(index, size, values, token, covering=True, bounds=bounds)
        items, next_token = run(op, self.backend)
        return Page(items, next_token)

    def pages(
        self,
        index: str | Index[M],
        size: int,
        values: Mapping[str, Any] | None = None,
        **bounds: Any,
    ) -> Iterator[Page[M]]:
        """Iterate the pages of a query until it is exhausted (see :meth:`page`)."""
        return iterate(
            self._pages_op(index, size, values, covering=False, bounds=bounds), self.backend
        )

    def pages_covered(
        self,
        index: str | Index[M],
        size: int,
        values: Mapping[str, Any] | None = None,
        **bounds: Any,
    ) -> Iterator[Page[dict[str, Any]]]:
        """Iterate the pages of a covering query until exhausted (see :meth:`page_covered`)."""
        return iterate(
            self._pages_op(index, size, values, covering=True, bounds=bounds), self.backend
        )

    def find(
        self,
        index: str | Index[M],
        values: Mapping[str, Any] | None = None,
        *,
        limit: int | None = None,
        **bounds: Any,
    ) -> list[M]:
        """Every model a query finds (at most ``limit``), in index order.

        Pages of ``min(limit, 1000)`` under the hood: a ``limit`` reads no further than it
        needs (see :meth:`page` for the round trips of each page).

        Raises:
            QueryError: ``limit`` is not an int >= 1, or as :meth:`plan`.
        """
        return run(self._find_op(index, values, limit, bounds), self.backend)

    def get_unique(self, index: str | Index[M], **values: Any) -> M | None:
        """The model holding ``values`` in a unique index, or ``None`` (two round trips)."""
        return run(self._get_unique_op(index, values), self.backend)

    def resolve(
        self, index: Index[M], results: Sequence[Any], *, covering: bool = False
    ) -> list[Any]:
        """Turn index rows into what a reader may see: a model, a dict, or ``None`` (skip).

        Verified entries of a covering read are served from the index row; every other
        entry is checked against its data row (one ``get_many`` for all of them) and
        served only if the data row has the entry's values. Unverified entries older than
        the index's ``grace`` are repaired on the way.
        """
        return run(self._resolve_op(index, results, covering=covering), self.backend)

    def repair(
        self,
        index: Index[M],
        entry: Entry,
        obj: M | None,
        *,
        data_stamp: int | None = None,
        fence: bool = False,
    ) -> bool:
        """Rewrite ``entry`` verified from its data row ``obj``, or delete it; guarded.

        The entry is rewritten (status ``01`` + its tag and the covering cells) when
        ``obj`` has its values, else deleted, provided the data row was read at
        ``data_stamp`` (its newest write stamp, :meth:`Repository.get_stamped`; 0 for no row) no
        older than the entry's tag. With an older (or no) data row, the write that tagged
        the entry had not landed its data when the row was read and may be landing it
        still, however long ago its tag was (a request can stay in transit): deciding
        from that row could verify an entry about to go stale, or delete the entry of a
        row about to hold its values. The entry is left unverified instead, which
        readers keep checking against the data row (``stats.repair_deferred``), unless
        ``fence`` (the rebuild job) and a fence (``_fence_op``: the row saved again with a
        new version, or a row that reads as absent fenced in its version cell) first make
        that write unable to land. Without ``data_stamp`` (an
        index-side job shard) the entry is judged as is.
        Both write at ``entry.stamp``: its tag, or the newest cell of the row if a write
        outside the protocol left a newer one (a
        delete marker hides versions ``<=`` its timestamp only, so a later write of the
        protocol, stamped later, is never hidden). Guarded by the status bytes read: with
        ``check_and_mutate`` (and for unique rows on every backend) nothing happens if a
        write changed the entry since. Returns whether the repair was applied.
        """
        op = self._repair_op(index, entry, obj, data_stamp=data_stamp, fence=fence)
        return run(op, self.backend)
