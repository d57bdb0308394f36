"""Thrift call messages encoded once with holes, filled per call by slicing bytes together."""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from typing import Any

from hmodel.backend.wire import WireCodec

__all__ = ["I64", "STRING", "ListTemplate", "MessageTemplate"]

#: A hole for a Thrift ``binary``/``string`` value: its 4-byte big-endian length, then its bytes.
STRING = "string"
#: A hole for a Thrift ``i64`` value: 8 bytes, big-endian two's complement.
I64 = "i64"

_LENGTH = struct.Struct("!i").pack
_LONG = struct.Struct("!q").pack


class MessageTemplate:
    """A whole Thrift call message (binary protocol) encoded once, with holes for some values.

    :meth:`WireCodec.encode <hmodel.backend.wire.WireCodec.encode>` builds the message's
    structs and encodes them on every call; a template encodes the call once, with a
    random marker in place of each varying value, and keeps the bytes between the holes.
    :meth:`fill` then joins those pieces with each value's bytes: for a ``string`` hole
    its length (4 bytes, big-endian) and its bytes, for an ``i64`` hole its 8 bytes
    (big-endian two's complement). The result is byte for byte what ``encode`` gives for
    the same arguments (``tests/backend/test_template.py`` holds it to that).

    Only the binary protocol: a compact message's lengths and integers are varints,
    and :meth:`build` gives ``None`` for it (the caller encodes each call).

    Args:
        pieces: The bytes before the first hole, between holes, and after the last.
        kinds: Each hole's kind, :data:`STRING` or :data:`I64`.
    """

    __slots__ = ("_fill", "kinds", "pieces")

    def __init__(self, pieces: tuple[bytes, ...], kinds: tuple[str, ...]) -> None:
        if len(pieces) != len(kinds) + 1:
            raise ValueError("a template has one more piece than it has holes")
        self.pieces = pieces
        self.kinds = kinds
        self._fill = _filler(pieces, kinds)

    @classmethod
    def build(
        cls, codec: WireCodec, method: str, arguments: Callable[..., tuple[Any, ...]], *kinds: str
    ) -> MessageTemplate | None:
        """The template of ``method`` called with ``arguments(*holes)``.

        ``arguments`` is given one marker per hole (``bytes`` for a ``string`` hole, an
        ``int`` for an ``i64`` one) and returns the call's positional arguments with each
        marker where the varying value goes. ``None`` for a compact codec, or when a
        marker's bytes are not found exactly once in the message, after the hole before
        it (the value would not be where the template puts it).
        """
        if codec.compact:
            return None
        markers: list[Any] = []
        found: list[bytes] = []
        for kind in kinds:
            if kind == STRING:
                marker = os.urandom(16)
                markers.append(marker)
                found.append(_LENGTH(len(marker)) + marker)
            elif kind == I64:
                number = int.from_bytes(os.urandom(8), "big", signed=True)
                markers.append(number)
                found.append(_LONG(number))
            else:
                raise ValueError(f"unknown hole kind {kind!r}")
        message = codec.encode(method, arguments(*markers))
        pieces: list[bytes] = []
        at = 0
        for marker_bytes in found:
            where = message.find(marker_bytes, at)
            if where < 0 or message.count(marker_bytes) != 1:
                return None  # not found once, after the hole before it
            pieces.append(message[at:where])
            at = where + len(marker_bytes)
        pieces.append(message[at:])
        return cls(tuple(pieces), tuple(kinds))

    def fill(self, *values: Any) -> bytes:
        """The message with ``values`` in its holes, in order (``bytes``; ``int`` for ``i64``).

        Raises:
            struct.error: An ``i64`` value out of range, or a string over 2 GiB.
            TypeError: A value of the wrong type.
        """
        return self._fill(*values)


def _filler(pieces: tuple[bytes, ...], kinds: tuple[str, ...]) -> Callable[..., bytes]:
    """The fastest join of ``pieces`` and values for these hole kinds (one and two holes inline)."""
    if kinds == (STRING,):
        head, tail = pieces

        def one_string(value: bytes) -> bytes:
            if type(value) is not bytes:
                raise TypeError(f"a string hole takes bytes, not {type(value).__name__}")
            return head + _LENGTH(len(value)) + value + tail

        return one_string

    def general(*values: Any) -> bytes:
        if len(values) != len(kinds):
            raise TypeError(f"the template has {len(kinds)} hole(s), {len(values)} value(s) given")
        out = [pieces[0]]
        for kind, value, piece in zip(kinds, values, pieces[1:], strict=True):
            if kind == STRING:
                if type(value) is not bytes:
                    raise TypeError(f"a string hole takes bytes, not {type(value).__name__}")
                out.append(_LENGTH(len(value)))
                out.append(value)
            else:
                if type(value) is not int:
                    raise TypeError(f"an i64 hole takes an int, not {type(value).__name__}")
                out.append(_LONG(value))
            out.append(piece)
        return b"".join(out)

    return general


class ListTemplate:
    """A Thrift call message (binary protocol) whose one list holds a row per element.

    For calls that name many rows in one list argument (Thrift2 ``getMultiple``'s
    ``TGet`` s, each with the same columns): the call is encoded once with one row and
    once with two (random markers for the rows), and the bytes around them give the
    message's head up to the list's element count, each element's bytes before and after
    its row, and the rest. :meth:`fill` writes the message for any number of rows:

    ``head``, the count (4 bytes, big-endian), then per row ``before``, the row's length
    (4 bytes, big-endian) and bytes, ``after``; then ``rest``. Byte for byte what
    :meth:`WireCodec.encode <hmodel.backend.wire.WireCodec.encode>` gives for the same
    rows (``tests/backend/test_template.py``).

    Args:
        head: The message up to the list's element count.
        before: An element's bytes before its row.
        after: An element's bytes after its row.
        rest: The message after the list's last element.
    """

    __slots__ = ("after", "before", "head", "rest")

    def __init__(self, head: bytes, before: bytes, after: bytes, rest: bytes) -> None:
        self.head, self.before, self.after, self.rest = head, before, after, rest

    @classmethod
    def build(
        cls, codec: WireCodec, method: str, arguments: Callable[[list[bytes]], tuple[Any, ...]]
    ) -> ListTemplate | None:
        """The template of ``method`` called with ``arguments(rows)``.

        ``arguments`` is given a list of row markers and returns the call's positional
        arguments with one list element per row. ``None`` for a compact codec, or when
        the one-row and two-row messages do not differ exactly as one more element would
        make them (the rows would not be where the template puts them).
        """
        one = MessageTemplate.build(codec, method, lambda a: arguments([a]), STRING)
        two = MessageTemplate.build(codec, method, lambda a, b: arguments([a, b]), STRING, STRING)
        if one is None or two is None:
            return None
        (start, end), (start2, middle, end2) = one.pieces, two.pieces
        if len(start) != len(start2) or len(start) < 4:
            return None
        # The two heads differ in the list's count only: 4 bytes, 1 then 2.
        diff = [i for i in range(len(start)) if start[i] != start2[i]]
        if not diff:
            return None
        count_at = diff[-1] - 3
        if len(diff) != 1 or count_at < 0 or start[count_at : count_at + 4] != _LENGTH(1):
            return None
        if start2[count_at : count_at + 4] != _LENGTH(2):
            return None
        head, before = start[:count_at], start[count_at + 4 :]
        if start2[:count_at] != head or start2[count_at + 4 :] != before:
            return None
        if not middle.endswith(before) or end2 != end:
            return None
        after = middle[: len(middle) - len(before)]
        if not end.startswith(after):
            return None
        return cls(head, before, after, end[len(after) :])

    def fill(self, rows: list[bytes]) -> bytes:
        """The message naming ``rows``, in order (at least one; each ``bytes``).

        Raises:
            TypeError: A row that is not ``bytes``.
            struct.error: A row over 2 GiB.
        """
        before, after = self.before, self.after
        out = [self.head, _LENGTH(len(rows))]
        add = out.append
        for row in rows:
            if type(row) is not bytes:
                raise TypeError(f"a row is bytes, not {type(row).__name__}")
            add(before)
            add(_LENGTH(len(row)))
            add(row)
            add(after)
        add(self.rest)
        return b"".join(out)
