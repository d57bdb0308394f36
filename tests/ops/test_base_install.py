"""Every ``hmodel`` subcommand works, or names the extra it needs, from the base install only."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import textwrap
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: A user's module: one table, one model, a key sample and a task (what the commands take).
SCHEMA = """
from hmodel import Family, Key, Str, Table, field, model
from hmodel.jobs import IndexTask
from hmodel.patterns import Index

users = Table("bi_user", [Family("i")])
users_by_name = Table("bi_user_by_name", [Family("x")])


@model(users, key=Key(Str("user_id")))
class User:
    user_id: str
    name: str = field("i:n")


by_name = Index(User, on=["name"], table=users_by_name)
backfill = IndexTask(by_name, "backfill")


def key_sample():
    return [{"user_id": f"u{n}"} for n in range(50)]
"""


@pytest.fixture(scope="module")
def base_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with ``pip install <repo>``: no extra at all."""
    where = tmp_path_factory.mktemp("base-venv")
    venv.create(where, with_pip=True)
    python = where / "bin" / "python"
    done = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"pip could not install hmodel into a fresh venv: {done.stderr[-400:]}")
    return where


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's working directory with the schema module in it (no clone on the path)."""
    where = tmp_path_factory.mktemp("project")
    (where / "schema.py").write_text(textwrap.dedent(SCHEMA))
    return where


def _in_venv(
    venv_dir: Path, program: str, *args: str, cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the venv's ``program`` in ``cwd``, with none of this process's PYTHON* settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    return subprocess.run(
        [str(venv_dir / "bin" / program), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _hmodel(venv_dir: Path, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _in_venv(venv_dir, "hmodel", *args, cwd=project)


@pytest.fixture(scope="module")
def fake(base_venv: Path, project: Path) -> Iterator[tuple[int, int]]:
    """``hmodel fake-hbase`` from the base install: its Thrift1 and Thrift2 ports."""
    child = subprocess.Popen(
        [str(base_venv / "bin" / "hmodel"), "fake-hbase", "--port", "0", "--thrift2-port", "0"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    ports = []
    for _ in range(2):
        line = child.stdout.readline()
        assert "listening on" in line, line + (child.stderr.read() if child.stderr else "")
        ports.append(int(line.split("listening on ")[1].split()[0].rpartition(":")[2]))
    try:
        yield ports[0], ports[1]
    finally:
        child.send_signal(signal.SIGINT)
        assert child.wait(timeout=30) == 0


def test_the_base_install_has_no_extra(base_venv: Path) -> None:
    python = base_venv / "bin" / "python"
    for module in ("pytest", "hypothesis", "dask", "pyspark", "tqdm", "opentelemetry"):
        found = subprocess.run([python, "-c", f"import {module}"], capture_output=True, check=False)
        assert found.returncode != 0, f"{module} is installed in the base venv"


def test_every_subcommand_has_help(base_venv: Path, project: Path) -> None:
    listed = _hmodel(base_venv, project, "--help")
    assert listed.returncode == 0, listed.stderr
    commands = ["fake-hbase", "ddl", "check", "spread", "diff", "migrate", "job", "hbase"]
    for command in commands:
        assert command in listed.stdout
        shown = _hmodel(base_venv, project, command, "--help")
        assert shown.returncode == 0, (command, shown.stderr)
    for action in ("run", "resume", "status"):
        shown = _hmodel(base_venv, project, "job", action, "--help")
        assert shown.returncode == 0, (action, shown.stderr)


def test_the_offline_commands_run(base_venv: Path, project: Path) -> None:
    ddl = _hmodel(base_venv, project, "ddl", "schema")
    assert ddl.returncode == 0, ddl.stderr
    assert "create 'bi_user', {NAME => 'i'}" in ddl.stdout
    check = _hmodel(base_venv, project, "check", "schema")
    assert check.returncode in (0, 1), check.stderr
    assert "checked 2 tables, 1 model:" in check.stdout
    spread = _hmodel(base_venv, project, "spread", "schema", "--keys", "schema:key_sample")
    assert spread.returncode in (0, 1), spread.stderr
    diff = _hmodel(base_venv, project, "diff", "schema", "--against", "schema")
    assert diff.returncode == 0, diff.stderr


def test_the_commands_of_a_cluster_run(
    base_venv: Path, project: Path, fake: tuple[int, int]
) -> None:
    thrift2 = f"127.0.0.1:{fake[1]}"
    migrate = _hmodel(base_venv, project, "migrate", "schema", "--hbase2", thrift2, "--apply")
    assert migrate.returncode in (0, 1), migrate.stderr
    again = _hmodel(base_venv, project, "migrate", "schema", "--hbase2", thrift2)
    assert again.returncode == 0, again.stdout + again.stderr
    run = _hmodel(
        base_venv, project, "job", "run", "schema:backfill", "--job", "b1", "--hbase2", thrift2
    )
    assert run.returncode == 0, run.stdout + run.stderr
    status = _hmodel(base_venv, project, "job", "status", "b1", "--hbase2", thrift2)
    assert status.returncode == 0, status.stdout + status.stderr


def test_a_command_that_needs_an_extra_says_which_and_exits_2(
    base_venv: Path, project: Path, fake: tuple[int, int]
) -> None:
    thrift2 = f"127.0.0.1:{fake[1]}"
    run = _hmodel(
        base_venv, project, "job", "run", "schema:backfill", "--job", "d1",
        "--hbase2", thrift2, "--dask", "127.0.0.1:1",
    )  # fmt: skip
    assert run.returncode == 2
    assert "needs Dask: pip install 'hmodel[dask]'" in run.stderr
    assert "Traceback" not in run.stderr


def test_waiting_for_a_real_hbase_needs_no_test_package(
    base_venv: Path, fake: tuple[int, int]
) -> None:
    # `hmodel hbase start` waits for its Thrift servers with these: no pytest on the way.
    code = (
        "import sys\n"
        "from hmodel.testing.hbase_process import wait_for_thrift, wait_for_thrift2\n"
        f"wait_for_thrift('127.0.0.1', {fake[0]}, timeout_s=10)\n"
        f"wait_for_thrift2('127.0.0.1', {fake[1]}, timeout_s=10)\n"
        "assert 'pytest' not in sys.modules\n"
    )
    done = subprocess.run(
        [base_venv / "bin" / "python", "-c", code], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_the_hbase_command_without_a_run_reports_it(base_venv: Path, project: Path) -> None:
    status = _hmodel(base_venv, project, "hbase", "status", "--state", str(project / "none.json"))
    assert status.returncode == 1
    assert "not running" in status.stdout


_PROMPTED = re.compile(r"(>>>|\.\.\.)( |$)")


def copied_text(text: str) -> list[str]:
    """The session examples of a page's text as the site's copy button copies them.

    docs/javascripts/copy-examples.js gives a block with ``>>>`` prompts the copy text of
    its prompted lines, prompts taken off; output lines are left out. This is that rule.
    """
    blocks, inside, lines = [], False, []
    for line in text.splitlines():
        if line.strip() == "```python":
            inside, lines = True, []
        elif inside and line.startswith("```"):
            inside = False
            if any(line.startswith(">>>") for line in lines):
                code = [_PROMPTED.sub("", line, count=1) for line in lines if _PROMPTED.match(line)]
                blocks.append("\n".join(code) + "\n")
        elif inside:
            lines.append(line)
    return blocks


def copied(page: Path) -> list[str]:
    """:func:`copied_text` of ``page``."""
    return copied_text(page.read_text())


def test_the_copy_leaves_out_prompts_and_output() -> None:
    script = (ROOT / "docs" / "javascripts" / "copy-examples.js").read_text()
    assert 'setAttribute("data-copy"' in script and "/^(>>>|\\.\\.\\.)( |$)/" in script
    assert "javascripts/copy-examples.js" in (ROOT / "mkdocs.yml").read_text()
    text = "```python\n>>> x = [1,\n...      2]\n>>> x\n[1, 2]\n\n```\n"
    page = ROOT / "docs" / "getting-started.md"
    assert copied(page) and copied_text(text) == ["x = [1,\n     2]\nx\n"]


def test_getting_started_runs_as_pasted_in_a_new_directory(base_venv: Path, tmp_path: Path) -> None:
    """The page's code, copied and pasted into a script, runs from the base install only."""
    blocks = copied(ROOT / "docs" / "getting-started.md")
    assert len(blocks) >= 3
    script = tmp_path / "pasted.py"
    script.write_text("".join(blocks))
    ran = _in_venv(base_venv, "python", script.name, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    (tmp_path / "shop.py").write_text(blocks[0])  # "put the declarations in shop.py"
    check = _hmodel(base_venv, tmp_path, "check", "shop")
    assert check.returncode in (0, 1) and "checked 1 table, 1 model:" in check.stdout
    ddl = _hmodel(base_venv, tmp_path, "ddl", "shop")
    assert ddl.returncode == 0 and ddl.stdout.startswith("create 'user', {NAME => 'i'}")


@pytest.mark.hbase
def test_getting_started_runs_as_pasted_on_a_real_hbase(
    base_venv: Path, tmp_path: Path, hmodel_real_hbase2_address: tuple[str, int]
) -> None:
    """The same pasted code, its fake Thrift2 server swapped for a real HBase's Thrift2."""
    host, port = hmodel_real_hbase2_address
    code = "".join(copied(ROOT / "docs" / "getting-started.md"))
    fake = "server = FakeThrift2Server(port=0).start()"
    assert fake in code
    real = (
        "import types\n"
        f"server = types.SimpleNamespace(host={host!r}, port={port}, stop=lambda: None)"
    )
    prefix = f"{os.environ.get('HMODEL_TEST_PREFIX', 'hmodel_test')}_gs"
    code = code.replace(fake, real).replace('table_prefix="demo"', f"table_prefix={prefix!r}")
    code = code.replace("['demo_user']", f"[{prefix + '_user'!r}]")
    script = tmp_path / "pasted_real.py"
    script.write_text(code)
    from hmodel.backend.thrift2 import Thrift2Backend

    try:
        ran = _in_venv(base_venv, "python", script.name, cwd=tmp_path, timeout=300)
        assert ran.returncode == 0, ran.stderr
    finally:
        with Thrift2Backend(host, port, table_prefix=prefix) as admin:
            if admin.table_exists("user"):
                admin.delete_table("user")
