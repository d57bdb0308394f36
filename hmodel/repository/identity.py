"""The identity map: what a repository remembers of each instance it returned or saved."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import NamedTuple

__all__ = ["IdentityMap", "Loaded"]


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

    Models are mutable and unhashable, so entries are keyed by ``id`` and each holds a weak
    reference whose callback drops the entry when the object is garbage-collected (before
    its ``id`` can be reused). A weak reference with a callback costs a fraction of a
    ``weakref.finalize``, which also registers the object for interpreter exit; this runs
    once per loaded object.
    """

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[object], Loaded]] = {}

    def remember(
        self, obj: object, row: bytes, version: bytes | None, *, partial: bool = False
    ) -> None:
        """Record what ``obj`` was read or saved as."""
        key = id(obj)
        entries = self._entries
        found = entries.get(key)
        ref = found[0] if found is not None else weakref.ref(obj, _dropper(entries, key))
        entries[key] = (ref, Loaded(row, version, partial))

    def recall(self, obj: object) -> Loaded | None:
        """What ``obj`` was read or saved as, or ``None`` for an instance never seen."""
        found = self._entries.get(id(obj))
        return None if found is None else found[1]

    def copy(self) -> IdentityMap:
        """A map with the same entries, changed independently (for explanations).

        The copy's entries are dropped with their objects as well.
        """
        copied = IdentityMap()
        for key, (ref, loaded) in self._entries.items():
            obj = ref()
            if obj is not None:
                copied._entries[key] = (weakref.ref(obj, _dropper(copied._entries, key)), loaded)
        return copied

    def forget(self, obj: object) -> None:
        """Forget ``obj`` (after it was deleted)."""
        self._entries.pop(id(obj), None)


def _dropper(
    entries: dict[int, tuple[weakref.ref[object], Loaded]], key: int
) -> Callable[[weakref.ref[object]], None]:
    """The weak reference callback removing ``key``'s entry, if it is still this reference's."""

    def drop(ref: weakref.ref[object]) -> None:
        found = entries.get(key)
        if found is not None and found[0] is ref:
            del entries[key]

    return drop
