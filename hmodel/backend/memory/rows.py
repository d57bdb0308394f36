"""The rows of a table in rowkey order: chunks of sorted rowkeys with parallel row payloads."""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterator, Mapping

from hmodel.backend.base import Cell
from hmodel.backend.memory.version import make_cell

__all__ = ["Names", "RowIndex"]

#: The first payload field of a row: a tuple (the table shares one per distinct value,
#: so equal ones are usually the same object) or ``None``.
Names = tuple[bytes, ...] | None

#: The stamp of a row whose data is stored as it was given (not a ``Cell``).
_AS_GIVEN = -1


class RowIndex:
    """A sorted map of rowkey to ``(names, data)``: chunks of sorted rowkeys, no dict.

    Layout, per chunk ``c`` of at most :attr:`CHUNK` consecutive rows (every chunk holds
    at least one row, chunks never overlap, ``firsts`` is sorted):

    * ``keys[c]``: the chunk's rowkeys in unsigned byte order; ``firsts[c]`` is
      ``keys[c][0]``.
    * ``values[c]`` and ``stamps[c]``, parallel to ``keys[c]``: a row whose ``data`` is a
      :class:`~hmodel.backend.base.Cell` (a plain one-column row, the commonest row of
      all) is stored as the cell's value in ``values`` and its timestamp in ``stamps``,
      an ``array("q")`` of 8 bytes a row, so it costs no object of its own; any other
      ``data`` (any object but ``None``) is stored as it is, with the stamp ``-1``, and
      also in the dict ``objects`` by rowkey. :meth:`get` and :meth:`range` hand out a
      new ``Cell`` equal to the one stored.
    * ``names[c]`` gives the ``names`` of the chunk's rows: either a list of one per
      row (a tuple or ``None``), or, when every row that has names has the very same
      tuple (``is``), that tuple alone: a *uniform* chunk. ``None`` means the row needs
      no names (its ``data`` says everything): such a row leaves a uniform chunk uniform,
      and reads of its names report whatever the chunk holds. A chunk becomes uniform
      when it is made (by its first row or by a split) and stops being one when a row
      with other names arrives.

    A plain one-column row therefore costs three list or array slots (24 bytes) beside
    its rowkey and its value: no dict entry (a dict costs 30 to 60 bytes a row with its
    spare room) and no ``Cell``. A row holding objects (several cells, versions,
    markers) is looked up in ``objects``, one hash probe, its entry's cost shared by its
    cells; a one-cell row (or an absent one) by two bisections, of ``firsts`` (a short
    list, warm in the cache) and of one chunk, with a shortcut for a key above the last
    one (rows written in ascending order). A new row is inserted into one chunk,
    split in two when it outgrows :attr:`CHUNK`, so no cost grows with the size of the
    table but bisections. The lists are public for the engine's hot read path; they are
    changed only through the methods here. The caller holds the table lock.
    """

    __slots__ = ("_count", "firsts", "keys", "names", "objects", "stamps", "values")

    #: Most rows in one chunk; a chunk outgrowing it is split in two.
    CHUNK = 1024

    def __init__(self) -> None:
        self._count = 0
        #: The ``data`` of every row that is not a ``Cell``, by rowkey (see the class).
        self.objects: dict[bytes, object] = {}
        self.firsts: list[bytes] = []
        self.keys: list[list[bytes]] = []
        self.values: list[list[object]] = []
        self.stamps: list[array[int]] = []
        self.names: list[list[Names] | tuple[bytes, ...]] = []

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[bytes]:
        for keys in self.keys:
            yield from keys

    @property
    def data(self) -> Mapping[bytes, object]:
        """A read-only view of each row's ``data`` by rowkey (for tests and inspection)."""
        return _DataView(self)

    def clear(self) -> None:
        """Drop every row."""
        self._count = 0
        self.objects = {}
        self.firsts, self.keys, self.values, self.stamps, self.names = [], [], [], [], []

    def locate(self, key: bytes) -> tuple[int, int]:
        """``(chunk, index)`` of the stored row ``key``, or ``(-1, -1)`` if it is absent."""
        firsts = self.firsts
        if not firsts or key < firsts[0]:
            return -1, -1
        chunk = bisect.bisect_right(firsts, key) - 1
        keys = self.keys[chunk]
        if chunk == len(firsts) - 1 and key > keys[-1]:
            return -1, -1  # above every row: the common miss of rows written in order
        index = bisect.bisect_left(keys, key)
        if index < len(keys) and keys[index] == key:
            return chunk, index
        return -1, -1

    def get(self, key: bytes) -> object | None:
        """The ``data`` of ``key``, or ``None`` if it is not stored."""
        data = self.objects.get(key)
        if data is not None:
            return data
        chunk, index = self.locate(key)
        if chunk < 0:
            return None
        stamp = self.stamps[chunk][index]
        value = self.values[chunk][index]
        return value if stamp < 0 else make_cell(value, stamp)  # type: ignore[arg-type]

    def entry(self, key: bytes) -> tuple[Names, object] | None:
        """``(names, data)`` of ``key``, or ``None`` if it is not stored."""
        data = self.objects.get(key)
        if data is not None:
            return self.names_of(key), data
        chunk, index = self.locate(key)
        if chunk < 0:
            return None
        stamp = self.stamps[chunk][index]
        value = self.values[chunk][index]
        shared = self.names[chunk]
        names = shared if type(shared) is not list else shared[index]
        return names, (value if stamp < 0 else make_cell(value, stamp))  # type: ignore[return-value, arg-type]

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
        chunk, index = self.locate(key)
        self._put(chunk, index, data)

    def _put(self, chunk: int, index: int, data: object) -> None:
        """Store ``data`` in slot ``index`` of ``chunk``."""
        key = self.keys[chunk][index]
        if type(data) is Cell:
            self.values[chunk][index] = data.value
            self.stamps[chunk][index] = data.timestamp
            self.objects.pop(key, None)
        else:
            self.values[chunk][index] = data
            self.stamps[chunk][index] = _AS_GIVEN
            self.objects[key] = data

    def set(self, key: bytes, names: Names, data: object) -> None:
        """Store ``(names, data)`` as the payload of ``key``, adding the row if it is new."""
        value: object
        if type(data) is Cell:
            value, stamp = data.value, data.timestamp
            self.objects.pop(key, None)
        else:
            value, stamp = data, _AS_GIVEN
            self.objects[key] = data
        firsts = self.firsts
        if not firsts:  # the first row of the table
            self._count = 1
            firsts.append(key)
            self.keys.append([key])
            self.values.append([value])
            self.stamps.append(array("q", (stamp,)))
            self.names.append(names if names is not None else [names])
            return
        last = len(firsts) - 1
        keys = self.keys[last]
        if key > keys[-1]:  # above every row: appended to the last chunk
            chunk, index, present = last, len(keys), False
        else:
            chunk = max(0, bisect.bisect_right(firsts, key) - 1)
            keys = self.keys[chunk]
            index = bisect.bisect_left(keys, key)
            present = index < len(keys) and keys[index] == key
        shared = self.names[chunk]
        if present:
            self.values[chunk][index] = value
            self.stamps[chunk][index] = stamp
            if names is None:
                return  # a row without names leaves its chunk's names as they are
            if names is not shared:
                self._per_row(chunk)[index] = names
            return
        if type(shared) is list or (names is not None and names is not shared):
            self._per_row(chunk).insert(index, names)
        self._count += 1
        keys.insert(index, key)
        self.values[chunk].insert(index, value)
        self.stamps[chunk].insert(index, stamp)
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
        keys, values, stamps = self.keys[chunk], self.values[chunk], self.stamps[chunk]
        cut = len(keys) - 1 if appended else len(keys) // 2
        self.keys.insert(chunk + 1, keys[cut:])
        self.values.insert(chunk + 1, values[cut:])
        self.stamps.insert(chunk + 1, stamps[cut:])
        del keys[cut:], values[cut:], stamps[cut:]
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
        self.objects.pop(key, None)
        self._count -= 1
        keys = self.keys[chunk]
        if len(keys) == 1:
            del self.firsts[chunk], self.keys[chunk], self.names[chunk]
            del self.values[chunk], self.stamps[chunk]
            return
        shared = self.names[chunk]
        if type(shared) is list:
            del shared[index]
        del keys[index], self.values[chunk][index], self.stamps[chunk][index]
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
        firsts, all_keys, all_names = self.firsts, self.keys, self.names
        all_values, all_stamps = self.values, self.stamps
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
            values, stamps = all_values[chunk], all_stamps[chunk]
            start = first_index if chunk == first_chunk else 0
            stop = last_index if chunk == last_chunk else len(keys)
            indexes = range(start, stop)
            uniform = type(shared) is not list
            for index in reversed(indexes) if reverse else indexes:
                stamp = stamps[index]
                yield (
                    keys[index],
                    shared if uniform else shared[index],  # type: ignore[misc]
                    values[index] if stamp < 0 else make_cell(values[index], stamp),  # type: ignore[arg-type]
                )


class _DataView(Mapping[bytes, object]):
    """Each row's ``data`` by rowkey, read through the index (see :attr:`RowIndex.data`)."""

    __slots__ = ("_index",)

    def __init__(self, index: RowIndex) -> None:
        self._index = index

    def __getitem__(self, key: bytes) -> object:
        data = self._index.get(key)
        if data is None:
            raise KeyError(key)
        return data

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


def _uniform(names: list[Names]) -> list[Names] | tuple[bytes, ...]:
    """``names`` as a uniform chunk's one tuple if every row with names has that tuple."""
    first = next((row for row in names if row is not None), None)
    if first is not None and all(row is first or row is None for row in names):
        return first
    return names
