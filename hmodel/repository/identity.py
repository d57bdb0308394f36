"""The identity map: what a repository remembers of each instance it returned or saved."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["SWEEP_AT", "IdentityMap", "Loaded"]


class Loaded(NamedTuple):
    """What a repository remembers of one instance.

    A named tuple: one is made for every loaded or saved instance, and a tuple is built
    several times faster than a frozen attrs class.

    Attributes:
        row: Its rowkey: key fields cannot change (K10), a save under another key is refused.
        version: The version cell's bytes as read or last written (``None``: absent, or the
            model is not locked). A locked save expects exactly these bytes.
        partial: Read with ``fields=``: a full save would delete the fields not read.
    """

    row: bytes
    version: bytes | None
    partial: bool = False


class IdentityMap:
    """Remembers :class:`Loaded` per instance, by object identity.

    Models are mutable and unhashable, so entries are keyed by ``id``. Each entry holds a
    plain weak reference to its object, and an entry counts only while that reference
    still gives back the very object asked about: once an object is collected, its
    ``id`` may be reused by a new object, whose lookup then finds a dead reference (or
    another object) and reads as never seen. So no callback runs when an object dies
    (a weak reference without one is shared by every map, and costs half of one with a
    callback plus the callback's call). Dead entries are swept when the map has grown
    to twice what was live at the last sweep (and at least :data:`SWEEP_AT`), so it
    holds at most about twice its live entries, at an amortised cost of one entry
    looked at per entry added. Adding entries and sweeping hold one lock (a batch of
    rows takes it once), so threads sharing a repository never lose a live entry.
    """

    def __init__(self) -> None:
        # id(obj) -> (weak reference, row, version, partial); a Loaded is made on recall.
        self._entries: dict[int, tuple[weakref.ref[object], bytes, bytes | None, bool]] = {}
        self._sweep_at = SWEEP_AT
        # Held while entries are added and while dead ones are swept, so that a sweep
        # never takes an entry another thread has just put under a dead object's id.
        # Reentrant: a finalizer the collector runs inside a sweep may remember too.
        self._lock = threading.RLock()

    def remember(
        self, obj: object, row: bytes, version: bytes | None, *, partial: bool = False
    ) -> None:
        """Record what ``obj`` was read or saved as."""
        entries = self._entries
        with self._lock:
            entries[id(obj)] = (_ref(obj), row, version, partial)
        if len(entries) > self._sweep_at:
            self._sweep()

    def remember_rows(
        self, objs: Sequence[object], rows: Sequence[bytes], *, partial: bool = False
    ) -> None:
        """Record each of ``objs`` as read from the rowkey at its place in ``rows``.

        :meth:`remember` of each with no version, for the instances a multi-row read has
        just built, in one loop.
        """
        entries = self._entries
        ref = _ref
        with self._lock:
            for obj, row in zip(objs, rows, strict=True):
                entries[id(obj)] = (ref(obj), row, None, partial)
        if len(entries) > self._sweep_at:
            self._sweep()

    def recall(self, obj: object) -> Loaded | None:
        """What ``obj`` was read or saved as, or ``None`` for an instance never seen."""
        found = self._entries.get(id(obj))
        if found is None or found[0]() is not obj:  # never seen; or a dead object's id
            return None
        return Loaded(found[1], found[2], found[3])

    def copy(self) -> IdentityMap:
        """A map with the same live entries, changed independently (for explanations)."""
        copied = IdentityMap()
        copied._entries = {
            key: entry for key, entry in self._entries.copy().items() if entry[0]() is not None
        }
        copied._sweep_at = max(SWEEP_AT, 2 * len(copied._entries))
        return copied

    def forget(self, obj: object) -> None:
        """Forget ``obj`` (after it was deleted)."""
        key = id(obj)
        found = self._entries.get(key)
        if found is not None and found[0]() is obj:
            self._entries.pop(key, None)

    def __len__(self) -> int:
        """How many live instances are remembered (dead entries are swept first)."""
        self._sweep()
        return len(self._entries)

    def _sweep(self) -> None:
        """Drop the entries of collected objects; sweep again at twice what is left."""
        entries = self._entries
        # Over a snapshot (``dict.copy`` runs no Python code; iterating the dict itself
        # may run a finalizer when it allocates, and other threads then), under the lock
        # that adding entries takes, each entry taken only if it is still the dead one.
        with self._lock:
            for key, entry in entries.copy().items():
                if entry[0]() is None and entries.get(key) is entry:
                    entries.pop(key, None)
            self._sweep_at = max(SWEEP_AT, 2 * len(entries))


#: The fewest entries a map holds before it sweeps the dead ones.
SWEEP_AT = 1024

_ref = weakref.ref
