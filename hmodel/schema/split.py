"""Split policies: the keys a table is pre-split at, computed like HBase does (K11, S1, S3)."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

import attrs

from hmodel.errors import SchemaError

__all__ = [
    "MAX_REGIONS",
    "ExplicitSplits",
    "HexSplits",
    "KeyRangeSplits",
    "NumRegions",
    "SaltSplits",
    "SplitAlgorithm",
    "SplitPolicy",
    "UniformSplits",
    "regions_for",
]

#: The most regions any policy here will produce. HBase itself has no such limit, but a
#: pre-split into more regions than this is always a mistake (S1 advises <= ~100 per table),
#: typically a byte count passed where a region count was meant.
MAX_REGIONS = 65_536

_HEX = re.compile(r"^[0-9A-Fa-f]+\Z")

_GIB = 1024**3


@runtime_checkable
class SplitPolicy(Protocol):
    """Something that computes a table's split points (K11).

    A table with split points ``p1 < p2 < ... < pn`` has ``n + 1`` regions: ``[b"", p1)``,
    ``[p1, p2)``, ..., ``[pn, end of table)``; each start key is inclusive, each end key
    exclusive, so every row key falls in exactly one region.
    """

    def points(self) -> list[bytes]:
        """Return the split points: non-empty, strictly increasing as unsigned bytes."""
        ...


class SplitAlgorithm(str, enum.Enum):
    """The split algorithms the HBase shell accepts as ``SPLITALGO`` (``RegionSplitter``)."""

    HEX_STRING = "HexStringSplit"
    UNIFORM = "UniformSplit"


def _check_count(label: str, value: int, *, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SchemaError(f"{label} must be an integer", value=value)
    if not minimum <= value <= MAX_REGIONS:
        raise SchemaError(f"{label} must be between {minimum} and {MAX_REGIONS}", value=value)


def _check_bytes(label: str, value: bytes) -> None:
    if not isinstance(value, bytes):
        raise SchemaError(f"{label} must be bytes", value=value)


def _parse_hex(label: str, value: str) -> int:
    if not isinstance(value, str) or not _HEX.match(value):
        raise SchemaError(f"{label} must be a non-empty string of hex digits", value=value)
    return int(value, 16)


def _check_increasing(points: list[bytes]) -> None:
    for index, point in enumerate(points):
        if not isinstance(point, bytes) or not point:
            raise SchemaError("split points must be non-empty bytes", value=point)
        if index and points[index - 1] >= point:
            raise SchemaError(
                "split points must be strictly increasing", value=(points[index - 1], point)
            )


def _byte_split(start: bytes, end: bytes, num: int, *, inclusive: bool) -> list[bytes]:
    """Return the ``num`` interior keys of HBase's ``Bytes.split(start, end, inclusive, num)``.

    Both keys are right-padded with zero bytes to the longer length and read as big-endian
    unsigned integers; the range ``end - start`` (``+ 1`` when ``inclusive``) is cut into
    ``num + 1`` equal steps (integer division, the last region takes the remainder). When
    the range has fewer than ``num + 1`` values, both keys get one more zero byte, as HBase
    does, until it is wide enough.
    """
    width = max(len(start), len(end))
    low = int.from_bytes(start.ljust(width, b"\x00"), "big")
    high = int.from_bytes(end.ljust(width, b"\x00"), "big")
    if low >= high:
        raise SchemaError("start must sort before end once padded with zero bytes", value=end)
    diff = high - low + int(inclusive)
    while diff < num + 1:
        width, low, high = width + 1, low << 8, high << 8
        diff = high - low + int(inclusive)
    step = diff // (num + 1)
    return [(low + step * i).to_bytes(width, "big") for i in range(1, num + 1)]


@attrs.frozen(init=False)
class ExplicitSplits:
    """Split points given one by one (the shell's ``SPLITS => [...]``).

    A plain list of bytes passed as ``Table(splits=[...])`` becomes one of these.

    Args:
        points: The split points: bytes, non-empty, strictly increasing. They are kept as
            given, never sorted or de-duplicated.

    Raises:
        SchemaError: A point is not bytes or is empty, the points are not strictly
            increasing, or there are more than ``MAX_REGIONS - 1`` of them.
    """

    keys: tuple[bytes, ...]

    def __init__(self, points: Iterable[bytes]) -> None:
        if isinstance(points, (bytes, str)):
            raise SchemaError(
                "split points must be a sequence of bytes, not one value", value=points
            )
        keys = list(points)
        if len(keys) >= MAX_REGIONS:
            raise SchemaError(f"more than {MAX_REGIONS - 1} split points", value=len(keys))
        _check_increasing(keys)
        self.__attrs_init__(tuple(keys))

    def points(self) -> list[bytes]:
        """Return the points as given."""
        return list(self.keys)


@attrs.frozen(init=False)
class UniformSplits:
    r"""Byte-uniform split points, as HBase's ``RegionSplitter.UniformSplit`` computes them.

    Use it for keys that are uniformly random *bytes* (a binary hash prefix, K4). The
    points are ``Bytes.split(start, end, inclusive=true, num_regions - 1)`` without its two
    end points: ``start`` and ``end`` are right-padded with zero bytes to the longer length,
    read as big-endian unsigned integers, and the range ``end - start + 1`` is cut into
    ``num_regions`` equal steps; the points are ``start + i * step`` for
    ``i = 1 .. num_regions - 1``, each as wide as the padded keys (a byte is added when the
    range is too narrow). The defaults are HBase's (``b""`` to eight ``0xff`` bytes), so
    ``UniformSplits(n)`` gives the same points as the shell's
    ``{NUMREGIONS => n, SPLITALGO => 'UniformSplit'}``.

    >>> UniformSplits(4, end=b"\xff").points()
    [b'@', b'\x80', b'\xc0']

    Args:
        num_regions: How many regions (2 .. ``MAX_REGIONS``).
        start: The low end of the key range (inclusive).
        end: The high end of the key range (inclusive); its length sets the width of
            the points when it is the longer key.

    Raises:
        SchemaError: ``num_regions`` out of range, ``start`` or ``end`` not bytes, or
            ``start`` not below ``end``.
    """

    num_regions: int
    start: bytes
    end: bytes

    def __init__(self, num_regions: int, *, start: bytes = b"", end: bytes = b"\xff" * 8) -> None:
        _check_count("UniformSplits num_regions", num_regions, minimum=2)
        _check_bytes("UniformSplits start", start)
        _check_bytes("UniformSplits end", end)
        if start >= end:
            raise SchemaError("UniformSplits start must sort before end", value=(start, end))
        self.__attrs_init__(num_regions, start, end)
        self.points()  # rejects ranges equal once padded, e.g. b"a" .. b"a\x00"

    def points(self) -> list[bytes]:
        """Return the ``num_regions - 1`` split points."""
        return _byte_split(self.start, self.end, self.num_regions - 1, inclusive=True)


@attrs.frozen(init=False)
class KeyRangeSplits:
    """Split points of the Java ``Admin.createTable(desc, startKey, endKey, numRegions)``.

    The first split point is ``start`` and the last is ``end``, so the first region holds
    the keys below ``start`` and the last the keys from ``end`` on; between them
    ``Bytes.split(start, end, num_regions - 3)`` puts ``num_regions - 3`` byte-uniform
    points (end not counted in the range, otherwise as :class:`UniformSplits`).

    This is the split the reference guide warns about (K11): over printable keys such as
    ``"0000000000000000"`` .. ``"ffffffffffffffff"`` most of its points fall between ``'9'``
    and ``'a'``, where no hex key ever sorts, and those regions stay empty. Use
    :class:`HexSplits` for hex keys.

    Args:
        start: The first split point (non-empty).
        end: The last split point; must sort after ``start``.
        num_regions: How many regions (3 .. ``MAX_REGIONS``), as in the Java API.

    Raises:
        SchemaError: Fewer than 3 regions, empty ``start``, or ``start`` not below ``end``.
    """

    start: bytes
    end: bytes
    num_regions: int

    def __init__(self, start: bytes, end: bytes, num_regions: int) -> None:
        _check_count("KeyRangeSplits num_regions", num_regions, minimum=3)
        _check_bytes("KeyRangeSplits start", start)
        _check_bytes("KeyRangeSplits end", end)
        if not start:
            raise SchemaError("KeyRangeSplits start must not be empty", value=start)
        if start >= end:
            raise SchemaError("KeyRangeSplits start must sort before end", value=(start, end))
        self.__attrs_init__(start, end, num_regions)
        self.points()  # rejects ranges equal once padded

    def points(self) -> list[bytes]:
        """Return ``start``, the ``num_regions - 3`` points between, and ``end``."""
        if self.num_regions == 3:
            return [self.start, self.end]
        inner = _byte_split(self.start, self.end, self.num_regions - 3, inclusive=False)
        return [self.start, *inner, self.end]


@attrs.frozen(init=False)
class HexSplits:
    """Split points for keys that are hex strings, e.g. MD5 hex prefixes (K4, K11).

    Byte-uniform splits of a hex key space leave most regions empty (the reference guide's
    lesson), so the range is split as a *number* and each point written back as hex text.
    This is the guide's ``getHexSplits(startKey, endKey, numRegions)`` exactly:
    ``step = (end - start) // num_regions`` and the points are ``start + i * step`` for
    ``i = 1 .. num_regions - 1``, each formatted as lowercase hex zero-padded to ``width``
    digits. The guide formats with ``%016x``; here ``width`` defaults to ``len(end)``,
    so ``HexSplits(n, start="0" * 16, end="f" * 16)`` is the guide's call and the default
    8-digit range matches the shell's ``HexStringSplit`` key width.

    HBase's own ``HexStringSplit`` (:class:`NumRegions`) counts the end key as part of the
    range (``step = (end - start + 1) // n``), so for some region counts its points differ
    from these by one: for 2 regions it splits at ``80000000`` where this splits at
    ``7fffffff``.

    >>> HexSplits(4).points()
    [b'3fffffff', b'7ffffffe', b'bffffffd']

    Args:
        num_regions: How many regions (2 .. ``MAX_REGIONS``).
        start: The lowest key of the range, as hex digits (either case).
        end: The highest key of the range, as hex digits (either case).
        width: Digits per point, zero-padded; ``None`` means ``len(end)``. Every point of
            a table must have the same width, or shorter keys sort out of numeric order.
        uppercase: Write ``A-F`` instead of ``a-f``, for keys made with uppercase hex.

    Raises:
        SchemaError: ``num_regions`` out of range, ``start`` or ``end`` not hex, ``start``
            not below ``end``, a range too small for ``num_regions``, or ``end`` too large
            for ``width`` digits.
    """

    num_regions: int
    start: str
    end: str
    width: int
    uppercase: bool

    def __init__(
        self,
        num_regions: int,
        *,
        start: str = "00000000",
        end: str = "ffffffff",
        width: int | None = None,
        uppercase: bool = False,
    ) -> None:
        _check_count("HexSplits num_regions", num_regions, minimum=2)
        low = _parse_hex("HexSplits start", start)
        high = _parse_hex("HexSplits end", end)
        if low >= high:
            raise SchemaError("HexSplits start must be below end", value=(start, end))
        if (high - low) // num_regions == 0:
            raise SchemaError(
                f"HexSplits range {start}..{end} is too small for {num_regions} regions",
                value=num_regions,
            )
        digits = len(end) if width is None else width
        if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
            raise SchemaError("HexSplits width must be a positive integer", value=width)
        if high >= 16**digits:
            raise SchemaError(f"HexSplits end does not fit in {digits} hex digits", value=end)
        if not isinstance(uppercase, bool):
            raise SchemaError("HexSplits uppercase must be a bool", value=uppercase)
        self.__attrs_init__(num_regions, start, end, digits, uppercase)

    def points(self) -> list[bytes]:
        """Return the ``num_regions - 1`` split points as ASCII hex."""
        low = int(self.start, 16)
        step = (int(self.end, 16) - low) // self.num_regions
        spec = f"0{self.width}{'X' if self.uppercase else 'x'}"
        return [format(low + step * i, spec).encode() for i in range(1, self.num_regions)]


@attrs.frozen(init=False)
class SaltSplits:
    r"""One region per salt bucket (K3): points are the bucket numbers ``1 .. buckets - 1``.

    For keys that start with a salt bucket number written big-endian in ``nbytes`` bytes,
    region ``i`` holds exactly the rows of bucket ``i``.

    >>> SaltSplits(4).points()
    [b'\x01', b'\x02', b'\x03']

    Args:
        buckets: How many salt buckets, ``1 .. min(256 ** nbytes, MAX_REGIONS)``; one
            bucket means no split point.
        nbytes: Width of the bucket prefix in bytes (1 .. 8).

    Raises:
        SchemaError: ``nbytes`` outside 1 .. 8, or ``buckets`` outside the range its
            ``nbytes`` can number.
    """

    buckets: int
    nbytes: int

    def __init__(self, buckets: int, *, nbytes: int = 1) -> None:
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or not 1 <= nbytes <= 8:
            raise SchemaError("SaltSplits nbytes must be an integer from 1 to 8", value=nbytes)
        limit = min(256**nbytes, MAX_REGIONS)
        if isinstance(buckets, bool) or not isinstance(buckets, int) or not 1 <= buckets <= limit:
            raise SchemaError(
                f"SaltSplits buckets must be an integer from 1 to {limit} for nbytes={nbytes}",
                value=buckets,
            )
        self.__attrs_init__(buckets, nbytes)

    def points(self) -> list[bytes]:
        """Return ``buckets - 1`` points: ``1 .. buckets - 1`` in ``nbytes`` big-endian bytes."""
        return [bucket.to_bytes(self.nbytes, "big") for bucket in range(1, self.buckets)]


@attrs.frozen(init=False)
class NumRegions:
    """The shell's ``{NUMREGIONS => n, SPLITALGO => '...'}``: HBase computes the points.

    DDL renders it as that clause; :meth:`points` returns the points HBase computes:

    * ``HexStringSplit``: the range ``00000000`` .. ``ffffffff`` (end included) cut into
      ``n`` steps of ``2**32 // n``; points are 8 lowercase hex digits.
    * ``UniformSplit``: as :class:`UniformSplits` with its defaults (8-byte points).

    >>> NumRegions(4).points()
    [b'40000000', b'80000000', b'c0000000']

    Args:
        num_regions: How many regions (2 .. ``MAX_REGIONS``; the shell needs > 1).
        algorithm: A :class:`SplitAlgorithm` or its name.

    Raises:
        SchemaError: ``num_regions`` out of range or an unknown algorithm.
    """

    num_regions: int
    algorithm: SplitAlgorithm

    def __init__(
        self,
        num_regions: int,
        algorithm: SplitAlgorithm | str = SplitAlgorithm.HEX_STRING,
    ) -> None:
        _check_count("NUMREGIONS", num_regions, minimum=2)
        try:
            algo = SplitAlgorithm(algorithm)
        except ValueError:
            names = ", ".join(a.value for a in SplitAlgorithm)
            raise SchemaError(f"SPLITALGO must be one of {names}", value=algorithm) from None
        self.__attrs_init__(num_regions, algo)

    def points(self) -> list[bytes]:
        """Return the ``num_regions - 1`` points HBase's split algorithm computes."""
        if self.algorithm is SplitAlgorithm.UNIFORM:
            return UniformSplits(self.num_regions).points()
        step = 2**32 // self.num_regions
        return [format(step * i, "08x").encode() for i in range(1, self.num_regions)]


def regions_for(data_bytes: int, *, region_size: int = 10 * _GIB, max_regions: int = 100) -> int:
    """Return how many regions to pre-split into for ``data_bytes`` of data (S1, S3).

    That is ``ceil(data_bytes / region_size)``, at least 1 and at most ``max_regions``.
    S1 wants regions of 10-50 GB and at most ~100 regions per table: with the defaults,
    up to 1 TiB gets 10 GiB regions; beyond that the count stays at 100 and regions grow
    (past 100 * 50 GB, consider splitting the data over tables).

    >>> regions_for(95 * 1024**3)
    10

    Raises:
        SchemaError: A negative size, or a non-positive ``region_size`` or ``max_regions``.
    """
    for label, value, minimum in (
        ("data_bytes", data_bytes, 0),
        ("region_size", region_size, 1),
        ("max_regions", max_regions, 1),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise SchemaError(f"{label} must be an integer >= {minimum}", value=value)
    return max(1, min(max_regions, -(-data_bytes // region_size)))
