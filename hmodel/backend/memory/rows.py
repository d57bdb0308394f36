"""The rows of a table in rowkey order: chunked sorted rowkeys with parallel row payloads."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

__all__ = ["Names", "RowIndex"]

#: The first payload field of a row: a tuple (the table shares one per distinct value,
#: so equal ones are usually the same object) or ``None``.
Names = tuple[bytes, ...] | None


class RowIndex:
    """A sorted map of rowkey to ``(names, data)``: a dict, and chunks of sorted rowkeys.

    Layout:

    * ``data`` is a dict of each row's ``data`` (any object but ``None``, the table's
      business) by rowkey: finding a row is one hash probe, whatever the table's size.
    * The rowkeys in unsigned byte order are cut into consecutive chunks of at most
      :attr:`CHUNK`: ``keys[c]`` is the list of chunk ``c``'s rowkeys and ``firsts[c]``
      is ``keys[c][0]``; every chunk holds at least one row, chunks never overlap, and
      ``firsts`` is sorted. Scans walk these.
    * ``names[c]`` gives the ``names`` of chunk ``c``'s rows: either a list of one per
      row (a tuple or ``None``), or, when every row that has names has the very same
      tuple (``is``), that tuple alone: a *uniform* chunk. ``None`` means the row needs
      no names (its ``data`` says everything): such a row leaves a uniform chunk uniform,
      and reads of its names report whatever the chunk holds. A chunk becomes uniform
      when it is made (by its first row or by a split) and stops being one when a row
      with other names arrives.

    A row therefore costs its dict entry (24 bytes plus the hash index, about 30 to 50
    bytes with the dict's spare room) and one list slot (8 bytes) in a uniform chunk, a
    second one in another, and no object of its own. Looking a row up is one dict probe;
    its names, one bisection of ``firsts`` (a short list, warm in the cache), plus one of
    its chunk if the chunk is not uniform. A new row is inserted into one chunk, split in
    two when it outgrows :attr:`CHUNK`, so no cost grows with the size of the table but
    bisections of the chunk lists. The lists and the dict are public for the engine's
    hot read path, which inlines :meth:`get` and :meth:`names_of`; they are changed only
    through the methods here. The caller holds the table lock.
    """

    __slots__ = ("data", "firsts", "keys", "names")

    #: Most rows in one chunk; a chunk outgrowing it is split in two.
    CHUNK = 1024

    def __init__(self) -> None:
        self.data: dict[bytes, object] = {}
        self.firsts: list[bytes] = []
        self.keys: list[list[bytes]] = []
        self.names: list[list[Names] | tuple[bytes, ...]] = []

    def __len__(self) -> int:
        return len(self.data)

    def __iter__(self) -> Iterator[bytes]:
        for keys in self.keys:
            yield from keys

    def clear(self) -> None:
        """Drop every row."""
        self.data, self.firsts, self.keys, self.names = {}, [], [], []

    def get(self, key: bytes) -> object | None:
        """The ``data`` of ``key``, or ``None`` if it is not stored."""
        return self.data.get(key)

    def names_of(self, key: bytes) -> Names:
        """The ``names`` of the stored row ``key`` (see the class for rows without)."""
        chunk = bisect.bisect_right(self.firsts, key) - 1
        shared = self.names[chunk]
        if type(shared) is not list:
            return shared  # type: ignore[return-value]  # a uniform chunk's tuple
        return shared[bisect.bisect_left(self.keys[chunk], key)]

    def _per_row(self, chunk: int) -> list[Names]:
        """The names of ``chunk`` as a list of one per row (a uniform chunk stops being so)."""
        shared = self.names[chunk]
        if type(shared) is list:
            return shared
        listed: list[Names] = [shared] * len(self.keys[chunk])  # type: ignore[list-item]
        self.names[chunk] = listed
        return listed

    def replace(self, key: bytes, data: object) -> None:
        """Make ``data`` the data of the stored row ``key``, its names unchanged."""
        self.data[key] = data

    def set(self, key: bytes, names: Names, data: object) -> None:
        """Store ``(names, data)`` as the payload of ``key``, adding the row if it is new."""
        present = key in self.data
        self.data[key] = data
        if present and names is None:
            return  # a row without names leaves its chunk's names as they are
        firsts = self.firsts
        chunk = bisect.bisect_right(firsts, key) - 1
        if chunk < 0:
            if not firsts:  # the first row of the table
                firsts.append(key)
                self.keys.append([key])
                self.names.append(names if names is not None else [names])
                return
            chunk = 0  # below every stored key: it goes first in the first chunk
        keys = self.keys[chunk]
        shared = self.names[chunk]
        if present:
            if names is not None and names is not shared:
                self._per_row(chunk)[bisect.bisect_left(keys, key)] = names
            elif type(shared) is list:
                shared[bisect.bisect_left(keys, key)] = names
            return
        index = bisect.bisect_left(keys, key)
        if type(shared) is list or (names is not None and names is not shared):
            self._per_row(chunk).insert(index, names)
        keys.insert(index, key)
        if index == 0:
            firsts[chunk] = key
        if len(keys) > self.CHUNK:
            self._split(chunk, appended=index == len(keys) - 1 and chunk == len(firsts) - 1)

    def _split(self, chunk: int, *, appended: bool) -> None:
        """Cut ``chunk`` in two: halves, or its last row alone if it was just appended.

        Rows usually arrive in ascending order: splitting off only the new last row leaves
        the chunks behind it full (halving them would leave every chunk half empty). A
        half whose rows with names all share one tuple is made uniform.
        """
        keys = self.keys[chunk]
        cut = len(keys) - 1 if appended else len(keys) // 2
        self.keys.insert(chunk + 1, keys[cut:])
        del keys[cut:]
        shared = self.names[chunk]
        if type(shared) is list:
            tail = shared[cut:]
            del shared[cut:]
            self.names[chunk] = _uniform(shared)
            self.names.insert(chunk + 1, _uniform(tail))
        else:
            self.names.insert(chunk + 1, shared)
        self.firsts.insert(chunk + 1, self.keys[chunk + 1][0])

    def delete(self, key: bytes) -> None:
        """Remove the row ``key`` if it is stored."""
        if self.data.pop(key, None) is None:
            return
        chunk = bisect.bisect_right(self.firsts, key) - 1
        keys = self.keys[chunk]
        if len(keys) == 1:
            del self.firsts[chunk], self.keys[chunk], self.names[chunk]
            return
        index = bisect.bisect_left(keys, key)
        shared = self.names[chunk]
        if type(shared) is list:
            del shared[index]
        del keys[index]
        if index == 0:
            self.firsts[chunk] = keys[0]

    def range(
        self, low: bytes, high: bytes | None, *, low_inclusive: bool, reverse: bool
    ) -> Iterator[tuple[bytes, Names, object]]:
        """``(key, names, data)`` of the rows from ``low`` to ``high``, in order or reversed.

        The range is ``[low, high)``, or ``(low, high)`` if not ``low_inclusive``; ``high``
        ``None`` leaves it unbounded above. Rows must not be added or removed while
        iterating.
        """
        firsts, all_keys, all_names, data = self.firsts, self.keys, self.names, self.data
        if not firsts:
            return
        find = bisect.bisect_left if low_inclusive else bisect.bisect_right
        first_chunk = max(0, bisect.bisect_right(firsts, low) - 1)
        first_index = find(all_keys[first_chunk], low)
        if high is None:
            last_chunk = len(firsts) - 1
            last_index = len(all_keys[last_chunk])
        else:
            last_chunk = max(0, bisect.bisect_left(firsts, high) - 1)
            last_index = bisect.bisect_left(all_keys[last_chunk], high)
        chunks = range(first_chunk, last_chunk + 1)
        for chunk in reversed(chunks) if reverse else chunks:
            keys, shared = all_keys[chunk], all_names[chunk]
            start = first_index if chunk == first_chunk else 0
            stop = last_index if chunk == last_chunk else len(keys)
            indexes = range(start, stop)
            if type(shared) is list:
                for index in reversed(indexes) if reverse else indexes:
                    key = keys[index]
                    yield key, shared[index], data[key]
            else:
                for index in reversed(indexes) if reverse else indexes:
                    key = keys[index]
                    yield key, shared, data[key]  # type: ignore[misc]


def _uniform(names: list[Names]) -> list[Names] | tuple[bytes, ...]:
    """``names`` as a uniform chunk's one tuple if every row with names has that tuple."""
    first = next((row for row in names if row is not None), None)
    if first is not None and all(row is first or row is None for row in names):
        return first
    return names
