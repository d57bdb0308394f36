"""Clocks in epoch milliseconds, injected wherever hmodel needs the time."""

from __future__ import annotations

import threading
import time
from typing import Protocol

__all__ = ["Clock", "ManualClock", "system_clock"]


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
