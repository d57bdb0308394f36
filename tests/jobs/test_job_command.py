"""``hmodel job run|resume|status`` against a live (fake) cluster over Thrift2."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from hmodel.backend.base import Backend
from hmodel.cli import main
from tests.jobs.models import stock


def test_run_then_status_then_verify(
    factory: Callable[[], Backend],
    fake_thrift2_process: tuple[str, int],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    address = "{}:{}".format(*fake_thrift2_process)
    with factory() as backend:
        stock(backend, 12, (b"i06",))
    where = ["--hbase2", address, "--checkpoints", str(tmp_path)]
    verify = ["job", "run", "tests.jobs.models:colour_verify", "--job", "v1", *where]
    assert main(verify) == 1  # 12 missing entries
    assert "missing: 12" in capsys.readouterr().out
    backfill = ["job", "run", "tests.jobs.models:colour_job", "--job", "b1", "--parts", "2"]
    # the missing entries are the backfill's input, not a finding: written, exit 0
    assert main([*backfill, *where, "--workers", "2", "--rate", "100000"]) == 0
    out = capsys.readouterr().out
    assert "written: 12" in out and "shards: 4 of 4 done" in out
    assert "problems: 0" in out
    assert main(["job", "status", "b1", *where, "--format", "json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["counts"]["written"], status["done"]) == (12, True)
    again = ["job", "resume", "tests.jobs.models:colour_verify", "--job", "v2", *where]
    assert main(again) == 0


def test_bad_input_exits_2(
    fake_thrift2_process: tuple[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    address = "{}:{}".format(*fake_thrift2_process)
    assert main(["job", "run", "tests.jobs.models", "--job", "x", "--hbase2", address]) == 2
    assert "MODULE:NAME" in capsys.readouterr().err
    assert main(["job", "run", "tests.jobs.models:stock", "--job", "x", "--hbase2", address]) == 2
    assert main(["job", "status", "nope", "--hbase2", address]) == 2
    assert "no job 'nope'" in capsys.readouterr().err
