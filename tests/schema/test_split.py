"""Split policies compute the split points HBase would, and refuse bad input (K3, K11, S1, S3)."""

from __future__ import annotations

import bisect
import hashlib
import itertools
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hmodel.errors import SchemaError
from hmodel.schema import (
    MAX_REGIONS,
    ExplicitSplits,
    HexSplits,
    KeyRangeSplits,
    NumRegions,
    SaltSplits,
    SplitAlgorithm,
    SplitPolicy,
    UniformSplits,
    regions_for,
)

GIB = 1024**3


def java_get_hex_splits(start_key: str, end_key: str, num_regions: int) -> list[bytes]:
    """The reference guide's getHexSplits (seed 001 §37.7), line by line, BigInteger as int."""
    lowest_key = int(start_key, 16)
    highest_key = int(end_key, 16)
    key_range = highest_key - lowest_key
    region_increment = key_range // num_regions
    lowest_key = lowest_key + region_increment
    splits = []
    for i in range(num_regions - 1):
        key = lowest_key + region_increment * i
        splits.append(b"%016x" % key)  # String.format("%016x", key).getBytes()
    return splits


# --- HexSplits: the reference guide's getHexSplits -----------------------------------------


def test_hex_splits_reproduce_the_guide_for_its_own_inputs() -> None:
    """HexSplits over the guide's 16-digit key space gives getHexSplits' points exactly."""
    start, end = "0000000000000000", "ffffffffffffffff"
    assert HexSplits(10, start=start, end=end).points() == java_get_hex_splits(start, end, 10)


def test_hex_splits_hand_computed_sixteen_digits() -> None:
    """Step (2**64 - 1) // 10 = 0x1999999999999999; points are its multiples, %016x."""
    assert HexSplits(10, start="0" * 16, end="f" * 16).points() == [
        b"1999999999999999",
        b"3333333333333332",
        b"4ccccccccccccccb",
        b"6666666666666664",
        b"7ffffffffffffffd",
        b"9999999999999996",
        b"b33333333333332f",
        b"ccccccccccccccc8",
        b"e666666666666661",
    ]


@pytest.mark.parametrize(
    ("start", "end", "regions"),
    [("00000000", "ffffffff", 10), ("0", "ffff", 7), ("1000", "8000", 3), ("00", "ff", 2)],
)
def test_hex_splits_with_width_16_match_the_java_code(start: str, end: str, regions: int) -> None:
    """With width=16 (the guide's %016x) any range gives the Java method's bytes."""
    policy = HexSplits(regions, start=start, end=end, width=16)
    assert policy.points() == java_get_hex_splits(start, end, regions)


def test_hex_splits_default_width_is_the_end_key_width() -> None:
    """The default range 00000000..ffffffff gives 8-digit points."""
    assert HexSplits(4).points() == [b"3fffffff", b"7ffffffe", b"bffffffd"]
    assert HexSplits(4, end="ffff").points() == [b"3fff", b"7ffe", b"bffd"]


def test_hex_splits_start_offsets_the_points() -> None:
    """Points are start + i * ((end - start) // n)."""
    assert HexSplits(3, start="1000", end="4000").points() == [b"2000", b"3000"]


def test_hex_splits_uppercase() -> None:
    """uppercase=True writes A-F, for keys made with uppercase hex."""
    assert HexSplits(4, uppercase=True).points() == [b"3FFFFFFF", b"7FFFFFFE", b"BFFFFFFD"]


def test_hex_splits_accept_uppercase_bounds() -> None:
    """Bounds are hex in either case, as Java's BigInteger(s, 16) reads them."""
    assert HexSplits(2, end="FFFFFFFF").points() == HexSplits(2).points() == [b"7fffffff"]


def test_hex_split_regions_all_receive_md5_keys_but_byte_range_splits_do_not() -> None:
    """The K11 lesson: hex keys reach every HexSplits region but few KeyRangeSplits regions."""
    keys = [hashlib.md5(str(i).encode()).hexdigest()[:16].encode() for i in range(5000)]

    def regions_hit(points: list[bytes]) -> int:
        return len({bisect.bisect_right(points, key) for key in keys})

    hex_points = HexSplits(10, start="0" * 16, end="f" * 16).points()
    byte_points = KeyRangeSplits(b"0" * 16, b"f" * 16, 10).points()
    assert regions_hit(hex_points) == 10
    assert regions_hit(byte_points) <= 4


# --- KeyRangeSplits: Admin.createTable(desc, startKey, endKey, numRegions) ------------------

# The ten regions of the reference guide's example (seed 004), as the Java signed bytes it
# prints: Bytes.split("0000000000000000", "ffffffffffffffff") for createTable(..., 10).
GUIDE_BYTES_SPLIT = """
48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48
54 -10 -10 -10 -10 -10 -10 -10 -10 -10 -10 -10 -10 -10 -10 -10
61 -67 -67 -67 -67 -67 -67 -67 -67 -67 -67 -67 -67 -67 -67 -68
68 -124 -124 -124 -124 -124 -124 -124 -124 -124 -124 -124 -124 -124 -124 -126
75 75 75 75 75 75 75 75 75 75 75 75 75 75 75 72
82 18 18 18 18 18 18 18 18 18 18 18 18 18 18 14
88 -40 -40 -40 -40 -40 -40 -40 -40 -40 -40 -40 -40 -40 -40 -44
95 -97 -97 -97 -97 -97 -97 -97 -97 -97 -97 -97 -97 -97 -97 -102
102 102 102 102 102 102 102 102 102 102 102 102 102 102 102 102
"""


def test_key_range_splits_reproduce_the_guide_example() -> None:
    """KeyRangeSplits gives the nine boundaries the reference guide lists, byte for byte."""
    expected = [
        bytes(int(b) % 256 for b in line.split()) for line in GUIDE_BYTES_SPLIT.strip().splitlines()
    ]
    assert KeyRangeSplits(b"0" * 16, b"f" * 16, 10).points() == expected


def test_key_range_splits_with_three_regions_are_just_the_bounds() -> None:
    """Three regions: below start, start..end, from end on."""
    assert KeyRangeSplits(b"a", b"z", 3).points() == [b"a", b"z"]


def test_key_range_splits_small_range() -> None:
    """Bytes.split(a, b, 2) over one byte: step (0x7a - 0x61) // 3 = 8."""
    assert KeyRangeSplits(b"a", b"z", 5).points() == [b"a", b"i", b"q", b"z"]


# --- UniformSplits / NumRegions: RegionSplitter ------------------------------------------------


def test_uniform_splits_defaults_are_hbase_uniform_split() -> None:
    """Ten regions over 8 bytes: step 2**64 // 10 = 0x1999999999999999."""
    points = UniformSplits(10).points()
    assert points[0] == bytes.fromhex("1999999999999999")
    assert points[1] == bytes.fromhex("3333333333333332")
    assert points[-1] == bytes.fromhex("e666666666666661")
    assert len(points) == 9
    assert points == NumRegions(10, "UniformSplit").points()


def test_uniform_splits_over_one_byte() -> None:
    """Range 0x00..0xff inclusive is 256 values: 4 regions step 64."""
    assert UniformSplits(4, end=b"\xff").points() == [b"\x40", b"\x80", b"\xc0"]
    assert UniformSplits(4, start=b"\x00", end=b"\xff").points() == [b"\x40", b"\x80", b"\xc0"]


def test_uniform_splits_pad_the_shorter_key_with_zero_bytes() -> None:
    """start b"\\x10" and end b"\\x20\\x00" are compared as 2-byte numbers 0x1000..0x2000."""
    assert UniformSplits(2, start=b"\x10", end=b"\x20\x00").points() == [b"\x18\x00"]


def test_uniform_splits_widen_a_too_narrow_range() -> None:
    """With fewer values than regions, both keys gain a zero byte, as Bytes.split does."""
    assert UniformSplits(4, start=b"a", end=b"b").points() == [b"a\x40", b"a\x80", b"a\xc0"]


def test_num_regions_hex_string_split_matches_hbase() -> None:
    """HexStringSplit, 10 regions: step 2**32 // 10 = 0x19999999, 8 lowercase digits."""
    assert NumRegions(10).points() == [
        b"19999999",
        b"33333332",
        b"4ccccccb",
        b"66666664",
        b"7ffffffd",
        b"99999996",
        b"b333332f",
        b"ccccccc8",
        b"e6666661",
    ]


def test_hex_string_split_counts_the_end_key_unlike_get_hex_splits() -> None:
    """HBase's HexStringSplit splits 2 regions at 80000000; getHexSplits at 7fffffff."""
    assert NumRegions(2, SplitAlgorithm.HEX_STRING).points() == [b"80000000"]
    assert HexSplits(2).points() == [b"7fffffff"]


def test_num_regions_keeps_its_algorithm() -> None:
    """The algorithm is given by enum or by the shell's name."""
    assert NumRegions(3, "UniformSplit").algorithm is SplitAlgorithm.UNIFORM
    assert NumRegions(3).algorithm is SplitAlgorithm.HEX_STRING


# --- SaltSplits and ExplicitSplits ------------------------------------------------------------


def test_salt_splits_one_region_per_bucket() -> None:
    """Points are the bucket numbers 1..buckets-1, big-endian in nbytes bytes (K3)."""
    assert SaltSplits(4).points() == [b"\x01", b"\x02", b"\x03"]
    assert SaltSplits(3, nbytes=2).points() == [b"\x00\x01", b"\x00\x02"]
    assert SaltSplits(1).points() == []
    assert len(SaltSplits(256).points()) == 255
    assert SaltSplits(65_536, nbytes=2).points()[-1] == b"\xff\xff"


def test_salt_split_region_of_a_bucket_holds_exactly_that_bucket() -> None:
    """Every key starting with bucket b falls in region b."""
    points = SaltSplits(16).points()
    for bucket in range(16):
        for rest in (b"", b"\x00", b"\xff" * 4):
            assert bisect.bisect_right(points, bytes([bucket]) + rest) == bucket


def test_explicit_splits_keep_points_as_given() -> None:
    """ExplicitSplits returns its points unchanged, from any iterable."""
    assert ExplicitSplits([b"a", b"b\x00", b"c"]).points() == [b"a", b"b\x00", b"c"]
    assert ExplicitSplits(iter([b"x"])).keys == (b"x",)
    assert ExplicitSplits([]).points() == []


def test_every_policy_satisfies_the_protocol() -> None:
    """Each policy is a SplitPolicy (runtime-checkable protocol)."""
    policies: list[object] = [
        ExplicitSplits([b"a"]),
        UniformSplits(2),
        KeyRangeSplits(b"a", b"b", 3),
        HexSplits(2),
        SaltSplits(2),
        NumRegions(2),
    ]
    assert all(isinstance(policy, SplitPolicy) for policy in policies)


# --- bad input -------------------------------------------------------------------------------

BAD: list[tuple[Any, dict[str, Any], str]] = [
    (UniformSplits, {"num_regions": 1}, "num_regions must be between 2"),
    (UniformSplits, {"num_regions": MAX_REGIONS + 1}, "num_regions must be between 2"),
    (UniformSplits, {"num_regions": 2.0}, "num_regions must be an integer"),
    (UniformSplits, {"num_regions": True}, "num_regions must be an integer"),
    (UniformSplits, {"num_regions": 4, "start": b"b", "end": b"a"}, "start must sort before"),
    (UniformSplits, {"num_regions": 4, "start": b"a", "end": b"a"}, "start must sort before"),
    (UniformSplits, {"num_regions": 4, "start": b"a", "end": b"a\x00"}, "padded"),
    (UniformSplits, {"num_regions": 4, "start": "a"}, "start must be bytes"),
    (UniformSplits, {"num_regions": 4, "end": "z"}, "end must be bytes"),
    (HexSplits, {"num_regions": 1}, "num_regions must be between 2"),
    (HexSplits, {"num_regions": "10"}, "num_regions must be an integer"),
    (HexSplits, {"num_regions": 2, "start": "xyz"}, "start must be a non-empty string of hex"),
    (HexSplits, {"num_regions": 2, "start": ""}, "start must be a non-empty string of hex"),
    (HexSplits, {"num_regions": 2, "end": "-1"}, "end must be a non-empty string of hex"),
    (HexSplits, {"num_regions": 2, "end": "0x10"}, "end must be a non-empty string of hex"),
    (HexSplits, {"num_regions": 2, "end": b"ff"}, "end must be a non-empty string of hex"),
    (HexSplits, {"num_regions": 2, "start": "ff", "end": "0f"}, "start must be below end"),
    (HexSplits, {"num_regions": 2, "start": "ff", "end": "ff"}, "start must be below end"),
    (HexSplits, {"num_regions": 10, "start": "0", "end": "5"}, "too small for 10 regions"),
    (HexSplits, {"num_regions": 2, "end": "ffff", "width": 3}, "does not fit in 3 hex digits"),
    (HexSplits, {"num_regions": 2, "width": 0}, "width must be a positive integer"),
    (HexSplits, {"num_regions": 2, "width": "8"}, "width must be a positive integer"),
    (HexSplits, {"num_regions": 2, "uppercase": 1}, "uppercase must be a bool"),
    (SaltSplits, {"buckets": 0}, "buckets must be an integer from 1 to 256"),
    (SaltSplits, {"buckets": 257}, "buckets must be an integer from 1 to 256"),
    (SaltSplits, {"buckets": 65_537, "nbytes": 2}, "from 1 to 65536 for nbytes=2"),
    (SaltSplits, {"buckets": 65_537, "nbytes": 4}, "from 1 to 65536 for nbytes=4"),
    (SaltSplits, {"buckets": 4.0}, "buckets must be an integer"),
    (SaltSplits, {"buckets": 4, "nbytes": 0}, "nbytes must be an integer from 1 to 8"),
    (SaltSplits, {"buckets": 4, "nbytes": 9}, "nbytes must be an integer from 1 to 8"),
    (NumRegions, {"num_regions": 1}, "NUMREGIONS must be between 2"),
    (NumRegions, {"num_regions": 10, "algorithm": "MD5Split"}, "SPLITALGO must be one of"),
    (KeyRangeSplits, {"start": b"a", "end": b"z", "num_regions": 2}, "between 3"),
    (KeyRangeSplits, {"start": b"", "end": b"z", "num_regions": 4}, "start must not be empty"),
    (KeyRangeSplits, {"start": b"z", "end": b"a", "num_regions": 4}, "start must sort before"),
    (KeyRangeSplits, {"start": "a", "end": b"z", "num_regions": 4}, "start must be bytes"),
]


@pytest.mark.parametrize(("policy", "arguments", "message"), BAD)
def test_bad_policy_input_is_refused(policy: Any, arguments: dict[str, Any], message: str) -> None:
    """Every bad argument raises SchemaError naming it, at construction."""
    with pytest.raises(SchemaError, match=message):
        policy(**arguments)


@pytest.mark.parametrize(
    ("points", "message"),
    [
        ([b"b", b"a"], "strictly increasing"),
        ([b"a", b"a"], "strictly increasing"),
        ([b"a", b""], "non-empty bytes"),
        ([b"a", "b"], "non-empty bytes"),
        ([bytearray(b"a")], "non-empty bytes"),
        (b"ab", "not one value"),
        ("ab", "not one value"),
        ([b"%05d" % i for i in range(MAX_REGIONS)], "more than 65535 split points"),
    ],
)
def test_bad_explicit_points_are_refused(points: Any, message: str) -> None:
    """Explicit points are never sorted, de-duplicated or coerced: bad ones raise."""
    with pytest.raises(SchemaError, match=message):
        ExplicitSplits(points)


# --- sizing (S1, S3) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data_bytes", "expected"),
    [(0, 1), (1, 1), (10 * GIB, 1), (10 * GIB + 1, 2), (95 * GIB, 10), (5 * 1024 * GIB, 100)],
)
def test_regions_for_ten_gib_regions_clamped_to_100(data_bytes: int, expected: int) -> None:
    """ceil(data / 10 GiB), at least 1, at most 100 (S1, S3)."""
    assert regions_for(data_bytes) == expected


def test_regions_for_custom_sizes() -> None:
    """region_size and max_regions are parameters."""
    assert regions_for(100 * GIB, region_size=50 * GIB) == 2
    assert regions_for(100 * GIB, max_regions=5) == 5


@pytest.mark.parametrize(
    "arguments",
    [
        {"data_bytes": -1},
        {"data_bytes": 1.5},
        {"data_bytes": 1, "region_size": 0},
        {"data_bytes": 1, "max_regions": 0},
    ],
)
def test_regions_for_bad_input(arguments: dict[str, Any]) -> None:
    """Negative or non-integer sizes raise SchemaError."""
    with pytest.raises(SchemaError, match="must be an integer"):
        regions_for(**arguments)


# --- properties --------------------------------------------------------------------------------

regions = st.integers(min_value=2, max_value=300)
keys = st.binary(min_size=1, max_size=12)


@st.composite
def ordered_pair(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """Two keys that still differ once the shorter is padded with zero bytes."""
    first, second = sorted(draw(st.lists(keys, min_size=2, max_size=2, unique=True)))
    width = max(len(first), len(second))
    assume(first.ljust(width, b"\x00") < second.ljust(width, b"\x00"))
    return first, second


@st.composite
def hex_range(draw: st.DrawFn) -> tuple[str, str, int]:
    """Hex bounds of one width and a region count the range can hold."""
    width = draw(st.integers(min_value=1, max_value=20))
    top = 16**width - 1
    count = draw(st.integers(min_value=2, max_value=min(300, top)))
    low = draw(st.integers(min_value=0, max_value=top - count))
    high = draw(st.integers(min_value=low + count, max_value=top))
    return format(low, f"0{width}x"), format(high, f"0{width}x"), count


@st.composite
def policies(draw: st.DrawFn) -> tuple[SplitPolicy, int]:
    """A policy and the number of regions it must make."""
    kind = draw(st.sampled_from(["uniform", "range", "hex", "salt", "num", "explicit"]))
    if kind == "uniform":
        start, end = draw(ordered_pair())
        count = draw(regions)
        return UniformSplits(count, start=start, end=end), count
    if kind == "range":
        start, end = draw(ordered_pair())
        count = draw(st.integers(min_value=3, max_value=300))
        return KeyRangeSplits(start, end, count), count
    if kind == "hex":
        low, high, count = draw(hex_range())
        return HexSplits(count, start=low, end=high), count
    if kind == "salt":
        nbytes = draw(st.integers(min_value=1, max_value=3))
        count = draw(st.integers(min_value=1, max_value=min(256**nbytes, 2000)))
        return SaltSplits(count, nbytes=nbytes), count
    if kind == "num":
        count = draw(regions)
        algorithm = draw(st.sampled_from(list(SplitAlgorithm)))
        return NumRegions(count, algorithm), count
    points = sorted(draw(st.sets(keys, max_size=50)))
    return ExplicitSplits(points), len(points) + 1


@settings(deadline=None)  # large SaltSplits take ~0.1 s, several times that on a busy machine
@given(policies(), st.lists(st.binary(max_size=14), max_size=30))
def test_points_increase_strictly_and_regions_partition_the_key_space(
    case: tuple[SplitPolicy, int], probes: list[bytes]
) -> None:
    """n regions: n-1 non-empty, strictly increasing points; every key is in one region."""
    policy, count = case
    points = policy.points()
    assert len(points) == count - 1
    assert all(point for point in points)
    assert all(a < b for a, b in itertools.pairwise(points))
    starts: list[bytes] = [b"", *points]
    stops: list[bytes | None] = [*points, None]
    for key in [*probes, *points, b""]:
        holders = [
            i
            for i, (low, high) in enumerate(zip(starts, stops, strict=True))
            if low <= key and (high is None or key < high)
        ]
        assert holders == [bisect.bisect_right(points, key)]


@given(hex_range())
def test_hex_split_points_are_fixed_width_hex(case: tuple[str, str, int]) -> None:
    """HexSplits points are hex digits of exactly the end key's width."""
    start, end, count = case
    for point in HexSplits(count, start=start, end=end).points():
        assert len(point) == len(end)
        int(point, 16)
