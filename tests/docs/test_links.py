"""The docs hold together: relative links resolve, and docs/patterns.md maps every pattern id."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]

#: The ids of the pattern catalogue (PATTERNS.md, kept with the project's design notes
#: outside the package): rowkeys, families and columns, records, access paths, sizing.
CATALOGUE = frozenset(
    [f"K{n}" for n in range(1, 12)]
    + [f"F{n}" for n in range(1, 12)]
    + [f"R{n}" for n in range(1, 12)]
    + [f"I{n}" for n in range(1, 6)]
    + [f"S{n}" for n in range(1, 4)]
)

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_INLINE_LINK = re.compile(
    r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]"  # the text, one level of nested brackets allowed
    r"\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)"  # (target "optional title")
)
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_PATTERN_ID = re.compile(r"\b([KFRIS])(\d{1,2})\b")
_TABLE_ID = re.compile(r"^\|\s*([KFRIS]\d{1,2})\s*\|", re.MULTILINE)


def prose_lines(text: str) -> list[tuple[int, str]]:
    """Return ``(line number, line)`` for the lines outside fenced code blocks."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)[0] * len(match.group(1))
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """Return the anchor GitHub gives a heading's text (before de-duplication).

    Inline code keeps its text, a link keeps its label; then the text is lower-cased,
    everything but letters, digits, ``_``, ``-`` and spaces is dropped, and each space
    becomes ``-``.
    """
    text = _INLINE_LINK.sub(lambda m: m.group(0)[1 : m.group(0).index("](")], heading)
    text = text.replace("`", "").lower()
    text = "".join(c for c in text if c.isalnum() or c in "_- ")
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Return every anchor a Markdown page defines: heading slugs (``-1``, ``-2``... for
    repeats, as GitHub numbers them) and explicit ``<a id=...>`` / ``<a name=...>``."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in prose_lines(page.read_text(encoding="utf-8")):
        found.update(_HTML_ANCHOR.findall(line))
        match = _HEADING.match(line)
        if match:
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[tuple[int, str]]:
    """Return ``(line number, target)`` of the inline and reference links of a page's
    prose: fenced code blocks and inline code spans are not Markdown links."""
    found: list[tuple[int, str]] = []
    for number, line in prose_lines(page.read_text(encoding="utf-8")):
        text = _CODE_SPAN.sub("", line)
        found.extend((number, target) for target in _INLINE_LINK.findall(text))
        reference = _REFERENCE.match(text)
        if reference:
            found.append((number, reference.group(1)))
    return found


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """Describe each relative link of ``page`` whose file, or heading anchor, is missing.

    Links with a scheme (``https:``, ``mailto:``) are not checked. A path must exist
    inside ``root`` (a file or a directory); an anchor into a Markdown page must be one of
    its :func:`anchors`.
    """
    problems: list[str] = []
    for number, target in links(page):
        if not target or _SCHEME.match(target) or target.startswith("//"):
            continue
        path_part, _, anchor = target.partition("#")
        where = f"{page.relative_to(root)}:{number}: {target}"
        destination = (page.parent / unquote(path_part)).resolve() if path_part else page
        if not destination.is_relative_to(root.resolve()):
            problems.append(f"{where} leaves the repository")
        elif not destination.exists():
            problems.append(f"{where} does not exist")
        elif anchor and destination.suffix == ".md" and unquote(anchor) not in anchors(destination):
            problems.append(f"{where} names no heading of {destination.name}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    """Each relative link in README.md and docs/*.md names an existing file and heading."""
    problems = broken_links(page)
    assert not problems, "\n".join(problems)


def test_patterns_page_has_one_row_per_catalogue_id() -> None:
    """docs/patterns.md has a table row for every pattern id, and for no unknown id."""
    rows = _TABLE_ID.findall((DOCS / "patterns.md").read_text(encoding="utf-8"))
    assert sorted(CATALOGUE - set(rows)) == [], "ids without a row"
    assert sorted(set(rows) - CATALOGUE) == [], "rows for ids the catalogue does not have"
    assert len(rows) == len(CATALOGUE), "an id has more than one row"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_pattern_ids_cited_in_the_docs_exist(page: Path) -> None:
    """Every K/F/R/I/S id a page cites is in the catalogue (no K12, no typo'd F0)."""
    cited = {"".join(m) for m in _PATTERN_ID.findall(page.read_text(encoding="utf-8"))}
    assert sorted(cited - CATALOGUE) == []


def test_every_docs_page_is_listed_in_the_index() -> None:
    """docs/index.md links to every other page of docs/."""
    listed = {target.partition("#")[0] for _, target in links(DOCS / "index.md")}
    pages = {p.name for p in DOCS.glob("*.md")} - {"index.md"}
    assert sorted(pages - listed) == []


# --- the checker itself ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Split points (K11)", "split-points-k11"),
        ("A hashed user key: `md5(user)[:4] + user` (K4)", "a-hashed-user-key-md5user4--user-k4"),
        (
            "The purchase key: `[user][Long.MAX_VALUE - ts][product]` (K6)",
            "the-purchase-key-userlongmax_value---tsproduct-k6",
        ),
        ("Uniform bytes and HBase's split algorithms", "uniform-bytes-and-hbases-split-algorithms"),
        ("See [keys](keys.md) first", "see-keys-first"),
    ],
)
def test_headings_get_githubs_anchors(heading: str, anchor: str) -> None:
    """Slugs follow GitHub: lower case, punctuation dropped, spaces to hyphens."""
    assert slug(heading) == anchor


def test_the_checker_reports_missing_files_and_anchors_and_ignores_code(tmp_path: Path) -> None:
    """Missing files, missing anchors and escapes from the root are reported; code is not."""
    (tmp_path / "other.md").write_text("# Title\n\n## Part\n\n## Part\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#part-1) [ok](#here) [web](https://example.com/x.md)\n"
        "# Here\n"
        "[gone](missing.md) [bad anchor](other.md#nowhere) [out](../outside.md)\n"
        "`[not a link](missing.md)`\n"
        "```\n[not a link](missing.md)\n```\n"
        "[ref]: other.md#title\n",
        encoding="utf-8",
    )
    assert broken_links(page, tmp_path) == [
        "page.md:3: missing.md does not exist",
        "page.md:3: other.md#nowhere names no heading of other.md",
        "page.md:3: ../outside.md leaves the repository",
    ]
