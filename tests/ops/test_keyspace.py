from __future__ import annotations

from collections.abc import Callable

import pytest

from hmodel.keys import Const, Hashed, Key, Salt, Str
from hmodel.ops import CheckConfig, Inventory, TableVolume, check
from hmodel.ops.keyspace import key_position, lead_intervals, region_shares
from hmodel.schema import NumRegions, SaltSplits, UniformSplits


def test_positions_read_the_first_eight_bytes_as_a_fraction() -> None:
    assert key_position(b"") == 0.0
    assert key_position(b"\x80") == 0.5
    assert key_position(b"\xff" * 9) == key_position(b"\xff" * 8)


def test_salt_buckets_fill_salt_splits_exactly() -> None:
    intervals = lead_intervals(Key(Salt("u", buckets=4), Str("u")))
    assert intervals is not None
    assert region_shares(intervals, SaltSplits(4).points()) == pytest.approx([0.25] * 4)


def test_a_const_tag_before_the_salt_is_followed() -> None:
    intervals = lead_intervals(Key(Const(b"T"), Salt("u", buckets=2), Str("u")))
    assert intervals is not None
    shares = region_shares(intervals, [b"T\x01"])
    assert shares == pytest.approx([0.5, 0.5])


def test_hashed_bytes_spread_evenly_over_uniform_splits() -> None:
    intervals = lead_intervals(Key(Hashed("u"), Str("u")))
    assert intervals is not None
    shares = region_shares(intervals, UniformSplits(4).points())
    assert shares == pytest.approx([0.25] * 4, abs=1e-6)


def test_hex_keys_leave_uniform_byte_regions_empty() -> None:
    intervals = lead_intervals(Key(Str("md5")), "hex")
    assert intervals is not None
    uniform = region_shares(intervals, UniformSplits(8).points())
    assert sum(1 for s in uniform if s == 0) == 6  # only 0x20-0x3f and 0x60-0x7f hold hex digits
    hexed = region_shares(intervals, NumRegions(8).points())
    assert min(hexed) > 0


def test_an_unknown_string_lead_says_nothing() -> None:
    assert lead_intervals(Key(Str("user"))) is None


def test_a_declared_hex_key_space_is_checked(user_module: Callable[[str], str]) -> None:
    name = user_module(
        """
        from hmodel import Key, Str, model, field
        from hmodel.schema import Family, Table, UniformSplits
        T = Table("files", [Family("d")], splits=UniformSplits(16))
        @model(T, key=Key(Str("md5")))
        class File:
            md5: str
            size: int = field("d:s")
        """
    )
    inventory = Inventory.from_modules([name])
    assert not check(inventory, CheckConfig()).findings
    report = check(inventory, CheckConfig(key_spaces={"File": "hex"}))
    (finding,) = report.findings
    assert finding.code == "HM-K11"
    assert "14 of 16 regions" in finding.message


def test_too_many_regions_are_s1_and_tiny_ones_s3(user_module: Callable[[str], str]) -> None:
    name = user_module(
        """
        from hmodel.schema import Family, HexSplits, Table
        T = Table("big", [Family("d")], splits=HexSplits(120))
        """
    )
    inventory = Inventory.from_modules([name])
    report = check(inventory, CheckConfig(volumes={"big": TableVolume(rows=1000)}))
    messages = [f.message for f in report.findings if f.code == "HM-S1"]
    assert messages == ["120 regions at creation (more than 100 per table)"]
    (s3,) = [f for f in report.findings if f.code == "HM-S3"]
    assert s3.severity.value == "info"
    assert s3.message.startswith("the table starts with 120 regions of 8.3 KiB")
    assert s3.fix.startswith("do not pre-split")
