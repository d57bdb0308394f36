"""``hmodel check`` for CI, as ruff does it: selections, file:line, and the CI formats."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

import pytest

from hmodel.cli import main
from hmodel.errors import CheckConfigError
from hmodel.ops.command import resolve_codes
from tests.ops.conftest import BAD_SCHEMA

# BAD_SCHEMA declares MIN_VERSIONS without a TTL on purpose; checks without HM-F7 let
# that declaration warning through, as they should.
pytestmark = pytest.mark.filterwarnings("ignore::hmodel.schema.SchemaWarning")


@pytest.fixture
def bad_module(
    user_module: Callable[[str], str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> str:
    monkeypatch.chdir(tmp_path)  # the module's file is under the working directory
    return user_module(BAD_SCHEMA)


def _line_of(text: str) -> int:
    return BAD_SCHEMA.splitlines().index(text) + 1


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_select_takes_comma_lists_repeats_and_prefixes() -> None:
    assert resolve_codes(["HM-K8,HM-F2"], None) == ["HM-K8", "HM-F2"]
    assert resolve_codes(["HM-K8", "hm-f2"], None) == ["HM-K8", "HM-F2"]
    assert resolve_codes(["HM-S"], None) == ["HM-S1", "HM-S2", "HM-S3"]
    assert resolve_codes(None, ["HM-K,HM-F", "HM-S2"]) == ["HM-S1", "HM-S3"]
    keys_and_sizing = ["HM-K8", "HM-K10", "HM-K11", "HM-S1", "HM-S2", "HM-S3"]
    assert resolve_codes(["ALL"], ["HM-F"]) == keys_and_sizing
    with pytest.raises(CheckConfigError, match="unknown code 'HM-K1'"):
        resolve_codes(["HM-K1"], None)  # not a prefix of K10/K11: codes are whole
    with pytest.raises(CheckConfigError, match="unknown code 'HM-Z9'"):
        resolve_codes(None, ["HM-Z9"])


def test_select_and_ignore_on_the_command_line(
    capsys: pytest.CaptureFixture[str], bad_module: str
) -> None:
    _, out, _ = _run(capsys, "check", bad_module, "--select=HM-K8,HM-F7", "--output-format=json")
    assert {f["code"] for f in json.loads(out)["findings"]} == {"HM-K8", "HM-F7"}
    _, out, _ = _run(
        capsys, "check", bad_module, "--ignore=HM-K", "--ignore", "HM-F2", "--format=json"
    )
    codes = {f["code"] for f in json.loads(out)["findings"]}
    assert codes and not any(c.startswith("HM-K") for c in codes) and "HM-F2" not in codes
    code, out, err = _run(capsys, "check", bad_module, "--ignore=HM-K1")
    assert (code, out) == (2, "")
    assert "unknown code 'HM-K1'" in err


def test_check_prints_the_finding_not_also_the_import_warning(
    capsys: pytest.CaptureFixture[str], bad_module: str
) -> None:
    with pytest.warns() as record:  # nothing reaches the warnings machinery
        code, out, err = _run(capsys, "check", bad_module, "--select=HM-K8,HM-F7")

        warnings.warn("sentinel", UserWarning, stacklevel=1)
    assert [str(w.message) for w in record] == ["sentinel"]
    assert code == 1
    assert "HM-K8 error model:Event" in out
    assert "HM-F7 warning table:events: family 'x' has MIN_VERSIONS" in out
    assert err == ""


def test_text_lines_start_with_file_and_line(
    capsys: pytest.CaptureFixture[str], bad_module: str
) -> None:
    _, out, _ = _run(capsys, "check", bad_module, "--select=HM-K8,HM-F7")
    event = _line_of('@model(EVENTS, key=Key(Timestamp("at"), Str("host")))')
    events = _line_of('EVENTS = Table("events", [Family("data"), Family("x", min_versions=1, '
                      'versions=50)])')  # fmt: skip
    assert f"{bad_module}.py:{event}: HM-K8 error model:Event: " in out
    assert f"{bad_module}.py:{events}: HM-F7 warning table:events: " in out


def test_json_findings_carry_filename_and_line(
    capsys: pytest.CaptureFixture[str], bad_module: str, tmp_path: Path
) -> None:
    _, out, _ = _run(capsys, "check", bad_module, "--select=HM-K8", "--output-format=json")
    (finding,) = json.loads(out)["findings"]
    assert Path(finding["filename"]) == (tmp_path / f"{bad_module}.py").resolve()
    assert finding["line"] == _line_of('@model(EVENTS, key=Key(Timestamp("at"), Str("host")))')


def test_github_format_annotates_the_declaration(
    capsys: pytest.CaptureFixture[str], bad_module: str
) -> None:
    code, out, _ = _run(
        capsys, "check", bad_module, "--select=HM-K8,HM-F1", "--output-format=github"
    )
    lines = out.splitlines()
    line = _line_of('@model(EVENTS, key=Key(Timestamp("at"), Str("host")))')
    assert code == 1
    assert (
        f"::error title=hmodel (HM-K8),file={bad_module}.py,line={line}::"
        f"{bad_module}.py:{line}: HM-K8 model:Event: the key leads with 'at'"
    ) in "\n".join(lines)
    assert any(x.startswith("::warning title=hmodel (HM-F1),file=") for x in lines)
    assert all(x.startswith("::") for x in lines)


def test_github_format_escapes_percent_and_newlines() -> None:
    from hmodel.ops.report import _escape_data, _escape_property

    assert _escape_data("100%\nnext") == "100%25%0Anext"
    assert _escape_property("a:b,c") == "a%3Ab%2Cc"


def test_sarif_format_is_a_sarif_2_1_0_log(
    capsys: pytest.CaptureFixture[str], bad_module: str
) -> None:
    _, out, _ = _run(capsys, "check", bad_module, "--select=HM-K8", "--output-format=sarif")
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules][:3] == ["HM-K8", "HM-K10", "HM-K11"]
    assert all(r["helpUri"].startswith("https://hbase.apache.org/book.html#") for r in rules)
    (result,) = run["results"]
    assert (result["ruleId"], result["level"]) == ("HM-K8", "error")
    assert rules[result["ruleIndex"]]["id"] == "HM-K8"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": f"{bad_module}.py", "uriBaseId": "%SRCROOT%"}
    line = _line_of('@model(EVENTS, key=Key(Timestamp("at"), Str("host")))')
    assert location["region"] == {"startLine": line}


def test_junit_format_has_a_failing_case_per_finding(
    capsys: pytest.CaptureFixture[str], bad_module: str
) -> None:
    _, out, _ = _run(capsys, "check", bad_module, "--select=HM-K8,HM-F7", "--output-format=junit")
    root = ElementTree.fromstring(out.split("\n", 1)[1])
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", "3", "3")
    (suite,) = root
    assert suite.get("name") == f"{bad_module}.py"
    names = sorted(case.get("name") or "" for case in suite)
    assert names == ["hmodel.HM-F7", "hmodel.HM-F7", "hmodel.HM-K8"]  # F7: two findings
    assert all(case.find("failure") is not None for case in suite)


def test_junit_of_a_clean_check_is_one_passing_case(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "check", "examples.ecommerce.schema", "--output-format=junit")
    root = ElementTree.fromstring(out.split("\n", 1)[1])
    assert code == 0
    assert (root.get("tests"), root.get("failures")) == ("1", "0")
