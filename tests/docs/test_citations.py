"""User-facing text cites pattern ids and public sources, never the project's design notes.

The pattern catalogue was distilled from design notes users do not have ("seed 001
§45.3", "seeds 000"). The package (docstrings, messages, finding texts), the docs, the
README and the examples cite pattern ids (K1.., F1.., R1.., I1.., S1..) and public sources,
the HBase reference guide's sections by title, instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: What the package, the docs, the README and the examples are made of.
SOURCES = sorted(
    [
        ROOT / "README.md",
        *(ROOT / "hmodel").rglob("*.py"),
        *(ROOT / "docs").rglob("*.md"),
        *(ROOT / "docs").rglob("*.py"),
        *(ROOT / "examples").rglob("*.py"),
        *(ROOT / "examples").rglob("*.toml"),
        *(ROOT / "bench").rglob("*.py"),
    ]
)

#: A citation of the design notes: a section sign, "seed 001", "seeds 000 and 004",
#: "seeds/000", "the seed's key", "the source documents".
CITATION = re.compile(
    r"§|\bseeds?\b[\s/]*0\d\d\b|\bthe seed'?s\b|\bsource documents?\b|\bseeds\s+and\b",
    re.IGNORECASE,
)


def citations(text: str) -> list[str]:
    """Return ``line: text`` for each line of ``text`` that cites the design notes."""
    return [
        f"{number}: {line.strip()}"
        for number, line in enumerate(text.splitlines(), start=1)
        if CITATION.search(line)
    ]


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_no_design_note_citations(path: Path) -> None:
    """No file of the package, docs or examples cites "seed NNN", "§" or "the seed's"."""
    assert citations(path.read_text(encoding="utf-8")) == []


def test_the_check_tells_citations_from_random_seeds() -> None:
    """Citations are caught; a random seed (``seed=3``, "seed 20261216") is not one."""
    text = (
        "as seed 001 §45.3 says\n"
        "seeds 000 and 004\n"
        "see seeds/000\n"
        "the seed's purchase key\n"
        "the source documents\n"
        "random.Random(seed)\n"
        "RandomFaultBackend(inner, seed=3)\n"
        "figures of one run, seed 20261216\n"
        "reproducibly from a seed\n"
    )
    assert [line.split(":")[0] for line in citations(text)] == ["1", "2", "3", "4", "5"]
