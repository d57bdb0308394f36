"""Clocks in epoch milliseconds, injected wherever hmodel needs the time."""

from __future__ import annotations

import threading
import time
import weakref
from typing import Protocol

__all__ = ["Clock", "ManualClock", "WriteStamps", "stamps_for", "system_clock"]


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
    """Timestamps for writes that order one process's writes, even on a still clock.

    A hybrid logical clock: every stamp handed out is ``max(clock(), last + 1)``, so stamps
    are strictly increasing whether the clock stands still (a frozen :class:`ManualClock`,
    two writes in one millisecond) or steps back (an NTP correction). A delete marker
    stamped by this object can therefore never hide a later write stamped by it: HBase
    hides every put whose timestamp is ``<=`` a delete marker's, *whatever their order of
    arrival* (a delete wins a tie), so the stamps alone decide.

    :meth:`observe` folds in a timestamp seen elsewhere (a cell read, a version
    number), so that a write made after reading a row is stamped after what was read,
    even when the row was written by another process whose clock runs ahead.

    Across processes nothing orders two writers that read nothing from each other: if
    process A deletes a row at ``t`` and process B, unaware, writes it at ``t`` or
    earlier (clocks in the same millisecond, or B's clock behind), B's write stays hidden.
    See ``docs/repository.md`` ("Write stamps") for what to do about it.

    Stamps run ahead of the clock by one millisecond per write made within one
    millisecond, and catch up when the clock passes them. Thread-safe.

    Args:
        clock: The clock the stamps follow.

    Example:
        >>> stamps = WriteStamps(ManualClock(1_000))
        >>> stamps.next(), stamps.next(), stamps.next(2)
        (1000, 1001, 1002)
        >>> stamps.next()  # next(2) reserved 1002 and 1003
        1004
        >>> stamps.observe(5_000)
        >>> stamps.next()
        5001
    """

    def __init__(self, clock: Clock = system_clock) -> None:
        self.clock = clock
        self._last = 0
        self._lock = threading.Lock()

    def next(self, count: int = 1, *, after: int = 0) -> int:
        """Reserve ``count`` consecutive stamps and return the first.

        The stamps ``first .. first + count - 1`` are greater than every stamp handed out
        or observed before, than ``after``, and not less than the clock's time.
        """
        if count < 1:
            raise ValueError("reserve at least one stamp")
        now = self.clock()
        with self._lock:
            first = max(now, self._last + 1, after + 1)
            self._last = first + count - 1
            return first

    def observe(self, timestamp: int) -> None:
        """Make every later stamp greater than ``timestamp``."""
        with self._lock:
            self._last = max(self._last, timestamp)

    @property
    def last(self) -> int:
        """The greatest stamp handed out or observed so far (0 before any)."""
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
