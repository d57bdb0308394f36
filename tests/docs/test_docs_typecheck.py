"""The docs' examples type-check under ``mypy --strict`` with the hmodel plugin.

Each page's ``>>>`` examples are extracted, in order, into one module, and the modules are
checked together in one mypy run (a few seconds). Every page must be clean: examples are
written as a typed user writes them (``get(..., required=True)`` where the row must exist,
annotated functions, distinct names for distinct models), and the examples that show a
run-time check of a value mypy already refuses say so with ``# type: ignore[code]``.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

mypy_api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).parents[2]
DOCS = ROOT / "docs"
PLUGIN = ROOT / "hmodel" / "mypy_plugin.py"
PAGES = sorted(p for p in DOCS.glob("*.md") if doctest.DocTestParser().get_examples(p.read_text()))


def module_name(page: Path) -> str:
    return "page_" + page.stem.replace("-", "_")


@pytest.fixture(scope="module")
def errors_by_page(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Run mypy once over every page's examples; its error lines, by page stem."""
    work = tmp_path_factory.mktemp("docs_typecheck")
    sources = []
    for page in PAGES:
        examples = doctest.DocTestParser().get_examples(page.read_text())
        source = work / f"{module_name(page)}.py"
        source.write_text("".join(example.source for example in examples))
        sources.append(str(source))
    config = work / "mypy.ini"
    # happybase ships no type information: a typed project using it says so, as ours does.
    config.write_text(
        f"[mypy]\nplugins = {PLUGIN}\nmypy_path = {ROOT}\n\n"
        "[mypy-happybase.*]\nignore_missing_imports = True\n"
    )
    stdout, stderr, status = mypy_api.run(
        [
            "--strict",
            f"--config-file={config}",
            f"--cache-dir={work / 'cache'}",
            "--python-version=3.10",
            "--no-pretty",
            *sources,
        ]
    )
    assert status in (0, 1), stdout + stderr  # 2: mypy itself failed (config, plugin)
    errors: dict[str, list[str]] = {page.stem: [] for page in PAGES}
    by_module = {module_name(page): page.stem for page in PAGES}
    for line in (stdout + stderr).splitlines():
        match = re.match(r"^(?:.*/)?(page_\w+)\.py:\d+: error:", line)
        if match:
            errors[by_module[match.group(1)]].append(line)
    return errors


@pytest.mark.parametrize("page", [p.stem for p in PAGES])
def test_the_pages_examples_pass_mypy_strict(
    page: str, errors_by_page: dict[str, list[str]]
) -> None:
    assert errors_by_page[page] == []


def test_where_comparisons_in_the_docs_type_check(errors_by_page: dict[str, list[str]]) -> None:
    """No page's ``where("f") > value`` is an unsupported operand (issue 18)."""
    operators = [e for lines in errors_by_page.values() for e in lines if "[operator]" in e]
    assert not [e for e in operators if '"where"' in e]
