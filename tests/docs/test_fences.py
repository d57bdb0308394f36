"""Every ``>>>`` example of the docs sits in a code fence, so the site renders it as code.

pytest runs the examples as doctests wherever they are (``--doctest-glob='*.md'``), but a
``>>>`` line outside a fence is Markdown prose: a nested block quote with no line breaks.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.test_links import DOCS, ROOT, prose_lines

PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]

_PROMPT = re.compile(r"^\s*>>>(\s|$)")


def unfenced_examples(text: str) -> list[int]:
    """Return the line numbers of the ``>>>`` lines outside fenced code blocks."""
    return [number for number, line in prose_lines(text) if _PROMPT.match(line)]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_example_is_fenced(page: Path) -> None:
    """No page of the docs has a ``>>>`` line in its prose."""
    assert unfenced_examples(page.read_text(encoding="utf-8")) == []


def test_the_check_finds_prompts_outside_fences_only() -> None:
    """A prompt in prose is reported; one in a fence, or a ``>>>`` inside a line, is not."""
    text = "Prose\n>>> 1 + 1\n2\n\n```python\n>>> 2 + 2\n4\n\n```\nsee `>>> x` here\n  >>>\n"
    assert unfenced_examples(text) == [2, 11]
