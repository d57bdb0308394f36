from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from examples.ecommerce.dataset import generate, key_records, load
from examples.ecommerce.models import Customer, Goods, Order
from examples.ecommerce.service import Shop
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift import ThriftBackend
from hmodel.cli import main
from hmodel.clock import ManualClock
from hmodel.errors import OperationsError, SampleError
from hmodel.model import model_info
from hmodel.ops import measure, render_spread, spread_of
from hmodel.ops.live import live_spread
from hmodel.ops.sample import read_file
from hmodel.ops.spread import save_image
from hmodel.testing import FakeHBaseServer

HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def test_keys_are_counted_per_region_start_inclusive() -> None:
    spread = measure("M", "t", [b"", b"a", b"m", b"mm", b"z"], [b"m", b"y"])
    assert [r.rows for r in spread.regions] == [2, 2, 1]
    assert [(r.start, r.stop) for r in spread.regions] == [(b"", b"m"), (b"m", b"y"), (b"y", b"")]


@pytest.mark.parametrize(
    ("counts", "verdict"),
    [
        (b"ahnu", "even"),
        (b"aaahnuu", "uneven"),  # 3 of 7 keys in one of 4 regions: 1.71x the mean
        (b"aaaaahnu", "hotspot"),  # 5 of 8: 2.5x the mean
        (b"ahn", "hotspot"),  # the last region is empty
        (b"", "no keys"),
    ],
)
def test_the_verdict_follows_max_over_mean_and_empty_regions(counts: bytes, verdict: str) -> None:
    keys = [bytes([c]) for c in counts]
    assert measure("M", "t", keys, [b"g", b"m", b"t"]).verdict == verdict


def test_an_unsplit_table_is_a_single_region() -> None:
    spread = spread_of(model_info(Customer), key_records(generate(), Customer))
    assert spread.verdict == "single region"
    assert spread.total == 120


def test_salted_orders_spread_evenly_over_the_ten_regions() -> None:
    spread = spread_of(model_info(Order), key_records(generate(), Order))
    assert len(spread.regions) == 10
    assert spread.empty == 0
    assert spread.verdict == "even"
    text = render_spread(spread)
    assert text.splitlines()[0] == "order (model Order): 400 keys of 29-36 bytes over 10 regions"
    assert "verdict: even (max/mean 1.23, 0 empty regions)" in text


def test_csv_and_json_lines_samples_are_converted_to_key_types(tmp_path: Path) -> None:
    csv_file = tmp_path / "orders.csv"
    csv_file.write_text(
        "order_id,category,goods_id,ordered_at\n"
        "o1,books,g001,2024-03-01T10:00:00+00:00\n"
        "o2,toys,g033,2024-03-02T11:00:00\n"
    )
    jsonl = tmp_path / "orders.jsonl"
    jsonl.write_text(
        '{"order_id": "o1", "category": "books", "goods_id": "g001",'
        ' "ordered_at": "2024-03-01T10:00:00+00:00"}\n\n'
        '{"order_id": "o2", "category": "toys", "goods_id": "g033",'
        ' "ordered_at": "2024-03-02T11:00:00+00:00"}\n'
    )
    info = model_info(Order)
    from_csv = spread_of(info, read_file(csv_file))
    from_jsonl = spread_of(info, read_file(jsonl))
    assert from_csv == from_jsonl
    assert from_csv.total == 2


def test_bad_samples_are_sample_errors(tmp_path: Path) -> None:
    info = model_info(Order)
    with pytest.raises(SampleError, match="no key field 'ordered_at'"):
        spread_of(info, [{"order_id": "o1", "category": "b", "goods_id": "g"}])
    with pytest.raises(SampleError, match="cannot read 'yesterday' as datetime"):
        spread_of(
            info,
            [{"order_id": "o", "category": "b", "goods_id": "g", "ordered_at": "yesterday"}],
        )
    bad = tmp_path / "bad.jsonl"
    bad.write_text("[1, 2]\n")
    with pytest.raises(SampleError, match="not a JSON object"):
        list(read_file(bad))
    with pytest.raises(SampleError, match="cannot read"):
        list(read_file(tmp_path / "missing.csv"))


def test_spread_command_on_the_example_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "spread",
            "examples.ecommerce.models",
            "--keys",
            "examples.ecommerce.dataset:key_sample",
            "--format",
            "json",
        ]
    )
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [(s["model"], s["verdict"]) for s in document] == [
        ("Customer", "single region"),
        ("Goods", "uneven"),
        ("Order", "even"),
        ("Buyer", "even"),
        ("CustomerOrder", "single region"),
    ]
    order = document[2]
    assert order["keys"] == 400
    assert order["regions"][1] == {"start": "\\x01", "stop": "\\x02", "rows": 42}


def test_spread_command_fails_on_hotspots_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["spread", "examples.ecommerce.models:Customer"]
    argv += ["--keys", "examples.ecommerce.dataset:key_sample"]
    assert main(argv) == 0
    assert main([*argv, "--fail-on-hotspot"]) == 1
    assert "verdict: single region" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["spread", "examples.ecommerce.models:Nobody", "--keys", "x.csv"], "no model 'Nobody'"),
        (["spread", "examples.ecommerce.models:Order"], "give a key sample"),
        (["spread", "examples.ecommerce.models:Order", "--keys", "nowhere.csv"], "cannot read"),
        (["spread", "examples.ecommerce.models:Order", "--keys", "json:nothing"], "no function"),
    ],
)
def test_spread_bad_input_exits_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.skipif(HAS_MATPLOTLIB, reason="matplotlib is installed")
def test_an_image_without_matplotlib_says_what_to_install(tmp_path: Path) -> None:
    with pytest.raises(OperationsError, match="pip install matplotlib"):
        save_image([measure("M", "t", [b"a"], [])], tmp_path / "spread.png")


@pytest.mark.skipif(not HAS_MATPLOTLIB, reason="matplotlib is not installed")
def test_an_image_is_drawn_with_matplotlib(tmp_path: Path) -> None:
    target = tmp_path / "spread.svg"
    save_image([measure("M", "t", [b"a", b"z"], [b"m"])], target)
    assert target.read_text().lstrip().startswith("<?xml")


@pytest.mark.skipif(HAS_MATPLOTLIB, reason="matplotlib is installed")
def test_spread_refuses_an_image_before_printing_anything(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["spread", "examples.ecommerce.models:Order", "--image", "spread.png"]
    assert main([*argv, "--keys", "examples.ecommerce.dataset:key_sample"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "pip install matplotlib" in err


def test_an_image_must_be_png_or_svg(tmp_path: Path) -> None:
    with pytest.raises(OperationsError, match=r"png or \.svg"):
        save_image([measure("M", "t", [b"a"], [])], tmp_path / "spread.gif")


def test_a_live_table_is_scanned_and_counted_per_real_region() -> None:
    backend = MemoryBackend()
    shop = Shop(backend)
    shop.create_tables()
    data = generate()
    shop.register(data.customers)
    shop.stock(data.goods)
    spread = live_spread(backend, model_info(Goods))
    assert spread.total == 40
    assert len(spread.regions) == 10
    expected = spread_of(model_info(Goods), key_records(data, Goods))
    assert [r.rows for r in spread.regions] == [r.rows for r in expected.regions]


def test_spread_over_thrift_reads_the_live_table(
    capsys: pytest.CaptureFixture[str], fake_hbase_server: FakeHBaseServer
) -> None:
    backend = ThriftBackend(fake_hbase_server.host, fake_hbase_server.port, lenient_ddl=True)
    table = model_info(Customer).table
    with pytest.warns(UserWarning, match="DATA_BLOCK_ENCODING"):
        backend.create_table(table)  # Thrift1 cannot carry the block encoding
    try:
        Shop(backend).register(generate().customers)
        address = f"{fake_hbase_server.host}:{fake_hbase_server.port}"
        argv = ["spread", "examples.ecommerce.models:Customer", "--hbase", address]
        assert main([*argv, "--format=json", "--limit=50"]) == 0
        (document,) = json.loads(capsys.readouterr().out)
        assert document["keys"] == 50
        assert document["verdict"] == "single region"
    finally:
        backend.delete_table(table.full_name)
        backend.close()


def test_live_and_sample_inputs_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["spread", "examples.ecommerce.models:Order", "--hbase", "localhost:1"]
    assert main([*argv, "--keys", "x.csv"]) == 2
    assert "one of --keys" in capsys.readouterr().err
    assert main(["spread", "examples.ecommerce.models:Order", "--hbase", "nohost"]) == 2
    assert "HOST:PORT" in capsys.readouterr().err


def test_long_sample_keys_get_a_k10_note() -> None:
    text = render_spread(measure("M", "t", [b"k" * 120, b"k"], []))
    assert "note: keys of up to 120 bytes; K10" in text
    assert "note:" not in render_spread(measure("M", "t", [b"k" * 100], []))


def test_spread_over_thrift2_counts_the_real_regions_of_a_pre_split_table(
    capsys: pytest.CaptureFixture[str], fake_hbase_server: FakeHBaseServer
) -> None:
    """Thrift2 carries the split points: the order table's 10 salted regions, all used."""
    from hmodel.backend.thrift2 import Thrift2Backend

    backend = Thrift2Backend(fake_hbase_server.host, fake_hbase_server.thrift2_port)
    shop = Shop(backend)
    shop.create_tables(exist_ok=True)
    try:
        data = generate()
        load(shop, data, ManualClock())
        address = f"{fake_hbase_server.host}:{fake_hbase_server.thrift2_port}"
        argv = ["spread", "examples.ecommerce.models:Order", "--hbase2", address]
        assert main([*argv, "--format=json"]) == 0
        (document,) = json.loads(capsys.readouterr().out)
        assert document["keys"] == len(data.orders)
        assert len(document["regions"]) == 10
        assert all(region["rows"] > 0 for region in document["regions"])
    finally:
        for name in backend.list_tables():
            backend.delete_table(name)
        backend.close()
