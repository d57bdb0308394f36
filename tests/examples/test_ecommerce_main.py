"""The main job, `python -m examples.ecommerce`: in-process, over Thrift, and as a subprocess."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from examples.ecommerce.__main__ import SEED, main
from examples.ecommerce.dataset import generate
from examples.ecommerce.schema import TABLES
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.schema import create_statement
from hmodel.testing import FakeHBaseServer

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "ecommerce_main_test"


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def answers(out: str) -> str:
    """The output from the data set on, without the round-trip counts (they differ by backend)."""
    return out[out.index("== Synthetic shop") : out.index("== Round trips")]


@pytest.fixture
def thrift_address(fake_hbase_server: FakeHBaseServer) -> Iterator[str]:
    """The project's Thrift server; the example's prefixed tables are dropped afterwards."""
    yield f"{fake_hbase_server.host}:{fake_hbase_server.port}"
    with ThriftBackend(
        fake_hbase_server.host, fake_hbase_server.port, table_prefix=PREFIX
    ) as backend:
        for name in backend.list_tables():
            backend.delete_table(name)


def test_main_prints_the_ddl_of_the_four_tables(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    for table in TABLES:
        assert create_statement(table) in lines
    assert "SPLITS => ['\\x01', '\\x02'" in out  # goods and order: one region per salt bucket


def test_main_answers_sales_per_category_as_computed_from_the_data(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = generate(SEED)
    categories = {g.goods_id: g.category for g in data.goods}
    expected: dict[str, tuple[int, int, Decimal]] = {}
    for order in data.orders:
        orders, units, revenue = expected.get(categories[order.goods_id], (0, 0, Decimal(0)))
        price = data.price_on(order.goods_id, data.day_of(order))
        expected[categories[order.goods_id]] = (
            orders + 1,
            units + order.quantity,
            revenue + price * order.quantity,
        )
    _, out, _ = run_main(capsys)
    assert "120 customers, 40 goods in 5 categories, 400 orders over 30 days" in out
    for category, (orders, units, revenue) in expected.items():
        assert f"{category:<12} {orders:>6} {units:>6} {revenue:>11}" in out.splitlines()


def test_main_reports_the_round_trips_of_each_operation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run_main(capsys)
    table = out[out.index("== Round trips") :]
    assert re.search(r"^place a day's orders \(one batch\)\s+30\s+150\s+120$", table, re.M)
    assert re.search(r"^sales of one product \(get\)\s+1\s+1\s+1$", table, re.M)
    assert re.search(r"^register 120 customers\s+1\s+1\s+1$", table, re.M)
    assert "scan 'order' (forward, 10 range(s))" in out  # the explain of the fan-out


def test_main_gives_the_same_answers_over_thrift(
    capsys: pytest.CaptureFixture[str], thrift_address: str
) -> None:
    _, memory_out, _ = run_main(capsys)
    code, out, err = run_main(capsys, "--thrift", thrift_address, "--table-prefix", PREFIX)
    assert code == 0, err
    assert f"on HBase Thrift1 at {thrift_address}" in out
    assert "WITHOUT split points (9, K11)" in out
    assert answers(out) == answers(memory_out)


def test_main_over_thrift_refuses_existing_tables_unless_replaced(
    capsys: pytest.CaptureFixture[str], thrift_address: str
) -> None:
    assert run_main(capsys, "--thrift", thrift_address, "--table-prefix", PREFIX)[0] == 0
    code, _, err = run_main(capsys, "--thrift", thrift_address, "--table-prefix", PREFIX)
    assert code == 1 and "pass --replace" in err
    code, out, _ = run_main(
        capsys, "--thrift", thrift_address, "--table-prefix", PREFIX, "--replace"
    )
    assert code == 0 and "400 orders" in out


def test_main_refuses_a_malformed_address(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--thrift", "localhost"])
    assert caught.value.code == 2
    assert "expected HOST:PORT" in capsys.readouterr().err


def test_python_dash_m_examples_ecommerce_exits_0_from_the_repo_root() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "examples.ecommerce"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "== Q3: what" in done.stdout and "== Round trips ==" in done.stdout


@pytest.fixture
def thrift2_address(fake_hbase_server: FakeHBaseServer) -> Iterator[str]:
    """The project's Thrift2 port; the example's prefixed tables are dropped afterwards."""
    port = fake_hbase_server.thrift2_port
    assert port is not None
    yield f"{fake_hbase_server.host}:{port}"
    with Thrift2Backend(fake_hbase_server.host, port, table_prefix=PREFIX) as backend:
        for name in backend.list_tables():
            backend.delete_table(name)


def test_main_gives_the_same_answers_over_thrift2_with_the_whole_schema(
    capsys: pytest.CaptureFixture[str], thrift2_address: str
) -> None:
    """Over Thrift2 the tables are created with their split points: no warning, same answers."""
    _, memory_out, _ = run_main(capsys)
    code, out, err = run_main(capsys, "--thrift2", thrift2_address, "--table-prefix", PREFIX)
    assert code == 0, err
    assert f"on HBase Thrift2 at {thrift2_address}" in out
    assert "WITHOUT" not in out
    # Thrift2 has no multi-row increment: loading costs more round trips, answers are the same.
    loaded = re.compile(r"loaded in \d+ round trips")
    assert loaded.sub("", answers(out)) == loaded.sub("", answers(memory_out))
    host, port = thrift2_address.rsplit(":", 1)
    with Thrift2Backend(host, int(port), table_prefix=PREFIX) as backend:
        assert len(backend.regions("goods")) == 10


@pytest.mark.parametrize("example", ["examples.ecommerce", "examples.microblog"])
def test_a_reader_that_stops_early_ends_the_example_quietly(example: str) -> None:
    # `python -m examples.ecommerce | head -2`: no BrokenPipeError traceback, exit 0.
    child = subprocess.Popen(
        [sys.executable, "-m", example],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )
    assert child.stdout is not None and child.stderr is not None
    assert child.stdout.readline().startswith(b"hmodel ")
    child.stdout.close()
    err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 0, err
    assert "BrokenPipeError" not in err and "Traceback" not in err
