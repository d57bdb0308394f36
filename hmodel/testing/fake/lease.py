"""Leases: open server-side objects by id that expire when unused, as HBase's scanner caches do."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from hmodel.clock import Clock
from hmodel.errors import IllegalArgumentError

__all__ = ["Leases"]

T = TypeVar("T")


class Leases(Generic[T]):
    """Values by integer id that expire after ``lease_ms`` without use, closed as they go.

    HBase's Thrift servers keep their open scanners in a Guava cache built with
    ``expireAfterAccess``: every use of an id renews its lease, and an id unused for the
    lease is forgotten and its scanner closed. This is that cache. :meth:`expire` forgets
    and closes what is due; the servers call it before each use and from their sweeper,
    so abandoned values are closed on time without any further call. Thread-safe.

    Args:
        lease_ms: Milliseconds a value lives after its last use (an int >= 1).
        clock: The time in epoch milliseconds (a ``ManualClock`` in tests).
        close: Called once with each value expired, outside the lock (errors propagate
            to the caller of :meth:`expire`).

    Raises:
        IllegalArgumentError: ``lease_ms`` is not a positive int.
    """

    def __init__(self, *, lease_ms: int, clock: Clock, close: Callable[[T], None]) -> None:
        if isinstance(lease_ms, bool) or not isinstance(lease_ms, int) or lease_ms < 1:
            raise IllegalArgumentError("lease_ms must be an int >= 1", value=lease_ms)
        self.lease_ms = lease_ms
        self._clock = clock
        self._close = close
        # id -> (value, time of its last use), least recently used first.
        self._open: OrderedDict[int, tuple[T, int]] = OrderedDict()
        #: Held while the ids change; re-entrant, so a caller picking a free id may hold it
        #: across :meth:`__contains__` and :meth:`put`.
        self.lock = threading.RLock()

    def __len__(self) -> int:
        """How many values are open, what is due expired first."""
        self.expire()
        with self.lock:
            return len(self._open)

    def __contains__(self, key: object) -> bool:
        """Whether ``key`` is open (without renewing it); the caller may hold :attr:`lock`."""
        return key in self._open

    def expire(self) -> list[int]:
        """Forget and close every value unused for ``lease_ms``; return their ids, sorted."""
        now = self._clock()
        expired: list[tuple[int, T]] = []
        with self.lock:
            for key, (value, used) in self._open.items():
                if now - used < self.lease_ms:
                    break  # the rest were used later
                expired.append((key, value))
            for key, _value in expired:
                del self._open[key]
        for _key, value in expired:
            self._close(value)
        return sorted(key for key, _value in expired)

    def put(self, key: int, value: T) -> None:
        """Open ``value`` as ``key`` (replacing nothing: the caller picks a free id)."""
        with self.lock:
            self._open[key] = (value, self._clock())

    def get(self, key: int) -> T | None:
        """The value of ``key``, its lease renewed; ``None`` if not open (or expired)."""
        self.expire()
        with self.lock:
            found = self._open.get(key)
            if found is None:
                return None
            self._open[key] = (found[0], self._clock())
            self._open.move_to_end(key)
            return found[0]

    def pop(self, key: int) -> T | None:
        """Forget ``key`` and return its value (not closed); ``None`` if not open."""
        self.expire()
        with self.lock:
            found = self._open.pop(key, None)
        return None if found is None else found[0]

    def close_all(self) -> None:
        """Forget and close every value (the server is stopping)."""
        with self.lock:
            values = [value for value, _used in self._open.values()]
            self._open.clear()
        for value in values:
            self._close(value)
