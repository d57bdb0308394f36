"""An integer cell whose bytes sort like its values, for server-side range conditions."""

from __future__ import annotations

from typing import Any

from hmodel.codecs.phoenix import PhoenixInt

__all__ = ["OrderedLong"]


class OrderedLong(PhoenixInt):
    r"""A 64-bit signed integer whose bytes sort like its values: sign bit flipped.

    8 bytes: the big-endian two's complement of ``value`` with the top bit inverted
    (``value + 2**63`` as an unsigned big-endian number), so HBase's binary comparator
    orders the cells numerically, negatives first. This is the codec a field needs for
    server-side range conditions (``where("age") > 18``, a ``SingleColumnValueFilter``
    with ``<``, ``<=``, ``>``, ``>=``): :class:`~hmodel.codecs.Long`'s bytes put negatives
    after positives, so those conditions are refused on it. The layout is Phoenix's
    ``BIGINT`` (:class:`~hmodel.codecs.PhoenixInt` with ``size=8``). It is *not* HBase's
    counter layout: a counter (F10) stays a ``Long``. The range is ``-2**63`` to
    ``2**63 - 1``, both inclusive.

    Example:
        >>> OrderedLong().encode(-1), OrderedLong().encode(1)
        (b'\x7f\xff\xff\xff\xff\xff\xff\xff', b'\x80\x00\x00\x00\x00\x00\x00\x01')
        >>> OrderedLong().decode(b"\x80" + b"\x00" * 7)
        0
    """

    name = "ordered long"

    def __init__(self) -> None:
        super().__init__(size=8)

    def _options(self) -> dict[str, Any]:
        return {}
