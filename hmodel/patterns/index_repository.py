"""IndexedRepository: saves and deletes that keep secondary indexes consistent (I1)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from datetime import timedelta
from typing import Any, Generic, TypeVar

import attrs

from hmodel.backend.base import Delete, Mutation, Put, RowResult, prefix_stop
from hmodel.errors import (
    ConflictError,
    DecodeError,
    HModelError,
    QueryError,
    TableExistsError,
    UniqueViolationError,
    ValidationError,
)
from hmodel.keys import Bytes, Str
from hmodel.keys.string import TERMINATOR
from hmodel.patterns.index import Entry, Index
from hmodel.repository import KeySpan, Page, Repository, ScanPlan, execute
from hmodel.repository.page import Position, TokenCodec

__all__ = ["IndexStats", "IndexedRepository", "parse_result"]

M = TypeVar("M")

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
    """

    served_from_index: int = 0
    served_from_data: int = 0
    skipped: int = 0
    repaired_verified: int = 0
    repaired_deleted: int = 0
    guard_refused: int = 0
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


class IndexedRepository(Generic[M]):
    """A repository whose saves and deletes maintain secondary indexes, and their queries (I1).

    HBase has no cross-row transactions, and a writer can die between any two writes. The
    write protocol is Apache Phoenix's consistent global indexes (PHOENIX-5156) adapted
    to a client library: index rows carry a verified/unverified status, and the data row
    is the truth.

    A save of a row whose stored values are ``old`` (read first: one ``get``) with a new
    write stamp ``t`` (the *tag*):

    1. writes the new entries **unverified** (status ``00`` + ``t``, covering cells, all at
       HBase timestamp ``t``), and re-marks the old entries unverified at ``t`` (one
       ``mutate`` per index table); a unique index instead claims its value row with a
       check-and-put (refused: :class:`~hmodel.errors.UniqueViolationError`);
    2. writes the data row (:meth:`Repository.save`, optimistic locking included);
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

    def __init__(
        self,
        repository: Repository[M],
        indexes: Sequence[Index[M]],
        *,
        token_secret: bytes | None = None,
    ) -> None:
        self.repository = repository
        self.backend = repository.backend
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

    # --- plumbing -----------------------------------------------------------------------

    @property
    def atomic(self) -> bool:
        """Whether step 3 is guarded by ``check_and_mutate`` (the backend has it)."""
        return "check_and_mutate" in self.backend.capabilities

    def index(self, name: str) -> Index[M]:
        """The index called ``name``.

        Raises:
            QueryError: No such index.
        """
        found = self.indexes.get(name)
        if found is None:
            raise QueryError("no such index", value=name)
        return found

    def create_tables(self, *, exist_ok: bool = False) -> None:
        """Create the data table and every index table (one round trip each).

        Raises:
            TableExistsError: A table exists and ``exist_ok`` is false.
        """
        self.repository.create_table(exist_ok=exist_ok)
        for index in self.indexes.values():
            try:
                self.backend.create_table(index.table)
            except TableExistsError:
                if not exist_ok:
                    raise

    def expired(self, index: Index[M], tag: int) -> bool:
        """Whether an entry tagged ``tag`` is older than the index's grace (not in flight)."""
        return self.stamps.clock() - tag > index.grace_ms

    def load_rows(self, rows: Sequence[bytes]) -> dict[bytes, M | None]:
        """The models stored at data rowkeys ``rows`` (``None``: missing or undecodable).

        One ``get_many`` round trip (none for no rows).
        """
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
            for row, obj in zip(decodable, repo.get_many(keys, on_error="skip"), strict=True):
                found[row] = obj
        return found

    def _read_status(self, index: Index[M], row: bytes) -> bytes | None:
        got = self.backend.get(index.table.full_name, [row], columns=[index.status_column])
        return got[0].value(index.status_column) if got else None

    def put_status_if(
        self, index: Index[M], row: bytes, expected: bytes | None, value: bytes
    ) -> bool:
        """Check-and-put the status cell of a unique row; whether it was applied.

        The put carries no timestamp (Thrift1's ``checkAndPut`` stamps it with the
        server's time): unique rows are only ever changed by these exact comparisons.
        """
        column = index.status_column
        return self.backend.check_and_put(
            index.table.full_name, row, column, expected, Put(row, column, value)
        )

    def _guarded(self, index: Index[M], row: bytes, status: bytes, writes: list[Mutation]) -> bool:
        """Apply ``writes`` to one entry row if its status is still ``status`` (see class)."""
        if self.atomic:
            applied = self.backend.check_and_mutate(
                index.table.full_name, row, index.status_column, status, writes
            )
            if not applied:
                self.stats.add("guard_refused")
            return applied
        self.backend.mutate(index.table.full_name, writes)
        return True

    # --- writes -------------------------------------------------------------------------

    def save(self, obj: M, *, ttl: timedelta | None = None) -> M:
        """Save ``obj`` and keep every index consistent (see the class for the protocol).

        Round trips: one ``get`` of the stored row, per unique index one or two claims
        (check-and-put, preceded by a ``get`` when the value was held), one ``mutate`` per
        non-unique index table (step 1), the save itself (see :meth:`Repository.save`),
        then per new entry one ``check_and_mutate`` (one ``mutate`` for all over Thrift1)
        and per changed unique value a check-and-put or two.

        Raises:
            ValidationError: The instance is invalid; nothing is written.
            UniqueViolationError: A unique value is held by another row, or being claimed
                by another write; nothing is written.
            ConflictError: Optimistic locking refused the save (see
                :meth:`Repository.save`); only unverified entries were written, which
                readers skip and repair.
        """
        repo = self.repository
        row = repo.mapper.rowkey(obj)
        repo.mapper.to_mutations(obj, timestamp=1, row=row)  # validates; writes nothing
        current = repo.get(**repo.mapper.key_values(obj))
        tag = self._tag(row, obj, current)
        claimed: list[tuple[Index[M], bytes]] = []
        try:
            for index in self._unique():
                entry_row = index.row_of(obj, row)
                if entry_row is not None:
                    held_before = current is not None and index.row_of(current, row) == entry_row
                    self._claim(index, entry_row, row, tag, held_before)
                    if not held_before:
                        claimed.append((index, entry_row))
        except HModelError:
            self._release(claimed, row, tag)
            raise
        self._unverify(current, obj, row, tag)
        try:
            saved = repo.save(obj, ttl=ttl)
        except (ConflictError, ValidationError):
            self._release(claimed, row, tag)  # the save wrote nothing: free the new values
            raise
        self._commit(current, obj, row, tag)
        return saved

    def _tag(self, row: bytes, obj: M | None, current: M | None) -> int:
        """A write stamp ordered after every earlier write of the rows this write touches.

        The data row stands for its own entries (their keys end with it); a unique
        index's rows are keyed by the value alone, so they are named too.
        """
        rows = [row]
        for index in self._unique():
            for instance in (obj, current):
                if instance is not None:
                    entry = index.row_of(instance, row)
                    if entry is not None:
                        rows.append(entry)
        return self.stamps.next(rows=rows)

    def delete(self, obj: M) -> None:
        """Delete ``obj``'s row and its index entries (see the class for the protocol).

        For a model with a version field the stored version must be ``obj``'s
        (:meth:`Repository.delete`). Round trips: a ``get``, one ``mutate`` per index
        table (and per unique value a check-and-put), the delete, then the entries'
        deletes (a ``check_and_mutate`` each; one ``mutate`` over Thrift1) and releases.

        Raises:
            ConflictError: Optimistic locking refused the delete; the entries stay
                (unverified, repaired by readers).
        """
        repo = self.repository
        key = repo.mapper.key_values(obj)
        row = repo.mapper.rowkey(obj)
        current = repo.get(**key)
        tag = self._tag(row, None, current)
        self._unverify(current, None, row, tag)
        if repo.info.version_field is not None:
            repo.delete(obj)
        else:
            repo.delete(**key)
        self._commit(current, None, row, tag)

    def _unique(self) -> list[Index[M]]:
        return [i for i in self.indexes.values() if i.unique]

    def _claim(
        self, index: Index[M], entry_row: bytes, row: bytes, tag: int, held_before: bool
    ) -> None:
        """Step 1 of a unique index: make the value's row hold ``00 + tag + row``."""
        mine = index.status(False, tag, row)
        if not held_before and self.put_status_if(index, entry_row, None, mine):
            return
        for _ in range(_CLAIM_ATTEMPTS):
            status = self._read_status(index, entry_row)
            if not status:
                if self.put_status_if(index, entry_row, None, mine):
                    return
                continue
            entry = index.parse(entry_row, {index.status_column: status})
            if entry is not None and entry.data_row != row:
                holder = self.load_rows([entry.data_row])[entry.data_row]
                if index.points_at(entry, holder):
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
            if self.put_status_if(index, entry_row, status, mine):
                return
        raise ConflictError(
            f"unique index {index.name!r}: the value's row kept changing; retry",
            table=index.table.full_name,
            row=entry_row,
        )

    def _release(self, claimed: list[tuple[Index[M], bytes]], row: bytes, tag: int) -> None:
        for index, entry_row in claimed:
            self.put_status_if(index, entry_row, index.status(False, tag, row), b"")

    def _unverify(self, current: M | None, new: M | None, row: bytes, tag: int) -> None:
        """Step 1: new entries unverified with their cells, old ones re-marked, at ``tag``."""
        by_table: dict[str, list[Mutation]] = {}
        for index in self.indexes.values():
            old_row = None if current is None else index.row_of(current, row)
            new_row = None if new is None else index.row_of(new, row)
            if index.unique:
                if old_row is not None and old_row != new_row:
                    self._unverify_claim(index, old_row, row, tag)
                continue
            writes = by_table.setdefault(index.table.full_name, [])
            if new is not None and new_row is not None:
                writes.extend(
                    index.entry_puts(new_row, new, verified=False, tag=tag, timestamp=tag)
                )
            if old_row is not None and old_row != new_row:
                writes.append(Put(old_row, index.status_column, index.status(False, tag), tag))
        for table, writes in by_table.items():
            if writes:
                self.backend.mutate(table, writes)

    def _unverify_claim(self, index: Index[M], entry_row: bytes, row: bytes, tag: int) -> None:
        status = self._read_status(index, entry_row)
        if not status:
            return
        entry = index.parse(entry_row, {index.status_column: status})
        if entry is not None and entry.data_row == row:
            self.put_status_if(index, entry_row, status, index.status(False, tag, row))

    def _commit(self, current: M | None, new: M | None, row: bytes, tag: int) -> None:
        """Step 3: verify the new entries, delete (or release) the old ones, guarded."""
        plain: dict[str, list[Mutation]] = {}
        for index in self.indexes.values():
            old_row = None if current is None else index.row_of(current, row)
            new_row = None if new is None else index.row_of(new, row)
            unverified = index.status(False, tag, row if index.unique else b"")
            if index.unique:
                if new_row is not None and not self.put_status_if(
                    index, new_row, unverified, index.status(True, tag, row)
                ):
                    self.stats.add("guard_refused")
                    raise UniqueViolationError(
                        f"unique index {index.name!r}: this write's claim was taken over "
                        f"after {index.grace_ms} ms (a stalled write); the data row was "
                        "written: save it again or change the value",
                        table=index.table.full_name,
                        row=row,
                    )
                if old_row is not None and old_row != new_row:
                    self.put_status_if(index, old_row, unverified, b"")
                continue
            verify: list[Mutation] = []
            if new_row is not None:
                verify = [Put(new_row, index.status_column, index.status(True, tag), tag)]
            drop: list[Mutation] = []
            if old_row is not None and old_row != new_row:
                drop = [Delete(old_row, timestamp=tag)]
            if self.atomic:
                if verify:
                    self._guarded(index, new_row or b"", unverified, verify)
                if drop:
                    self._guarded(index, old_row or b"", unverified, drop)
            else:
                plain.setdefault(index.table.full_name, []).extend(verify + drop)
        for table, writes in plain.items():
            if writes:
                self.backend.mutate(table, writes)

    # --- reads --------------------------------------------------------------------------

    def plan(
        self,
        index: str,
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
            index: The index name.
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
                f"index {index!r}: {exc.message}", field=exc.field, value=exc.value
            ) from exc
        spans = [KeySpan(r.start, r.stop) for r in ranges]
        if startswith is not None:
            position = len(prefix)
            if position >= len(found.components):
                raise QueryError("startswith needs an indexed field after values", value=prefix)
            component = found.components[position]
            if not isinstance(component, Str | Bytes) or component.width is not None:
                raise QueryError(
                    "startswith needs a variable-width Str or Bytes field",
                    field=component.name,
                )
            try:
                head = component.encode(startswith)[: -len(TERMINATOR)]
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

    def explain(self, index: str, values: Mapping[str, Any] | None = None, **bounds: Any) -> str:
        """What a query sends: the index scan, then one multi-get of the data rows per page."""
        plan = self.plan(index, values, **bounds)
        return (
            f"index {index!r}: {plan.describe()}\n"
            f"then per page: one get_many of {self.repository.table!r} for the entries' data "
            "rows (a covering query: only for unverified entries)"
        )

    def page(
        self,
        index: str,
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
        items, next_token = self._page(index, size, values, token, covering=False, bounds=bounds)
        return Page(items, next_token)

    def page_covered(
        self,
        index: str,
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
        items, next_token = self._page(index, size, values, token, covering=True, bounds=bounds)
        return Page(items, next_token)

    def pages(
        self, index: str, size: int, values: Mapping[str, Any] | None = None, **bounds: Any
    ) -> Iterator[Page[M]]:
        """Iterate the pages of a query until it is exhausted (see :meth:`page`)."""
        token: str | None = None
        while True:
            page = self.page(index, size, values, token=token, **bounds)
            if page.items:
                yield page
            if page.next_token is None:
                return
            token = page.next_token

    def find(self, index: str, values: Mapping[str, Any] | None = None, **bounds: Any) -> list[M]:
        """Every model a query finds, in index order (pages of 1000 under the hood)."""
        return [obj for page in self.pages(index, 1000, values, **bounds) for obj in page]

    def get_unique(self, index: str, **values: Any) -> M | None:
        """The model holding ``values`` in a unique index, or ``None`` (two round trips)."""
        found = self.index(index)
        if not found.unique:
            raise QueryError("get_unique reads a unique index", value=index)
        page = self.page(index, 1, values)
        return page.items[0] if page.items else None

    def _page(
        self,
        index: str,
        size: int,
        values: Mapping[str, Any] | None,
        token: str | None,
        *,
        covering: bool,
        bounds: Mapping[str, Any],
    ) -> tuple[list[Any], str | None]:
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
        rows = execute(self.backend, plan, positions, batch_size=size + 1, expected=size + 1)
        try:
            while not extra:
                batch = []
                for item in rows:
                    batch.append(item)
                    if len(batch) >= size + 1 - len(items):
                        break
                if not batch:
                    break
                resolved = self.resolve(found, [r for _, r in batch], covering=covering)
                for (span, result), served in zip(batch, resolved, strict=True):
                    if served is None:
                        last[span] = result.row
                        continue
                    if len(items) == size:
                        extra = True
                        break
                    items.append(served)
                    last[span] = result.row
        finally:
            rows.close()
        if not extra:
            return items, None
        new = [Position(last.get(i, p.last_row), p.done) for i, p in enumerate(positions)]
        return items, self._tokens.encode(fingerprint, new)

    def resolve(
        self, index: Index[M], results: Sequence[Any], *, covering: bool = False
    ) -> list[Any]:
        """Turn index rows into what a reader may see: a model, a dict, or ``None`` (skip).

        Verified entries of a covering read are served from the index row; every other
        entry is checked against its data row (one ``get_many`` for all of them) and
        served only if the data row has the entry's values. Unverified entries older than
        the index's ``grace`` are repaired on the way.
        """
        entries: list[Entry | None] = []
        for result in results:
            try:
                entries.append(parse_result(index, result))
            except DecodeError:
                entries.append(None)
        needed = [e.data_row for e in entries if e is not None and not (covering and e.verified)]
        data = self.load_rows(needed)
        served: list[Any] = []
        for entry in entries:
            if entry is None:
                served.append(None)
                continue
            if covering and entry.verified:
                self.stats.add("served_from_index")
                served.append(self._covered(index, entry))
                continue
            obj = data.get(entry.data_row)
            ok = index.points_at(entry, obj)
            if not entry.verified and self.expired(index, entry.tag):
                self.repair(index, entry, obj)
            if not ok or obj is None:
                self.stats.add("skipped")
                served.append(None)
                continue
            self.stats.add("served_from_data")
            served.append(self._fields_of(index, obj) if covering else obj)
        return served

    def repair(self, index: Index[M], entry: Entry, obj: M | None) -> bool:
        """Rewrite ``entry`` verified from its data row ``obj``, or delete it; guarded.

        The entry is rewritten (status ``01`` + its tag and the covering cells) when
        ``obj`` has its values, else deleted, both at ``entry.stamp``: its tag, or the
        newest cell of the row if a write outside the protocol left a newer one (a
        delete marker hides versions ``<=`` its timestamp only, so a later write of the
        protocol, stamped later, is never hidden). Guarded by the status bytes read: with
        ``check_and_mutate`` (and for unique rows on every backend) nothing happens if a
        write changed the entry since. Returns whether the repair was applied.
        """
        if index.unique:
            if index.points_at(entry, obj):
                applied = self.put_status_if(
                    index, entry.row, entry.status, index.status(True, entry.tag, entry.data_row)
                )
                name = "repaired_verified"
            else:
                applied = self.put_status_if(index, entry.row, entry.status, b"")
                name = "repaired_deleted"
        elif obj is not None and index.points_at(entry, obj):
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
            applied = self._guarded(index, entry.row, entry.status, writes)
            name = "repaired_verified"
        else:
            applied = self._guarded(
                index, entry.row, entry.status, [Delete(entry.row, timestamp=entry.stamp)]
            )
            name = "repaired_deleted"
        if applied:
            self.stats.add(name)
        return applied

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
