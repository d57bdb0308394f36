"""Clocks in epoch milliseconds, injected wherever hmodel needs the time."""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import Any, Protocol

__all__ = [
    "BATCH_ROWS",
    "SWEEP_MS",
    "Clock",
    "ManualClock",
    "WriteStamps",
    "stamps_for",
    "system_clock",
]

#: From how many rows :meth:`WriteStamps.next` remembers a write as one batch record.
BATCH_ROWS = 32

#: Records older than a second are swept at most this often (ms) while the rows
#: remembered stay within ``max_rows``: a sweep per stamp cost a tenth of its time.
SWEEP_MS = 50


class Clock(Protocol):
    """A source of the current time as integer milliseconds since the Unix epoch (UTC)."""

    def __call__(self) -> int:
        """Return the current time in epoch milliseconds."""
        ...


def system_clock() -> int:
    """Return the wall-clock time in epoch milliseconds, as HBase stamps cells."""
    return time.time_ns() // 1_000_000


class ManualClock:
    """A clock that only moves when told to: for TTL and timestamp tests.

    Args:
        start: The initial time in epoch milliseconds.

    Example:
        >>> clock = ManualClock(1_000)
        >>> clock()
        1000
        >>> clock.advance(seconds=2)
        >>> clock()
        3000
    """

    def __init__(self, start: int = 1_700_000_000_000) -> None:
        self._now = start
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, int]:
        """Pickle the time only: a copy in another process starts where this one stood."""
        return {"now": self()}

    def __setstate__(self, state: dict[str, int]) -> None:
        self._now = state["now"]
        self._lock = threading.Lock()

    def __call__(self) -> int:
        """Return the clock's current time in epoch milliseconds."""
        with self._lock:
            return self._now

    def advance(self, millis: int = 0, *, seconds: float = 0) -> None:
        """Move the clock forward by ``millis`` plus ``seconds`` (never backwards)."""
        step = millis + round(seconds * 1000)
        if step < 0:
            raise ValueError("a ManualClock never moves backwards")
        with self._lock:
            self._now += step

    def set(self, now: int) -> None:
        """Jump to ``now`` epoch milliseconds (must not be earlier than the current time)."""
        with self._lock:
            if now < self._now:
                raise ValueError("a ManualClock never moves backwards")
            self._now = now


class WriteStamps:
    """Timestamps for writes that order one process's writes to a row, even on a still clock.

    A hybrid logical clock kept per row: a stamp for writes of some rows is
    ``max(clock(), last stamp of any of those rows + 1)``, so the stamps of one row are
    strictly increasing whether the clock stands still (a frozen :class:`ManualClock`,
    two writes in one millisecond) or steps back (an NTP correction). A delete marker
    stamped by this object can therefore never hide a later write of the same row stamped
    by it: HBase hides every put whose timestamp is ``<=`` a delete marker's of the same
    row, *whatever their order of arrival* (a delete wins a tie), so the stamps decide.

    Per row, because a delete only ever hides cells of its own row: writes to many
    different rows all take the clock's time, so a bulk load does not push the stamps
    ahead of the clock (which would make this process's deletes hide other processes'
    later writes). Only a row written again within its last stamp's millisecond gets a
    stamp ahead of the clock, by one millisecond per such write. Rows are told apart by
    their key bytes (two tables' equal keys share a history: harmless, only stricter).
    Rows whose last stamp the clock passed more than a second ago are forgotten (so the
    order holds across a clock step back of up to a second); at most ``max_rows`` are
    remembered (the oldest are forgotten first).

    A batch (:data:`BATCH_ROWS` rows or more) is remembered as one record (a copy of its
    rows, made a set only when a later write of the same millisecond looks a row up in
    it), so its stamp costs no Python step per row. Only records the clock has not
    passed can raise a stamp (an older one is below the clock's time, which every stamp
    reaches anyway): batch records are kept in stamp order, so a look-up reads only the
    last few, and the per-row records are not looked at when none is that recent.

    :meth:`observe` folds in a timestamp seen elsewhere (a cell read, a version number),
    so that a write made after reading a row is stamped after what was read, even when
    the row was written by another process whose clock runs ahead.

    A stamp asked for without rows (``next()``) is greater than every stamp handed out
    before, for any row, and later stamps of any row are greater than it: the process-
    wide order of the first version of this class, for callers that cannot name rows.

    Across processes nothing orders two writers that read nothing from each other: if
    process A deletes a row at ``t`` and process B, unaware, writes it at ``t`` or
    earlier (clocks in the same millisecond, or B's clock behind), B's write stays hidden.
    See ``docs/repository.md`` ("What a write guarantees") for what to do about it.

    Thread-safe.

    Args:
        clock: The clock the stamps follow.
        max_rows: How many rows' last stamps are remembered at most.

    Example:
        >>> stamps = WriteStamps(ManualClock(1_000))
        >>> stamps.next(rows=[b"a"]), stamps.next(rows=[b"a"]), stamps.next(2, rows=[b"a"])
        (1000, 1001, 1002)
        >>> stamps.next(rows=[b"a"])  # next(2) reserved 1002 and 1003 for row a
        1004
        >>> stamps.next(rows=[b"b"])  # another row: the clock's time
        1000
        >>> stamps.observe(5_000, rows=[b"b"])
        >>> stamps.next(rows=[b"b"])
        5001
    """

    def __init__(self, clock: Clock = system_clock, *, max_rows: int = 1_000_000) -> None:
        self.clock = clock
        self.max_rows = max_rows
        self._rows: OrderedDict[bytes, int] = OrderedDict()
        #: Batch records ``[stamp, rows, their set or None]``, in non-decreasing stamp order.
        self._batches: deque[list[Any]] = deque()
        self._batched = 0  # rows in the batch records
        self._rows_top = 0  # no per-row record is greater
        self._floor = 0  # the last stamp handed out without rows: every stamp exceeds it
        self._last = 0
        self._sweep_at = 0  # the clock time of the next sweep of old records
        self._lock = threading.Lock()

    def _forget(self, now: int) -> None:
        self._sweep_at = now + SWEEP_MS
        rows, batches = self._rows, self._batches
        horizon = now - 1000
        while batches and (len(rows) + self._batched > self.max_rows or batches[0][0] < horizon):
            self._batched -= len(batches.popleft()[1])
        while rows and (len(rows) > self.max_rows or next(iter(rows.values())) < horizon):
            rows.popitem(last=False)

    def _last_of(self, keys: Sequence[bytes], now: int) -> int:
        """The greatest record of ``keys`` that the clock's ``now`` has not passed, or less."""
        last = self._floor
        if self._rows_top >= now:  # else every per-row record is below the clock's time
            known = self._rows
            if len(keys) == 1:  # a write of one row: most writes
                last = max(last, known.get(keys[0], 0))
            else:
                last = max(last, max(map(known.get, keys, repeat(0)), default=0))
        for record in reversed(self._batches):
            stamp = record[0]
            if stamp < now or stamp <= last:
                break  # this record and every earlier one: at most what is found
            batch = record[2]
            if batch is None:
                batch = record[2] = set(record[1])
            if not batch.isdisjoint(keys):
                last = stamp
                break
        return last

    def next(self, count: int = 1, *, after: int = 0, rows: Iterable[bytes] | None = None) -> int:
        """Reserve ``count`` consecutive stamps for writes of ``rows``; return the first.

        The stamps ``first .. first + count - 1`` are greater than ``after`` and than every
        stamp handed out or observed before for any of ``rows`` (without ``rows``: for any
        row at all), and not less than the clock's time.
        """
        if count < 1:
            raise ValueError("reserve at least one stamp")
        now = self.clock()
        with self._lock:
            if rows is None:
                first = max(now, self._last + 1, after + 1)
                self._floor = self._last = first + count - 1
                return first
            keys = rows if type(rows) is list or type(rows) is tuple else list(rows)
            first = max(now, self._last_of(keys, now) + 1, after + 1)
            final = first + count - 1
            batches = self._batches
            if len(keys) >= BATCH_ROWS and (not batches or batches[-1][0] <= final):
                batches.append([final, tuple(keys), None])
                self._batched += len(keys)
            else:
                known = self._rows
                for key in keys:
                    known[key] = final
                    known.move_to_end(key)
                self._rows_top = max(self._rows_top, final)
            self._last = max(self._last, final)
            if now >= self._sweep_at or len(self._rows) + self._batched > self.max_rows:
                self._forget(now)
            return first

    def observe(self, timestamp: int, *, rows: Iterable[bytes] | None = None) -> None:
        """Make every later stamp of ``rows`` (without ``rows``: of every row) > ``timestamp``.

        A timestamp the clock has already passed needs nothing (every later stamp is at
        least the clock's time), so reading old cells remembers no row.
        """
        if timestamp < self.clock():
            return
        with self._lock:
            if rows is None:
                self._floor = max(self._floor, timestamp)
            else:
                for key in rows:
                    if timestamp > self._rows.get(key, 0):
                        self._rows[key] = timestamp
                        self._rows.move_to_end(key)
                        self._rows_top = max(self._rows_top, timestamp)
            self._last = max(self._last, timestamp)

    @property
    def last(self) -> int:
        """The greatest stamp handed out or observed so far, for any row (0 before any)."""
        return self._last


_STAMPS: weakref.WeakKeyDictionary[object, WriteStamps] = weakref.WeakKeyDictionary()
_STAMPS_BY_ID: dict[int, tuple[object, WriteStamps]] = {}
_STAMPS_LOCK = threading.Lock()


def stamps_for(clock: Clock) -> WriteStamps:
    """The process's :class:`WriteStamps` for ``clock``: one per clock object.

    Every repository and unit of work built on the same clock (by default
    :func:`system_clock`) shares it, so all their writes are ordered with each other,
    whichever model or table they touch.
    """
    with _STAMPS_LOCK:
        try:
            found = _STAMPS.get(clock)
            if found is None:
                found = _STAMPS[clock] = WriteStamps(clock)
            return found
        except TypeError:  # not weakly referenceable: keep it for the process's lifetime
            entry = _STAMPS_BY_ID.get(id(clock))
            if entry is None or entry[0] is not clock:
                entry = _STAMPS_BY_ID[id(clock)] = (clock, WriteStamps(clock))
            return entry[1]
