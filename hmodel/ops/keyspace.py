"""Where a key layout can put rows: its leading bytes as intervals of the key space (K3, K11)."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from hmodel.backend.base import prefix_stop
from hmodel.keys import DerivedComponent, Hashed, Key, Salt

__all__ = ["Interval", "key_position", "lead_intervals", "region_shares"]

_HEX_DIGITS = b"0123456789abcdef"


def key_position(key: bytes) -> float:
    r"""Return where ``key`` sorts in the whole key space, as a number in ``[0, 1)``.

    The first eight bytes are read as a big-endian fraction: ``b""`` is 0, ``b"\\x80"``
    is 0.5. Keys that share their first eight bytes get the same position.
    """
    return int.from_bytes(key[:8].ljust(8, b"\x00"), "big") / 2**64


def _stop_position(key: bytes) -> float:
    stop = prefix_stop(key)
    return 1.0 if not stop else key_position(stop)


@attrs.frozen
class Interval:
    """A share of a key layout's rows, spread evenly over ``[low, high)`` of the key space.

    Attributes:
        low: The position of the first key (inclusive).
        high: The position just past the last key (exclusive).
        weight: The fraction of all rows that fall here.
    """

    low: float
    high: float
    weight: float


def _prefix(prefix: bytes, weight: float) -> Interval:
    return Interval(key_position(prefix), _stop_position(prefix), weight)


def lead_intervals(key: Key, space: str | None = None) -> list[Interval] | None:
    """Return how the rows of ``key`` spread over the key space, or ``None`` if unknown.

    Leading ``Const`` tags are followed to the first component that decides the spread:
    a ``Salt`` of *n* buckets puts 1/*n* of the rows under each bucket prefix; a
    ``Hashed`` prefix spreads rows evenly over all bytes. A value component says nothing
    of its values unless ``space`` does: ``"hex"`` means its first byte is one of the 16
    lowercase hex digits, ``"uniform"`` that its bytes are random.
    """
    lead = b""
    for component in key.components:
        if isinstance(component, Salt):
            share = 1 / component.buckets
            return [
                _prefix(lead + component.encode(bucket), share)
                for bucket in range(component.buckets)
            ]
        if isinstance(component, Hashed) or (space == "uniform"):
            return [_prefix(lead, 1.0)]
        if isinstance(component, DerivedComponent) and not component.sources:
            lead += component.encode(component.derive({}))
            continue
        if space == "hex":
            return [_prefix(lead + bytes([digit]), 1 / 16) for digit in _HEX_DIGITS]
        return None
    return [_prefix(lead, 1.0)]


def region_shares(intervals: Sequence[Interval], splits: Sequence[bytes]) -> list[float]:
    """Return the fraction of rows each region of ``splits`` receives.

    ``n`` split points make ``n + 1`` regions; region *i* spans ``[splits[i-1],
    splits[i])``. Rows are assumed even within each interval.
    """
    bounds = [0.0, *(key_position(p) for p in splits), 1.0]
    shares = [0.0] * (len(splits) + 1)
    for interval in intervals:
        width = interval.high - interval.low
        for region in range(len(shares)):
            low, high = bounds[region], bounds[region + 1]
            if width <= 0:  # a prefix longer than the eight bytes positions resolve
                if low <= interval.low < high or (
                    region == len(shares) - 1 and interval.low >= low
                ):
                    shares[region] += interval.weight
                    break
                continue
            overlap = min(high, interval.high) - max(low, interval.low)
            if overlap > 0:
                shares[region] += interval.weight * overlap / width
    return shares
