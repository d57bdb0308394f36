"""The documentation site builds strict, with no dead link, and its reference is complete.

The site is built once per session with ``mkdocs build --strict`` (as CI's ``.ci/run``
does) into a temporary directory; without MkDocs and its plugins (the ``docs`` extra) these
tests are skipped. Then:

- every relative link of every page (``href`` and ``src``) names a file of the site, and its
  ``#anchor`` an element of that page;
- every name of every public ``__all__`` has a reference entry: an element of an API
  reference page whose id is a dotted path to that very object;
- no raw Sphinx role (``:class:``, ``:meth:``...) reaches the HTML.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import re
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from urllib.parse import unquote, urlsplit

import pytest

import hmodel

ROOT = Path(__file__).resolve().parents[2]

#: Modules users import that no page or example imports: the test kit's pieces, and the
#: index modules (the pages import the index from ``hmodel.patterns``; code written before
#: it exported them imports the modules).
EXTRA_PUBLIC_MODULES = (
    "hmodel.patterns.index",
    "hmodel.patterns.index_job",
    "hmodel.patterns.index_repository",
    "hmodel.testing.kit",
    "hmodel.testing.plugin",
    "hmodel.testing.random_fault",
    "hmodel.testing.hbase_container",
)

_IMPORT = re.compile(
    r"^(?:\s*(?:>>>|\.\.\.))?\s*(?:from\s+(hmodel[\w.]*)\s+import|import\s+(hmodel[\w.]*))", re.M
)
_RAW_ROLE = re.compile(r":(?:py:)?(?:class|meth|func|attr|data|exc|mod|obj|const|ref):(?=[`~\w])")


def public_modules() -> list[str]:
    """Return the modules whose ``__all__`` is public API.

    Those are hmodel and each of its packages, every module the docs, the README or the
    examples import from, and the test kit's modules (``EXTRA_PUBLIC_MODULES``).
    """
    names = {"hmodel", *EXTRA_PUBLIC_MODULES}
    names.update(
        info.name for info in pkgutil.walk_packages(hmodel.__path__, "hmodel.") if info.ispkg
    )
    sources = [
        ROOT / "README.md",
        *(ROOT / "docs").rglob("*.md"),
        *(ROOT / "examples").rglob("*.py"),
    ]
    for source in sources:
        for match in _IMPORT.finditer(source.read_text(encoding="utf-8")):
            names.add(match.group(1) or match.group(2))
    return sorted(name for name in names if hasattr(importlib.import_module(name), "__all__"))


def public_names() -> list[tuple[str, str]]:
    """Return ``(module, name)`` for every name of every public ``__all__``."""
    return [
        (module, name)
        for module in public_modules()
        for name in importlib.import_module(module).__all__
    ]


class _Page(HTMLParser):
    """Collects the ids, link targets and text of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.targets: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for attribute, value in attrs:
            if value is None:
                continue
            if attribute in ("id", "name"):
                self.ids.add(value)
            elif (attribute == "href" and tag == "a") or (attribute == "src" and tag == "img"):
                self.targets.append(value)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(page: Path) -> _Page:
    parser = _Page()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the site strict into a temporary directory and return it."""
    for plugin in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(plugin.split(".")[0]) is None:
            pytest.skip(f"{plugin} is not installed (pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    problems = [line for line in result.stderr.splitlines() if not line.startswith("INFO")]
    assert result.returncode == 0, "mkdocs build --strict failed:\n" + "\n".join(problems)
    return out


def _pages(site: Path) -> Iterator[Path]:
    yield from sorted(site.rglob("*.html"))


def dead_links(site: Path) -> list[str]:
    """Describe each relative link of the built site whose file or anchor is missing."""
    parsed = {page: _parse(page) for page in _pages(site)}
    problems: list[str] = []
    for page, content in parsed.items():
        for target in content.targets:
            parts = urlsplit(target)
            if parts.scheme or parts.netloc or target.startswith(("mailto:", "javascript:")):
                continue
            if not parts.path:
                destination = page
            elif parts.path.startswith("/"):  # the 404 page links from the site's root
                destination = (site / unquote(parts.path).lstrip("/")).resolve()
            else:
                destination = (page.parent / unquote(parts.path)).resolve()
            if destination.is_dir():
                destination = destination / "index.html"
            where = f"{page.relative_to(site)}: {target}"
            if not destination.is_relative_to(site.resolve()) or not destination.exists():
                problems.append(f"{where}: no such file")
            elif parts.fragment and destination.suffix == ".html":
                ids = parsed[destination].ids if destination in parsed else _parse(destination).ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{where}: no such anchor")
    return problems


def test_the_site_builds_strict_with_no_dead_link(site: Path) -> None:
    """Every relative link on every page resolves to a file and anchor of the site."""
    assert dead_links(site) == []


def test_source_links_name_the_file_without_linking_nowhere(site: Path) -> None:
    """The pattern catalogue's links to source files become the files' paths as text.

    The site names no repository (the project has no public home yet): no link goes to
    a placeholder, none to a source file the site does not serve.
    """
    page = _parse(site / "patterns" / "index.html")
    assert "hmodel/keys/derived.py" in "".join(page.text)
    assert not [t for t in page.targets if "../hmodel/" in t or "../tests/" in t]
    assert not [t for t in page.targets if "blob/main" in t or "hmodel/hmodel" in t]


def _resolve(path: str) -> tuple[bool, object]:
    """Return ``(True, object)`` for an importable dotted path, ``(False, None)`` otherwise."""
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for attribute in parts[split:]:
                target = getattr(target, attribute)
        except AttributeError:
            return False, None
        return True, target
    return False, None


def documented(site: Path) -> dict[str, object]:
    """Return the objects the API reference documents, by the id of their entry."""
    found: dict[str, object] = {}
    for page in sorted((site / "reference").rglob("*.html")):
        for anchor in _parse(page).ids:
            if anchor.startswith("hmodel"):
                ok, target = _resolve(anchor)
                if ok:
                    found[anchor] = target
    return found


def missing_entries(entries: dict[str, object], names: list[tuple[str, str]]) -> list[str]:
    """Return ``module.name`` for each public name no entry documents.

    A name is documented by an entry of the same name whose path leads to the same object:
    ``hmodel.Index`` by the entry ``hmodel.patterns.index.Index``, say.
    """
    by_name: dict[str, list[object]] = {}
    for path, target in entries.items():
        by_name.setdefault(path.rsplit(".", 1)[-1], []).append(target)
    missing = []
    for module, name in names:
        target = getattr(importlib.import_module(module), name)
        if not any(candidate is target for candidate in by_name.get(name, [])):
            missing.append(f"{module}.{name}")
    return missing


def test_every_public_name_has_a_reference_entry(site: Path) -> None:
    """Each name of each public ``__all__`` has an entry in the API reference."""
    assert missing_entries(documented(site), public_names()) == []


def test_no_raw_role_reaches_the_html(site: Path) -> None:
    """Docstrings' cross-references render as links, not as ``:class:`...``` text."""
    found = []
    for page in _pages(site):
        text = "".join(_parse(page).text)
        found.extend(f"{page.relative_to(site)}: {m.group(0)}" for m in _RAW_ROLE.finditer(text))
    assert found == []


# --- the checks themselves --------------------------------------------------------------------


def test_public_modules_include_packages_imports_of_the_docs_and_the_kit() -> None:
    """The flagship modules are public: the index, its jobs, the fake servers, migrations."""
    modules = public_modules()
    for name in (
        "hmodel",
        "hmodel.patterns",
        "hmodel.patterns.index",
        "hmodel.patterns.index_job",
        "hmodel.backend.thrift2",
        "hmodel.testing.fake",
        "hmodel.testing.fault",
        "hmodel.ops.migrate",
    ):
        assert name in modules


def test_a_name_documented_under_another_path_counts_and_a_namesake_does_not() -> None:
    """An entry counts for a name when it documents the same object under the same name."""
    from hmodel.keys import Key

    entries: dict[str, object] = {"hmodel.keys.composite.Key": Key, "hmodel.other.Str": object()}
    names = [("hmodel", "Key"), ("hmodel.keys", "Str")]
    assert missing_entries(entries, names) == ["hmodel.keys.Str"]


def test_dead_links_are_found(tmp_path: Path) -> None:
    """A link to a missing file or anchor of the built site is reported; others are not."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text('<h1 id="top">A</h1>', encoding="utf-8")
    (tmp_path / "index.html").write_text(
        '<a href="a/#top">ok</a><a href="a/">ok</a><a href="https://example.com/x">web</a>'
        '<a href="a/#nowhere">bad anchor</a><a href="../hmodel/x.py">gone</a>',
        encoding="utf-8",
    )
    assert dead_links(tmp_path) == [
        "index.html: a/#nowhere: no such anchor",
        "index.html: ../hmodel/x.py: no such file",
    ]


def _hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_hook_rewrites_source_links_outside_code_only() -> None:
    """Links to repository files leave the site; page links, URLs and code stay as written."""
    hooks = _hooks()
    base = hooks.source_base("https://github.com/o/r", "blob/main/docs/")
    assert base == "https://github.com/o/r/blob/main/"
    text = (
        "[a](../hmodel/keys/derived.py#L3) [b](keys.md) [c](https://x.org/y) "
        "`[d](../hmodel/keys/derived.py)` [e](../hmodel/keys/) [f](../nowhere.py)\n"
        "```\n[g](../hmodel/keys/derived.py)\n```\n"
        "[h]: ../README.md\n"
    )
    out = hooks.rewrite_markdown(text, ROOT / "docs", ROOT / "docs", ROOT, base)
    assert out == (
        f"[a]({base}hmodel/keys/derived.py#L3) [b](keys.md) [c](https://x.org/y) "
        "`[d](../hmodel/keys/derived.py)` "
        "[e](https://github.com/o/r/tree/main/hmodel/keys/) [f](../nowhere.py)\n"
        "```\n[g](../hmodel/keys/derived.py)\n```\n"
        f"[h]: {base}README.md\n"
    )


def test_without_a_repository_source_links_become_text_naming_the_file() -> None:
    """No placeholder URL: a link to a repository file is its text and the file's path."""
    hooks = _hooks()
    text = (
        "[`IdAllocator`](../hmodel/patterns/ids.py) [b](keys.md) [c](https://x.org/y) "
        "`[d](../hmodel/keys/derived.py)` [e](../hmodel/keys/) [f](../nowhere.py) "
        "[`examples/ecommerce/fulfilment.py`](../examples/ecommerce/fulfilment.py#L3)\n"
        "```\n[g](../hmodel/keys/derived.py)\n```\n"
    )
    assert hooks.unlink_markdown(text, ROOT / "docs", ROOT / "docs", ROOT) == (
        "`IdAllocator` (`hmodel/patterns/ids.py`) [b](keys.md) [c](https://x.org/y) "
        "`[d](../hmodel/keys/derived.py)` e (`hmodel/keys`) [f](../nowhere.py) "
        "`examples/ecommerce/fulfilment.py`\n"
        "```\n[g](../hmodel/keys/derived.py)\n```\n"
    )


def test_the_site_names_no_placeholder_repository() -> None:
    config = (ROOT / "mkdocs.yml").read_text()
    assert "\nrepo_url:" not in config and "hmodel/hmodel" not in config


def _extensions() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "griffe_hmodel", ROOT / "docs" / "griffe_hmodel.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_comment_blocks_above_an_assignment_are_its_docstring() -> None:
    """``#:`` lines right above an assignment, at its indentation, are its docstring."""
    pytest.importorskip("griffe", reason="the docs extra is not installed")
    comment_docstring = _extensions().comment_docstring
    lines = ["# plain", "#: First line,", "#: second.", "A = 1", "", "B = 2", "    #: in", "C = 3"]
    assert comment_docstring(lines, 4) == ("First line,\nsecond.", 2)
    assert comment_docstring(lines, 6) is None
    assert comment_docstring(lines, 8) is None


def test_roles_resolve_in_the_docstrings_scope() -> None:
    """Roles become optional cross-references to the object Python's scoping finds."""
    griffe = pytest.importorskip("griffe", reason="the docs extra is not installed")
    extensions = _extensions()
    loaded = griffe.load(
        "hmodel",
        search_paths=[str(ROOT)],
        extensions=griffe.load_extensions(extensions.CommentDocstrings(), extensions.SphinxRoles()),
    )
    scan = loaded["repository.repository.Repository.scan"].docstring.value
    assert '<autoref identifier="hmodel.repository.repository.Repository.plan" optional>' in scan
    assert (
        '<autoref identifier="hmodel.errors.DecodeError" optional><code>DecodeError</code>' in scan
    )
    assert ":meth:" not in scan
    forever = loaded["schema.family.FOREVER"].docstring.value
    assert "never expires" in forever
