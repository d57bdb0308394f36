"""The microblog demo, `python -m examples.microblog`: in-process, over Thrift, as a subprocess."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from examples.microblog.__main__ import main
from examples.microblog.schema import TABLES
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.schema import create_statement
from hmodel.testing import FakeHBaseServer

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "microblog_main_test"


@pytest.fixture
def thrift_address(fake_hbase_server: FakeHBaseServer) -> Iterator[str]:
    """The project's Thrift server; the demo's prefixed tables are dropped afterwards."""
    yield f"{fake_hbase_server.host}:{fake_hbase_server.port}"
    with ThriftBackend(
        fake_hbase_server.host, fake_hbase_server.port, table_prefix=PREFIX
    ) as backend:
        for name in backend.list_tables():
            backend.delete_table(name)


def test_demo_prints_ddl_relationships_and_pages(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    for table in TABLES:
        assert create_statement(table) in lines
    assert "bob follows ann: mutual" in lines
    assert "cy follows ann: mutual" in lines
    assert any(line.startswith("ann  fans: cy (mutual), eve (one-way)") for line in lines)
    assert any(line.startswith("page 1: 30 purchases, p044-") for line in lines)
    assert any(line.startswith("page 2: 15 purchases, p014-") for line in lines)


def test_demo_gives_the_same_output_over_thrift(
    capsys: pytest.CaptureFixture[str], thrift_address: str
) -> None:
    assert main([]) == 0
    memory_out = capsys.readouterr().out
    assert main(["--thrift", thrift_address, "--table-prefix", PREFIX]) == 0
    thrift_out = capsys.readouterr().out

    def story(out: str) -> str:
        return out[out.index("== Follows") : out.index("== Round trips")]

    assert story(thrift_out) == story(memory_out)


def test_demo_gives_the_same_output_over_thrift2(
    capsys: pytest.CaptureFixture[str], fake_hbase_server: FakeHBaseServer
) -> None:
    port = fake_hbase_server.thrift2_port
    assert port is not None
    assert main([]) == 0
    memory_out = capsys.readouterr().out
    address = f"{fake_hbase_server.host}:{port}"
    try:
        assert main(["--thrift2", address, "--table-prefix", PREFIX]) == 0
    finally:
        with Thrift2Backend(fake_hbase_server.host, port, table_prefix=PREFIX) as backend:
            regions = len(backend.regions("user"))
            for name in backend.list_tables():
                backend.delete_table(name)
    thrift2_out = capsys.readouterr().out

    def story(out: str) -> str:
        return out[out.index("== Follows") : out.index("== Round trips")]

    assert story(thrift2_out) == story(memory_out)
    assert regions == 4  # created with its split points, unlike over Thrift1


def test_python_dash_m_examples_microblog_exits_0() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "examples.microblog"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "page 2: 15 purchases" in done.stdout
