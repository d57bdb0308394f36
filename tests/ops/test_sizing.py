"""The sizing plan of ``hmodel check``: volumes, regions, split points by key layout (S1-S3)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

import pytest

from hmodel.backend.base import Backend, Put
from hmodel.cli import main
from hmodel.errors import CheckConfigError
from hmodel.ops import CheckConfig, Inventory, TableVolume, check, load_config, parse_size
from hmodel.ops.sizing import SplitPlan, quantile_points
from hmodel.ops.spread import measure
from hmodel.schema import Family, HexSplits, SaltSplits, Table, UniformSplits
from hmodel.testing import FakeHBaseServer

TB = 1000**4

LAYOUTS = """
from hmodel import Key, Str, Int, Salt, Hashed, Const, Reversed, model, field
from hmodel.schema import Family, Table, SaltSplits

HASHED = Table("hashed", [Family("d")])
HEX = Table("hex", [Family("d")])
SALTHASH = Table("salthash", [Family("d")], splits=SaltSplits(4))
TAGGED = Table("tagged", [Family("d")])
PLAIN = Table("plain", [Family("d")])
REVERSED = Table("reversed", [Family("d")])
MIXED = Table("mixed", [Family("d")])


@model(HASHED, key=Key(Hashed("user", nbytes=4), Str("user")))
class HashedUser:
    user: str
    name: str = field("d:n")


@model(HEX, key=Key(Str("md5"), Str("part")))
class HexFile:
    md5: str
    part: str
    size: int = field("d:s")


@model(SALTHASH, key=Key(Salt("user", buckets=4), Hashed("user", nbytes=2), Str("user")))
class SaltHash:
    user: str
    name: str = field("d:n")


@model(TAGGED, key=Key(Const(b"U"), Salt("user", buckets=3), Str("user")))
class Tagged:
    user: str
    name: str = field("d:n")


@model(PLAIN, key=Key(Str("user")))
class Plain:
    user: str
    name: str = field("d:n")


@model(REVERSED, key=Key(Reversed(Str("account", width=10))))
class Account:
    account: str
    name: str = field("d:n")


@model(MIXED, key=Key(Const(b"a"), Str("user")))
class MixedA:
    user: str
    name: str = field("d:n")


@model(MIXED, key=Key(Const(b"b"), Int("id")))
class MixedB:
    id: int
    name: str = field("d:n")
"""


@pytest.fixture
def layouts(user_module: Callable[[str], str]) -> Inventory:
    return Inventory.from_modules([user_module(LAYOUTS)])


def _plan(inventory: Inventory, table: str, size: int, **settings: object) -> SplitPlan:
    config = CheckConfig(volumes={table: TableVolume(volume=size)}, **settings)  # type: ignore[arg-type]
    report = check(inventory, config, select=["HM-S3"])
    assert report.sizing is not None
    (plan,) = report.sizing.tables
    return plan


def _example() -> Inventory:
    return Inventory.from_modules(["examples.ecommerce.schema"])


# --- volumes -----------------------------------------------------------------------------


def test_sizes_are_decimal_or_binary_by_unit() -> None:
    assert parse_size("2 TB", "v") == 2 * TB
    assert parse_size("2TiB", "v") == 2 * 1024**4
    assert parse_size("1.5 gb", "v") == 1_500_000_000
    assert parse_size("3PB", "v") == 3 * 1000**5


def test_a_volume_wins_over_rows_and_row_bytes() -> None:
    assert TableVolume(rows=10, row_bytes=100, volume=5).data_bytes == 5
    assert TableVolume(rows=10, row_bytes=100).data_bytes == 1000


def test_the_volume_section_and_table_sections_are_read(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(
        "[tool.hmodel.check]\nsample-rows = 500\n"
        '[tool.hmodel.check.volume]\norder = "2 TB"\n'
        '[tool.hmodel.check.tables.order]\nrows = 10\ncell-bytes = "1MB"\n'
        '[tool.hmodel.check.tables.goods]\nvolume = "5GiB"\n'
    )
    config = load_config(path)
    assert config.volume("order") == TableVolume(rows=10, cell_bytes=10**6, volume=2 * TB)
    assert config.volume("goods").data_bytes == 5 * 1024**3
    assert config.sample_rows == 500


@pytest.mark.parametrize(
    ("section", "text"),
    [
        ({"volume": {"order": "2 TX"}}, "'2 TX'"),
        ({"tables": {"order": {"volume": "lots"}}}, "lots"),
    ],
)
def test_a_bad_volume_names_the_table_and_the_text(section: dict[str, object], text: str) -> None:
    with pytest.raises(CheckConfigError, match=text) as caught:
        CheckConfig.from_mapping(section)
    assert caught.value.table == "order"
    assert "'order'" in caught.value.message


def test_a_bad_volume_on_the_command_line_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check", "examples.ecommerce.schema", "--volume", "order=2 TX"]) == 2
    err = capsys.readouterr().err
    assert "--volume of table 'order'" in err and "'2 TX'" in err
    assert main(["check", "examples.ecommerce.schema", "--volume", "order"]) == 2
    assert "TABLE=VALUE" in capsys.readouterr().err


# --- regions and split points per key layout ---------------------------------------------


def test_orders_at_2_tb_need_100_regions_split_on_the_salt_buckets() -> None:
    plan = _plan(_example(), "order", 2 * TB)
    assert (plan.needed, plan.declared, plan.layout) == (100, 10, "salt")
    assert plan.points == tuple(SaltSplits(10).points())
    assert plan.declaration == "splits=SaltSplits(10)"
    assert plan.shell == "SPLITS => ['\\x01', '\\x02', '\\x03', '\\x04', '\\x05', " + (
        "'\\x06', '\\x07', '\\x08', '\\x09']"
    )
    assert plan.note is not None
    assert plan.note.startswith("the key has 10 salt buckets, so SaltSplits(10) makes 10 regions")
    assert "sample a live table" in plan.note
    assert round(plan.region_bytes / 1024**3, 1) == 18.6


def test_a_salted_key_keeps_one_region_per_bucket_for_a_small_volume() -> None:
    plan = _plan(_example(), "goods", 5 * 1000**3)
    assert (plan.needed, plan.declared, plan.note) == (10, 10, None)
    assert plan.declaration == "splits=SaltSplits(10)"


def test_hashed_keys_split_on_evenly_spaced_byte_prefixes(layouts: Inventory) -> None:
    plan = _plan(layouts, "hashed", 300 * 1024**3)
    assert (plan.needed, plan.layout) == (30, "hashed")
    assert plan.declaration == 'splits=UniformSplits(30, end=b"\\xff" * 4)'
    assert plan.points == tuple(UniformSplits(30, end=b"\xff" * 4).points())


def test_hex_keys_split_on_evenly_spaced_hex_prefixes(layouts: Inventory) -> None:
    plan = _plan(layouts, "hex", 160 * 1024**3, key_spaces={"HexFile": "hex"})
    assert (plan.needed, plan.layout, plan.declaration) == (16, "hex", "splits=HexSplits(16)")
    assert plan.points == tuple(HexSplits(16).points())
    plan = _plan(layouts, "hex", 30 * 1024**3, key_spaces={"HexFile": "uniform"})
    assert (plan.layout, plan.declaration) == ("uniform", "splits=UniformSplits(3)")
    assert plan.points == tuple(UniformSplits(3).points())


def test_more_regions_than_buckets_split_inside_buckets_on_a_hash(layouts: Inventory) -> None:
    plan = _plan(layouts, "salthash", 100 * 1024**3)
    assert (plan.needed, plan.declared, plan.note) == (10, 4, None)
    assert plan.points is not None and len(plan.points) == 9
    for bucket in (b"\x01", b"\x02", b"\x03"):
        assert bucket in plan.points  # every bucket starts a region
    assert plan.points[:2] == (b"\x00\x55\x55", b"\x00\xaa\xaa")  # bucket 0 in three
    # the salt spreads rows evenly over buckets and the hash within one: shares even
    assert list(plan.points) == sorted(set(plan.points))


def test_a_constant_tag_leads_the_bucket_points(layouts: Inventory) -> None:
    plan = _plan(layouts, "tagged", 10)
    assert plan.points == (b"U\x01", b"U\x02")
    assert plan.declaration == "splits=[b'U\\x01', b'U\\x02']"


@pytest.mark.parametrize(
    ("table", "why"),
    [
        ("plain", "a key starting with Str('user')"),
        ("reversed", "a key starting with Reversed('account')"),
        ("mixed", "2 key layouts share the table"),
    ],
)
def test_text_keys_need_a_sample_of_a_live_table(layouts: Inventory, table: str, why: str) -> None:
    plan = _plan(layouts, table, 100 * 1024**3)
    assert (plan.needed, plan.layout, plan.points, plan.declaration) == (10, "unknown", None, None)
    assert plan.note == (
        f"split points for {why} cannot be derived from the layout, sample a live table "
        "(--hbase or --hbase2 HOST:PORT)"
    )


def test_one_region_needs_no_split_point(layouts: Inventory) -> None:
    plan = _plan(layouts, "plain", 1024)
    assert (plan.needed, plan.layout, plan.points, plan.shell) == (1, "none", (), None)


def test_quantile_points_cut_sorted_keys_into_even_shares() -> None:
    keys = [f"user{i:05d}".encode() for i in range(1000)]
    points = quantile_points(keys, 8)
    assert len(points) == 7 and points == sorted(set(points))
    assert [r.rows for r in measure("M", "t", keys, points).regions] == [125] * 8
    assert points[0] == b"user00125"
    assert quantile_points([b"aa1", b"aa2", b"ab1", b"ab2"], 2) == [b"ab"]  # shortest prefix
    assert quantile_points([b"a", b"b"], 5) == [b"b"]  # no more points than keys allow


def _fill(backend: Backend, table: Table, keys: list[bytes]) -> None:
    backend.create_table(table)
    backend.mutate(table.full_name, [Put(key, b"d:n", b"x") for key in keys])


def test_a_live_sample_splits_a_text_key_evenly(backend: Backend, layouts: Inventory) -> None:
    """On every target: the sampled points cut the live rows into even regions."""
    (table,) = [t for t in layouts.tables if t.full_name == "plain"]
    keys = [f"customer-{i * 7919 % 1000:04d}".encode() for i in range(1000)]
    _fill(backend, table, keys)
    config = CheckConfig(volumes={"plain": TableVolume(volume=80 * 1024**3)})
    report = check(layouts, config, select=["HM-S3"], backend=backend)
    assert report.sizing is not None
    (plan,) = report.sizing.tables
    assert (plan.needed, plan.layout, plan.note) == (8, "sample", None)
    assert plan.points is not None
    assert [r.rows for r in measure("M", "t", keys, plan.points).regions] == [125] * 8
    (finding,) = report.findings
    assert finding.fix == (
        "declare the 7 split points of the sizing plan (printed as Table(splits=[...]) "
        "and SPLITS => [...])"
    )
    Table("check", list(table.families), splits=list(plan.points))  # pastes as declared


def test_a_large_live_table_is_sampled_region_by_region(layouts: Inventory) -> None:
    from hmodel.backend.memory import MemoryBackend

    (table,) = [t for t in layouts.tables if t.full_name == "plain"]
    backend = MemoryBackend()
    live = Table("plain", list(table.families), splits=[b"k"])  # two live regions
    _fill(backend, live, [f"{c}{i:03d}".encode() for c in "ab" + "kl" for i in range(100)])
    config = CheckConfig(volumes={"plain": TableVolume(volume=40 * 1024**3)}, sample_rows=100)
    plan = check(layouts, config, select=["HM-S3"], backend=backend).sizing.tables[0]  # type: ignore[union-attr]
    assert plan.points == (b"a025", b"k", b"k025")  # from a000-a049 and k000-k049
    assert plan.note is not None and "more than 100 rows" in plan.note
    assert "approximation" in plan.note
    one = MemoryBackend()
    _fill(one, table, [f"{c}{i:03d}".encode() for c in "ab" for i in range(100)])
    plan = check(layouts, config, select=["HM-S3"], backend=one).sizing.tables[0]  # type: ignore[union-attr]
    assert plan.points == (b"a025", b"a05", b"a075")  # the lowest 100 keys only
    assert plan.note is not None and "(one live region): they cover the lowest keys" in plan.note
    empty = MemoryBackend()
    empty.create_table(table)
    plan = check(layouts, config, select=["HM-S3"], backend=empty).sizing.tables[0]  # type: ignore[union-attr]
    assert plan.points is None and plan.note is not None
    assert plan.note.endswith("the live table holds no rows to sample")


def test_a_live_sample_splits_inside_salt_buckets(user_module: Callable[[str], str]) -> None:
    from hmodel.backend.memory import MemoryBackend
    from hmodel.model import model_info

    inventory = Inventory.from_modules([user_module(LAYOUTS)])
    (info,) = [m for m in inventory.models if m.name == "Tagged"]
    keys = [info.key.encode({"user": f"u{i:04d}"}) for i in range(900)]
    backend = MemoryBackend()
    _fill(backend, info.table, keys)
    plan = check(
        inventory,
        CheckConfig(volumes={"tagged": TableVolume(volume=60 * 1024**3)}, sample_rows=10_000),
        select=["HM-S3"],
        backend=backend,
    ).sizing.tables[0]  # type: ignore[union-attr]
    assert (plan.needed, plan.layout, plan.note) == (6, "sample", None)
    assert plan.points is not None and len(plan.points) == 5
    assert b"U\x01" in plan.points and b"U\x02" in plan.points
    rows = [r.rows for r in measure("M", "t", keys, plan.points).regions]
    assert max(rows) - min(rows) <= 0.2 * max(rows)  # salt buckets hold about a third each
    assert model_info(info.cls).table is info.table


# --- HM-S3 against the declared splits, HM-S2 with the volume ----------------------------


def test_s3_reports_too_few_and_too_many_regions(layouts: Inventory) -> None:
    few = check(layouts, CheckConfig(volumes={"salthash": TableVolume(volume=1024**4)}))
    (finding,) = [f for f in few.findings if f.code == "HM-S3"]
    assert finding.severity.value == "warning"
    assert (
        "needs about 100 regions" in finding.message and "starts with 4 regions" in finding.message
    )
    many = check(_example(), CheckConfig(volumes={"goods": TableVolume(volume=10)}))
    assert not [f for f in many.findings if f.code == "HM-S3"]  # one region per salt bucket


def test_s2_says_whether_the_budget_holds_and_what_would(layouts: Inventory) -> None:
    volumes = {"order": TableVolume(volume=2 * TB)}
    config = CheckConfig(volumes=volumes, region_servers=3, heap=16 * 1024**3)
    report = check(_example(), config)
    assert report.sizing is not None and report.sizing.memstore is not None
    memstore = report.sizing.memstore
    assert memstore.holds is False
    assert memstore.demand == 128 * 1024**2 * (1 + 10 + 100 * 2 + 1)  # customer 1, goods 10 ...
    (s2,) = [f for f in report.findings if f.code == "HM-S2"]
    assert s2.fix.startswith("use 5 region servers, or 23 GiB of heap each, or a ")
    assert "MEMSTORE_FLUSHSIZE of at most 92 MiB (212 MemStores)" in s2.fix
    for change in (
        {"region_servers": 5},
        {"heap": 23 * 1024**3},
        {"flush_size": 92 * 1024**2},
    ):
        fixed = check(
            _example(),
            CheckConfig(
                volumes=volumes, **{**{"region_servers": 3, "heap": 16 * 1024**3}, **change}
            ),
        )  # type: ignore[arg-type]
        assert fixed.sizing is not None and fixed.sizing.memstore is not None
        assert fixed.sizing.memstore.holds is True, change
        assert not [f for f in fixed.findings if f.code == "HM-S2"]
        assert fixed.sizing.memstore.advice.startswith("MemStore demand ")
        assert " fits the budget " in fixed.sizing.memstore.advice
    alone = check(_example(), CheckConfig(volumes=volumes)).sizing
    assert alone is not None and alone.memstore is not None
    assert (
        alone.memstore.holds is None and "give --heap and --region-servers" in alone.memstore.advice
    )


def test_a_volume_for_an_undeclared_table_is_noted() -> None:
    report = check(_example(), CheckConfig(volumes={"ordr": TableVolume(volume=TB)}))
    assert report.notes[-1] == (
        "a volume is given for table 'ordr', which the checked modules do not declare "
        "(they declare customer, customer_order, goods, order)"
    )
    assert report.sizing is None


def test_no_volume_no_plan_and_no_sizing_rule_no_plan() -> None:
    assert check(_example(), CheckConfig()).sizing is None
    config = CheckConfig(volumes={"order": TableVolume(volume=TB)})
    assert check(_example(), config, select=["HM-K8"]).sizing is None


# --- every output format -----------------------------------------------------------------

ARGV = ["check", "examples.ecommerce.schema", "--volume", "order=2TB", "--volume", "goods=5 GB"]


@pytest.fixture
def no_pyproject(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


@pytest.mark.usefixtures("no_pyproject")
def test_text_prints_the_plan_to_paste(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*ARGV, "--region-servers=3", "--heap=16GiB"]) == 1  # HM-S2, HM-S3 warnings
    out = capsys.readouterr().out
    assert "sizing (S1, S3; 10-50 GB a region, at most max-regions a table):" in out
    assert "table:order: 2.0 TB (1.8 TiB) expected: 100 regions of 18.6 GiB (declared: 10)" in out
    assert "      Table: splits=SaltSplits(10)\n" in out
    assert "      shell: SPLITS => ['\\x01', '\\x02'," in out
    assert "  memstore (S2): MemStore demand 26.5 GiB exceeds the budget" in out
    assert "HM-S3 warning table:order" in out and "HM-S3 warning table:goods" not in out


@pytest.mark.usefixtures("no_pyproject")
def test_json_carries_the_plan(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*ARGV, "--format=json"]) == 1
    sizing = json.loads(capsys.readouterr().out)["sizing"]
    order = next(t for t in sizing["tables"] if t["table"] == "order")
    assert order["needed_regions"] == 100 and order["declared_regions"] == 10
    assert order["points"][0] == "'\\x01'" and order["layout"] == "salt"
    assert order["line"] and order["filename"].endswith("schema.py")
    assert sizing["memstore"]["holds"] is None


@pytest.mark.usefixtures("no_pyproject")
def test_github_sarif_and_junit_carry_the_plan(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*ARGV, "--format=github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    notices = [line for line in lines if line.startswith("::notice title=hmodel sizing")]
    assert len(notices) == 3  # goods, order, memstore
    assert "%0A    Table: splits=SaltSplits(10)" in notices[1]
    assert main([*ARGV, "--format=sarif"]) == 1
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert [t["table"] for t in run["properties"]["sizing"]["tables"]] == ["goods", "order"]
    assert main([*ARGV, "--format=junit"]) == 1
    root = ElementTree.fromstring(capsys.readouterr().out.split("\n", 1)[1])
    (suite,) = [s for s in root if s.get("name") == "hmodel sizing"]
    assert suite.get("failures") == "0" and suite.get("tests") == "3"
    assert root.get("tests") == str(1 + 3)  # the HM-S3 finding and the three plan cases
    texts = [case.findtext("system-out") or "" for case in suite]
    assert "Table: splits=SaltSplits(10)" in texts[1]


@pytest.mark.usefixtures("no_pyproject")
@pytest.mark.parametrize("api", ["hbase", "hbase2"])
def test_check_samples_a_live_table_over_thrift(
    capsys: pytest.CaptureFixture[str],
    fake_hbase_server: FakeHBaseServer,
    user_module: Callable[[str], str],
    api: str,
) -> None:
    from hmodel.backend.thrift import ThriftBackend

    table = Table(f"plain_{api}", [Family("d")])
    source = LAYOUTS.replace('PLAIN = Table("plain"', f'PLAIN = Table("plain_{api}"')
    module = user_module(source)
    backend = ThriftBackend(fake_hbase_server.host, fake_hbase_server.port)
    keys = [f"customer-{i:04d}".encode() for i in range(400)]
    try:
        _fill(backend, table, keys)
        port = fake_hbase_server.port if api == "hbase" else fake_hbase_server.thrift2_port
        argv = ["check", module, f"--volume=plain_{api}=40GiB", "--select=HM-S3"]
        assert main([*argv, f"--{api}", f"{fake_hbase_server.host}:{port}", "--format=json"]) == 1
        (plan,) = [
            t
            for t in json.loads(capsys.readouterr().out)["sizing"]["tables"]
            if t["table"] == f"plain_{api}"
        ]
        assert (plan["needed_regions"], plan["layout"]) == (4, "sample")
        assert plan["points"] == ["'customer-01'", "'customer-02'", "'customer-03'"]
        assert plan["declaration"] == "splits=[b'customer-01', b'customer-02', b'customer-03']"
    finally:
        backend.delete_table(table.full_name)
        backend.close()


def test_live_options_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["check", "examples.ecommerce.schema", "--hbase", "h:1", "--hbase2", "h:2"]
    assert main(argv) == 2
    assert "one of --hbase and --hbase2" in capsys.readouterr().err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["check", "examples.ecommerce.schema", "--hbase", "nohost"]) == 2
    assert "HOST:PORT" in capsys.readouterr().err
