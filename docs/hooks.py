"""MkDocs hook: links from the pages to the repository's source files point to the repository.

The pages link to source and test files outside ``docs/`` with relative paths
(``../hmodel/keys/derived.py``), which work on GitHub and in an editor but name nothing on
the built site. Before MkDocs renders a page, this hook rewrites each relative link whose
target is a file or directory of the repository outside ``docs/`` into a link to that path
in the repository (``repo_url`` + ``edit_uri``'s branch: ``.../blob/main/hmodel/keys/derived.py``),
keeping its ``#anchor``. Links between pages, links with a scheme and code (fenced blocks
and inline code spans) are left as they are. A relative link to a path that does not exist
is left too, so MkDocs' own link validation reports it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_INLINE_LINK = re.compile(r"(\]\(\s*<?)([^)\s>]+)(>?(?:\s+\"[^\"]*\")?\s*\))")
_REFERENCE = re.compile(r"^( {0,3}\[[^\]]+\]:\s*<?)(\S+?)(>?(?:\s+\"[^\"]*\")?\s*)$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def source_base(repo_url: str, edit_uri: str) -> str:
    """Return the URL prefix of the repository's files at the documented branch.

    ``edit_uri`` is the site's ``blob/<branch>/docs/``; the files of the whole repository are
    under ``blob/<branch>/``.
    """
    branch_path = PurePosixPath(edit_uri.strip("/")).parent  # blob/main
    return f"{repo_url.rstrip('/')}/{branch_path}/"


def rewrite_target(target: str, page_dir: Path, docs_dir: Path, root: Path, base: str) -> str:
    """Return ``target`` as a repository URL when it is a relative link out of ``docs_dir``.

    Args:
        target: The link's destination as written in the page.
        page_dir: The directory of the page's source file.
        docs_dir: The site's documentation directory.
        root: The repository's root directory.
        base: The URL prefix that `source_base` returns.

    Returns:
        The repository URL of the target (``tree/`` for a directory), or ``target``
        unchanged when it has a scheme, stays inside ``docs_dir``, leaves the repository or
        does not exist.
    """
    if not target or target.startswith(("#", "/")) or _SCHEME.match(target):
        return target
    path_part, hash_mark, anchor = target.partition("#")
    destination = (page_dir / unquote(path_part)).resolve()
    if (
        destination.is_relative_to(docs_dir.resolve())
        or not destination.is_relative_to(root.resolve())
        or not destination.exists()
    ):
        return target
    relative = destination.relative_to(root.resolve()).as_posix()
    url = base + relative
    if destination.is_dir():
        url = url.replace("/blob/", "/tree/", 1) + "/"
    return url + hash_mark + anchor


def rewrite_markdown(markdown: str, page_dir: Path, docs_dir: Path, root: Path, base: str) -> str:
    """Return ``markdown`` with its source-file links rewritten by `rewrite_target`."""

    def rewrite(match: re.Match[str]) -> str:
        target = rewrite_target(match.group(2), page_dir, docs_dir, root, base)
        return match.group(1) + target + match.group(3)

    def prose(line: str) -> str:
        parts = []
        last = 0
        for span in _CODE_SPAN.finditer(line):
            parts.append(_INLINE_LINK.sub(rewrite, line[last : span.start()]))
            parts.append(span.group(0))
            last = span.end()
        parts.append(_INLINE_LINK.sub(rewrite, line[last:]))
        return _REFERENCE.sub(rewrite, "".join(parts))

    return _prose_lines(markdown, prose)


def _prose_lines(markdown: str, change: Callable[[str], str]) -> str:
    """``markdown`` with ``change`` applied to each line outside fenced code blocks."""
    out: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        opening = _FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)[0] * len(opening.group(1))
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            out.append(change(line))
            continue
        out.append(line)
    return "\n".join(out)


#: A whole inline link, its text possibly holding code spans: ``[`Key`](../hmodel/x.py)``.
_WHOLE_LINK = re.compile(r"\[((?:`[^`]*`|[^\]`])*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def unlink_markdown(markdown: str, page_dir: Path, docs_dir: Path, root: Path) -> str:
    """Return ``markdown`` with its links to repository files made plain text.

    For a site without a repository to link to (no ``repo_url``): a link to a file of the
    repository outside ``docs_dir`` names nothing on the site, so it becomes its text,
    followed by the file's path as code when the text does not already say it: the link
    ``[`IdAllocator`](../hmodel/patterns/ids.py)`` reads
    `` `IdAllocator` (`hmodel/patterns/ids.py`)``.
    Links between pages, links with a scheme, links to missing paths and code are kept.
    """

    def unlink(match: re.Match[str], spans: list[tuple[int, int]]) -> str:
        if any(start < match.start() < end or start < match.end() < end for start, end in spans):
            return match.group(0)  # begins or ends inside a code span: not a link
        text, target = match.group(1), match.group(2)
        marker = "https://repository.invalid/"
        rewritten = rewrite_target(target, page_dir, docs_dir, root, marker)
        if not rewritten.startswith(marker):
            return match.group(0)
        path = rewritten[len(marker) :].split("#")[0].replace("tree/main/", "", 1)
        path = path.removeprefix("blob/main/").rstrip("/")
        plain = text.strip("`")
        return text if plain in (path, PurePosixPath(path).name) else f"{text} (`{path}`)"

    def prose(line: str) -> str:
        spans = [(m.start(), m.end()) for m in _CODE_SPAN.finditer(line)]
        return _WHOLE_LINK.sub(lambda m: unlink(m, spans), line)

    return _prose_lines(markdown, prose)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs event: rewrite the page's links to source files before it is rendered.

    With a ``repo_url`` they point to the files in the repository; without one (the
    project has no public home yet) they become plain text naming the file.
    """
    source = page.file.abs_src_path
    if source is None:
        return markdown
    docs_dir = Path(config.docs_dir)
    root = Path(config.config_file_path).parent
    if not config.repo_url:
        return unlink_markdown(markdown, Path(source).parent, docs_dir, root)
    base = source_base(config.repo_url, config.edit_uri or "blob/main/docs/")
    return rewrite_markdown(markdown, Path(source).parent, docs_dir, root, base)
