"""The README's code stays true: its example runs, and it opens with the two commands CI runs."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README.read_text(), flags=re.M | re.S)


def test_the_taste_example_runs_and_reads_back_what_it_saved() -> None:
    (taste,) = _blocks("python")
    namespace: dict[str, object] = {}
    exec(compile(taste, "README.md", "exec"), namespace)  # our own README
    repo = namespace["repo"]
    user = repo.get(user_id="u1")  # type: ignore[attr-defined]
    assert (user.nickname, user.fans) == ("bob", {"u2": "follow"})


def test_the_readme_opens_with_the_main_job_and_the_test_command() -> None:
    main_job, tests = (block.strip() for block in _blocks("bash")[:2])
    assert main_job.endswith("python -m examples.ecommerce")
    assert tests.endswith("python -m pytest -q")
