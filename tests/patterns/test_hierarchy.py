"""R10: the cookbook's directory tree (mkdir, subtree, recursive delete, move) on every backend."""

from __future__ import annotations

import doctest
from pathlib import Path

from hmodel.backend.base import Backend

COOKBOOK = Path(__file__).resolve().parents[2] / "docs" / "cookbook.md"


def r10_section() -> str:
    text = COOKBOOK.read_text()
    return text[text.index("## R10") :]


def test_the_cookbook_directory_tree_runs_on_every_backend(backend: Backend) -> None:
    # The page's own examples, run against the fixture's backend instead of its
    # MemoryBackend: the same code works over Thrift.
    globs: dict[str, object] = {"backend": backend}
    exec(
        "from datetime import datetime, timedelta, timezone\n"
        "from hmodel import Family, Key, Repository, Str, Table, field, model\n",
        globs,
    )
    test = doctest.DocTestParser().get_doctest(r10_section(), globs, "cookbook R10", None, 0)
    assert test.examples
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 20
    assert result.failed == 0
