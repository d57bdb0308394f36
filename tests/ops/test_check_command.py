from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hmodel.cli import main
from tests.ops.conftest import BAD_SCHEMA


@pytest.fixture(autouse=True)
def _no_project_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no ./pyproject.toml: only the options given count


@pytest.fixture
def bad_module(user_module: Callable[[str], str]) -> str:
    return user_module(BAD_SCHEMA)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_of_the_ecommerce_example_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "check", "examples.ecommerce.schema")
    assert code == 0
    assert "checked 4 tables, 5 models: 0 errors, 0 warnings, 0 info; 0 ignored" in out


def test_check_json_of_the_example_with_volumes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys,
        "check",
        "examples.ecommerce.schema",
        "--format=json",
        "--rows=order=2000000000",
        "--row-bytes=order=600",
        "--region-servers=3",
        "--heap=16GiB",
    )
    document = json.loads(out)
    assert code == 1
    assert {f["code"] for f in document["findings"]} == {"HM-S2", "HM-S3"}
    s3 = next(f for f in document["findings"] if f["code"] == "HM-S3")
    assert s3["subject"] == "table:order"
    assert s3["pattern"] == "S3"
    assert s3["sources"] == [
        "https://hbase.apache.org/book.html#precreate.regions",
        "https://hbase.apache.org/book.html#rowkey.regionsplits",
    ]
    declared = Path(s3["filename"])  # the table's assignment in the example's schema
    assert declared.parts[-3:] == ("examples", "ecommerce", "schema.py")
    assert declared.read_text().splitlines()[s3["line"] - 1].startswith("ORDER = Table(")
    assert s3["severity"] == "warning"
    assert document["summary"] == {"info": 0, "warning": 2, "error": 0, "ignored": 0}


def test_fail_on_sets_the_exit_status(capsys: pytest.CaptureFixture[str], bad_module: str) -> None:
    assert _run(capsys, "check", bad_module, "--select=HM-F1", "--fail-on=error")[0] == 0
    assert _run(capsys, "check", bad_module, "--select=HM-F1")[0] == 1
    assert _run(capsys, "check", bad_module, "--fail-on=never")[0] == 0


def test_text_output_names_code_severity_subject_and_fix(
    capsys: pytest.CaptureFixture[str], bad_module: str
) -> None:
    code, out, _ = _run(capsys, "check", bad_module, "--select=HM-K8", "-v")
    assert code == 1
    lines = out.splitlines()
    path, line, rest = lines[0].split(":", 2)
    assert path.endswith(f"{bad_module}.py")
    assert BAD_SCHEMA.splitlines()[int(line) - 1].startswith("@model(EVENTS")
    assert rest.startswith(" HM-K8 error model:Event: the key leads with 'at'")
    assert lines[1].startswith("    fix: lead with 'host'")
    assert "why (K8; https://hbase.apache.org/book.html#timeseries;" in out
    assert "seed" not in out and "§" not in out


def test_silences_come_from_the_pyproject_section(
    capsys: pytest.CaptureFixture[str], bad_module: str, tmp_path: Path
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.hmodel.check.ignore]\n"model:Event" = { "HM-K8" = "an audit table" }\n'
    )
    code, out, _ = _run(capsys, "check", bad_module, "--select=HM-K8", "--format=json")
    document = json.loads(out)
    assert code == 0
    assert document["findings"] == []
    assert document["ignored"][0]["ignore_reason"] == "an audit table"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "no_such_module_here"], "cannot import module"),
        (["check", "examples.ecommerce.schema", "--select=HM-Z9"], "unknown code"),
        (["check", "examples.ecommerce.schema", "--heap=much"], "--heap must be a size"),
        (["check", "examples.ecommerce.schema", "--rows=order"], "TABLE=VALUE"),
    ],
)
def test_bad_input_exits_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = _run(capsys, *argv)
    assert code == 2
    assert message in err


def test_help_lists_the_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = capsys.readouterr().out
    assert "HM-K8, HM-K10, HM-K11, HM-F1, HM-F2, HM-F7, HM-F11, HM-S1, HM-S2, HM-S3" in out


def test_the_example_config_silences_with_a_reason(capsys: pytest.CaptureFixture[str]) -> None:
    config = Path(__file__).resolve().parents[2] / "examples" / "ecommerce" / "check.toml"
    argv = ["check", "examples.ecommerce.schema", f"--config={config}", "--format=json"]
    code, out, _ = _run(capsys, *argv)
    document = json.loads(out)
    assert code == 1
    assert [f["code"] for f in document["findings"]] == ["HM-S2", "HM-S3"]
    assert [(i["code"], i["subject"]) for i in document["ignored"]] == [("HM-S3", "table:customer")]
    assert _run(capsys, *argv, "--fail-on=error")[0] == 0


def test_max_regions_from_the_command_line_makes_s1_warn(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The epilog's --max-regions is an option: 2 TB needs more than 5 regions (S1).
    volume = ["check", "examples.ecommerce.schema", "--format=json", "--volume=order=2TB"]
    _, out, _ = _run(capsys, *volume, "--select=HM-S1")
    assert "HM-S1" not in {f["code"] for f in json.loads(out)["findings"]}
    code, out, _ = _run(capsys, *volume, "--select=HM-S1", "--max-regions=5")
    assert code == 1
    assert "HM-S1" in {f["code"] for f in json.loads(out)["findings"]}
    code, _, err = _run(capsys, *volume, "--max-regions=0")
    assert code == 2 and "--max-regions must be at least 1" in err


def test_every_option_of_every_command_has_help() -> None:
    import argparse

    from hmodel.cli import build_parser

    def parsers(parser: argparse.ArgumentParser, path: str) -> list[tuple[str, Any]]:
        found = [(path, parser)]
        for action in parser._actions:  # argparse keeps no public list of its actions
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    found += parsers(child, f"{path} {name}")
        return found

    missing = [
        f"{path} {'/'.join(action.option_strings)}"
        for path, parser in parsers(build_parser(), "hmodel")
        for action in parser._actions
        if action.option_strings and not action.help
    ]
    assert missing == []


def test_a_terminal_gets_colour_unless_no_color(
    bad_module: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hmodel.ops.report import use_colour

    class Terminal:
        def isatty(self) -> bool:
            return True

    assert use_colour(Terminal(), {}) and not use_colour(Terminal(), {"NO_COLOR": ""})
    assert not use_colour(object(), {}) and use_colour(object(), {"FORCE_COLOR": "1"})
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, out, _ = _run(capsys, "check", bad_module)
    assert "\033[1mHM-" in out and "\033[31merror\033[0m" in out
    monkeypatch.delenv("FORCE_COLOR")
    _, out, _ = _run(capsys, "check", bad_module)  # captured: not a terminal
    assert "\033[" not in out
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, out, _ = _run(capsys, "check", bad_module, "--format=json")
    assert "\033[" not in out
