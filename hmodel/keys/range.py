"""A contiguous range of rowkeys to scan: inclusive start, exclusive stop."""

from __future__ import annotations

import attrs

from hmodel.backend.base import prefix_stop
from hmodel.errors import KeyEncodeError

__all__ = ["KeyRange"]


def _bytes(instance: object, attribute: object, value: bytes) -> None:
    if not isinstance(value, bytes):
        raise KeyEncodeError("a KeyRange bound must be bytes", value=value)


@attrs.frozen
class KeyRange:
    r"""The rows ``start <= row < stop`` in unsigned byte order; ``stop=b""`` means to the end.

    This is exactly a scan's start row (inclusive) and stop row (exclusive), as HBase
    and happybase take them.

    >>> KeyRange.prefix(b"ab")
    KeyRange(start=b'ab', stop=b'ac')
    >>> KeyRange.prefix(b"ab").contains(b"ab\x00\x07")
    True

    Args:
        start: The first row of the range (inclusive); ``b""`` is the start of the table.
        stop: The row after the range (exclusive); ``b""`` is the end of the table.

    Raises:
        KeyEncodeError: A bound is not bytes, or ``stop`` is non-empty and below ``start``.
    """

    start: bytes = attrs.field(validator=_bytes)
    stop: bytes = attrs.field(validator=_bytes)

    def __attrs_post_init__(self) -> None:
        if self.stop and self.stop < self.start:
            raise KeyEncodeError(
                "a KeyRange stop must not be below its start", row=self.start, value=self.stop
            )

    @classmethod
    def prefix(cls, prefix: bytes) -> KeyRange:
        """Return the range of exactly the rows that start with ``prefix``."""
        return cls(prefix, prefix_stop(prefix))

    @property
    def is_empty(self) -> bool:
        """Whether no row can lie in the range (``stop`` is ``start``)."""
        return self.stop == self.start != b""

    def contains(self, row: bytes) -> bool:
        """Whether ``start <= row < stop`` (an empty ``stop`` has no upper limit)."""
        return self.start <= row and (not self.stop or row < self.stop)
