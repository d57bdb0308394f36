"""Repository calls type-check for users under ``mypy --strict`` (I4 conditions, K1 keys)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

mypy_api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).parents[2]
USAGE = Path(__file__).with_name("typecheck_usage.py")
PLUGIN = ROOT / "hmodel" / "mypy_plugin.py"


def mypy(source: Path, tmp_path: Path, *, plugin: bool = True) -> tuple[str, int]:
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n" + (f"plugins = {PLUGIN}\n" if plugin else ""))
    stdout, stderr, status = mypy_api.run(
        [
            "--strict",
            f"--config-file={config}",
            f"--cache-dir={tmp_path / 'cache'}",
            "--python-version=3.10",
            "--hide-error-context",
            "--no-pretty",
            str(source),
        ]
    )
    return stdout + stderr, status


def reported(output: str) -> set[tuple[int, str]]:
    """The (line, error code) pairs mypy reported."""
    found = re.findall(r"^[^:\n]+:(\d+): error: .*\[([a-z-]+)\]$", output, flags=re.MULTILINE)
    return {(int(line), code) for line, code in found}


def expected(source: Path) -> set[tuple[int, str]]:
    """The (line, error code) pairs the ``# E: code`` comments of ``source`` expect."""
    pairs = set()
    for number, line in enumerate(source.read_text().splitlines(), start=1):
        marker = re.search(r"# E: ([a-z-]+)$", line)
        if marker:
            pairs.add((number, marker.group(1)))
    return pairs


def test_where_comparisons_get_required_and_key_arguments_type_check_as_documented(
    tmp_path: Path,
) -> None:
    output, _ = mypy(USAGE, tmp_path)

    assert reported(output) == expected(USAGE), output


def test_without_the_plugin_key_arguments_are_unchecked_but_the_rest_holds(
    tmp_path: Path,
) -> None:
    output, _ = mypy(USAGE, tmp_path, plugin=False)

    assert reported(output) == set(), output
