"""Summary tables (I3) kept by counters (F10) at write time, verified and rebuilt by a recount."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import timedelta
from typing import Any, Generic, TypeVar

import attrs

from hmodel.backend.base import Backend, RowResult, Scan
from hmodel.backend.op import CloseScan, Op, OpenScan, ScanNext, run
from hmodel.errors import DeclarationError, DecodeError, TableExistsError, ValidationError
from hmodel.patterns.storelike import collect
from hmodel.repository import Query, Repository, Store
from hmodel.repository.core import RepositoryCore

__all__ = [
    "Count",
    "Sum",
    "SummarizedRepository",
    "Summary",
    "SummaryReport",
    "Tally",
    "WrongGroup",
]

M = TypeVar("M")
S = TypeVar("S")
B = TypeVar("B")

#: Summary groups read or adjusted per round trip by ``verify`` and ``rebuild``.
BATCH = 1000

#: A measure's deltas per summary row: rowkey -> counter field -> amount.
Deltas = dict[bytes, dict[str, int]]


@attrs.frozen
class Count:
    """A measure counting the data rows of a group: each row adds 1."""

    def value(self, obj: Any, model: str) -> int:
        """What ``obj`` adds to the counter: 1."""
        return 1


@attrs.frozen
class Sum:
    """A measure summing an integer of each data row: a field's name or a function of the row.

    A counter is an 8-byte signed long (F10), so the value must be an ``int`` (a price in
    cents, not a ``Decimal``); ``None`` (an optional field not set) adds 0.

    Attributes:
        of: The data model's field name, or a function of the instance returning an int.
    """

    of: str | Callable[[Any], int | None]

    def value(self, obj: Any, model: str) -> int:
        """What ``obj`` adds to the counter.

        Raises:
            ValidationError: The value is not an ``int`` (a ``bool`` is refused too).
        """
        found = getattr(obj, self.of) if isinstance(self.of, str) else self.of(obj)
        if found is None:
            return 0
        if isinstance(found, bool) or not isinstance(found, int):
            name = self.of if isinstance(self.of, str) else getattr(self.of, "__name__", None)
            raise ValidationError(
                f"a {model} sums into a counter (an 8-byte long): the value must be an int, "
                f"not {type(found).__name__}",
                field=name,
                value=found,
            )
        return found


@attrs.frozen
class WrongGroup:
    """A summary row whose counters differ from the recount of its data rows.

    Attributes:
        group: The summary row's key fields.
        counted: Per measure, the recount of the data rows.
        stored: Per measure, the counter as read (0 for no cell).
    """

    group: Mapping[str, Any]
    counted: Mapping[str, int]
    stored: Mapping[str, int]


@attrs.frozen
class SummaryReport:
    """What :meth:`Summary.verify` or :meth:`Summary.rebuild` found.

    Attributes:
        rows: Data rows counted (rows of other record types sharing the table not counted).
        undecodable: Data rows of the model that did not decode (not counted).
        groups: Summary groups compared (those counted and those stored, once each).
        wrong: Groups whose counters differed from the recount.
        fixed: Groups whose counters :meth:`Summary.rebuild` adjusted (0 for ``verify``).
        samples: Up to ``samples`` of the wrong groups, in rowkey order.
    """

    rows: int
    undecodable: int
    groups: int
    wrong: int
    fixed: int
    samples: tuple[WrongGroup, ...]

    @property
    def ok(self) -> bool:
        """Whether every counter equalled the recount (and every data row decoded)."""
        return self.wrong == 0 and self.undecodable == 0


@attrs.define
class Tally:
    r"""A recount of some data rows: per summary rowkey, per measure, the total.

    The result of :meth:`Summary.tally_range` over one key range of the data table; the
    tallies of disjoint ranges add up (``a + b``) to the tally of their union, so a job
    runner counts shards in parallel and sums them (a plain, picklable value).

    Attributes:
        counts: Summary rowkey -> measure -> total.
        rows: Data rows counted.
        undecodable: Data rows that did not decode.
        last: The last data row read, when :meth:`Summary.tally_range` stopped at its
            ``limit`` before the end of its range (resume from ``last + b"\x00"``);
            ``None`` when it read the range to its end (and for a sum).
    """

    counts: dict[bytes, dict[str, int]] = attrs.field(factory=dict)
    rows: int = 0
    undecodable: int = 0
    last: bytes | None = None

    def add(self, deltas: Mapping[bytes, Mapping[str, int]]) -> None:
        """Add per-group amounts to the totals."""
        for row, amounts in deltas.items():
            totals = self.counts.setdefault(row, {})
            for name, amount in amounts.items():
                totals[name] = totals.get(name, 0) + amount

    def __add__(self, other: Tally) -> Tally:
        total = Tally(rows=self.rows + other.rows, undecodable=self.undecodable + other.undecodable)
        total.add(self.counts)
        total.add(other.counts)
        return total


class SummaryCore(Generic[M, S, B]):
    """The declaration, deltas and sans-I/O operations of both summary edges (I3).

    Not used directly: :class:`Summary` (synchronous) and :class:`hmodel.aio.AsyncSummary`
    (asyncio) are its facades (see :class:`Summary` for the arguments and the promises).
    ``data`` and ``rows`` are the data and summary repositories of the facade's edge;
    each I/O method is an operation (:mod:`hmodel.backend.op`) run by either edge's
    driver, with the repositories' own operations inside.
    """

    def __init__(
        self,
        store: Any,
        data: RepositoryCore[M, B],
        rows: RepositoryCore[S, B],
        *,
        by: Mapping[str, str | Callable[[M], Any]],
        measures: Mapping[str, Count | Sum],
        samples: int = 20,
    ) -> None:
        self.store = store
        self.data = data
        self.rows = rows
        self.by = dict(by)
        self.measures = dict(measures)
        self.samples = samples
        info, data_info = rows.info, data.info
        table = rows.table
        if set(self.by) != set(info.key_field_names):
            raise DeclarationError(
                f"by names the key fields of {info.name}: {list(info.key_field_names)}",
                table=table,
                value=sorted(self.by),
            )
        if set(self.measures) != set(info.counters):
            raise DeclarationError(
                f"measures name the counter fields of {info.name}: {list(info.counters)}",
                table=table,
                value=sorted(self.measures),
            )
        others = set(info.fields) - set(info.counters) - set(info.key_field_names)
        if others:
            raise DeclarationError(
                f"a summary model holds only its key fields and counters: "
                f"{sorted(others)[0]!r} is neither",
                table=table,
                field=sorted(others)[0],
            )
        for measure in self.measures.values():
            if not isinstance(measure, Count | Sum):
                raise DeclarationError(
                    "a measure is Count() or Sum(field)", table=table, value=measure
                )
        known = set(data_info.fields) | set(data_info.key_field_names)
        named = [v for v in self.by.values() if isinstance(v, str)]
        named += [
            m.of for m in self.measures.values() if isinstance(m, Sum) and isinstance(m.of, str)
        ]
        server_side = set(data_info.counters) | {data_info.version_field} - {None}
        for name in named:
            if name not in known:
                raise DeclarationError(
                    f"{name!r} is not a field of {data_info.name}", table=data.table, field=name
                )
            if name in server_side:
                raise DeclarationError(
                    f"{data_info.name}.{name} changes without a save (a counter or the "
                    "version): a summary cannot follow it",
                    table=data.table,
                    field=name,
                )

    # --- groups and deltas ----------------------------------------------------------------

    def group_of(self, obj: M) -> dict[str, Any]:
        """The summary key fields of the group ``obj`` belongs to."""
        return {
            name: getattr(obj, of) if isinstance(of, str) else of(obj)
            for name, of in self.by.items()
        }

    def row_of(self, obj: M) -> bytes:
        """The summary rowkey of ``obj``'s group.

        Raises:
            ValidationError: A group value does not encode as the summary key says.
        """
        return self.rows.mapper.key_of_values(self.group_of(obj))

    def contribution(self, obj: M) -> dict[str, int]:
        """What ``obj`` adds to its group's counters, per measure."""
        name = self.data.info.name
        return {field: m.value(obj, name) for field, m in self.measures.items()}

    def deltas(self, old: M | None, new: M | None) -> Deltas:
        """The counter changes that replacing ``old`` by ``new`` calls for (``None``: no row).

        Zero amounts are left out, and groups left with none. No I/O.

        Raises:
            ValidationError: A group does not encode, or a summed value is not an int.
        """
        found: Deltas = {}
        for obj, sign in ((old, -1), (new, 1)):
            if obj is None:
                continue
            amounts = found.setdefault(self.row_of(obj), {})
            for field, amount in self.contribution(obj).items():
                amounts[field] = amounts.get(field, 0) + sign * amount
        return {
            row: {f: a for f, a in amounts.items() if a}
            for row, amounts in found.items()
            if any(amounts.values())
        }

    def tally_rows(self, rows: Iterable[RowResult]) -> Tally:
        """Recount data rows already read (a job's batch), as ``tally_range`` counts them.

        Rows of other record types sharing the table are left out; undecodable ones are
        counted in ``undecodable``. No I/O.
        """
        tally = Tally()
        for result in rows:
            self._count(result, tally)
        return tally

    def _count(self, result: RowResult, tally: Tally) -> None:
        if not self.data.mapper.matches(result.row):
            return  # another record type sharing the table (R1)
        try:
            obj = self.data.load(result)
        except DecodeError:
            tally.undecodable += 1
            return
        if obj is None:
            return  # a locked row deleted over Thrift1, or a first save in flight
        tally.rows += 1
        tally.add(self.deltas(None, obj))

    # --- operations (sans-I/O: see hmodel.backend.op) -------------------------------------

    def _apply_op(self, deltas: Mapping[bytes, Mapping[str, int]]) -> Op[None]:
        """The operation of ``apply``: one ``increment_many`` (none if empty)."""
        decode = self.rows.info.key.decode
        items = [(decode(row), dict(amounts)) for row, amounts in deltas.items() if amounts]
        if items:
            yield from self.rows._increment_many_op(items)

    def _tally_range_op(
        self, start: bytes, stop: bytes, limit: int | None, batch_size: int
    ) -> Op[Tally]:
        """The operation of ``tally_range``: one scan of the data table's range."""
        tally = Tally()
        columns = self.data.plan().columns
        scan = Scan(start=start, stop=stop, columns=columns, batch_size=batch_size, limit=limit)
        handle = yield OpenScan(self.data.table, scan)
        read = 0
        while True:
            batch: list[RowResult] = yield ScanNext(handle, batch_size)
            if not batch:
                break
            for result in batch:
                self._count(result, tally)
                read += 1
                if read == limit:
                    tally.last = result.row
        yield CloseScan(handle)
        return tally

    def _settle_op(self, tally: Tally | None, *, fix: bool) -> Op[SummaryReport]:
        """The operation of ``verify`` and ``rebuild``."""
        counted = (
            (yield from self._tally_range_op(b"", b"", None, BATCH)) if tally is None else tally
        )
        stored = yield from self._stored_op()
        names = list(self.measures)
        wrong: list[tuple[bytes, dict[str, int], dict[str, int]]] = []
        groups = sorted(set(counted.counts) | set(stored))
        for row in groups:
            want = {n: counted.counts.get(row, {}).get(n, 0) for n in names}
            have = {n: stored.get(row, {}).get(n, 0) for n in names}
            if want != have:
                wrong.append((row, want, have))
        fixed = 0
        if fix:
            for first in range(0, len(wrong), BATCH):
                chunk = wrong[first : first + BATCH]
                yield from self._apply_op(
                    {row: {n: want[n] - have[n] for n in names} for row, want, have in chunk}
                )
                fixed += len(chunk)
        decode = self.rows.info.key.decode
        samples = tuple(
            WrongGroup(decode(row), want, have) for row, want, have in wrong[: self.samples]
        )
        return SummaryReport(
            rows=counted.rows,
            undecodable=counted.undecodable,
            groups=len(groups),
            wrong=len(wrong),
            fixed=fixed,
            samples=samples,
        )

    def _stored_op(self) -> Op[dict[bytes, dict[str, int]]]:
        """Every summary row's counters, by rowkey (one scan of the summary table)."""
        rows = self.rows
        found: dict[bytes, dict[str, int]] = {}
        for obj in (yield from collect(rows._scan_op(Query(None), "raise"))):
            found[rows.mapper.rowkey(obj)] = {n: getattr(obj, n) for n in self.measures}
        return found


class Summary(SummaryCore[M, S, Backend]):
    """A summary table (I3): counters (F10) per group of data rows, kept at write time.

    The summary model is declared like any model: its key fields are the group (choose
    order-preserving key components, e.g. ``Key(Str("customer_id"), Str("day"))``, so a
    customer's days are one prefix scan, in order) and its other fields are exactly the
    measures, each a :func:`~hmodel.counter` (an 8-byte big-endian long the server
    increments atomically). ``by`` says how a data row gives each key field: the name of
    a data field, or a function of the row (a derived value, e.g. the day of a timestamp).

    **Kept at write time** by :class:`SummarizedRepository`: a save reads the stored row,
    writes the data, then adds to the counters the delta from the stored old values to
    the new ones (a row moved to another group: minus on the old group, plus on the new).
    The data write and the increments are separate round trips, never one transaction:

    - a crash between them leaves the summary short of that write's delta;
    - an increment batch (one ``increment_many`` per summary table) is not atomic across
      rows, and one whose outcome is unknown (:class:`~hmodel.errors.OutcomeUnknownError`)
      may have been applied: applying it again may count it twice;
    - concurrent writers of one data row: with a version field (optimistic locking) on
      the data model, the old values a save subtracts are exactly those its write
      replaced (the save succeeds only if the stored version is the one read), so
      concurrent writers never make the summary drift; without one, two writers that
      read the same old row both subtract it, and the summary drifts until a rebuild.

    :meth:`verify` recounts the data table and compares; :meth:`rebuild` adjusts each
    wrong counter by the difference: both fix every drift above.
    :class:`hmodel.aio.AsyncSummary` is its asyncio edge: the same operations, awaited.

    Args:
        store: Where the data model and the summary model live.
        model: The data model, e.g. ``Order``.
        summary: The summary model, e.g. ``DailyOrders``.
        by: Summary key field -> data field name or function of the data row.
        measures: Summary counter field -> :class:`Count` or :class:`Sum`.
        samples: How many wrong groups a report keeps.

    Raises:
        DeclarationError: ``by`` does not name every key field of the summary model
            (and nothing else), ``measures`` not exactly its counter fields, the summary
            model has other fields, or a field named is not one of the data model's or
            is a counter or the version field of it (they change without a save).
    """

    data: Repository[M]
    rows: Repository[S]
    store: Store

    def __init__(
        self,
        store: Store,
        model: type[M],
        summary: type[S],
        *,
        by: Mapping[str, str | Callable[[M], Any]],
        measures: Mapping[str, Count | Sum],
        samples: int = 20,
    ) -> None:
        super().__init__(
            store,
            store.repository(model),
            store.repository(summary),
            by=by,
            measures=measures,
            samples=samples,
        )

    def create_table(self, *, exist_ok: bool = False) -> None:
        """Create the summary table (one round trip).

        Raises:
            TableExistsError: It exists and ``exist_ok`` is false.
        """
        try:
            self.rows.create_table()
        except TableExistsError:
            if not exist_ok:
                raise

    def apply(self, deltas: Mapping[bytes, Mapping[str, int]]) -> None:
        """Add ``deltas`` to the counters: one ``increment_many`` round trip (none if empty).

        Each increment is atomic; the batch is not (a failure may leave some applied).

        Raises:
            OutcomeUnknownError: The connection dropped after the batch left: some or all
                increments may have been applied; applying them again may count twice
                (:meth:`verify` finds it, :meth:`rebuild` fixes it).
        """
        run(self._apply_op(deltas), self.rows.backend)

    # --- reads ----------------------------------------------------------------------------

    def get(self, **group: Any) -> S | None:
        """The summary row of one group, typed; ``None`` if no write ever counted in it.

        One round trip. A group whose rows were all deleted reads with zero counters.
        """
        found: S | None = self.rows.get(**group)
        return found

    def scan(self, prefix: Mapping[str, Any] | None = None, **options: Any) -> Iterator[S]:
        """The summary rows of a key prefix (e.g. one customer's days), typed, in key order.

        ``options`` are :meth:`Repository.scan`'s (``low``, ``high``, ``reverse``,
        ``limit``...). One round trip to open, plus one per batch.
        """
        return self.rows.scan(prefix, **options)

    # --- recount, verify and rebuild ------------------------------------------------------

    def tally_range(
        self,
        start: bytes = b"",
        stop: bytes = b"",
        *,
        limit: int | None = None,
        batch_size: int = BATCH,
    ) -> Tally:
        """Recount the data rows of one key range of the data table.

        ``start`` inclusive, ``stop`` exclusive (``b""``: the table's start or end). The
        shard-level entry point of a job: the tallies of disjoint ranges add up (``+``)
        to the whole table's, which :meth:`verify` and :meth:`rebuild` take. A group's
        rows may lie in any range (the data key need not lead with the group), so a
        shard's tally alone cannot check or set a counter. Only reads: a shard that
        failed is simply counted again.

        Args:
            start: First data rowkey, inclusive.
            stop: Data rowkey to stop at, exclusive.
            limit: Read at most this many rows (a piece of a resumable count): the tally's
                ``last`` then says where to go on from (``None``: the range is done; a
                piece that ended exactly at the range's end also has one, and the next
                piece is empty).
            batch_size: Rows per round trip.

        Round trips: one scan (one per ``batch_size`` rows), reading the data model's
        columns.
        """
        return run(self._tally_range_op(start, stop, limit, batch_size), self.data.backend)

    def verify(self, tally: Tally | None = None) -> SummaryReport:
        """Compare every counter with the recount; nothing is written.

        Args:
            tally: The recount of the whole data table (the sum of every shard's
                :meth:`tally_range`); default: one :meth:`tally_range` of the whole table.

        Round trips: the recount's, and one scan of the summary table (counters only).
        """
        return run(self._settle_op(tally, fix=False), self.rows.backend)

    def rebuild(self, tally: Tally | None = None) -> SummaryReport:
        """Set every counter to the recount: add ``recount - counter as read`` to it.

        Adding the difference, not writing the value, keeps the increments of writes
        that land meanwhile. While writers keep running the result is exact for every
        write whose data write and increments both happened before the recount read its
        row and the counter was read, or both after; a write in flight across them (its
        data counted but not yet its increment, or the other way round) leaves its delta
        over or short. Run :meth:`verify` once writes settle: a second rebuild fixes what
        it finds. Groups left with nothing counted are set to 0 (their rows stay).

        Round trips: as :meth:`verify`, plus one ``increment_many`` per 1000 wrong groups.
        """
        return run(self._settle_op(tally, fix=True), self.rows.backend)


class SummarizedRepositoryCore(Generic[M, B]):
    """The sans-I/O writes of both summarized repository edges (I3).

    Not used directly: :class:`SummarizedRepository` (synchronous) and
    :class:`hmodel.aio.AsyncSummarizedRepository` (asyncio) are its facades (see
    :class:`SummarizedRepository`).

    Raises:
        ValidationError: A summary of another model.
    """

    def __init__(
        self, repository: RepositoryCore[M, B], summaries: Sequence[SummaryCore[M, Any, B]]
    ) -> None:
        self.repository = repository
        self.summaries = list(summaries)
        for summary in self.summaries:
            if summary.data.model is not repository.model:
                raise ValidationError(
                    f"summary {summary.rows.info.name} is of {summary.data.info.name}, not of "
                    f"{repository.info.name}",
                    table=summary.rows.table,
                )

    @property
    def locked(self) -> bool:
        """Whether the data model has a version field (concurrent writers never drift)."""
        return self.repository.info.version_field is not None

    def _deltas(self, old: M | None, new: M | None) -> list[tuple[SummaryCore[M, Any, B], Deltas]]:
        return [(s, s.deltas(old, new)) for s in self.summaries]

    def _save_op(self, obj: M, ttl: timedelta | None) -> Op[M]:
        """The operation of ``save``: a get, the save, the increments."""
        repo = self.repository
        row = repo.mapper.rowkey(obj)
        repo.mapper.to_mutations(obj, timestamp=1, row=row)  # validates; writes nothing
        key = repo.mapper.key_values(obj)
        stored = yield from repo._get_op(required=False, fields=None, as_of=None, key=key)
        repo.check_stored(obj, stored)
        changes = self._deltas(stored, obj)
        yield from repo._save_op(obj, ttl=ttl, write_stamp=None)
        for summary, deltas in changes:
            yield from summary._apply_op(deltas)
        return obj

    def _delete_op(self, obj: M) -> Op[None]:
        """The operation of ``delete``: a get, the delete, the increments."""
        repo = self.repository
        key = repo.mapper.key_values(obj)
        stored = yield from repo._get_op(required=False, fields=None, as_of=None, key=key)
        if self.locked:
            repo.check_stored(obj, stored)
            changes = self._deltas(stored, None)
            yield from repo._delete_op(obj, write_stamp=None, key={})
        else:
            changes = self._deltas(stored, None)
            yield from repo._delete_op(None, write_stamp=None, key=key)
        for summary, deltas in changes:
            yield from summary._apply_op(deltas)


class SummarizedRepository(SummarizedRepositoryCore[M, Backend]):
    """Saves and deletes of a data model that keep its summaries (I3) at write time.

    Each write reads the stored row (one ``get``), validates everything it can without
    I/O (the instance, every group key, every summed value: an invalid write writes
    nothing), writes the data row through the repository, then applies each summary's
    delta (one ``increment_many`` per summary, in declaration order). See
    :class:`Summary` for what is atomic and what concurrent writers need (a version
    field). Writes that bypass this class (the repository's own ``save``, a TTL expiring
    a row) are not counted: :meth:`Summary.verify` finds them.
    :class:`hmodel.aio.AsyncSummarizedRepository` is its asyncio edge: the same
    operations, awaited.

    Args:
        repository: The data repository.
        summaries: Its summaries.

    Raises:
        ValidationError: A summary of another model.
    """

    repository: Repository[M]

    def __init__(self, repository: Repository[M], summaries: Sequence[Summary[M, Any]]) -> None:
        super().__init__(repository, summaries)

    def save(self, obj: M, *, ttl: timedelta | None = None) -> M:
        """Save ``obj`` and add the change to every summary's counters.

        Round trips: a ``get`` of the stored row, the save (:meth:`Repository.save`),
        one ``increment_many`` per summary with a change.

        Raises:
            ValidationError: The instance, a group or a summed value is invalid; nothing
                is written.
            RowExistsError: A new locked instance and the row exists; nothing is written.
            ConflictError: The stored version is not ``obj``'s; nothing is written.
            OutcomeUnknownError: The save's or an increment's outcome is unknown: the
                summary may be off by this write (:meth:`Summary.verify`).
        """
        return run(self._save_op(obj, ttl), self.repository.backend)

    def delete(self, obj: M) -> None:
        """Delete ``obj``'s row and take the stored row's values out of every summary.

        Round trips: a ``get``, the delete (:meth:`Repository.delete`; a locked model's
        checks the version), one ``increment_many`` per summary (none if no row was
        stored).

        Raises:
            ConflictError: Locked: the stored version is not ``obj``'s; nothing is deleted.
        """
        run(self._delete_op(obj), self.repository.backend)
