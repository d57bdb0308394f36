"""The conventions every ``hmodel`` command keeps, as ruff, git and alembic keep them.

Modules are found from the working directory; exit status 2 means the command could not
run (1 is kept for findings); options are never abbreviated; a closed pipe ends the
output quietly; errors print clean one-line messages.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from hmodel.cli import main

CLICKS = """\
from datetime import datetime

from hmodel import Key, Str, Timestamp, field, model
from hmodel.schema import Family, Table

CLICKS = Table("clicks", [Family("event")])


@model(CLICKS, key=Key(Timestamp("at"), Str("user")))
class Click:
    at: datetime
    user: str
    referrer: str = field("event:referrer_url")
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project folder as the working directory, which is NOT on ``sys.path``.

    This is what a console script sees (its own folder is first on the path).
    """
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    names = {"clicks_app", "broken_app", "raising_app"}
    yield tmp_path
    for name in names:
        sys.modules.pop(name, None)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_module_in_the_working_directory_is_imported(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "clicks_app.py").write_text(CLICKS)
    path_before = list(sys.path)
    code, out, err = _run(capsys, "check", "clicks_app", "--select=HM-K8")
    assert (code, err) == (1, "")
    assert "HM-K8 error model:Click" in out
    assert sys.path == path_before  # the working directory is on the path only meanwhile


def test_ddl_imports_from_the_working_directory_too(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "clicks_app.py").write_text(CLICKS)
    assert _run(capsys, "ddl", "clicks_app")[:2] == (0, "create 'clicks', {NAME => 'event'}\n")


def test_a_syntax_error_exits_2_with_file_and_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "broken_app.py").write_text("x = 1\ny = (\n")
    code, out, err = _run(capsys, "check", "broken_app")
    assert (code, out) == (2, "")
    assert err.startswith("hmodel check: cannot import module 'broken_app': ")
    assert f"{project / 'broken_app.py'}:2: syntax error: '(' was never closed" in err


def test_a_module_that_raises_exits_2_with_its_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "raising_app.py").write_text(
        "from hmodel.schema import Family, Table\n\nT = Table('t', [Family('f', versions=0)])\n"
    )
    code, _, err = _run(capsys, "check", "raising_app")
    assert code == 2
    assert f"{project / 'raising_app.py'}:3: SchemaError: VERSIONS must be" in err


def test_a_missing_module_exits_2_with_a_clean_message(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "check", "nosuchmodule")
    assert code == 2
    assert err == (
        "hmodel check: cannot import module 'nosuchmodule': No module named 'nosuchmodule'\n"
    )


def test_a_server_that_cannot_be_reached_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as bound:  # bound, never listening: connections are refused
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        code, out, err = _run(
            capsys, "spread", "examples.ecommerce.models:Goods", f"--hbase=127.0.0.1:{port}"
        )
    assert (code, out) == (2, "")
    assert err.startswith("hmodel spread: connection to 127.0.0.1:")


@pytest.mark.parametrize(
    "argv",
    [
        ["spread", "examples.ecommerce.models:Goods", "--hbase2=127.0.0.1:1", "--lim=3"],
        ["check", "examples.ecommerce.schema", "--sel=HM-K8"],
        ["diff", "examples.ecommerce.schema", "--hbase=127.0.0.1:1"],  # not --hbase2
        ["--vers", "check", "examples.ecommerce.schema"],
    ],
)
def test_options_are_never_abbreviated(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_a_closed_pipe_ends_the_output_quietly_with_the_commands_status() -> None:
    """``hmodel check ... | head``: the reader is gone before the first write."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # closed before the command starts: every write fails, always
    try:
        done = subprocess.run(
            [sys.executable, "-m", "hmodel.cli", "check", "examples.ecommerce.schema"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            cwd=Path(__file__).resolve().parents[2],
        )
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == 0  # the check's own status: the example is clean


def test_a_closed_pipe_in_process_still_returns_the_status(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Closed:
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Closed())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["check", "examples.ecommerce.schema", "--rows=order=2000000000"])
    assert code == 1
