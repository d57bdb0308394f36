"""The identity map: what a repository remembers of each instance it returned or saved."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
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

    Models are mutable and unhashable, so entries are keyed by ``id``. Each entry holds a
    weak reference to its object whose callback (one bound method shared by all) drops
    the entry when the object is garbage-collected, before its ``id`` can be reused. This
    runs once per loaded object: a weak reference with a shared callback costs a third of
    one with a closure, and a tenth of a ``weakref.finalize``.
    """

    def __init__(self) -> None:
        # id(obj) -> (weak reference, row, version, partial); a Loaded is made on recall.
        self._entries: dict[int, tuple[_Ref, bytes, bytes | None, bool]] = {}
        self._drop = self._dropped

    def remember(
        self, obj: object, row: bytes, version: bytes | None, *, partial: bool = False
    ) -> None:
        """Record what ``obj`` was read or saved as."""
        key = id(obj)
        found = self._entries.get(key)
        if found is None:
            ref = _Ref(obj, self._drop)
            ref.key = key
        else:
            ref = found[0]
        self._entries[key] = (ref, row, version, partial)

    def remember_rows(
        self, objs: Sequence[object], rows: Sequence[bytes], *, partial: bool = False
    ) -> None:
        """Record each of ``objs`` as read from the rowkey at its place in ``rows``.

        :meth:`remember` of each with no version, for the instances a multi-row read has
        just built (none of them is remembered yet), in one loop.
        """
        entries = self._entries
        drop = self._drop
        for obj, row in zip(objs, rows, strict=True):
            key = id(obj)
            found = entries.get(key)
            if found is None:
                ref = _Ref(obj, drop)
                ref.key = key
            else:
                ref = found[0]
            entries[key] = (ref, row, None, partial)

    def recall(self, obj: object) -> Loaded | None:
        """What ``obj`` was read or saved as, or ``None`` for an instance never seen."""
        found = self._entries.get(id(obj))
        return None if found is None else Loaded(found[1], found[2], found[3])

    def copy(self) -> IdentityMap:
        """A map with the same entries, changed independently (for explanations).

        The copy's entries are dropped with their objects as well.
        """
        copied = IdentityMap()
        for key, (ref, row, version, partial) in self._entries.items():
            obj = ref()
            if obj is not None:
                fresh = _Ref(obj, copied._drop)
                fresh.key = key
                copied._entries[key] = (fresh, row, version, partial)
        return copied

    def forget(self, obj: object) -> None:
        """Forget ``obj`` (after it was deleted)."""
        self._entries.pop(id(obj), None)

    def __len__(self) -> int:
        """How many instances are remembered."""
        return len(self._entries)

    def _dropped(self, ref: _Ref) -> None:
        """The weak reference callback: drop ``ref``'s entry if it is still this reference's."""
        found = self._entries.get(ref.key)
        if found is not None and found[0] is ref:
            self._entries.pop(ref.key, None)


class _Ref(weakref.ref):  # type: ignore[type-arg]
    """A weak reference that knows the identity-map key of its object."""

    __slots__ = ("key",)
    key: int
