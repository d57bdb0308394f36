"""The API reference lists what a reader needs first, and leaves no export out."""

from __future__ import annotations

import re
from pathlib import Path

import hmodel.repository

ROOT = Path(__file__).resolve().parents[2]


def test_the_repository_reference_opens_with_the_repository_and_lists_every_export() -> None:
    page = (ROOT / "docs" / "reference" / "repository.md").read_text()
    members = re.findall(r"^ {8}- (\w+)$", page, flags=re.MULTILINE)
    assert members[:2] == ["Repository", "Store"]
    assert sorted(members) == sorted(hmodel.repository.__all__)


def test_the_docs_extra_has_the_signature_formatter_mkdocstrings_asks_for() -> None:
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    docs = project["optional-dependencies"]["docs"]
    assert any(requirement.startswith(("black", "ruff")) for requirement in docs)
    assert "separate_signature: true" in (ROOT / "mkdocs.yml").read_text()
