"""Rows as columns (OpenTSDB): a row per entity and time bucket, events as offset columns (R9)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any, Generic, Literal, TypeVar

import attrs

from hmodel.backend.base import Backend, Mutation, Put, RowResult
from hmodel.backend.op import Call, Op, run
from hmodel.clock import WriteStamps, stamps_for, system_clock
from hmodel.codecs import Codec
from hmodel.errors import (
    CodecError,
    DeclarationError,
    DecodeError,
    EncodeError,
    HModelError,
    ValidationError,
)
from hmodel.keys import Key, Salt, Timestamp
from hmodel.repository import Store
from hmodel.schema import Table

__all__ = ["Point", "TimeBuckets", "TimeSeries"]

V = TypeVar("V")
B = TypeVar("B")

Unit = Literal["s", "ms", "us"]
Instant = dt.datetime | int
# Events as ``{instant: value}`` or ``(instant, value)`` pairs. ``Mapping`` is invariant in
# its key type, so a ``dict[datetime, V]`` (or ``dict[int, V]``) is only accepted when
# named here beside ``Mapping[Instant, V]``.
Points = (
    Mapping[dt.datetime, V] | Mapping[int, V] | Mapping[Instant, V] | Iterable[tuple[Instant, V]]
)

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_MICROS = {"s": 1_000_000, "ms": 1_000, "us": 1}


@attrs.frozen
class Point(Generic[V]):
    """One event of a series: its instant (an aware UTC ``datetime``) and its value."""

    at: dt.datetime
    value: V


class TimeBuckets(Generic[V]):
    r"""Declare a time series stored as one row per (entity, time bucket) (R9, K8, K3).

    OpenTSDB's layout, the HBase reference guide's "Rows as Columns": instead of one row per event
    (``[metric][ts]``), one row holds a whole bucket of time (an hour by default) and
    each event is a column whose qualifier is its offset inside the bucket. A window
    read touches a handful of rows, and the rowkey still leads with the entity, so writes
    spread over entities (K8).

    **Byte layout.** The rowkey is ``key``'s components followed by
    ``Timestamp(bucket_field, unit=unit)``: the bucket's start as an 8-byte big-endian
    count of ``unit`` ticks since the epoch. With ``salt=n``, a
    ``Salt(*key.fields, buckets=n)`` byte leads the key (OpenTSDB salts by the series,
    not the time: one series' rows stay in one salt bucket; different series spread).
    Every column is ``family:<offset>``: the event's ticks since the bucket's start as
    :attr:`offset_width` big-endian unsigned bytes (the fewest bytes that hold
    ``bucket / unit - 1``: 2 for an hour of seconds, 3 for an hour of milliseconds), so
    a row's columns sort in time order. The cell is ``value.encode(v)``. The family
    belongs to the series: no other column may live in it.

    Buckets are aligned to the epoch (UTC): an event at ``t`` lives in the bucket
    starting at ``t - t % bucket``. Two events of one entity at the same tick are one
    cell: the later write wins.

    A declaration is pure (no I/O); :meth:`on` binds it to a backend.

    Args:
        table: The table; it must have ``family``.
        key: The entity part of the rowkey, e.g. ``Key(Str("metric"), Str("host"))``;
            it may hold its own :class:`~hmodel.keys.Salt` (then ``salt`` must be ``None``).
        value: The codec of event values, e.g. ``Float64()``.
        bucket: The time span of one row; a whole number of ``unit`` ticks.
        unit: The resolution of event times: ``"s"``, ``"ms"`` or ``"us"``. Finer
            instants are refused, not truncated.
        family: The family holding the events.
        salt: Salt buckets to prepend (K3), or ``None``.
        bucket_field: The name of the bucket component in the rowkey.
        ttl: Per-cell TTL of the events (F8), or ``None`` (the family's TTL only).

    Raises:
        DeclarationError: An invalid argument; the message names the table.

    Example:
        >>> from hmodel.codecs import Float64
        >>> from hmodel.keys import Str
        >>> from hmodel.schema import Family
        >>> cpu = TimeBuckets(Table("tsdb", [Family("t")]), key=Key(Str("metric")),
        ...                   value=Float64(), bucket=timedelta(hours=1), unit="s")
        >>> cpu.offset_width
        2
        >>> at = dt.datetime(2024, 5, 1, 10, 30, 5, tzinfo=dt.timezone.utc)
        >>> cpu.row({"metric": "cpu"}, at).hex(" ")  # cpu, 00 00, 10:00 in s (0x663212a0)
        '63 70 75 00 00 00 00 00 00 66 32 12 a0'
        >>> cpu.column(at)  # 30 min 5 s = 1805 s into the hour
        b't:\x07\r'
    """

    def __init__(
        self,
        table: Table,
        *,
        key: Key,
        value: Codec[V],
        bucket: timedelta = timedelta(hours=1),
        unit: Unit = "ms",
        family: str = "t",
        salt: int | None = None,
        bucket_field: str = "bucket",
        ttl: timedelta | None = None,
    ) -> None:
        name = table.full_name if isinstance(table, Table) else None

        def fail(message: str, value: object = None) -> DeclarationError:
            return DeclarationError(f"TimeBuckets: {message}", table=name, value=value)

        if not isinstance(table, Table):
            raise fail("table must be a hmodel.schema.Table", table)
        if not isinstance(key, Key):
            raise fail("key must be a hmodel.keys.Key", key)
        if not isinstance(value, Codec):
            raise fail("value must be a hmodel.codecs.Codec", value)
        if unit not in _MICROS:
            raise fail("unit must be 's', 'ms' or 'us'", unit)
        if not isinstance(bucket, timedelta) or bucket <= timedelta(0):
            raise fail("bucket must be a positive timedelta", bucket)
        tick = timedelta(microseconds=_MICROS[unit])
        if bucket % tick:
            raise fail(f"bucket must be a whole number of {unit!r} ticks", bucket)
        if family not in [f.name for f in table.families]:
            raise fail(f"family {family!r} is not in the table", family)
        if bucket_field in key.fields:
            raise fail(f"the key already has a field {bucket_field!r}", bucket_field)
        if ttl is not None and (not isinstance(ttl, timedelta) or ttl < timedelta(milliseconds=1)):
            raise fail("ttl must be a timedelta of at least 1 ms", ttl)
        components: list[Any] = list(key.components)
        if salt is not None:
            if key.salt is not None:
                raise fail("the key has its own Salt; leave salt=None", salt)
            try:
                components.insert(0, Salt(*key.fields, buckets=salt))
            except HModelError as error:
                raise fail(error.message, salt) from error
        self.table = table
        self.entity = key
        self.value = value
        self.bucket = bucket
        self.unit: Unit = unit
        self.family = family
        self.bucket_field = bucket_field
        self.ttl = ttl
        self.key = Key(*components, Timestamp(bucket_field, unit=unit))
        self.ticks_per_bucket = bucket // tick
        self.offset_width = max(1, ((self.ticks_per_bucket - 1).bit_length() + 7) // 8)
        self._family = family.encode() + b":"
        self._timestamp = Timestamp(bucket_field, unit=unit)

    def __repr__(self) -> str:
        return (
            f"TimeBuckets({self.table.full_name!r}, key={self.key!r}, bucket={self.bucket}, "
            f"unit={self.unit!r})"
        )

    # --- pure layout --------------------------------------------------------------------

    def ticks(self, at: Instant) -> int:
        """Return ``at`` as ``unit`` ticks since the epoch.

        Raises:
            ValidationError: Not an aware ``datetime`` or an ``int`` of ticks; before 1970;
                finer than ``unit``.
        """
        try:
            return self._timestamp.ticks(at)
        except HModelError as error:
            raise ValidationError(
                error.message, table=self.table.full_name, field=self.bucket_field, value=at
            ) from error

    def instant(self, ticks: int) -> dt.datetime:
        """Return the aware UTC ``datetime`` ``ticks`` units after the epoch."""
        return _EPOCH + timedelta(microseconds=ticks * _MICROS[self.unit])

    def bucket_start(self, at: Instant) -> dt.datetime:
        """Return the start of the bucket holding ``at``."""
        ticks = self.ticks(at)
        return self.instant(ticks - ticks % self.ticks_per_bucket)

    def row(self, entity: Mapping[str, Any], at: Instant) -> bytes:
        """Return the rowkey of ``entity``'s bucket holding ``at``.

        Raises:
            ValidationError: A bad instant, or entity fields that do not encode.
        """
        ticks = self.ticks(at)
        return self._row(entity, ticks - ticks % self.ticks_per_bucket)

    def column(self, at: Instant) -> bytes:
        """Return the column ``family:<offset>`` of an event at ``at``."""
        return self._column(self.ticks(at) % self.ticks_per_bucket)

    def buckets(self, start: Instant, end: Instant) -> list[dt.datetime]:
        """Return the starts of the buckets the window ``start <= t < end`` touches, in order.

        ``[]`` when ``end <= start``.
        """
        first, stop = self.ticks(start), self.ticks(end)
        if stop <= first:
            return []
        low = first - first % self.ticks_per_bucket
        return [self.instant(t) for t in range(low, stop, self.ticks_per_bucket)]

    def rows(self, entity: Mapping[str, Any], start: Instant, end: Instant) -> list[bytes]:
        """Return the rowkeys of :meth:`buckets` for ``entity``, in time order."""
        return [self.row(entity, b) for b in self.buckets(start, end)]

    def to_puts(
        self,
        entity: Mapping[str, Any],
        points: Points[V],
        *,
        timestamp: int | None = None,
    ) -> list[Put]:
        """Return one put per event; no reads (append-only).

        Args:
            entity: The entity's key fields.
            points: ``{instant: value}`` or ``(instant, value)`` pairs.
            timestamp: The cells' timestamp (epoch ms), or ``None`` for the server's time.

        Raises:
            ValidationError: A bad instant, an entity that does not encode, or a value
                the codec refuses (the message names table, row and column).
        """
        pairs = points.items() if isinstance(points, Mapping) else points
        ttl = None if self.ttl is None else self.ttl // timedelta(milliseconds=1)
        puts: list[Put] = []
        for at, value in pairs:
            ticks = self.ticks(at)
            offset = ticks % self.ticks_per_bucket
            row = self._row(entity, ticks - offset)
            column = self._column(offset)
            try:
                data = self.value.encode(value)
            except CodecError as error:
                raise ValidationError(
                    f"event value does not encode: {error.message}",
                    table=self.table.full_name,
                    row=row,
                    column=column,
                    value=value,
                ) from error
            puts.append(Put(row, column, data, timestamp, ttl))
        return puts

    def points(self, results: Iterable[RowResult], start: Instant, end: Instant) -> list[Point[V]]:
        """Decode rows of this series into the points with ``start <= t < end``, in time order.

        Raises:
            DecodeError: A row that is not this series' key, a column of the family with a
                qualifier that is not an offset, or a value the codec refuses; the error
                names table, row and column.
        """
        low, high = self.ticks(start), self.ticks(end)
        found: list[tuple[int, V]] = []
        for result in results:
            try:
                base = self._timestamp.ticks(self.key.decode(result.row)[self.bucket_field])
            except HModelError as error:
                raise DecodeError(
                    f"not a row of this series: {error.message}",
                    table=self.table.full_name,
                    row=result.row,
                ) from error
            for column, cell in result.cells.items():
                if not column.startswith(self._family):
                    continue
                qualifier = column[len(self._family) :]
                offset = int.from_bytes(qualifier, "big")
                if len(qualifier) != self.offset_width or offset >= self.ticks_per_bucket:
                    raise DecodeError(
                        f"qualifier is not a {self.offset_width}-byte offset below "
                        f"{self.ticks_per_bucket}",
                        table=self.table.full_name,
                        row=result.row,
                        column=column,
                    )
                ticks = base + offset
                if not low <= ticks < high:
                    continue
                try:
                    value = self.value.decode(cell.value)
                except CodecError as error:
                    raise DecodeError(
                        f"event value does not decode: {error.message}",
                        table=self.table.full_name,
                        row=result.row,
                        column=column,
                        value=cell.value,
                    ) from error
                found.append((ticks, value))
        found.sort(key=lambda pair: pair[0])
        return [Point(self.instant(t), v) for t, v in found]

    def on(
        self,
        backend: Backend | Store,
        *,
        stamps: WriteStamps | None = None,
        rows_per_get: int = 1000,
    ) -> TimeSeries[V]:
        """Bind this declaration to a backend (or a store): the object that appends and reads."""
        return TimeSeries(self, backend, stamps=stamps, rows_per_get=rows_per_get)

    # --- helpers ------------------------------------------------------------------------

    def _row(self, entity: Mapping[str, Any], bucket_ticks: int) -> bytes:
        if not isinstance(entity, Mapping):
            raise ValidationError(
                "an entity is a mapping of key field values", table=self.table.full_name
            )
        values = {**entity, self.bucket_field: bucket_ticks}
        try:
            return self.key.encode(values)
        except EncodeError as error:
            raise ValidationError(
                error.message, table=self.table.full_name, field=error.field, value=error.value
            ) from error

    def _column(self, offset: int) -> bytes:
        return self._family + offset.to_bytes(self.offset_width, "big")


class TimeSeriesCore(Generic[V, B]):
    """The state and sans-I/O operations of both time series edges (R9).

    Not used directly: :class:`TimeSeries` (synchronous) and
    :class:`hmodel.aio.AsyncTimeSeries` (asyncio) are its facades and take its
    arguments (see :class:`TimeSeries`). Appends and window reads are operations
    (:mod:`hmodel.backend.op`) yielding the backend calls they need, run by either
    edge's driver.
    """

    def __init__(
        self,
        buckets: TimeBuckets[V],
        backend: B,
        *,
        stamps: WriteStamps | None = None,
        rows_per_get: int = 1000,
    ) -> None:
        if isinstance(rows_per_get, bool) or not isinstance(rows_per_get, int) or rows_per_get < 1:
            raise ValidationError("rows_per_get must be an int >= 1", value=rows_per_get)
        self.declaration = buckets
        self.backend: B = backend
        self.stamps = stamps_for(system_clock) if stamps is None else stamps
        self.rows_per_get = rows_per_get

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.declaration!r})"

    def _append_many_op(self, items: Iterable[tuple[Mapping[str, Any], Points[V]]]) -> Op[int]:
        """The operation of ``append_many``: every event encoded, then one ``mutate``."""
        # Appends only put new cells, so one stamp per call ordered for the table suffices
        # (a bulk load does not run the process's stamps ahead of the clock).
        stamp = self.stamps.next(rows=[self.declaration.table.full_name.encode()])
        mutations: list[Mutation] = []
        for entity, points in items:
            mutations.extend(self.declaration.to_puts(entity, points, timestamp=stamp))
        if mutations:
            yield Call("mutate", (self.declaration.table.full_name, mutations))
        return len(mutations)

    def _read_many_op(
        self, entities: Sequence[Mapping[str, Any]], start: Instant, end: Instant
    ) -> Op[list[list[Point[V]]]]:
        """The operation of ``read_many``: one get per ``rows_per_get`` buckets."""
        declaration = self.declaration
        per_entity = [declaration.rows(entity, start, end) for entity in entities]
        wanted = [row for rows in per_entity for row in rows]
        found: dict[bytes, RowResult] = {}
        columns = [declaration.family.encode()]
        for first in range(0, len(wanted), self.rows_per_get):
            chunk = wanted[first : first + self.rows_per_get]
            results: list[RowResult] = yield Call(
                "get", (declaration.table.full_name, chunk), {"columns": columns}
            )
            for result in results:
                found[result.row] = result
        return [
            declaration.points([found[r] for r in rows if r in found], start, end)
            for rows in per_entity
        ]


class TimeSeries(TimeSeriesCore[V, Backend]):
    """A :class:`TimeBuckets` declaration bound to a backend: append and window reads.

    :class:`hmodel.aio.AsyncTimeSeries` is its asyncio edge: the same operations, awaited.

    Args:
        buckets: The declaration.
        backend: The backend holding its table, or a :class:`~hmodel.repository.Store`
            (its backend and write stamps).
        stamps: Timestamps of the writes; default: the store's, or the process's stamps
            for the system clock (``stamps_for(system_clock)``).
        rows_per_get: At most this many rows per get of a window read (>= 1).

    Raises:
        ValidationError: ``rows_per_get`` is not an int >= 1.
    """

    def __init__(
        self,
        buckets: TimeBuckets[V],
        backend: Backend | Store,
        *,
        stamps: WriteStamps | None = None,
        rows_per_get: int = 1000,
    ) -> None:
        if isinstance(backend, Store):
            stamps = backend.stamps if stamps is None else stamps
            backend = backend.backend
        super().__init__(buckets, backend, stamps=stamps, rows_per_get=rows_per_get)

    def create_table(self, *, exist_ok: bool = True) -> None:
        """Create the table; an existing one is left alone unless ``exist_ok=False``."""
        name = self.declaration.table.full_name
        if exist_ok and self.backend.table_exists(name):
            return
        self.backend.create_table(self.declaration.table)

    def append(
        self,
        entity: Mapping[str, Any],
        points: Points[V],
    ) -> int:
        """Write events of one entity: one put per event, no read, one round trip.

        Every cell of the call carries one write stamp. Each row's cells are applied
        atomically (HBase row atomicity); cells of different buckets are not.

        Returns:
            The number of cells written.
        """
        return self.append_many([(entity, points)])

    def append_many(
        self,
        items: Iterable[tuple[Mapping[str, Any], Points[V]]],
    ) -> int:
        """Write events of several entities in one round trip (one ``mutate``); no read.

        Every event is checked and encoded before anything is sent: an invalid one
        raises :class:`~hmodel.errors.ValidationError` and nothing is written.

        Returns:
            The number of cells written.
        """
        return run(self._append_many_op(items), self.backend)

    def read(self, entity: Mapping[str, Any], start: Instant, end: Instant) -> list[Point[V]]:
        """Return the events of ``entity`` with ``start <= t < end``, oldest first.

        ``start`` is inclusive, ``end`` exclusive (to include an instant ``e``, pass the
        next tick). The read computes the buckets the window spans and gets their rows in
        one round trip per ``rows_per_get`` buckets (a multi-get, so a salted key costs no
        extra round trip); the first and last buckets are read whole and trimmed to the
        window here. An empty window makes no round trip.
        """
        return self.read_many([entity], start, end)[0]

    def read_many(
        self, entities: Sequence[Mapping[str, Any]], start: Instant, end: Instant
    ) -> list[list[Point[V]]]:
        """:meth:`read` for several entities, sharing the gets; one list per entity, in order."""
        return run(self._read_many_op(entities, start, end), self.backend)
