"""Griffe extensions for hmodel's API reference: ``#:`` comments and Sphinx roles.

``CommentDocstrings``: ``#:`` comments above an attribute are its docstring.

hmodel documents module constants, type aliases and class attributes the way Sphinx's
autodoc reads them, with ``#:`` comment lines right above the assignment::

    #: HBase's TTL meaning "never expires" (``Integer.MAX_VALUE`` seconds).
    FOREVER = 2_147_483_647

Griffe only reads a string literal *below* an assignment, so without this extension such
an attribute has no docstring and mkdocstrings leaves it out of the API reference. An
attribute that has a docstring of its own keeps it.

``SphinxRoles``: the docstrings cross-reference with Sphinx roles (``:class:`Key```,
``:meth:`~hmodel.keys.Key.encode```), which Python's ``help()`` and editors show as they are
and Markdown would show as raw text. This extension turns each role into a cross-reference
of the site: the name is resolved as Python resolves it in the docstring's scope (the
object's members, its class's, its module's, the module's imports), and becomes a link to
that object's reference entry, rendered as code (``~`` shows the last part only, as in
Sphinx). A name the site does not document (a private helper) or that is not hmodel's (a
builtin such as ``int``) is rendered as code without a link. A name that resolves nowhere is
a typo: the extension logs a warning, which fails the strict build.
"""

from __future__ import annotations

import ast
import builtins
import html
import logging
import re
from collections.abc import Iterator
from typing import Any

import griffe

_log = logging.getLogger("mkdocs.plugins.hmodel.griffe")

#: A Sphinx role of the Python domain: ``:class:`~a.b.C```, ``:meth:`title <a.b.C.m>```.
ROLE = re.compile(
    r":(?:py:)?(?P<role>class|meth|func|attr|data|exc|mod|obj|const):"
    r"`(?P<body>[^`]+)`"
)
_TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.S)


def comment_docstring(lines: list[str], lineno: int) -> tuple[str, int] | None:
    """Return the ``#:`` comment block right above line ``lineno`` and its first line.

    Args:
        lines: The source file's lines.
        lineno: The 1-based line of the assignment.

    Returns:
        The comment's text (``#:`` and one following space removed from each line) and the
        1-based line it starts on, or None when the line above is not a ``#:`` comment at
        the assignment's indentation.
    """
    if not 1 < lineno <= len(lines):
        return None
    assignment = lines[lineno - 1]
    indent = assignment[: len(assignment) - len(assignment.lstrip())]
    start = lineno - 1  # 1-based number of the first comment line, once found
    while start > 1 and lines[start - 2].startswith(indent + "#:"):
        start -= 1
    if start == lineno - 1 and not lines[start - 1].startswith(indent + "#:"):
        return None
    block = [line[len(indent) + 2 :] for line in lines[start - 1 : lineno - 1]]
    text = "\n".join(line[1:] if line.startswith(" ") else line for line in block)
    return text.strip(), start


class CommentDocstrings(griffe.Extension):
    """Give each attribute without a docstring the ``#:`` comment block above it."""

    def on_attribute_instance(
        self, *, node: ast.AST | griffe.ObjectNode, attr: griffe.Attribute, **kwargs: Any
    ) -> None:
        """Set ``attr``'s docstring from the ``#:`` comments above its assignment."""
        if attr.docstring is not None or attr.lineno is None:
            return
        try:
            lines = attr.lines_collection[attr.filepath]  # type: ignore[index]
        except (KeyError, TypeError, AttributeError):
            return
        found = comment_docstring(lines, attr.lineno)
        if found is not None:
            text, start = found
            attr.docstring = griffe.Docstring(
                text, lineno=start, endlineno=attr.lineno - 1, parent=attr
            )


def resolve_role(scope: griffe.Object, name: str, root: str) -> str | None:
    """Return the dotted path ``name`` refers to from ``scope``, or None if it is not hmodel's.

    Args:
        scope: The object whose docstring holds the role (its members, then its parents'
            are searched, as Python's scoping would).
        name: The role's target without ``~``: ``save``, ``Key.encode``,
            ``hmodel.errors.DecodeError``, or ``.version`` (a module of the same package).
        root: The package's name (``hmodel``): a target starting with it is absolute.

    Returns:
        The path of the object, or None when the first part of the name is unknown in the
        scope (a builtin, a typo).
    """
    if name.startswith("."):  # relative to the module's package: :mod:`.version`
        module = scope if scope.is_module else scope.module
        package = module if module.is_package else module.parent
        return None if package is None else package.path + name
    first, dot, rest = name.partition(".")
    if first == root:
        return name
    # A member of the enclosing classes first, declared or inherited (griffe's resolve
    # looks at declared members only, and would find a module of the same name first).
    owner: griffe.Object | None = scope
    while owner is not None:
        if owner.is_class:
            try:
                member = owner.all_members.get(first)
            except griffe.AliasResolutionError:
                member = None
            if member is not None:
                return member.path + dot + rest
        owner = owner.parent
    try:
        return scope.resolve(first) + dot + rest
    except griffe.NameResolutionError:
        return None


def render_role(scope: griffe.Object, match: re.Match[str], root: str) -> str:
    """Return the HTML of one role: an optional cross-reference rendered as code."""
    body = match["body"].strip()
    titled = _TITLED.match(body)
    if titled:
        title, target = titled["title"], titled["target"].lstrip("~")
    else:
        target = body.lstrip("~").rstrip("()")
        title = target.rsplit(".", 1)[-1] if body.startswith("~") else body
    code = f"<code>{html.escape(title)}</code>"
    path = resolve_role(scope, target, root)
    if path is None:
        if target.split(".")[0] not in vars(builtins) and target.split(".")[0] not in _STDLIB:
            _log.warning("%s: the role %s names nothing in its scope", scope.path, match[0])
        return code
    # Optional: a target the site does not document (a private helper) renders as code.
    return f'<autoref identifier="{html.escape(path)}" optional>{code}</autoref>'


#: Standard-library modules the docstrings name in roles (not hmodel's, so never linked).
_STDLIB = frozenset(
    ["datetime", "decimal", "uuid", "typing", "collections", "logging", "threading", "time"]
)


def _objects(obj: griffe.Object) -> Iterator[griffe.Object]:
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)  # type: ignore[arg-type]


class SphinxRoles(griffe.Extension):
    """Turn the Sphinx roles of every docstring of the package into site cross-references."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Rewrite the roles of all the package's docstrings once it is loaded."""
        for obj in _objects(pkg):
            docstring = obj.docstring
            if docstring is None or ":" not in docstring.value:
                continue
            scope = obj.parent if obj.is_attribute and obj.parent is not None else obj

            def render(match: re.Match[str], scope: griffe.Object = scope) -> str:
                return render_role(scope, match, pkg.name)

            docstring.value = ROLE.sub(render, docstring.value)

    # griffe 1.x names the same event on_package_loaded.
    def on_package_loaded(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Rewrite the roles of all the package's docstrings once it is loaded (griffe 1)."""
        self.on_package(pkg=pkg, **kwargs)
