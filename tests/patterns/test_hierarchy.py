"""R10: the cookbook's directory tree (mkdir, subtree, recursive delete, move) on every backend."""

from __future__ import annotations

import doctest
from pathlib import Path
from typing import Any

import pytest

from hmodel.backend.base import Backend
from hmodel.testing.fault import FaultyBackend

COOKBOOK = Path(__file__).resolve().parents[2] / "docs" / "cookbook.md"


class ProcessDied(BaseException):
    """Stands for the process dying: nothing after it runs."""


def run_cookbook(backend: Backend) -> dict[str, Any]:
    """Run the page's R10 examples against ``backend``; return their namespace."""
    text = COOKBOOK.read_text()
    globs: dict[str, Any] = {"backend": backend}
    exec(
        "from datetime import datetime, timedelta, timezone\n"
        "from hmodel import Family, Key, Repository, Str, Table, field, model\n",
        globs,
    )
    section = text[text.index("## R10") :]
    test = doctest.DocTestParser().get_doctest(section, globs, "cookbook R10", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, clear_globs=False)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 20
    assert result.failed == 0
    return test.globs  # a copy of globs, with what the examples defined


def test_the_cookbook_directory_tree_runs_on_every_backend(backend: Backend) -> None:
    # The page's own examples, against the fixture's backend instead of a MemoryBackend.
    run_cookbook(backend)


def build(ns: dict[str, Any]) -> None:
    for path in ["/t", "/t/a", "/t/a/b", "/t/c"]:
        ns["mkdir"](path, "ann")
    ns["write"]("/t/a/f1", b"1")
    ns["write"]("/t/a/b/f2", b"2")


def file_count(ns: dict[str, Any]) -> int:
    return len(list(ns["blobs"].scan()))


@pytest.mark.parametrize("fail_after", [False, True], ids=["before", "after"])
@pytest.mark.parametrize("nth", [1, 2, 3])
def test_a_recursive_delete_interrupted_anywhere_finishes_when_run_again(
    backend: Backend, nth: int, fail_after: bool
) -> None:
    faulty = FaultyBackend(backend)
    ns = run_cookbook(faulty)
    files_before = file_count(ns)
    build(ns)
    faulty.on("mutate", nth=nth, fail=ProcessDied(), fail_after=fail_after)
    with pytest.raises(ProcessDied):
        ns["remove_tree"]("/t/a")
    unlinked = nth > 1 or fail_after  # the first write unlinks: no listing reaches it
    assert ("a" in ns["listing"]("/t")[0]) is not unlinked
    ns["remove_tree"]("/t/a")
    assert ns["listing"]("/t") == (["c"], [])
    assert [d.path for d in ns["subtree"]("/t")] == ["/t", "/t/c"]
    assert file_count(ns) == files_before


@pytest.mark.parametrize("fail_after", [False, True], ids=["before", "after"])
@pytest.mark.parametrize("nth", [1, 2, 3, 4])
def test_a_move_interrupted_anywhere_finishes_when_run_again(
    backend: Backend, nth: int, fail_after: bool
) -> None:
    faulty = FaultyBackend(backend)
    ns = run_cookbook(faulty)
    build(ns)
    faulty.on("mutate", nth=nth, fail=ProcessDied(), fail_after=fail_after)
    with pytest.raises(ProcessDied):
        ns["move"]("/t/a", "/t/c/moved")
    # Meanwhile the tree is reachable at one place at least, never lost.
    reachable = {"a"} & set(ns["listing"]("/t")[0]) or {"moved"} & set(ns["listing"]("/t/c")[0])
    assert reachable
    ns["move"]("/t/a", "/t/c/moved")
    assert ns["listing"]("/t") == (["c"], [])
    assert ns["listing"]("/t/c/moved") == (["b"], ["f1"])
    assert [d.path for d in ns["subtree"]("/t")] == ["/t", "/t/c", "/t/c/moved", "/t/c/moved/b"]
    moved = ns["dirs"].get(path="/t/c/moved/b", required=True)
    assert ns["blobs"].get(file_id=moved.files["f2"], required=True).content == b"2"
