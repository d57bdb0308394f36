"""The rows of a table in rowkey order: chunked sorted rowkeys with parallel row payloads."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

__all__ = ["Names", "RowIndex"]

#: The first payload field of a row: a tuple (the table shares one per distinct value,
#: so equal ones are usually the same object) or ``None``.
Names = tuple[bytes, ...] | None


class RowIndex:
    """A sorted map of rowkey to ``(names, data)``, kept as chunks of parallel lists.

    Layout: the rows are cut into consecutive chunks of at most :attr:`CHUNK` rows. For
    chunk ``c``:

    * ``keys[c]`` is a list of its rowkeys in unsigned byte order, and ``firsts[c]`` is
      ``keys[c][0]``; every chunk holds at least one row, chunks never overlap, and
      ``firsts`` is sorted;
    * ``data[c]`` is a list of each row's ``data`` (any object, the table's business);
    * ``names[c]`` is either a list of each row's ``names`` (a tuple or ``None``), or,
      when every row of the chunk has the very same tuple (``is``), that tuple alone: a
      *uniform* chunk. A chunk becomes uniform when it is made (by its first row or by a
      split) and all its rows share one tuple, and stops being one when a row with
      other names arrives.

    A row therefore costs two list slots (16 bytes) in a uniform chunk and three (24
    bytes) in another, plus the lists' spare capacity, and no object of its own, against
    a ``SortedDict``'s dict entry and sorted-list slot (about 60 bytes). Rows arriving
    in ascending order fill their chunks (see :meth:`_split`).

    Finding a row is two bisections (of ``firsts``, then of one chunk), both in C; a new
    row is inserted into one chunk, which is split in two when it outgrows
    :attr:`CHUNK`, so nothing costs more with the size of the table than a bisection and
    a bounded list insertion. The four lists are public for the engine's hot read path,
    which inlines :meth:`get`; they are changed only through the methods here. The caller
    holds the table lock.
    """

    __slots__ = ("data", "firsts", "keys", "names")

    #: Most rows in one chunk; a chunk outgrowing it is split in two.
    CHUNK = 1024

    def __init__(self) -> None:
        self.firsts: list[bytes] = []
        self.keys: list[list[bytes]] = []
        self.names: list[list[Names] | tuple[bytes, ...]] = []
        self.data: list[list[object]] = []

    def __len__(self) -> int:
        return sum(len(chunk) for chunk in self.keys)

    def __iter__(self) -> Iterator[bytes]:
        for keys in self.keys:
            yield from keys

    def clear(self) -> None:
        """Drop every row."""
        self.firsts, self.keys, self.names, self.data = [], [], [], []

    def locate(self, key: bytes) -> tuple[int, int]:
        """The ``(chunk, index)`` of ``key``, or ``(-1, -1)`` if it is not stored."""
        chunk = bisect.bisect_right(self.firsts, key) - 1
        if chunk >= 0:
            keys = self.keys[chunk]
            index = bisect.bisect_left(keys, key)
            if index < len(keys) and keys[index] == key:
                return chunk, index
        return -1, -1

    def get(self, key: bytes) -> tuple[Names, object] | None:
        """The ``(names, data)`` of ``key``, or ``None``."""
        chunk, index = self.locate(key)
        if chunk < 0:
            return None
        shared = self.names[chunk]
        names = shared[index] if type(shared) is list else shared
        return names, self.data[chunk][index]  # type: ignore[return-value]

    def _per_row(self, chunk: int) -> list[Names]:
        """The names of ``chunk`` as a list of one per row (a uniform chunk stops being so)."""
        shared = self.names[chunk]
        if type(shared) is list:
            return shared
        listed: list[Names] = [shared] * len(self.keys[chunk])  # type: ignore[list-item]
        self.names[chunk] = listed
        return listed

    def set(self, key: bytes, names: Names, data: object) -> None:
        """Store ``(names, data)`` as the payload of ``key``, adding the row if it is new."""
        firsts = self.firsts
        chunk = bisect.bisect_right(firsts, key) - 1
        if chunk < 0:
            if not firsts:  # the first row of the table
                firsts.append(key)
                self.keys.append([key])
                self.names.append(names if names is not None else [names])
                self.data.append([data])
                return
            chunk = 0  # below every stored key: it goes first in the first chunk
        keys = self.keys[chunk]
        index = bisect.bisect_left(keys, key)
        present = index < len(keys) and keys[index] == key
        if names is not self.names[chunk]:  # not the uniform chunk's tuple
            listed = self._per_row(chunk)
            if present:
                listed[index] = names
            else:
                listed.insert(index, names)
        if present:
            self.data[chunk][index] = data
            return
        keys.insert(index, key)
        self.data[chunk].insert(index, data)
        if index == 0:
            firsts[chunk] = key
        if len(keys) > self.CHUNK:
            self._split(chunk, appended=index == len(keys) - 1 and chunk == len(firsts) - 1)

    def _split(self, chunk: int, *, appended: bool) -> None:
        """Cut ``chunk`` in two: halves, or its last row alone if it was just appended.

        Rows usually arrive in ascending order: splitting off only the new last row leaves
        the chunks behind it full (halving them would leave every chunk half empty). A
        half whose rows all share one names tuple is made uniform.
        """
        keys = self.keys[chunk]
        cut = len(keys) - 1 if appended else len(keys) // 2
        self.keys.insert(chunk + 1, keys[cut:])
        del keys[cut:]
        data = self.data[chunk]
        self.data.insert(chunk + 1, data[cut:])
        del data[cut:]
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
        chunk, index = self.locate(key)
        if chunk < 0:
            return
        keys = self.keys[chunk]
        if len(keys) == 1:
            del self.firsts[chunk], self.keys[chunk], self.names[chunk], self.data[chunk]
            return
        shared = self.names[chunk]
        if type(shared) is list:
            del shared[index]
        del keys[index], self.data[chunk][index]
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
        firsts, all_keys, all_names, all_data = self.firsts, self.keys, self.names, self.data
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
            keys, shared, data = all_keys[chunk], all_names[chunk], all_data[chunk]
            start = first_index if chunk == first_chunk else 0
            stop = last_index if chunk == last_chunk else len(keys)
            indexes = range(start, stop)
            if type(shared) is list:
                for index in reversed(indexes) if reverse else indexes:
                    yield keys[index], shared[index], data[index]
            else:
                for index in reversed(indexes) if reverse else indexes:
                    yield keys[index], shared, data[index]  # type: ignore[misc]


def _uniform(names: list[Names]) -> list[Names] | tuple[bytes, ...]:
    """``names`` as a uniform chunk's one tuple if every row has that very tuple."""
    first = names[0]
    if first is not None and all(row is first for row in names):
        return first
    return names
