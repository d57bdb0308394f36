"""The identity map: what a repository remembers of each instance it returned or saved."""

from __future__ import annotations

import weakref

import attrs

__all__ = ["IdentityMap", "Loaded"]


@attrs.frozen
class Loaded:
    """What a repository remembers of one instance.

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

    Models are mutable and unhashable, so entries are keyed by ``id`` and dropped when the
    object is garbage-collected.
    """

    def __init__(self) -> None:
        self._entries: dict[int, Loaded] = {}

    def remember(
        self, obj: object, row: bytes, version: bytes | None, *, partial: bool = False
    ) -> None:
        """Record what ``obj`` was read or saved as."""
        key = id(obj)
        if key not in self._entries:
            weakref.finalize(obj, self._entries.pop, key, None)
        self._entries[key] = Loaded(row, version, partial)

    def recall(self, obj: object) -> Loaded | None:
        """What ``obj`` was read or saved as, or ``None`` for an instance never seen."""
        return self._entries.get(id(obj))

    def copy(self) -> IdentityMap:
        """A map with the same entries, changed independently (for explanations)."""
        copied = IdentityMap()
        copied._entries = dict(self._entries)
        return copied

    def forget(self, obj: object) -> None:
        """Forget ``obj`` (after it was deleted)."""
        self._entries.pop(id(obj), None)
