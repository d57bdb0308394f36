"""The rows of a table in rowkey order: chunked sorted rowkeys with parallel row payloads."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

__all__ = ["RowIndex"]


class RowIndex:
    """A sorted map of rowkey to ``(names, data)``, kept as chunks of parallel lists.

    Layout: the rows are cut into consecutive chunks of at most :attr:`CHUNK` rows. For
    chunk ``c``, ``keys[c]`` is its rowkeys in unsigned byte order, and ``names[c]`` and
    ``data[c]`` are lists of the same length holding each row's two payload fields
    (what they are is the table's business, see :class:`MemoryTable`); ``firsts[c]`` is
    ``keys[c][0]``. Every chunk holds at least one row, chunks never overlap, and
    ``firsts`` is sorted. A row therefore costs three list slots (24 bytes, plus the
    lists' spare capacity) and no object of its own, against a ``SortedDict``'s dict entry
    and sorted-list slot (about 60 bytes).

    Finding a row is two bisections (of ``firsts``, then of one chunk), both in C; a new
    row is inserted into one chunk, which is split in two when it outgrows
    :attr:`CHUNK`, so nothing costs more with the size of the table than a bisection.
    The four lists are public for the engine's hot read path, which inlines
    :meth:`locate`; they are changed only through the methods here. The caller holds the
    table lock.
    """

    __slots__ = ("data", "firsts", "keys", "names")

    #: Most rows in one chunk; a chunk reaching it is split in two.
    CHUNK = 1024

    def __init__(self) -> None:
        self.firsts: list[bytes] = []
        self.keys: list[list[bytes]] = []
        self.names: list[list[object]] = []
        self.data: list[list[object]] = []

    def __len__(self) -> int:
        return sum(len(chunk) for chunk in self.keys)

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

    def get(self, key: bytes) -> tuple[object, object] | None:
        """The ``(names, data)`` of ``key``, or ``None``."""
        chunk, index = self.locate(key)
        if chunk < 0:
            return None
        return self.names[chunk][index], self.data[chunk][index]

    def set(self, key: bytes, names: object, data: object) -> None:
        """Store ``(names, data)`` as the payload of ``key``, adding the row if it is new."""
        firsts = self.firsts
        chunk = bisect.bisect_right(firsts, key) - 1
        if chunk < 0:
            if not firsts:  # the first row of the table
                firsts.append(key)
                self.keys.append([key])
                self.names.append([names])
                self.data.append([data])
                return
            chunk = 0  # below every stored key: it goes first in the first chunk
        keys = self.keys[chunk]
        index = bisect.bisect_left(keys, key)
        if index < len(keys) and keys[index] == key:
            self.names[chunk][index] = names
            self.data[chunk][index] = data
            return
        keys.insert(index, key)
        self.names[chunk].insert(index, names)
        self.data[chunk].insert(index, data)
        if index == 0:
            firsts[chunk] = key
        if len(keys) > self.CHUNK:
            self._split(chunk, appended=index == len(keys) - 1 and chunk == len(firsts) - 1)

    def _split(self, chunk: int, *, appended: bool) -> None:
        """Cut ``chunk`` in two: halves, or its last row alone if it was just appended.

        Rows usually arrive in ascending order: splitting off only the new last row leaves
        the chunks behind it full (halving them would leave every chunk half empty).
        """
        half = len(self.keys[chunk]) - 1 if appended else len(self.keys[chunk]) // 2
        for lists in (self.keys, self.names, self.data):
            whole = lists[chunk]
            lists.insert(chunk + 1, whole[half:])  # type: ignore[arg-type]
            del whole[half:]
        self.firsts.insert(chunk + 1, self.keys[chunk + 1][0])

    def delete(self, key: bytes) -> None:
        """Remove the row ``key`` if it is stored."""
        chunk, index = self.locate(key)
        if chunk < 0:
            return
        keys = self.keys[chunk]
        del keys[index], self.names[chunk][index], self.data[chunk][index]
        if not keys:
            del self.firsts[chunk], self.keys[chunk], self.names[chunk], self.data[chunk]
        elif index == 0:
            self.firsts[chunk] = keys[0]

    def range(
        self, low: bytes, high: bytes | None, *, low_inclusive: bool, reverse: bool
    ) -> Iterator[tuple[bytes, object, object]]:
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
            keys, names, data = all_keys[chunk], all_names[chunk], all_data[chunk]
            start = first_index if chunk == first_chunk else 0
            stop = last_index if chunk == last_chunk else len(keys)
            indexes = range(start, stop)
            for index in reversed(indexes) if reverse else indexes:
                yield keys[index], names[index], data[index]

    def __iter__(self) -> Iterator[bytes]:
        for keys in self.keys:
            yield from keys
