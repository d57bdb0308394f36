"""Where a declaration is written: ``file:line`` of a model class or a table assignment.

The advisor's findings carry it so that CI can annotate the line of a pull request
(``--output-format github``, ``sarif``, ``junit``), as ruff's do.
"""

from __future__ import annotations

import ast
import inspect
import sys
from functools import lru_cache

import attrs

from hmodel.schema import Table

__all__ = ["Location", "model_location", "table_location"]


@attrs.frozen
class Location:
    """A line of a source file.

    Attributes:
        file: The file's absolute path, as Python imported it.
        line: The line, counted from 1: a model's first decorator (``@model(...)``) or
            ``class`` line, a table's ``NAME = Table(...)`` line.
    """

    file: str
    line: int


def model_location(cls: type) -> Location | None:
    """Return where the model class ``cls`` is declared, or ``None`` without a source file."""
    try:
        file = inspect.getsourcefile(cls)
        _, line = inspect.getsourcelines(cls)
    except (OSError, TypeError):
        return None
    return None if file is None else Location(file, max(1, line))


@lru_cache(maxsize=256)
def _assignments(file: str) -> dict[str, int]:
    """The top-level ``NAME = ...`` lines of a source file, by name (first one wins)."""
    try:
        with open(file, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), file)
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return {}
    found: dict[str, int] = {}
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name):
                found.setdefault(target.id, node.lineno)
    return found


def table_location(table: Table) -> Location | None:
    """Return the line that assigns ``table`` to a top-level name of a loaded module.

    Every loaded module binding this very object is looked at (a module that imports
    the table binds it too, with ``from ... import``, which is not an assignment); the
    first whose source assigns the name is the declaration. ``None`` when no source
    says so (a table built in a function, or in a module without a source file).
    """
    for module in list(sys.modules.values()):
        names = [n for n, v in list(getattr(module, "__dict__", {}).items()) if v is table]
        file = getattr(module, "__file__", None) if names else None
        if not isinstance(file, str) or not file.endswith(".py"):
            continue
        lines = _assignments(file)
        for name in names:
            if name in lines:
                return Location(file, lines[name])
    return None
